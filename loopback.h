/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The RC/UC loopback engine, shared between loopback.c (the requester:
 * which request runs, how it completes, RNR and retry waits) and
 * loopback_ops.c (the responder's side of each opcode class).
 *
 * Only declares functions and a private type that no public type points
 * to: loopback.c's export keeps its CRC.
 */
#ifndef RVT_LOOPBACK_H
#define RVT_LOOPBACK_H

#include <rdma/rdma_vt.h>
#include <rdma/rdmavt_qp.h>

/**
 * enum rvt_lb_outcome - what became of a request at the responder
 * @RVT_LB_DONE: it is finished: complete it with send_status
 * @RVT_LB_RNR: an RC responder had no receive request for it (RNR NAK)
 * @RVT_LB_LOST: no RC responder took it (no such QP, or one of another
 *		 type or in a state that drops packets): as on a wire, the
 *		 requester hears nothing and retries after its timeout
 */
enum rvt_lb_outcome {
	RVT_LB_DONE,
	RVT_LB_RNR,
	RVT_LB_LOST,
};

/**
 * struct rvt_lb - one request carried from a requester to its responder
 * @sqp: the requester, whose send engine runs (RVT_S_BUSY held)
 * @rqp: the responder, referenced, with its r_lock held while it works
 * @wqe: the request, the entry at sqp->s_last
 * @send_status: the requester's completion status, with RVT_LB_DONE
 * @rnr_timer: the responder's RNR NAK timer code, with RVT_LB_RNR
 */
struct rvt_lb {
	struct rvt_qp *sqp;
	struct rvt_qp *rqp;
	struct rvt_swqe *wqe;
	enum ib_wc_status send_status;
	u8 rnr_timer;
};

enum rvt_lb_outcome rvt_lb_respond(struct rvt_lb *lb);

#endif /* RVT_LOOPBACK_H */
