"""A process scribbling on its mapped receive rings: one test per reader.

The kernel reads a user receive ring's head and tail in four places: when
it takes a request for an incoming message (rvt_get_rwqe), when it
flushes or discards the ring (error and reset), when an SRQ is resized,
and when an RC ACK counts the credits it advertises. The policy (rq.h):
an index out of range makes the ring count as empty, until the process
puts valid indices back. Each test breaks a ring, checks what that
reader does, repairs the ring and checks that the queue works again.

Usage: ring_test.py TEST, with TEST one of
  rwqe-rc       an RC message meets the broken ring: RNR NAKs, delivered
                once the head is repaired
  rwqe-ud       a datagram meets it (head, then tail broken): dropped, no
                slot taken; the next one after the repair is received
  rwqe-srq      a broken SRQ ring: RNR NAKs for its QP, delivered after
                the repair
  flush         ERR with a broken tail flushes nothing, reset discards
                nothing; the ring is left as the process wrote it
  srq-resize    resizing an SRQ with a broken ring is refused (EINVAL),
                then works after the repair, the requests kept
  credits       an RC ACK advertises no credits from a broken ring, the
                right count again after the repair (rvt_credit_probe.ko)
All run on rvtsw_0, port 1.
"""
import errno
import os
import subprocess
import sys
import time

from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QPAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import SGE
import pyverbs.enums as e

from dgram_test import Port, Qp
from dp_user_test import (ALL, Pair, Ring, expect, quiet, recv, send,
                          uverbs_maps)
from verbs_checks import check, expect_errno

DEV = "rvtsw_0"
# An index no ring of these tests reaches.
BAD = 0x7fffffff
PROBE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                     "kmod", "rvt_credit_probe.ko")


def newest_ring(before):
    """The uverbs mapping created since `before` with the highest cookie:
    cookies only grow, and each test creates its ring last."""
    new = {start: off for start, (_, off) in uverbs_maps().items()
           if start not in before}
    check(new, "no new uverbs mapping")
    return Ring(max(new, key=new.get))


def rc_pair(ctx, pd, srq=None):
    """An RC pair whose responder b retries RNR forever; b's ring (or the
    SRQ's, given as the newest mapping before the pair) is returned."""
    before = uverbs_maps()
    p = Pair(ctx, pd, srq=srq, rnr_retry=7, min_rnr_timer=1, max_recv_wr=8)
    return p, None if srq else newest_ring(before)


def srq_pair(ctx, pd):
    """An SRQ of 4 requests, its ring, and an RC pair (rc_pair) whose
    responder takes its requests from it."""
    before = uverbs_maps()
    srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=4, max_sge=1)))
    ring = newest_ring(before)
    p, _ = rc_pair(ctx, pd, srq=srq)
    return srq, ring, p


def rnr_until_repaired(p, rq, ring, mr, recv_id, send_id, what):
    """Post request recv_id on rq (p.b or its SRQ) and send message
    send_id from p.a while ring's head is out of range: no completion on
    either side (RNR NAKs); once the head is back, both complete. what
    names the ring in the failure (62-hostile-ring matches it)."""
    recv(rq, recv_id, [SGE(mr.buf + 1024, 64, mr.lkey)])
    head = ring.head.value
    ring.head.value = BAD
    send(p.a, send_id, e.IBV_WR_SEND, [SGE(mr.buf, 64, mr.lkey)])
    check(quiet(p.cq_a, 0.5) and quiet(p.cq_b, 0.01),
          f"a completion while the {what} is broken")
    ring.head.value = head
    expect(p.cq_b, recv_id, opcode=e.IBV_WC_RECV)
    expect(p.cq_a, send_id)


def test_rwqe_rc(ctx, pd):
    mr = MR(pd, 4096, ALL)
    p, ring = rc_pair(ctx, pd)
    try:
        rnr_until_repaired(p, p.b, ring, mr, 8, 2, "ring")
    finally:
        p.close()
        mr.close()
    print("head out of range: RNR until repaired, then delivered")


def test_rwqe_ud(ctx, pd):
    port = Port(f"{DEV}:1")
    before = uverbs_maps()
    rx = Qp(port)
    ring = newest_ring(before)
    tx = Qp(port)
    ah = port.ah(port.lid)

    def datagram(what):
        tx.send(ah, rx.num, what.encode())
        time.sleep(0.1)
        return rx.received()

    rx.post_recv(wr_id=1)
    wcs = datagram("first")
    check([w.wr_id for w in wcs] == [1], f"first: {wcs}")
    rx.post_recv(wr_id=2)
    for index, name in ((0, "head"), (1, "tail")):
        idx = (ring.head, ring.tail)[index]
        saved = idx.value
        idx.value = BAD
        wcs = datagram(f"{name} broken")
        check(not wcs, f"{name} out of range: received "
              f"{[(w.wr_id, w.status) for w in wcs]}, want nothing")
        idx.value = saved
    wcs = datagram("repaired")
    check([(w.wr_id, w.status) for w in wcs] == [(2, e.IBV_WC_SUCCESS)],
          f"after the repair: {[(w.wr_id, w.status) for w in wcs]}")
    print("head or tail out of range: datagrams dropped, no slot taken "
          "(slot 0's old request not taken again); request 2 after repair")


