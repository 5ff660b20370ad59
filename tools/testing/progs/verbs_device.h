/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What the libibverbs test programs here share; each is built on its own,
 * one compiler run per program (Makefile), so this is a header of static
 * inline functions.
 */
#ifndef VERBS_DEVICE_H
#define VERBS_DEVICE_H

#include <string.h>
#include <infiniband/verbs.h>

/* The RDMA device named @name, opened; NULL if there is none or it fails. */
static inline struct ibv_context *open_named_device(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

#endif /* VERBS_DEVICE_H */
