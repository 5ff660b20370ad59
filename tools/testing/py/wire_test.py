"""RC and UC between two rvtsw devices, over rvtsw's packet engine.

Usage: wire_test.py CASE...

Runs the named cases in one process, each between lines "--- CASE name"
and "--- RESULT name PASS" (or "FAIL: why"); exits non-zero if any
failed. rvtsw must be loaded with devices=2; every connection is
between rvtsw_0 port 1 and rvtsw_1 port 1, path MTU 1024, so a message
of 100000 bytes is 98 packets. Every payload is random and checked.

  rc-send        SENDs of 0, 1, 1024, 1025 and 100000 bytes
  rc-write-imm   an RDMA WRITE of 70000 bytes with immediate data
  rc-read        an RDMA READ of 70000 bytes
  rc-atomic      fetch-and-add and compare-and-swap: old values, memory
  uc             UC: a SEND and an RDMA WRITE with immediate data
  rnr            a SEND before its receive: RNR NAKs, then delivered
  rnr-exceeded   the same with rnr_retry 0: IBV_WC_RNR_RETRY_EXC_ERR
  remote-access  a WRITE with a bad rkey: IBV_WC_REM_ACCESS_ERR
  seq-nak        a SEND's middle packet lost: sequence NAK, sent again
  dup-request    an ACK lost: sent again after the timeout, the
                 responder sees a duplicate and does not deliver twice
  read-resend    a READ response lost: asked again, answered again
  atomic-replay  an atomic's acknowledgment lost: the atomic sent again,
                 answered from the ACK queue, executed once
  retry-exceeded every packet of a SEND lost: IBV_WC_RETRY_EXC_ERR,
                 then the next request flushed
  request-lost   a SEND's only packet lost: the timer sends it again
  hold-release   a SEND's middle packet held by the switch: sequence NAK,
                 sent again; the held one, let go late, a duplicate

The losses are the switch's fault knob's (debugfs), each seen in the
counters of rdmavt's and rvtsw's that say so.

Bad packets, made by the knob from a good one as it crosses the switch:
each dropped by the receiver and counted by its reason (on rvtsw_1
port 1, +1 exactly), and RC sent again until delivered, its payload
intact, its QPs still RTS:

  bad-short bad-length bad-vcrc bad-icrc bad-qpn bad-pkey bad-psn
  bad-oversize   an RC SEND (only packet) shortened, given a wrong
                 PktLen, VCRC or ICRC, an unknown QPN, a P_Key not in
                 the table, a PSN half the PSN space ahead, 256 more
                 bytes than the path MTU
  bad-qkey       a UD datagram with a wrong Q_Key: lost, counted
  bad-opcode     a UC SEND made a middle packet that nothing started:
                 lost, counted; the next message arrives
  bad-ack-psn    an RC ACK with a PSN never sent: the requester drops it
                 (drop_psn_out_of_window +1 on rvtsw_0), its timer sends
                 again, delivered once

RC opcodes out of sequence: the responder drops the packet
(drop_opcode_out_of_sequence +1) and NAKs it as an invalid request;
both QPs go to the error state (IBTA vol. 1's responder error of class
C, as qib's and hfi1's rc.c do: Documentation/wire.rst). The
requester's request ends IBV_WC_REM_INV_REQ_ERR
(rc_other_naks_received +1), the next is flushed, so is the receive;
reset, the same QPs carry a SEND intact:

  bad-opcode-rc-only    a SEND's only packet made a middle one
  bad-opcode-rc-first   a SEND's middle packet made a first one
  bad-opcode-rc-write   an RDMA WRITE's last packet made a SEND's last
"""
import os
import struct
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AHAttr
from pyverbs.cq import CQ
from pyverbs.mr import MR
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

from dgram_test import Counting, Port, Qp, report_case, wait_one
from verbs_checks import check