def test_rwqe_srq(ctx, pd):
    mr = MR(pd, 4096, ALL)
    srq, ring, p = srq_pair(ctx, pd)
    try:
        rnr_until_repaired(p, srq, ring, mr, 5, 3, "SRQ ring")
    finally:
        p.close()
        srq.close()
        mr.close()
    print("SRQ head out of range: RNR until repaired, then delivered")


def test_flush(ctx, pd):
    mr = MR(pd, 4096, ALL)
    p, ring = rc_pair(ctx, pd)
    sge = [SGE(mr.buf, 64, mr.lkey)]
    try:
        # Two requests taken (tail 2), one still posted (13).
        for i in (11, 12):
            recv(p.b, i, [SGE(mr.buf + 1024, 64, mr.lkey)])
            send(p.a, i, e.IBV_WR_SEND, sge)
            expect(p.cq_b, i, opcode=e.IBV_WC_RECV)
            expect(p.cq_a, i)
        recv(p.b, 13, [SGE(mr.buf + 1024, 64, mr.lkey)])
        check((ring.head.value, ring.tail.value) == (3, 2),
              f"ring at {ring.head.value}/{ring.tail.value}, want 3/2")
        ring.tail.value = BAD
        p.b.modify(QPAttr(qp_state=e.IBV_QPS_ERR), e.IBV_QP_STATE)
        time.sleep(0.3)
        _, wcs = p.cq_b.poll(8)
        check(not wcs, "flush of a broken ring completed "
              f"{[(w.wr_id, w.status) for w in wcs]}, want nothing")
        p.b.modify(QPAttr(qp_state=e.IBV_QPS_RESET), e.IBV_QP_STATE)
        check((ring.head.value, ring.tail.value) == (3, BAD),
              f"ring rewritten to {ring.head.value}/{ring.tail.value}")
    finally:
        p.close()
        mr.close()
    print("tail out of range: ERR flushed nothing (not 11 and 12 again), "
          "reset discarded nothing, the ring kept as written")


def test_srq_resize(ctx, pd):
    mr = MR(pd, 4096, ALL)
    srq, ring, p = srq_pair(ctx, pd)
    try:
        for i in (21, 22):
            recv(srq, i, [SGE(mr.buf + 1024, 64, mr.lkey)])
        head = ring.head.value
        ring.head.value = BAD
        expect_errno(errno.EINVAL, "resize of a broken ring", srq.modify,
                     SrqAttr(max_wr=8), e.IBV_SRQ_MAX_WR)
        ring.head.value = head
        srq.modify(SrqAttr(max_wr=8), e.IBV_SRQ_MAX_WR)
        check(srq.query().max_wr == 8, "max_wr after the repaired resize")
        for i in (21, 22):
            send(p.a, i, e.IBV_WR_SEND, [SGE(mr.buf, 64, mr.lkey)])
            expect(p.cq_b, i, opcode=e.IBV_WC_RECV)
            expect(p.cq_a, i)
    finally:
        p.close()
        srq.close()
        mr.close()
    print("resize with head out of range: EINVAL; after the repair the "
          "resize keeps requests 21 and 22")


def credit_code(qpn):
    """The AETH credit code rdmavt computes for QP qpn."""
    subprocess.run(["insmod", PROBE, f"dev={DEV}", f"qpn={qpn}"],
                   check=True)
    try:
        with open("/sys/kernel/debug/rvt_credit_probe/credit_code") as f:
            return int(f.read())
    finally:
        subprocess.run(["rmmod", "rvt_credit_probe"], check=True)


def test_credits(ctx, pd):
    mr = MR(pd, 4096, ALL)
    p, ring = rc_pair(ctx, pd)
    try:
        for i in range(6):
            recv(p.b, i, [SGE(mr.buf + 1024, 64, mr.lkey)])
        # 6 requests: the code for 6 credits (IBTA table 45) is 5.
        check(credit_code(p.b.qp_num) == 5, "credit code with 6 posted")
        for index, name in ((0, "head"), (1, "tail")):
            idx = (ring.head, ring.tail)[index]
            saved = idx.value
            idx.value = BAD
            code = credit_code(p.b.qp_num)
            idx.value = saved
            check(code == 0, f"{name} out of range: credit code {code}, "
                  "want 0")
        check(credit_code(p.b.qp_num) == 5, "credit code after the repair")
    finally:
        p.close()
        mr.close()
    print("6 requests: code 5; head or tail out of range: code 0; "
          "repaired: code 5")


TESTS = {
    "rwqe-rc": test_rwqe_rc,
    "rwqe-ud": test_rwqe_ud,
    "rwqe-srq": test_rwqe_srq,
    "flush": test_flush,
    "srq-resize": test_srq_resize,
    "credits": test_credits,
}


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in TESTS:
        raise SystemExit(__doc__)
    with Context(name=DEV) as ctx:
        with PD(ctx) as pd:
            TESTS[sys.argv[1]](ctx, pd)


if __name__ == "__main__":
    main()
