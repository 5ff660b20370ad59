"""Datagram (UD) delivery by rvtsw, and connected sends that cannot arrive.

Usage: dgram_test.py CASE...

Runs the named cases in one process (starting pyverbs is slow under
TCG), each between lines "--- CASE name" and "--- RESULT name PASS" (or
"FAIL: why"); exits non-zero if any failed. rvtsw must be loaded with
devices=2 ports=2 extra_pkey=0x8001. The cases:

  deliver      payload, byte_len (+40), work completion fields, immediate
               data, the 40 bytes a receive without GRH leaves untouched
  grh          an AH with a GRH puts a well-formed GRH in the receive buffer
  qkey         a wrong Q_Key is dropped and counted; the QP's Q_Key is used
               when the request's has its high bit set
  pkey         a P_Key of another partition (0x8001) is dropped and counted
  oversize     a datagram larger than the path MTU fails at post (EINVAL)
  unknown-lid  a DLID no port owns is dropped and counted; a multicast DLID
               without GRH is refused at AH creation
  no-qp        a QPN nobody has is dropped and counted
  no-recv      no receive posted: dropped and counted; delivered once posted
  too-small    a receive too small: dropped, counted, and kept for the next
  lost-rc      RC to a LID no port owns: the request sent again until its
               retries run out, then IBV_WC_RETRY_EXC_ERR, the QP in
               error, later requests flushed; UC: completes, lost; each
               packet counted lost at the switch
  lost-rc-to-other-device   the same to another rvtsw device whose QP is
               not ready to receive: each packet lost at its port
  between-ports, between-devices   UD from one port to another

A datagram to the sender's own LID is delivered before the sender's
completion; one that crosses the switch (or any, with rvtsw's wire_all)
arrives as a packet, a moment later, in the receiving port's softirq. So
receive completions and counters are waited for, a few seconds at most,
and found missing only then.
"""
import errno
import os
import struct
import sys
import time
import traceback

import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

from verbs_checks import check, expect_errno

QKEY = 0x11111111
GRH_BYTES = 40
BUF = 16384
SEND_AT = BUF // 2      # the send half of each QP's buffer
MTU = 4096
UNKNOWN_LID = 0x1234
MGID = "ff12:401b:ffff:0000:0000:0000:0000:0001"
MLID = 0xc001
# How long a packet may take to arrive, at most.
SETTLE = 5


class Port:
    """A port of an rvtsw device, with a context and a PD on it."""

    def __init__(self, spec):
        name, _, num = spec.partition(":")
        self.name = name
        self.num = int(num or 1)
        self.ctx = Context(name=name)
        self.pd = PD(self.ctx)
        self.lid = self.ctx.query_port(self.num).lid
        self.gid = self.ctx.query_gid(self.num, 0)

    def counter(self, name):
        # The IB core serves a hw_counters file from a copy that is up to
        # a jiffy old: let one pass.
        time.sleep(0.02)
        path = (f"/sys/class/infiniband/{self.name}/ports/{self.num}"
                f"/hw_counters/{name}")
        with open(path) as f:
            return int(f.read())

    def pkey(self, index):
        path = f"/sys/class/infiniband/{self.name}/ports/{self.num}/pkeys"
        with open(f"{path}/{index}") as f:
            return int(f.read(), 16)

    def ah(self, dlid, grh=None, sl=0):
        attr = AHAttr(port_num=self.num, dlid=dlid, sl=sl,
                      is_global=1 if grh else 0, gr=grh)
        return AH(self.pd, attr=attr)


class Counting:
    """Changes of a port counter over a with-block: once it grew by
    `want`, or a few seconds passed."""

    def __init__(self, port, name, want=1):
        self.port, self.name, self.want = port, name, want
        self.before = self.delta = None

    def __enter__(self):
        self.before = self.port.counter(self.name)
        return self

    def __exit__(self, *exc):
        deadline = time.monotonic() + SETTLE
        while True:
            self.delta = self.port.counter(self.name) - self.before
            if self.delta >= self.want or time.monotonic() > deadline:
                break