BUF = 1 << 18
# The receive half and the send half of each endpoint's buffer.
SEND_AT = BUF // 2
FAULT = "/sys/kernel/debug/rvtsw/switch"
ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)
# BTH opcodes the fault knob is set to (IBTA vol. 1, table 38).
RC_SEND_MIDDLE = 0x01
RC_SEND_ONLY = 0x04
RC_RDMA_WRITE_LAST = 0x08
RC_READ_RESPONSE_MIDDLE = 0x0e
RC_ACKNOWLEDGE = 0x11
RC_ATOMIC_ACKNOWLEDGE = 0x12
UC_SEND_ONLY = 0x24
UD_SEND_ONLY = 0x64


def knob(name, value=None):
    """Read the fault knob's file @name, or write @value to it."""
    if value is None:
        with open(f"{FAULT}/{name}") as f:
            return f.read().strip()
    with open(f"{FAULT}/{name}", "w") as f:
        f.write(f"{value}\n")
    return None


def fault(opcode, count, skip=0, action="drop"):
    """Have the switch's knob do @action to @count packets of @opcode,
    after @skip of them."""
    for name, value in (("fault_opcode", -1), ("fault_skip", skip),
                        ("fault_count", count), ("fault_action", action),
                        ("fault_opcode", opcode)):
        knob(name, value)


def fault_left():
    return int(knob("fault_count"))


class End:
    """One end of a connection: a QP with its CQs and a buffer."""

    def __init__(self, port, qpt):
        self.port = port
        self.scq = CQ(port.ctx, 64)
        self.rcq = CQ(port.ctx, 64)
        self.mr = MR(port.pd, BUF, ACCESS)
        cap = QPCap(max_send_wr=32, max_recv_wr=32, max_send_sge=1,
                    max_recv_sge=1)
        init = QPInitAttr(qp_type=qpt, scq=self.scq, rcq=self.rcq, cap=cap)
        attr = QPAttr()
        attr.port_num = port.num
        attr.qp_access_flags = ACCESS
        self.qp = QP(port.pd, init, attr)
        self.num = self.qp.qp_num

    def to_rts(self, peer, **opts):
        attr = QPAttr()
        # The access flags again for a QP reset and brought up anew.
        values = {"port_num": self.port.num, "qp_access_flags": ACCESS,
                  "dest_qp_num": peer.num,
                  "rq_psn": 0x100, "sq_psn": 0x100,
                  "path_mtu": e.IBV_MTU_1024, "max_dest_rd_atomic": 4,
                  "max_rd_atomic": 4, "min_rnr_timer": 1, "timeout": 14,
                  "retry_cnt": 7, "rnr_retry": 7}
        values.update(opts)
        for name, value in values.items():
            setattr(attr, name, value)
        attr.ah_attr = AHAttr(port_num=self.port.num, dlid=peer.port.lid)
        self.qp.to_rts(attr)

    def post_recv(self, length, wr_id=1):
        self.mr.write(b"\xee" * length, length, 0)
        sge = SGE(self.mr.buf, length, self.mr.lkey)
        self.qp.post_recv(RecvWR(wr_id=wr_id, num_sge=1, sg=[sge]))

    def post(self, opcode, data=b"", length=None, wr_id=7, **remote):
        length = len(data) if length is None else length
        if data:
            self.mr.write(data, len(data), SEND_AT)
        sge = SGE(self.mr.buf + SEND_AT, length, self.mr.lkey)
        wr = SendWR(wr_id=wr_id, opcode=opcode, num_sge=1, sg=[sge],
                    send_flags=e.IBV_SEND_SIGNALED,
                    imm_data=remote.pop("imm", 0))
        if "swap" in remote:
            wr.set_wr_atomic(remote["rkey"], remote["addr"],
                             remote["compare"], remote["swap"])
        elif remote:
            wr.set_wr_rdma(remote["rkey"], remote["addr"])
        self.qp.post_send(wr)

    def done(self, what, status=e.IBV_WC_SUCCESS, seconds=30):
        wc = wait_one(self.scq, what, seconds)
        check(wc.status == status,
              f"{what}: status {wc.status}, want {status}")
        return wc

    def received(self, what, seconds=30):
        wc = wait_one(self.rcq, what, seconds)
        check(wc.status == e.IBV_WC_SUCCESS,
              f"{what}: receive status {wc.status}")
        return wc

    def nothing_received(self, what):
        time.sleep(0.5)
        n, _ = self.rcq.poll(1)
        check(n == 0, f"{what}: {n} receive completions, want none")

    def remote(self, offset=0):
        return {"rkey": self.mr.rkey, "addr": self.mr.buf + offset}

    def read(self, length, offset=0):
        return self.mr.read(length, offset)

    def state(self):
        return self.qp.query(e.IBV_QP_STATE)[0].qp_state

    def reset(self):
        self.qp.modify(QPAttr(qp_state=e.IBV_QPS_RESET), e.IBV_QP_STATE)


