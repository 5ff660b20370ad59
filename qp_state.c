// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What each QP state allows: the table every path that posts or
 * processes work requests consults, ours (post_send, post_recv, the
 * receive side, loopback) and the drivers' (rdmavt_qp.h declares it).
 * It depends on nothing, so that the queue files below the QP's life
 * (qp.c) can read it too.
 */
#include "qp_exports.h"

/*
 * Sends may be posted in SQE and ERR: the send engine completes them with
 * a flush error, as IBTA C10-96 wants.
 */
const int ib_rvt_state_ops[IB_QPS_ERR + 1] = {
	[IB_QPS_RESET] = 0,
	[IB_QPS_INIT] = RVT_POST_RECV_OK,
	[IB_QPS_RTR] = RVT_POST_RECV_OK | RVT_PROCESS_RECV_OK,
	[IB_QPS_RTS] = RVT_POST_RECV_OK | RVT_PROCESS_RECV_OK |
		       RVT_POST_SEND_OK | RVT_PROCESS_SEND_OK |
		       RVT_PROCESS_NEXT_SEND_OK,
	/* SQD finishes the request in progress but starts no new one. */
	[IB_QPS_SQD] = RVT_POST_RECV_OK | RVT_PROCESS_RECV_OK |
		       RVT_POST_SEND_OK | RVT_PROCESS_SEND_OK,
	[IB_QPS_SQE] = RVT_POST_RECV_OK | RVT_PROCESS_RECV_OK |
		       RVT_POST_SEND_OK | RVT_FLUSH_SEND,
	[IB_QPS_ERR] = RVT_POST_RECV_OK | RVT_FLUSH_RECV |
		       RVT_POST_SEND_OK | RVT_FLUSH_SEND,
};
EXPORT_SYMBOL(ib_rvt_state_ops);
