/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What the libibverbs test programs here and in ../repro share; each is
 * built on its own, one compiler run per program (Makefile), so this is a
 * header of static inline functions.
 */
#ifndef VERBS_DEVICE_H
#define VERBS_DEVICE_H

#include <stdio.h>
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

/*
 * A QP of @type in RESET, one request and one SGE each way, on a PD and
 * a CQ of its own on the device named @name (the repro programs' whole
 * setup). NULL, with a message, if a step fails.
 */
static inline struct ibv_qp *reset_qp_on(const char *name,
					 enum ibv_qp_type type)
{
	struct ibv_qp_init_attr init = { .qp_type = type,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_context *ctx = open_named_device(name);
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	if (!ctx) {
		fprintf(stderr, "%s: no such RDMA device\n", name);
		return NULL;
	}
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
	init.send_cq = cq;
	init.recv_cq = cq;
	qp = cq ? ibv_create_qp(pd, &init) : NULL;
	if (!qp)
		perror("PD, CQ or QP");
	return qp;
}

#endif /* VERBS_DEVICE_H */