def pair(ports, qpt=e.IBV_QPT_RC, **opts):
    """A connection between the two ports: (requester, responder)."""
    a, b = End(ports[0], qpt), End(ports[1], qpt)
    a.to_rts(b, **opts)
    b.to_rts(a, **opts)
    return a, b


def send_checked(a, b, length, what):
    data = os.urandom(length)
    b.post_recv(max(length, 1))
    a.post(e.IBV_WR_SEND, data)
    a.done(f"{what}: send")
    wc = b.received(f"{what}: receive")
    check(wc.byte_len == length, f"{what}: byte_len {wc.byte_len}")
    check(b.read(length) == data, f"{what}: payload differs")


def test_rc_send(ports):
    a, b = pair(ports)
    for length in (0, 1, 1024, 1025, 100000):
        send_checked(a, b, length, f"SEND of {length}")
    print("SENDs of 0 to 100000 bytes delivered intact")


def write_imm_checked(a, b, length, imm, what):
    data = os.urandom(length)
    b.post_recv(0)
    a.post(e.IBV_WR_RDMA_WRITE_WITH_IMM, data, imm=imm, **b.remote(4096))
    a.done(f"{what}: write")
    wc = b.received(f"{what}: its immediate")
    check(wc.opcode == e.IBV_WC_RECV_RDMA_WITH_IMM, f"opcode {wc.opcode}")
    # The immediate is in network order on the wire and in the WC alike.
    check(wc.imm_data == imm, f"imm_data {wc.imm_data:#x}, want {imm:#x}")
    check(b.read(length, 4096) == data, f"{what}: written data differs")


def test_rc_write_imm(ports):
    a, b = pair(ports)
    write_imm_checked(a, b, 70000, 0x1234abcd, "RC WRITE with immediate")
    print("70000-byte WRITE with immediate data landed intact")


def test_rc_read(ports):
    a, b = pair(ports)
    data = os.urandom(70000)
    b.mr.write(data, len(data), 8192)
    a.post(e.IBV_WR_RDMA_READ, length=len(data), **b.remote(8192))
    wc = a.done("read")
    check(wc.byte_len == len(data), f"read byte_len {wc.byte_len}")
    check(a.read(len(data), SEND_AT) == data, "read data differs")
    print("70000-byte READ brought back intact")


def atomic(a, b, opcode, compare, swap):
    a.post(opcode, length=8, compare=compare, swap=swap, **b.remote(64))
    a.done(f"atomic {opcode}")
    return struct.unpack("<Q", a.read(8, SEND_AT))[0]


def memory_word(b):
    return struct.unpack("<Q", b.read(8, 64))[0]


def test_rc_atomic(ports):
    a, b = pair(ports)
    b.mr.write(struct.pack("<Q", 1000), 8, 64)
    old = atomic(a, b, e.IBV_WR_ATOMIC_FETCH_AND_ADD, 5, 0)
    check(old == 1000 and memory_word(b) == 1005,
          f"fetch-and-add: old {old}, memory {memory_word(b)}")
    old = atomic(a, b, e.IBV_WR_ATOMIC_CMP_AND_SWP, 1005, 77)
    check(old == 1005 and memory_word(b) == 77,
          f"compare-and-swap: old {old}, memory {memory_word(b)}")
    old = atomic(a, b, e.IBV_WR_ATOMIC_CMP_AND_SWP, 1, 99)
    check(old == 77 and memory_word(b) == 77,
          f"failed compare-and-swap: old {old}, memory {memory_word(b)}")
    print("fetch-and-add and compare-and-swap: right old values and memory")


