"""The data path from userspace, through rdma-core's ipathverbs provider.

Usage: dp_user_test.py DEVICE TEST, with TEST one of
  rc-ops      SEND, RDMA WRITE, RDMA READ and the atomics between two RC
              QPs, on user MRs spanning several pages; data checked
  errors      requests refused when posted (errno), remote errors
              (completion status), RNR with rnr_retry 0
  srq         a user SRQ: resize (the provider maps the new ring at the
              offset the kernel writes back) keeps the posted requests in
              order; the limit event
  srq-shared  one SRQ behind four RC QPs: messages from all four
              requesters, interleaved, take its requests in posting order
  hostile-rq  garbage written by the process into its mapped receive ring
              (an SGE count beyond the ring's, indices out of range) gets
              an error completion or counts as an empty ring
"""
import ctypes
import errno
import sys
import threading
import time

from pyverbs.addr import AHAttr
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import RecvWR, SendWR, SGE
import pyverbs.enums as e

from verbs_checks import check, expect_errno

ALL = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
       e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)
TIMEOUT = 10.0


def poll(cq, n=1):
    """Return n completions, whatever their status."""
    wcs = []
    end = time.monotonic() + TIMEOUT
    while len(wcs) < n and time.monotonic() < end:
        _, got = cq.poll(n - len(wcs))
        wcs.extend(got)
        if not got:
            time.sleep(0.001)
    check(len(wcs) == n, f"{len(wcs)} of {n} completions")
    return wcs


def expect(cq, wr_id, status=e.IBV_WC_SUCCESS, opcode=None):
    wc = poll(cq)[0]
    check(wc.wr_id == wr_id and wc.status == status,
          f"completion {wc.wr_id:#x} status {wc.status}, "
          f"want {wr_id:#x} status {status}")
    if opcode is not None:
        check(wc.opcode == opcode, f"opcode {wc.opcode}, want {opcode}")
    return wc


def quiet(cq, secs=0.1):
    """The CQ stays empty for a while."""
    time.sleep(secs)
    n, _ = cq.poll(1)
    return n == 0


def pattern(n, seed):
    return bytes((seed + 7 * i) & 0xff for i in range(n))


class Pair:
    """Two connected QPs on one device: requester a, responder b."""

    def __init__(self, ctx, pd, qp_type=e.IBV_QPT_RC, srq=None, rnr_retry=7,
                 b_access=ALL, min_rnr_timer=12, max_recv_wr=16):
        self.cq_a = CQ(ctx, 64)
        self.cq_b = CQ(ctx, 64)
        cap = QPCap(max_send_wr=32, max_recv_wr=max_recv_wr, max_send_sge=4,
                    max_recv_sge=1 if srq is None else 0)
        self.a = QP(pd, QPInitAttr(qp_type=qp_type, scq=self.cq_a,
                                   rcq=self.cq_a, cap=cap))
        self.b = QP(pd, QPInitAttr(qp_type=qp_type, scq=self.cq_b,
                                   rcq=self.cq_b, srq=srq, cap=cap))
        lid = ctx.query_port(1).lid
        for qp, peer, access in ((self.a, self.b, ALL),
                                 (self.b, self.a, b_access)):
            attr = QPAttr(port_num=1)
            attr.qp_access_flags = access
            attr.path_mtu = e.IBV_MTU_1024
            attr.dest_qp_num = peer.qp_num
            attr.rq_psn = attr.sq_psn = 0
            attr.max_dest_rd_atomic = attr.max_rd_atomic = 4
            attr.min_rnr_timer = min_rnr_timer
            attr.timeout = 14
            attr.retry_cnt = 7
            attr.rnr_retry = rnr_retry
            attr.ah_attr = AHAttr(port_num=1, dlid=lid, is_global=0)
            qp.to_init(attr)
            qp.to_rtr(attr)
            qp.to_rts(attr)

    def close(self):
        for obj in (self.a, self.b, self.cq_a, self.cq_b):
            obj.close()


