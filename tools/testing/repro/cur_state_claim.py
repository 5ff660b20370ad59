#!/usr/bin/env python3
"""Moves an RC QP from RESET straight to RTS by claiming (IB_QP_CUR_STATE)
that it is in RTR, then destroys it. Upstream's rvt_modify_qp() takes the
claim as the current state, so the QP reaches RTS without RESET->INIT:
never inserted into the QP table and with port_num 0, which
rvt_remove_qp() then uses as rdi->ports[port_num - 1]. A core that checks
the claim refuses the modify with EINVAL."""
import sys

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr


def main():
    ctx = Context(name=sys.argv[1])
    pd = PD(ctx)
    cq = CQ(ctx, 8)
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                           cap=QPCap(max_send_wr=4, max_recv_wr=4)))
    a = QPAttr(qp_state=e.IBV_QPS_RTS, cur_qp_state=e.IBV_QPS_RTR)
    a.sq_psn, a.timeout, a.retry_cnt, a.rnr_retry, a.max_rd_atomic = \
        1, 14, 7, 7, 1
    mask = (e.IBV_QP_STATE | e.IBV_QP_CUR_STATE | e.IBV_QP_SQ_PSN |
            e.IBV_QP_TIMEOUT | e.IBV_QP_RETRY_CNT | e.IBV_QP_RNR_RETRY |
            e.IBV_QP_MAX_QP_RD_ATOMIC)
    try:
        qp.modify(a, mask)
    except PyverbsRDMAError as err:
        print(f"modify RESET->RTS claiming RTR: errno {err.error_code}")
    else:
        state = qp.query(e.IBV_QP_STATE | e.IBV_QP_PORT)[0]
        print(f"modify RESET->RTS claiming RTR: ok, state {state.qp_state}"
              f" port {state.port_num}")
    qp.close()
    print("destroyed")
    ctx.close()


if __name__ == "__main__":
    main()
