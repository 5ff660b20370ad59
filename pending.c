// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Verbs that the IB core requires of every device but that this core does
 * not implement yet. Each answers -EOPNOTSUPP so that the device registers
 * and userspace gets a clear errno; the data-path work replaces them, and
 * this file goes away with the last of them.
 */
#include <rdma/rdmavt_qp.h>
#include "vt.h"
#include "pending.h"

static int rvt_pending_post_send(struct ib_qp *ibqp,
				 const struct ib_send_wr *wr,
				 const struct ib_send_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

/*
 * Applied after the implemented verbs with the IB core's fill-if-empty
 * rule, so a real implementation (ours or the driver's) always wins.
 */
const struct ib_device_ops rvt_pending_ops = {
	.post_send = rvt_pending_post_send,
};