def send(qp, wr_id, opcode, sges, rkey=None, addr=None, imm=None):
    wr = SendWR(wr_id=wr_id, opcode=opcode, num_sge=len(sges), sg=sges,
                send_flags=e.IBV_SEND_SIGNALED)
    if rkey is not None:
        wr.set_wr_rdma(rkey, addr)
    if imm is not None:
        wr.imm_data = imm
    qp.post_send(wr)


def recv(q, wr_id, sges):
    q.post_recv(RecvWR(wr_id=wr_id, num_sge=len(sges), sg=sges))


def test_rc_ops(ctx, pd):
    size = 5 * 4096
    la, lb = MR(pd, size, ALL), MR(pd, size, ALL)
    p = Pair(ctx, pd)
    try:
        data = pattern(size, 1)
        la.write(data, size, 0)
        # SEND across pages, gathered from two SGEs.
        recv(p.b, 1, [SGE(lb.buf + 10, 12000, lb.lkey)])
        send(p.a, 2, e.IBV_WR_SEND, [SGE(la.buf + 1, 5000, la.lkey),
                                     SGE(la.buf + 6000, 7000, la.lkey)])
        expect(p.cq_a, 2, opcode=e.IBV_WC_SEND)
        wc = expect(p.cq_b, 1, opcode=e.IBV_WC_RECV)
        check(wc.byte_len == 12000 and wc.src_qp == p.a.qp_num, "recv wc")
        got = lb.read(12000, 10)
        check(got == data[1:5001] + data[6000:13000], "SEND data")
        # RDMA WRITE at an odd offset, then READ it back elsewhere.
        send(p.a, 3, e.IBV_WR_RDMA_WRITE, [SGE(la.buf, 9000, la.lkey)],
             lb.rkey, lb.buf + 4000)
        expect(p.cq_a, 3, opcode=e.IBV_WC_RDMA_WRITE)
        check(lb.read(9000, 4000) == data[:9000], "WRITE data")
        send(p.a, 4, e.IBV_WR_RDMA_READ,
             [SGE(la.buf + 12000, 7000, la.lkey)], lb.rkey, lb.buf + 5000)
        wc = expect(p.cq_a, 4, opcode=e.IBV_WC_RDMA_READ)
        check(la.read(7000, 12000) == data[1000:8000], "READ data")
        check(quiet(p.cq_b), "one-sided operations completed on the peer")
        # Atomics on an 8-byte word of the peer's MR.
        lb.write((41).to_bytes(8, "little"), 8, 64)
        wr = SendWR(wr_id=5, opcode=e.IBV_WR_ATOMIC_FETCH_AND_ADD, num_sge=1,
                    sg=[SGE(la.buf + 128, 8, la.lkey)],
                    send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_atomic(rkey=lb.rkey, addr=lb.buf + 64, compare_add=1,
                         swap=0)
        p.a.post_send(wr)
        expect(p.cq_a, 5, opcode=e.IBV_WC_FETCH_ADD)
        check(int.from_bytes(la.read(8, 128), "little") == 41, "fetch_add")
        check(int.from_bytes(lb.read(8, 64), "little") == 42, "add")
        wr = SendWR(wr_id=6, opcode=e.IBV_WR_ATOMIC_CMP_AND_SWP, num_sge=1,
                    sg=[SGE(la.buf + 128, 8, la.lkey)],
                    send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_atomic(rkey=lb.rkey, addr=lb.buf + 64, compare_add=42,
                         swap=7)
        p.a.post_send(wr)
        expect(p.cq_a, 6, opcode=e.IBV_WC_COMP_SWAP)
        check(int.from_bytes(lb.read(8, 64), "little") == 7, "cmp_swap")
    finally:
        p.close()
        la.close()
        lb.close()
    print("SEND, WRITE, READ, FETCH_ADD, CMP_SWAP: data as expected")


def test_errors(ctx, pd):
    mr = MR(pd, 8192, ALL)
    ro = MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_READ)
    p = Pair(ctx, pd)
    try:
        bad = SGE(mr.buf, 8, mr.lkey ^ 0x100)
        expect_errno(errno.EINVAL, "bad lkey", send, p.a, 1,
                     e.IBV_WR_SEND, [bad])
        oob = SGE(mr.buf + 8190, 20, mr.lkey)
        expect_errno(errno.EINVAL, "SGE past the MR", send, p.a, 2,
                     e.IBV_WR_SEND, [oob])
        check(quiet(p.cq_a), "a refused request completed")
        # The peer's MR does not allow remote writes.
        send(p.a, 3, e.IBV_WR_RDMA_WRITE, [SGE(mr.buf, 16, mr.lkey)],
             ro.rkey, ro.buf)
        expect(p.cq_a, 3, e.IBV_WC_REM_ACCESS_ERR)
        check(p.a.query(e.IBV_QP_STATE)[0].qp_state == e.IBV_QPS_ERR,
              "requester not in ERR")
    finally:
        p.close()
    p = Pair(ctx, pd, rnr_retry=0, min_rnr_timer=1)
    try:
        send(p.a, 4, e.IBV_WR_SEND, [SGE(mr.buf, 16, mr.lkey)])
        expect(p.cq_a, 4, e.IBV_WC_RNR_RETRY_EXC_ERR)
    finally:
        p.close()
        mr.close()
        ro.close()
    print("bad lkey and SGE past the MR refused with EINVAL; "
          "remote access error; RNR retries exceeded")


def async_event(ctx, want):
    """Wait for the context's next asynchronous event."""
    got = []

    def reader():
        ev = ctx.get_async_event()
        got.append(ev.event_type)
        ev.ack()

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    thread.join(TIMEOUT)
    check(got == [want], f"async events {got}, want {want}")


def test_srq(ctx, pd):
    mr = MR(pd, 64 * 64, ALL)
    srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=4, max_sge=1)))
    p = Pair(ctx, pd, srq=srq)
    try:
        def post(first, n):
            for i in range(first, first + n):
                recv(srq, i, [SGE(mr.buf + 64 * i, 64, mr.lkey)])

        def traffic(first, n):
            for i in range(first, first + n):
                mr.write(pattern(64, i), 64, 0)
                send(p.a, 1000 + i, e.IBV_WR_SEND,
                     [SGE(mr.buf, 64, mr.lkey)])
                expect(p.cq_a, 1000 + i)
                expect(p.cq_b, i, opcode=e.IBV_WC_RECV)
                check(mr.read(64, 64 * i) == pattern(64, i), f"data {i}")

        post(1, 3)
        srq.modify(SrqAttr(max_wr=40), e.IBV_SRQ_MAX_WR)
        check(srq.query().max_wr == 40, "max_wr after resize")
        post(4, 30)
        traffic(1, 33)
        srq.modify(SrqAttr(srq_limit=5), e.IBV_SRQ_LIMIT)
        post(40, 6)
        traffic(40, 1)
        check(srq.query().srq_limit == 5, "armed limit")
        traffic(41, 1)
        async_event(ctx, e.IBV_EVENT_SRQ_LIMIT_REACHED)
        check(srq.query().srq_limit == 0, "limit not disarmed")
    finally:
        p.close()
        srq.close()
        mr.close()
    print("SRQ resized from 4 to 40 with 3 requests posted: 33 messages "
          "in order; limit event once below 5")


