/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Posting send work requests (qp_send.c). Only declares functions: it is
 * included by files whose exports' CRCs must not change.
 */
#ifndef RVT_POST_H
#define RVT_POST_H

#include <rdma/ib_verbs.h>

int rvt_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr);

#endif /* RVT_POST_H */