def test_uc(ports):
    a, b = pair(ports, e.IBV_QPT_UC)
    send_checked(a, b, 5000, "UC SEND")
    write_imm_checked(a, b, 3000, 7, "UC WRITE with immediate")
    print("UC SEND and WRITE with immediate data delivered intact")


def test_rnr(ports):
    a, b = pair(ports)
    data = os.urandom(2000)
    with Counting(ports[0], "rnr_naks") as naks:
        a.post(e.IBV_WR_SEND, data)
        time.sleep(0.3)
    b.post_recv(len(data))
    a.done("send after RNR NAKs")
    b.received("send after RNR NAKs")
    check(b.read(len(data)) == data, "payload differs")
    check(naks.delta >= 1, f"rnr_naks +{naks.delta}")
    print(f"{naks.delta} RNR NAKs, then delivered once the receive came")


def test_rnr_exceeded(ports):
    a, _ = pair(ports, rnr_retry=0)
    a.post(e.IBV_WR_SEND, b"nobody listens")
    a.done("send without receive", e.IBV_WC_RNR_RETRY_EXC_ERR)
    check(a.state() == e.IBV_QPS_ERR, f"requester state {a.state()}")
    print("rnr_retry 0: IBV_WC_RNR_RETRY_EXC_ERR, requester in error")


def test_remote_access(ports):
    a, b = pair(ports)
    a.post(e.IBV_WR_RDMA_WRITE, b"no key", rkey=b.mr.rkey ^ 0x100,
           addr=b.mr.buf)
    a.done("write with a bad rkey", e.IBV_WC_REM_ACCESS_ERR)
    time.sleep(0.2)
    check(b.state() == e.IBV_QPS_ERR, f"responder state {b.state()}")
    print("bad rkey: IBV_WC_REM_ACCESS_ERR, responder in error")


def test_seq_nak(ports):
    # A long timeout: the NAK, not the timer, makes the requester go back.
    a, b = pair(ports, timeout=18)
    with Counting(ports[0], "rc_seq_naks_received") as naks, \
            Counting(ports[1], "rc_seq_naks_sent") as sent:
        fault(RC_SEND_MIDDLE, 1, skip=3)
        send_checked(a, b, 20000, "SEND with a middle packet lost")
    check(fault_left() == 0, "the fault knob dropped nothing")
    check(naks.delta == 1 and sent.delta == 1,
          f"sequence NAKs: sent +{sent.delta}, received +{naks.delta}")
    print("a middle packet lost: one sequence NAK, sent again, intact")


def test_dup_request(ports):
    a, b = pair(ports)
    with Counting(ports[1], "rc_duplicate_requests") as dups, \
            Counting(ports[0], "rc_resends") as resends:
        fault(RC_ACKNOWLEDGE, 1)
        send_checked(a, b, 3000, "SEND whose ACK was lost")
    check(fault_left() == 0, "the fault knob dropped nothing")
    b.nothing_received("the duplicate")
    check(dups.delta >= 1 and resends.delta >= 1,
          f"duplicates +{dups.delta}, resends +{resends.delta}")
    print(f"ACK lost: {resends.delta} resent, {dups.delta} duplicate, "
          "delivered once")


def test_read_resend(ports):
    a, b = pair(ports, timeout=18)
    data = os.urandom(20000)
    b.mr.write(data, len(data), 8192)
    with Counting(ports[0], "rc_rdma_seq") as seq:
        fault(RC_READ_RESPONSE_MIDDLE, 1, skip=2)
        a.post(e.IBV_WR_RDMA_READ, length=len(data), **b.remote(8192))
        a.done("read with a response lost")
    check(fault_left() == 0, "the fault knob dropped nothing")
    check(a.read(len(data), SEND_AT) == data, "read data differs")
    check(seq.delta >= 1, f"rc_rdma_seq +{seq.delta}")
    print("a READ response lost: READ asked again, data intact")