def test_srq_shared(ctx, pd):
    nqp, rounds = 4, 8
    mr = MR(pd, 64 * nqp * rounds, ALL)
    src = MR(pd, 64 * nqp, ALL)
    srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=nqp * rounds, max_sge=1)))
    pairs = []
    try:
        for _ in range(nqp):
            pairs.append(Pair(ctx, pd, srq=srq))
        for i in range(nqp * rounds):
            recv(srq, i, [SGE(mr.buf + 64 * i, 64, mr.lkey)])
        for i in range(nqp * rounds):
            p = pairs[i % nqp]
            src.write(pattern(64, i), 64, 64 * (i % nqp))
            send(p.a, 1000 + i, e.IBV_WR_SEND,
                 [SGE(src.buf + 64 * (i % nqp), 64, src.lkey)])
            expect(p.cq_a, 1000 + i)
            wc = expect(p.cq_b, i, opcode=e.IBV_WC_RECV)
            check(wc.qp_num == p.b.qp_num, f"message {i} on QP {wc.qp_num}")
            check(mr.read(64, 64 * i) == pattern(64, i), f"data {i}")
    finally:
        for p in pairs:
            p.close()
        srq.close()
        src.close()
        mr.close()
    print(f"{nqp * rounds} messages from {nqp} QPs, round robin, took the "
          "shared SRQ's requests in order")