class Qp:
    """A QP with its own send and receive CQs and one registered buffer,
    receives in the first half, sends from the second."""

    def __init__(self, port, qpt=e.IBV_QPT_UD, qkey=QKEY, pkey_index=0):
        self.port = port
        self.scq = CQ(port.ctx, 32)
        self.rcq = CQ(port.ctx, 32)
        self.mr = MR(port.pd, BUF, e.IBV_ACCESS_LOCAL_WRITE)
        cap = QPCap(max_send_wr=16, max_recv_wr=16, max_send_sge=1,
                    max_recv_sge=1)
        init = QPInitAttr(qp_type=qpt, scq=self.scq, rcq=self.rcq, cap=cap)
        attr = QPAttr()
        attr.qkey = qkey
        attr.pkey_index = pkey_index
        attr.port_num = port.num
        # pyverbs takes a UD QP to RTS, a connected one to INIT.
        self.qp = QP(port.pd, init, attr)
        self.num = self.qp.qp_num

    def post_recv(self, length=SEND_AT, wr_id=1, fill=b"\xee"):
        self.mr.write(fill * length, length, 0)
        sge = SGE(self.mr.buf, length, self.mr.lkey)
        self.qp.post_recv(RecvWR(wr_id=wr_id, num_sge=1, sg=[sge]))

    def post_send(self, ah, rqpn, data, qkey=QKEY, imm=None, wr_id=7):
        self.mr.write(data, len(data), SEND_AT)
        sge = SGE(self.mr.buf + SEND_AT, len(data), self.mr.lkey)
        opcode = e.IBV_WR_SEND if imm is None else e.IBV_WR_SEND_WITH_IMM
        wr = SendWR(wr_id=wr_id, opcode=opcode, num_sge=1, sg=[sge],
                    send_flags=e.IBV_SEND_SIGNALED,
                    imm_data=0 if imm is None else imm)
        if ah is not None:
            wr.set_wr_ud(ah, rqpn, qkey)
        self.qp.post_send(wr)

    def send(self, *args, **kwargs):
        """Post a send and wait for its completion, which must succeed."""
        self.post_send(*args, **kwargs)
        wc = wait_one(self.scq, "send completion")
        check(wc.status == e.IBV_WC_SUCCESS,
              f"send completed with status {wc.status}")
        return wc

    def received(self, want=1):
        """The receive completions there are once `want` arrived, or a
        few seconds passed."""
        wcs = []
        deadline = time.monotonic() + SETTLE
        while len(wcs) < want and time.monotonic() < deadline:
            _, more = self.rcq.poll(16)
            wcs += more
            if len(wcs) < want:
                time.sleep(0.01)
        _, more = self.rcq.poll(16)
        return wcs + more

    def payload(self, length):
        return self.mr.read(length, GRH_BYTES)