def test_atomic_replay(ports):
    a, b = pair(ports)
    b.mr.write(struct.pack("<Q", 40), 8, 64)
    with Counting(ports[1], "rc_duplicate_requests") as dups:
        fault(RC_ATOMIC_ACKNOWLEDGE, 1)
        old = atomic(a, b, e.IBV_WR_ATOMIC_FETCH_AND_ADD, 2, 0)
    check(fault_left() == 0, "the fault knob dropped nothing")
    check(old == 40, f"fetch-and-add returned {old}, want 40")
    check(memory_word(b) == 42, f"memory {memory_word(b)}, want 42: "
          "the atomic ran more than once")
    check(dups.delta >= 1, f"duplicates +{dups.delta}")
    print("atomic's ACK lost: sent again, answered from the ACK queue, "
          "executed once")


def test_retry_exceeded(ports):
    a, b = pair(ports, timeout=8, retry_cnt=2)
    b.post_recv(100)
    with Counting(ports[0], "drop_fault_injected", want=3) as lost, \
            Counting(ports[0], "rc_timeouts", want=3) as timeouts:
        fault(RC_SEND_ONLY, 1000)
        a.post(e.IBV_WR_SEND, b"into the fault", wr_id=1)
        a.post(e.IBV_WR_SEND, b"and after", wr_id=2)
        a.done("send", e.IBV_WC_RETRY_EXC_ERR)
        a.done("send after", e.IBV_WC_WR_FLUSH_ERR)
    fault(-1, 0)
    check(lost.delta == 3, f"{lost.delta} packets lost, want 3: the "
          "first and its two retries")
    check(timeouts.delta == 3, f"rc_timeouts +{timeouts.delta}, want 3")
    check(a.state() == e.IBV_QPS_ERR, f"requester state {a.state()}")
    print("every packet lost: sent 3 times, retries exceeded, then flushed")


def test_request_lost(ports):
    a, b = pair(ports)
    with Counting(ports[0], "rc_timeouts") as timeouts, \
            Counting(ports[0], "rc_resends") as resends:
        fault(RC_SEND_ONLY, 1)
        send_checked(a, b, 500, "SEND whose only packet was lost")
    check(fault_left() == 0, "the fault knob dropped nothing")
    b.nothing_received("a second copy")
    # At least once: under TCG a slow peer may let it fire twice.
    check(timeouts.delta >= 1 and resends.delta >= 1,
          f"timeouts +{timeouts.delta}, resends +{resends.delta}")
    print("the only packet lost: the retry timer sent it again, "
          "delivered once")


def held():
    deadline = time.monotonic() + 5
    while int(knob("fault_held")) == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    return int(knob("fault_held"))


def test_hold_release(ports):
    # A long timeout: the NAK, not the timer, makes the requester go back.
    a, b = pair(ports, timeout=18)
    with Counting(ports[1], "rc_seq_naks_sent") as naks:
        fault(RC_SEND_MIDDLE, 1, skip=3, action="hold")
        send_checked(a, b, 20000, "SEND with a middle packet held")
    check(held() == 1, f"the knob holds {knob('fault_held')} packets")
    check(naks.delta == 1, f"sequence NAKs sent +{naks.delta}")
    with Counting(ports[1], "rc_duplicate_requests") as dups:
        knob("fault_release", 1)
    check(int(knob("fault_held")) == 0, "held packets left")
    check(dups.delta == 1, f"duplicates +{dups.delta}, want 1")
    b.nothing_received("the late packet")
    send_checked(a, b, 3000, "SEND after the late packet")
    print("a middle packet held: sequence NAK, sent again, intact; let "
          "go late, it was a duplicate")


# The faults PortRcvErrors counts (a link's or its receiver's checks).
RCV_ERRORS = ("short", "length", "vcrc", "icrc")


def rcv_errors(port):
    """The PMA's PortRcvErrors, as sysfs reads it through the PMA."""
    path = (f"/sys/class/infiniband/{port.name}/ports/{port.num}"
            "/counters/port_rcv_errors")
    with open(path) as f:
        return int(f.read())