def uverbs_maps():
    """The process's mappings of the uverbs device: {start: (end, off)}."""
    maps = {}
    with open("/proc/self/maps") as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 6 and "/dev/infiniband/uverbs" in fields[5]:
                start, end = (int(x, 16) for x in fields[0].split("-"))
                maps[start] = (end, int(fields[2], 16))
    return maps


class Ring:
    """A receive ring the provider mapped: struct rvt_rwq, max_sge 1."""
    STRIDE = 16 + 16

    def __init__(self, addr):
        self.addr = addr

    def u32(self, off):
        return ctypes.c_uint32.from_address(self.addr + off)

    @property
    def head(self):
        return self.u32(0)

    @property
    def tail(self):
        return self.u32(4)

    def num_sge(self, index):
        return ctypes.c_uint8.from_address(self.addr + 8 +
                                           index * self.STRIDE + 8)


def hostile_pair(ctx, pd):
    """A pair whose responder's receive ring is found in our mappings."""
    before = uverbs_maps()
    p = Pair(ctx, pd, rnr_retry=0, min_rnr_timer=1, max_recv_wr=4)
    new = {start: off for start, (_, off) in uverbs_maps().items()
           if start not in before}
    # Two CQ rings, then a's and b's receive rings: cookies only grow.
    check(len(new) == 4, f"{len(new)} new uverbs mappings, want 4")
    return p, Ring(max(new, key=new.get))


def test_hostile_rq(ctx, pd):
    mr = MR(pd, 4096, ALL)
    sge = SGE(mr.buf, 64, mr.lkey)
    results = []
    # An SGE count beyond the ring's: the receive fails, the sender learns.
    p, ring = hostile_pair(ctx, pd)
    try:
        recv(p.b, 7, [SGE(mr.buf + 1024, 64, mr.lkey)])
        check(ring.head.value == 1, "ring head after one post")
        ring.num_sge(0).value = 200
        send(p.a, 1, e.IBV_WR_SEND, [sge])
        expect(p.cq_b, 7, e.IBV_WC_LOC_QP_OP_ERR)
        expect(p.cq_a, 1, e.IBV_WC_REM_OP_ERR)
        results.append("num_sge 200: receive LOC_QP_OP_ERR")
    finally:
        p.close()
    # Indices out of range: the ring counts as empty (RNR).
    for what, index in (("head", 0), ("tail", 1)):
        p, ring = hostile_pair(ctx, pd)
        try:
            recv(p.b, 8, [SGE(mr.buf + 1024, 64, mr.lkey)])
            (ring.head, ring.tail)[index].value = 0x7fffffff
            send(p.a, 2, e.IBV_WR_SEND, [sge])
            expect(p.cq_a, 2, e.IBV_WC_RNR_RETRY_EXC_ERR)
            results.append(f"{what} out of range: ring empty")
        finally:
            p.close()
    mr.close()
    print("; ".join(results))


TESTS = {
    "rc-ops": test_rc_ops,
    "errors": test_errors,
    "srq": test_srq,
    "srq-shared": test_srq_shared,
    "hostile-rq": test_hostile_rq,
}


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in TESTS:
        raise SystemExit(__doc__)
    with Context(name=sys.argv[1]) as ctx:
        with PD(ctx) as pd:
            TESTS[sys.argv[2]](ctx, pd)


if __name__ == "__main__":
    main()