def wait_one(cq, what, seconds=10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        n, wcs = cq.poll(1)
        if n:
            return wcs[0]
        time.sleep(0.001)
    raise AssertionError(f"no {what} within {seconds} s")


def one_received(qp, what):
    wcs = qp.received()
    check(len(wcs) == 1, f"{what}: {len(wcs)} receive completions")
    check(wcs[0].status == e.IBV_WC_SUCCESS,
          f"{what}: receive status {wcs[0].status}")
    return wcs[0]


def none_received(qp, what):
    # Whatever was to arrive had time to.
    time.sleep(0.5)
    wcs = qp.received(want=0)
    check(not wcs, f"{what}: {len(wcs)} receive completions, want none")


def test_deliver(port):
    rx, tx = Qp(port), Qp(port)
    ah = port.ah(port.lid, sl=3)
    data = os.urandom(1000)
    rx.post_recv()
    tx.send(ah, rx.num, data, imm=0x12345678)
    wc = one_received(rx, "send with immediate")
    check(wc.opcode == e.IBV_WC_RECV, f"opcode {wc.opcode}")
    check(wc.byte_len == len(data) + GRH_BYTES, f"byte_len {wc.byte_len}")
    check(wc.wc_flags & e.IBV_WC_WITH_IMM, "IBV_WC_WITH_IMM missing")
    check(not wc.wc_flags & e.IBV_WC_GRH, "IBV_WC_GRH without a GRH")
    # The immediate is in network order on the wire and in the WC alike.
    check(wc.imm_data == 0x12345678, f"imm_data {wc.imm_data:#x}")
    check(wc.src_qp == tx.num, f"src_qp {wc.src_qp}, want {tx.num}")
    check(wc.slid == port.lid, f"slid {wc.slid}, want {port.lid}")
    check(wc.sl == 3, f"sl {wc.sl}")
    check(wc.wr_id == 1, f"wr_id {wc.wr_id}")
    check(rx.mr.read(GRH_BYTES, 0) == b"\xee" * GRH_BYTES,
          "the 40 GRH bytes of a receive without GRH were written")
    check(rx.payload(len(data)) == data, "payload differs")
    check(rx.mr.read(8, GRH_BYTES + len(data)) == b"\xee" * 8,
          "bytes after the payload were written")
    # A zero-length datagram still carries its 40 bytes.
    rx.post_recv()
    tx.send(ah, rx.num, b"")
    wc = one_received(rx, "zero-length send")
    check(wc.byte_len == GRH_BYTES, f"empty: byte_len {wc.byte_len}")
    print(f"1000 and 0 bytes delivered, QP {tx.num:#x} -> {rx.num:#x}")


def test_grh(port):
    rx, tx = Qp(port), Qp(port)
    route = GlobalRoute(dgid=port.gid, sgid_index=0, hop_limit=7,
                        traffic_class=0x20, flow_label=0x12345)
    ah = port.ah(port.lid, grh=route)
    rx.post_recv()
    tx.send(ah, rx.num, b"with grh")
    wc = one_received(rx, "send with GRH")
    check(wc.wc_flags & e.IBV_WC_GRH, "IBV_WC_GRH missing")
    grh = rx.mr.read(GRH_BYTES, 0)
    vtf, paylen, next_hdr, hops = struct.unpack_from(">IHBB", grh)
    check(vtf >> 28 == 6, f"IP version {vtf >> 28}")
    check((vtf >> 20) & 0xff == 0x20, f"traffic class {(vtf >> 20) & 0xff}")
    check(vtf & 0xfffff == 0x12345, f"flow label {vtf & 0xfffff:#x}")
    check(next_hdr == 0x1b, f"next header {next_hdr:#x}")
    check(hops == 7, f"hop limit {hops}")
    # BTH + DETH + payload padded to 4 + ICRC
    check(paylen == 12 + 8 + 8 + 4, f"payload length {paylen}")
    gid = bytes.fromhex(str(port.gid).replace(":", ""))
    check(grh[8:24] == gid, "source GID is not the port's")
    check(grh[24:40] == gid, "destination GID is not the AH's")
    check(rx.payload(8) == b"with grh", "payload differs")
    print(f"GRH: {grh.hex()}")


def test_qkey(port):
    rx, tx = Qp(port), Qp(port, qkey=QKEY)
    ah = port.ah(port.lid)
    rx.post_recv()
    with Counting(port, "drop_bad_qkey") as bad:
        tx.send(ah, rx.num, b"wrong key", qkey=QKEY + 1)
    none_received(rx, "wrong Q_Key")
    check(bad.delta == 1, f"drop_bad_qkey grew by {bad.delta}")
    # High bit set: the sending QP's own Q_Key (IBTA 10.2.5), here right.
    tx.send(ah, rx.num, b"qp's key", qkey=0x80000000)
    one_received(rx, "Q_Key from the QP context")
    check(rx.payload(8) == b"qp's key", "payload differs")
    rx.post_recv()
    tx.send(ah, rx.num, b"right key")
    one_received(rx, "right Q_Key")
    print("wrong Q_Key dropped and counted, right ones delivered")


def test_pkey(port):
    check(port.pkey(1) == 0x8001, "needs rvtsw loaded with extra_pkey=0x8001")
    rx = Qp(port, pkey_index=0)             # 0xffff
    other = Qp(port, pkey_index=1)          # 0x8001, another partition
    ah = port.ah(port.lid)
    rx.post_recv()
    with Counting(port, "drop_bad_pkey") as bad:
        other.send(ah, rx.num, b"other partition")
    none_received(rx, "P_Key 0x8001 to a 0xffff QP")
    check(bad.delta == 1, f"drop_bad_pkey grew by {bad.delta}")
    same = Qp(port, pkey_index=0)
    same.send(ah, rx.num, b"same partition")
    one_received(rx, "P_Key 0xffff to a 0xffff QP")
    print("other partition dropped and counted, same one delivered")


def test_oversize(port):
    rx, tx = Qp(port), Qp(port)
    ah = port.ah(port.lid)
    expect_errno(errno.EINVAL, f"UD send of {MTU + 1} bytes",
                 tx.post_send, ah, rx.num, b"x" * (MTU + 1))
    rx.post_recv()
    tx.send(ah, rx.num, b"y" * MTU)
    wc = one_received(rx, f"UD send of {MTU} bytes")
    check(wc.byte_len == MTU + GRH_BYTES, f"byte_len {wc.byte_len}")
    print(f"{MTU + 1} bytes refused at post, {MTU} delivered")


def test_unknown_lid(port):
    rx, tx = Qp(port), Qp(port)
    rx.post_recv()
    for dlid in (UNKNOWN_LID, 0xffff):
        with Counting(port, "drop_unknown_lid") as lost:
            tx.send(port.ah(dlid), rx.num, b"nowhere")
        check(lost.delta == 1,
              f"DLID {dlid:#x}: drop_unknown_lid grew by {lost.delta}")
    none_received(rx, "unknown DLID")
    expect_errno(errno.EINVAL, "multicast DLID without GRH",
                 port.ah, MLID)
    print(f"DLIDs {UNKNOWN_LID:#x} and 0xffff dropped and counted")


def test_no_qp(port):
    tx = Qp(port)
    with Counting(port, "drop_no_dest_qp") as lost:
        tx.send(port.ah(port.lid), 0xfedcba, b"to no QP")
    check(lost.delta == 1, f"drop_no_dest_qp grew by {lost.delta}")
    print("unknown QPN dropped and counted")


def test_no_recv(port):
    rx, tx = Qp(port), Qp(port)
    ah = port.ah(port.lid)
    with Counting(port, "drop_no_recv_wqe") as lost:
        tx.send(ah, rx.num, b"unexpected")
    check(lost.delta == 1, f"drop_no_recv_wqe grew by {lost.delta}")
    rx.post_recv()
    none_received(rx, "send before the receive")
    tx.send(ah, rx.num, b"expected")
    one_received(rx, "send after the receive")
    check(rx.payload(8) == b"expected", "payload differs")
    print("send without receive dropped and counted")


def test_too_small(port):
    rx, tx = Qp(port), Qp(port)
    ah = port.ah(port.lid)
    rx.post_recv(length=GRH_BYTES + 100)
    with Counting(port, "drop_recv_too_small") as lost:
        tx.send(ah, rx.num, b"z" * 101)
    check(lost.delta == 1, f"drop_recv_too_small grew by {lost.delta}")
    none_received(rx, "101 bytes into 100")
    tx.send(ah, rx.num, b"w" * 100)
    wc = one_received(rx, "100 bytes into the same receive")
    check(wc.byte_len == GRH_BYTES + 100, f"byte_len {wc.byte_len}")
    check(rx.payload(100) == b"w" * 100, "payload differs")
    print("receive too small: dropped, counted, kept for the next one")


def connect(qp, dlid, rqpn):
    attr = QPAttr()
    for name, value in (("port_num", qp.port.num), ("dest_qp_num", rqpn),
                        ("rq_psn", 0), ("sq_psn", 0),
                        ("path_mtu", e.IBV_MTU_1024),
                        ("max_dest_rd_atomic", 1), ("max_rd_atomic", 1),
                        ("min_rnr_timer", 1), ("timeout", 1),
                        ("retry_cnt", 1), ("rnr_retry", 1)):
        setattr(attr, name, value)
    attr.ah_attr = AHAttr(port_num=qp.port.num, dlid=dlid)
    qp.qp.to_rts(attr)


def test_lost_rc(port, other=None):
    dlid = other.lid if other else UNKNOWN_LID
    # Each packet is lost where it cannot go on: at the switch, which has
    # no route for an unknown DLID (counted on the sending port), or at
    # the other device's port, whose QP is not ready to receive (INIT).
    where, counter = ((other, "drop_no_dest_qp") if other else
                      (port, "drop_unknown_lid"))
    for qpt, name in ((e.IBV_QPT_RC, "RC"), (e.IBV_QPT_UC, "UC")):
        qp = Qp(port, qpt=qpt)
        # Another device's QP is a real one, and still out of reach.
        peer = Qp(other, qpt=qpt) if other else None
        connect(qp, dlid, peer.num if peer else 0x99)
        # RC sends its first SEND twice (retry_cnt 1), and holds the
        # second for want of a credit; UC sends each once.
        with Counting(where, counter, want=2) as lost:
            qp.post_send(None, 0, b"into the void", wr_id=1)
            qp.post_send(None, 0, b"and after", wr_id=2)
            first = wait_one(qp.scq, f"{name} completion 1")
            second = wait_one(qp.scq, f"{name} completion 2")
        if qpt == e.IBV_QPT_RC:
            check(first.status == e.IBV_WC_RETRY_EXC_ERR,
                  f"RC: status {first.status}, want RETRY_EXC_ERR")
            check(second.status == e.IBV_WC_WR_FLUSH_ERR,
                  f"RC: second status {second.status}, want WR_FLUSH_ERR")
            state = qp.qp.query(e.IBV_QP_STATE)[0].qp_state
            check(state == e.IBV_QPS_ERR, f"RC: QP state {state}")
        else:
            check(first.status == second.status == e.IBV_WC_SUCCESS,
                  f"UC: statuses {first.status}, {second.status}")
        check(lost.delta == 2, f"{name}: {counter} +{lost.delta}, want 2")
    print(f"DLID {dlid:#x}: RC sent twice, retries exceeded, then flushed; "
          f"UC completed and lost; each loss counted in {counter}")


def test_between(port_a, port_b):
    rx, tx = Qp(port_b), Qp(port_a)
    rx.post_recv()
    with Counting(port_a, "tx_packets") as sent, \
            Counting(port_b, "rx_packets") as got:
        tx.send(port_a.ah(port_b.lid), rx.num, b"across devices")
    wc = one_received(rx, f"{port_a.name} -> {port_b.name}")
    check(wc.slid == port_a.lid, f"slid {wc.slid}, want {port_a.lid}")
    check(rx.payload(14) == b"across devices", "payload differs")
    check(sent.delta == 1 and got.delta == 1,
          f"tx_packets +{sent.delta}, rx_packets +{got.delta}")
    print(f"LID {port_a.lid} -> LID {port_b.lid}: delivered and counted")


# name: (test, ports)
CASES = {
    "deliver": (test_deliver, ["rvtsw_0:1"]),
    "grh": (test_grh, ["rvtsw_0:1"]),
    "qkey": (test_qkey, ["rvtsw_0:1"]),
    "pkey": (test_pkey, ["rvtsw_0:1"]),
    "oversize": (test_oversize, ["rvtsw_0:1"]),
    "unknown-lid": (test_unknown_lid, ["rvtsw_0:1"]),
    "no-qp": (test_no_qp, ["rvtsw_0:1"]),
    "no-recv": (test_no_recv, ["rvtsw_0:1"]),
    "too-small": (test_too_small, ["rvtsw_0:1"]),
    "lost-rc": (test_lost_rc, ["rvtsw_0:1"]),
    "lost-rc-to-other-device": (test_lost_rc, ["rvtsw_0:1", "rvtsw_1:1"]),
    "between-ports": (test_between, ["rvtsw_0:1", "rvtsw_0:2"]),
    "between-devices": (test_between, ["rvtsw_0:2", "rvtsw_1:1"]),
}


def report_case(name, test):
    """Run test() between "--- CASE name" and its "--- RESULT" line.
    Return: whether it passed."""
    print(f"--- CASE {name}", flush=True)
    try:
        test()
    except Exception as err:  # pylint: disable=broad-except
        traceback.print_exc(file=sys.stdout)
        print(f"--- RESULT {name} FAIL: {err}", flush=True)
        return False
    print(f"--- RESULT {name} PASS", flush=True)
    return True


def run_case(name, ports):
    test, specs = CASES[name]
    return report_case(name, lambda: test(
        *[ports.setdefault(spec, Port(spec)) for spec in specs]))


def main():
    names = sys.argv[1:]
    if not names or any(name not in CASES for name in names):
        sys.exit(__doc__)
    ports = {}
    results = [run_case(name, ports) for name in names]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