def bad_rc(ports, action, counter, length=1000):
    """An RC SEND whose packet the knob spoils: @counter on the
    receiver +1 (and PortRcvErrors, for a link's faults), then the SEND
    delivered intact (sent again). @length fits one packet of the path
    MTU (1024), so that the SEND is a SEND_ONLY, the opcode the knob
    watches."""
    a, b = pair(ports)
    errors = rcv_errors(ports[1])
    with Counting(ports[1], counter) as bad:
        fault(RC_SEND_ONLY, 1, action=action)
        send_checked(a, b, length, f"SEND after a {action} packet")
    check(fault_left() == 0, f"the knob made no {action} packet")
    check(bad.delta == 1, f"{counter} +{bad.delta}, want 1")
    errors = rcv_errors(ports[1]) - errors
    want = 1 if action in RCV_ERRORS else 0
    check(errors == want, f"PortRcvErrors +{errors}, want {want}")
    b.nothing_received("a second copy")
    check(a.state() == e.IBV_QPS_RTS and b.state() == e.IBV_QPS_RTS,
          f"states {a.state()}, {b.state()}: want RTS")
    print(f"{action}: dropped, {counter} +1, sent again and delivered")


BAD_RC = {
    "bad-short": ("short", "drop_short"),
    "bad-length": ("length", "drop_bad_length"),
    "bad-vcrc": ("vcrc", "drop_bad_vcrc"),
    "bad-icrc": ("icrc", "drop_bad_icrc"),
    "bad-qpn": ("qpn", "drop_no_dest_qp"),
    "bad-pkey": ("pkey", "drop_bad_pkey"),
    "bad-psn": ("psn", "drop_psn_out_of_window"),
}


def test_bad_oversize(ports):
    # One packet of a whole path MTU, made 256 bytes longer.
    bad_rc(ports, "oversize", "drop_oversize", length=1024)


def test_bad_qkey(ports):
    a, b = Qp(ports[0]), Qp(ports[1])
    ah = ports[0].ah(ports[1].lid)
    b.post_recv()
    with Counting(ports[1], "drop_bad_qkey") as bad:
        fault(UD_SEND_ONLY, 1, action="qkey")
        a.send(ah, b.num, b"wrong key")
    check(fault_left() == 0, "the knob changed no Q_Key")
    check(bad.delta == 1, f"drop_bad_qkey +{bad.delta}, want 1")
    check(not b.received(0), "a datagram with a wrong Q_Key arrived")
    data = os.urandom(100)
    a.send(ah, b.num, data)
    check(len(b.received()) == 1 and b.payload(len(data)) == data,
          "the next datagram did not arrive intact")
    print("wrong Q_Key: dropped, drop_bad_qkey +1; the next one arrived")


def test_bad_opcode(ports):
    a, b = pair(ports, e.IBV_QPT_UC)
    b.post_recv(100)
    with Counting(ports[1], "drop_opcode_out_of_sequence") as bad:
        fault(UC_SEND_ONLY, 1, action="opcode")
        a.post(e.IBV_WR_SEND, b"out of sequence")
        a.done("UC send made a middle packet")
    check(fault_left() == 0, "the knob changed no opcode")
    check(bad.delta == 1, f"drop_opcode_out_of_sequence +{bad.delta}")
    b.nothing_received("the middle packet")
    data = os.urandom(100)
    a.post(e.IBV_WR_SEND, data)
    a.done("the next UC send")
    b.received("the next UC send")
    check(b.read(len(data)) == data, "the next message differs")
    print("opcode out of sequence: dropped, counted; the next message "
          "arrived")


def test_bad_ack_psn(ports):
    a, b = pair(ports)
    with Counting(ports[0], "drop_psn_out_of_window") as bad, \
            Counting(ports[0], "rc_resends") as resends:
        fault(RC_ACKNOWLEDGE, 1, action="psn")
        send_checked(a, b, 500, "SEND whose ACK had a PSN never sent")
    check(fault_left() == 0, "the knob changed no ACK")
    check(bad.delta == 1, f"drop_psn_out_of_window +{bad.delta}, want 1")
    check(resends.delta >= 1, f"rc_resends +{resends.delta}")
    b.nothing_received("a second copy")
    check(a.state() == e.IBV_QPS_RTS, f"requester state {a.state()}")
    print("ACK for a PSN never sent: dropped, counted; sent again, "
          "delivered once")


