/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Placeholders for mandatory verbs that are not implemented yet.
 */
#ifndef RVT_PENDING_H
#define RVT_PENDING_H

#include <rdma/ib_verbs.h>

extern const struct ib_device_ops rvt_pending_ops;

#endif /* RVT_PENDING_H */
