// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The work requests rvtsw accepts, per QP type, and the completion opcode
 * each one reports.
 */
#include "rvtsw.h"

#define RVTSW_CONNECTED (BIT(IB_QPT_RC) | BIT(IB_QPT_UC))
#define RVTSW_DATAGRAM (BIT(IB_QPT_UD) | BIT(IB_QPT_SMI) | BIT(IB_QPT_GSI))

/* Indexed by enum ib_wr_opcode; rdmavt refuses an entry left empty. */
const struct rvt_operation_params rvtsw_post_parms[RVT_OPERATION_MAX] = {
	[IB_WR_SEND] = {
		.length = sizeof(struct ib_send_wr),
		.qpt_support = RVTSW_CONNECTED | RVTSW_DATAGRAM,
	},
	[IB_WR_SEND_WITH_IMM] = {
		.length = sizeof(struct ib_send_wr),
		.qpt_support = RVTSW_CONNECTED | RVTSW_DATAGRAM,
	},
	[IB_WR_SEND_WITH_INV] = {
		.length = sizeof(struct ib_send_wr),
		.qpt_support = BIT(IB_QPT_RC),
	},
	[IB_WR_RDMA_WRITE] = {
		.length = sizeof(struct ib_rdma_wr),
		.qpt_support = RVTSW_CONNECTED,
	},
	[IB_WR_RDMA_WRITE_WITH_IMM] = {
		.length = sizeof(struct ib_rdma_wr),
		.qpt_support = RVTSW_CONNECTED,
	},
	[IB_WR_RDMA_READ] = {
		.length = sizeof(struct ib_rdma_wr),
		.qpt_support = BIT(IB_QPT_RC),
		.flags = RVT_OPERATION_ATOMIC,
	},
	[IB_WR_ATOMIC_CMP_AND_SWP] = {
		.length = sizeof(struct ib_atomic_wr),
		.qpt_support = BIT(IB_QPT_RC),
		.flags = RVT_OPERATION_ATOMIC | RVT_OPERATION_ATOMIC_SGE,
	},
	[IB_WR_ATOMIC_FETCH_AND_ADD] = {
		.length = sizeof(struct ib_atomic_wr),
		.qpt_support = BIT(IB_QPT_RC),
		.flags = RVT_OPERATION_ATOMIC | RVT_OPERATION_ATOMIC_SGE,
	},
	[IB_WR_LOCAL_INV] = {
		.length = sizeof(struct ib_send_wr),
		.qpt_support = RVTSW_CONNECTED,
		.flags = RVT_OPERATION_LOCAL,
	},
	[IB_WR_REG_MR] = {
		.length = sizeof(struct ib_reg_wr),
		.qpt_support = RVTSW_CONNECTED,
		.flags = RVT_OPERATION_LOCAL,
	},
};

/* Indexed by enum ib_wr_opcode, as rdmavt's rvt_send_complete() uses it. */
const enum ib_wc_opcode rvtsw_wc_opcode[] = {
	[IB_WR_RDMA_WRITE] = IB_WC_RDMA_WRITE,
	[IB_WR_RDMA_WRITE_WITH_IMM] = IB_WC_RDMA_WRITE,
	[IB_WR_SEND] = IB_WC_SEND,
	[IB_WR_SEND_WITH_IMM] = IB_WC_SEND,
	[IB_WR_RDMA_READ] = IB_WC_RDMA_READ,
	[IB_WR_ATOMIC_CMP_AND_SWP] = IB_WC_COMP_SWAP,
	[IB_WR_ATOMIC_FETCH_AND_ADD] = IB_WC_FETCH_ADD,
	[IB_WR_SEND_WITH_INV] = IB_WC_SEND,
	[IB_WR_LOCAL_INV] = IB_WC_LOCAL_INV,
	[IB_WR_REG_MR] = IB_WC_REG_MR,
};