# What bad_opcode_rc() sends: (opcode the knob spoils, WR opcode, bytes).
REFUSED = {
    "only": (RC_SEND_ONLY, e.IBV_WR_SEND, 500),
    "first": (RC_SEND_MIDDLE, e.IBV_WR_SEND, 3000),
    "write": (RC_RDMA_WRITE_LAST, e.IBV_WR_RDMA_WRITE, 2048),
}


def bad_opcode_rc(ports, what):
    """An RC message whose packet the knob makes out of sequence (@what:
    "only", "first" or "write", see the module's doc): refused, both
    QPs in error, nothing stuck, and the QPs, reset, carry a SEND."""
    opcode, wr_opcode, length = REFUSED[what]
    a, b = pair(ports)
    b.post_recv(4096)
    remote = b.remote(4096) if wr_opcode == e.IBV_WR_RDMA_WRITE else {}
    with Counting(ports[1], "drop_opcode_out_of_sequence") as bad, \
            Counting(ports[0], "rc_other_naks_received") as naks:
        fault(opcode, 1, action="opcode")
        a.post(wr_opcode, os.urandom(length), **remote)
        a.done("the refused message", e.IBV_WC_REM_INV_REQ_ERR)
    check(fault_left() == 0, "the knob changed no opcode")
    check(bad.delta == 1, f"drop_opcode_out_of_sequence +{bad.delta}")
    check(naks.delta == 1, f"rc_other_naks_received +{naks.delta}")
    # A SEND's first packet took the receive, which ends in error; else
    # the receive is flushed.
    want = e.IBV_WC_LOC_QP_OP_ERR if what == "first" else e.IBV_WC_WR_FLUSH_ERR
    wc = wait_one(b.rcq, "the receive", 30)
    check(wc.status == want, f"receive status {wc.status}, want {want}")
    check(b.state() == e.IBV_QPS_ERR and a.state() == e.IBV_QPS_ERR,
          f"states {a.state()}, {b.state()}: want both ERR")
    a.post(e.IBV_WR_SEND, b"after the error")
    a.done("a send after the error", e.IBV_WC_WR_FLUSH_ERR)
    a.reset()
    b.reset()
    a.to_rts(b)
    b.to_rts(a)
    send_checked(a, b, 3000, "SEND after the QPs were reset")
    print(f"opcode out of sequence ({what}): NAKed, counted, both QPs in "
          "error and flushed; reset, they carry data")


CASES = {
    "rc-send": test_rc_send,
    "rc-write-imm": test_rc_write_imm,
    "rc-read": test_rc_read,
    "rc-atomic": test_rc_atomic,
    "uc": test_uc,
    "rnr": test_rnr,
    "rnr-exceeded": test_rnr_exceeded,
    "remote-access": test_remote_access,
    "seq-nak": test_seq_nak,
    "dup-request": test_dup_request,
    "read-resend": test_read_resend,
    "atomic-replay": test_atomic_replay,
    "retry-exceeded": test_retry_exceeded,
    "request-lost": test_request_lost,
    "hold-release": test_hold_release,
    "bad-oversize": test_bad_oversize,
    "bad-qkey": test_bad_qkey,
    "bad-opcode": test_bad_opcode,
    "bad-ack-psn": test_bad_ack_psn,
}
CASES.update({f"bad-opcode-rc-{what}":
              (lambda ports, what=what: bad_opcode_rc(ports, what))
              for what in ("only", "first", "write")})
CASES.update({name: (lambda ports, bad=bad: bad_rc(ports, *bad))
              for name, bad in BAD_RC.items()})


def run_case(name, ports):
    try:
        return report_case(name, lambda: CASES[name](ports))
    finally:
        fault(-1, 0)
        knob("fault_release", 1)


def main():
    names = sys.argv[1:]
    if not names or any(name not in CASES for name in names):
        sys.exit(__doc__)
    ports = (Port("rvtsw_0:1"), Port("rvtsw_1:1"))
    results = [run_case(name, ports) for name in names]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
