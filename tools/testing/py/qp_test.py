"""Queue pairs through libibverbs (ipathverbs maps each QP's receive ring).

Usage: qp_test.py DEVICE TEST [ARGS], with TEST one of
  states                    every transition from every reachable state, for
                            RC, UC and UD: the IBTA's legal ones succeed,
                            every other gives EINVAL and changes nothing
  attrs                     missing or disallowed attributes and bad values
                            give EINVAL and change nothing
  caps                      queue sizes at and beyond the device's limits
  roundtrip                 query returns what create and modify set
  flush                     receives posted on the mapped ring complete with
                            a flush error when the QP enters ERR
  max-qp MAX IN_USE         IN_USE QPs belong to kernel clients; the rest of
                            MAX can be created, then ENOMEM
  debugfs                   qp_stats lists exactly the QPs in INIT..ERR
  split-reads NQPS          with NQPS QPs of ours in INIT, qp_stats read in
                            small pieces shows what a whole read shows
  churn SECONDS SEED        create, walk and destroy QPs for SECONDS
  watch SECONDS NSTABLE     read qp_stats in small pieces for SECONDS while
                            NSTABLE QPs of ours sit in INIT: each read must
                            show each of them, and the kernel's, exactly once
"""
import errno
import os
import random
import re
import sys
import time

from pyverbs.addr import AHAttr
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import RecvWR, SGE
import pyverbs.enums as e

QP_STATS = "/sys/kernel/debug/rvtsw/{}/qp_stats"

RESET, INIT, RTR, RTS = e.IBV_QPS_RESET, e.IBV_QPS_INIT, e.IBV_QPS_RTR, \
    e.IBV_QPS_RTS
SQD, SQE, ERR = e.IBV_QPS_SQD, e.IBV_QPS_SQE, e.IBV_QPS_ERR
ALL_STATES = [RESET, INIT, RTR, RTS, SQD, SQE, ERR]
NAMES = {RESET: "RESET", INIT: "INIT", RTR: "RTR", RTS: "RTS", SQD: "SQD",
         SQE: "SQE", ERR: "ERR"}
TYPES = {"RC": e.IBV_QPT_RC, "UC": e.IBV_QPT_UC, "UD": e.IBV_QPT_UD}

# The IBTA's QP state machine as a consumer may drive it (SQE is entered
# only by the device).
LEGAL = {
    RESET: {RESET, INIT},
    INIT: {RESET, INIT, RTR, ERR},
    RTR: {RESET, RTS, ERR},
    RTS: {RESET, RTS, SQD, ERR},
    SQD: {RESET, RTS, SQD, ERR},
    ERR: {RESET, ERR},
}

M = e.IBV_QP_STATE
INIT_MASK = {
    "RC": M | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT | e.IBV_QP_ACCESS_FLAGS,
    "UC": M | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT | e.IBV_QP_ACCESS_FLAGS,
    "UD": M | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT | e.IBV_QP_QKEY,
}
RTR_MASK = {
    "RC": M | e.IBV_QP_AV | e.IBV_QP_PATH_MTU | e.IBV_QP_DEST_QPN |
    e.IBV_QP_RQ_PSN | e.IBV_QP_MAX_DEST_RD_ATOMIC | e.IBV_QP_MIN_RNR_TIMER,
    "UC": M | e.IBV_QP_AV | e.IBV_QP_PATH_MTU | e.IBV_QP_DEST_QPN |
    e.IBV_QP_RQ_PSN,
    "UD": M,
}
RTS_MASK = {
    "RC": M | e.IBV_QP_SQ_PSN | e.IBV_QP_TIMEOUT | e.IBV_QP_RETRY_CNT |
    e.IBV_QP_RNR_RETRY | e.IBV_QP_MAX_QP_RD_ATOMIC,
    "UC": M | e.IBV_QP_SQ_PSN,
    "UD": M | e.IBV_QP_SQ_PSN,
}


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def mask_for(kind, cur, nxt):
    """The attributes a cur -> nxt transition needs; for an illegal one,
    those of the transition that normally leads to nxt."""
    if nxt == INIT:
        return M if cur == INIT else INIT_MASK[kind]
    if nxt == RTR:
        return RTR_MASK[kind]
    if nxt == RTS and cur in (RTR, RESET, INIT):
        return RTS_MASK[kind]
    return M


def full_attr(state):
    """Valid values for every attribute any transition may ask for."""
    a = QPAttr(qp_state=state)
    a.pkey_index = 0
    a.port_num = 1
    a.qp_access_flags = e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ
    a.qkey = 0x1234
    a.ah_attr = AHAttr(dlid=1, sl=2, port_num=1)
    a.path_mtu = e.IBV_MTU_2048
    a.dest_qp_num = 0x4242
    a.rq_psn = 0x111
    a.sq_psn = 0x222
    a.max_dest_rd_atomic = 4
    a.min_rnr_timer = 7
    a.timeout = 13
    a.retry_cnt = 4
    a.rnr_retry = 5
    a.max_rd_atomic = 2
    return a


def modify(qp, kind, cur, nxt, mask=None):
    qp.modify(full_attr(nxt), mask_for(kind, cur, nxt) if mask is None
              else mask)


def bring_to(qp, kind, state):
    path = {RESET: [], INIT: [INIT], RTR: [INIT, RTR],
            RTS: [INIT, RTR, RTS], SQD: [INIT, RTR, RTS, SQD],
            ERR: [INIT, RTR, RTS, ERR]}[state]
    cur = RESET
    for nxt in path:
        modify(qp, kind, cur, nxt)
        cur = nxt


def snapshot(qp):
    """Everything query reports, as comparable values."""
    a, ia = qp.query(0x1fffff)
    ah = a.ah_attr
    return (a.qp_state, a.cur_qp_state, a.path_mtu, a.path_mig_state,
            a.qkey, a.rq_psn, a.sq_psn, a.dest_qp_num, a.qp_access_flags,
            a.pkey_index, a.alt_pkey_index, a.sq_draining,
            a.max_rd_atomic, a.max_dest_rd_atomic, a.min_rnr_timer,
            a.port_num, a.timeout, a.retry_cnt, a.rnr_retry, a.alt_timeout,
            ah.dlid, ah.sl, ah.port_num, a.cap.max_send_wr,
            a.cap.max_recv_wr, a.cap.max_send_sge, a.cap.max_recv_sge,
            ia.qp_type)


def expect_einval(qp, what, func, *args):
    before = snapshot(qp)
    try:
        func(*args)
    except PyverbsRDMAError as err:
        check(err.error_code == errno.EINVAL,
              f"{what}: errno {err.error_code}, want EINVAL")
    else:
        raise AssertionError(f"{what}: succeeded, want EINVAL")
    after = snapshot(qp)
    check(after == before, f"{what}: QP changed: {before} -> {after}")


class Env:
    def __init__(self, name):
        self.ctx = Context(name=name)
        self.pd = PD(self.ctx)
        self.cq = CQ(self.ctx, 256)

    def qp(self, kind, cap=None):
        cap = cap or QPCap(max_send_wr=4, max_recv_wr=4, max_send_sge=1,
                           max_recv_sge=1)
        return QP(self.pd, QPInitAttr(qp_type=TYPES[kind], scq=self.cq,
                                      rcq=self.cq, cap=cap))

    def close(self):
        self.ctx.close()


def test_states(env):
    count = 0
    for kind in TYPES:
        for cur in LEGAL:
            for nxt in ALL_STATES:
                qp = env.qp(kind)
                bring_to(qp, kind, cur)
                what = f"{kind} {NAMES[cur]}->{NAMES[nxt]}"
                if nxt in LEGAL[cur]:
                    modify(qp, kind, cur, nxt)
                    state = qp.query(e.IBV_QP_STATE)[0].qp_state
                    check(state == nxt, f"{what}: state {NAMES[state]}")
                else:
                    expect_einval(qp, what, modify, qp, kind, cur, nxt)
                qp.close()
                count += 1
    print(f"{count} transitions checked")


def test_attrs(env):
    cases = [
        # (what, type, from, to, mask or None, attribute overrides)
        ("RC RESET->INIT without port", "RC", RESET, INIT,
         INIT_MASK["RC"] & ~e.IBV_QP_PORT, {}),
        ("RC RESET->INIT with a Q_Key", "RC", RESET, INIT,
         INIT_MASK["RC"] | e.IBV_QP_QKEY, {}),
        ("UD RESET->INIT with access flags", "UD", RESET, INIT,
         INIT_MASK["UD"] | e.IBV_QP_ACCESS_FLAGS, {}),
        ("RC INIT->RTR without AV", "RC", INIT, RTR,
         RTR_MASK["RC"] & ~e.IBV_QP_AV, {}),
        ("RC RTR->RTS without SQ PSN", "RC", RTR, RTS,
         RTS_MASK["RC"] & ~e.IBV_QP_SQ_PSN, {}),
        ("RC RESET->INIT P_Key index 1", "RC", RESET, INIT, None,
         {"pkey_index": 1}),
        ("UD RESET->INIT P_Key index 1", "UD", RESET, INIT, None,
         {"pkey_index": 1}),
        ("RC INIT->RTR multicast DLID", "RC", INIT, RTR, None,
         {"ah_attr": AHAttr(dlid=0xc001, port_num=1)}),
        ("RC INIT->RTR bad path MTU", "RC", INIT, RTR, None,
         {"path_mtu": 7}),
        ("RC INIT->RTR max_dest_rd_atomic 17", "RC", INIT, RTR, None,
         {"max_dest_rd_atomic": 17}),
        ("RC INIT->RTR min_rnr_timer 32", "RC", INIT, RTR, None,
         {"min_rnr_timer": 32}),
        ("RC INIT->RTR dest QPN 2^24", "RC", INIT, RTR, None,
         {"dest_qp_num": 1 << 24}),
        ("RC RTR->RTS timeout 32", "RC", RTR, RTS, None, {"timeout": 32}),
        ("RC RTR->RTS retry_cnt 8", "RC", RTR, RTS, None, {"retry_cnt": 8}),
        ("RC RTR->RTS rnr_retry 8", "RC", RTR, RTS, None, {"rnr_retry": 8}),
        ("RC RTS->RTS wrong current state", "RC", RTS, RTS,
         M | e.IBV_QP_CUR_STATE, {"cur_qp_state": SQD}),
        ("RC RTS->RTS path migration to MIGRATED while REARM", "RC", RTS,
         RTS, M | e.IBV_QP_PATH_MIG_STATE,
         {"path_mig_state": e.IBV_MIG_MIGRATED}),
    ]
    for what, kind, cur, nxt, mask, over in cases:
        qp = env.qp(kind)
        bring_to(qp, kind, cur)
        if "REARM" in what:
            a = QPAttr(qp_state=RTS)
            a.path_mig_state = e.IBV_MIG_REARM
            qp.modify(a, e.IBV_QP_PATH_MIG_STATE)
        attr = full_attr(nxt)
        for key, value in over.items():
            setattr(attr, key, value)
        mask = mask_for(kind, cur, nxt) if mask is None else mask
        expect_einval(qp, what, qp.modify, attr, mask)
        qp.close()
    print(f"{len(cases)} bad modifications refused with EINVAL")
    # Taken as upstream takes them, and queried back as set.
    taken = [
        ("RC RTR->RTS max_rd_atomic 17", RTR, RTS, "max_rd_atomic", 17),
        ("RC RESET->INIT on-demand access", RESET, INIT, "qp_access_flags",
         e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_ON_DEMAND),
    ]
    for what, cur, nxt, key, value in taken:
        qp = env.qp("RC")
        bring_to(qp, "RC", cur)
        attr = full_attr(nxt)
        setattr(attr, key, value)
        qp.modify(attr, mask_for("RC", cur, nxt))
        got = getattr(qp.query(0)[0], key)
        check(got == value, f"{what}: query gives {got}, want {value}")
        qp.close()
    print(f"{len(taken)} modifications upstream accepts taken as set")


def expect_create_errno(env, want, what, kind, cap):
    try:
        qp = env.qp(kind, cap)
    except PyverbsRDMAError as err:
        check(err.error_code == want,
              f"{what}: errno {err.error_code}, want {want}")
        return
    qp.close()
    raise AssertionError(f"{what}: created, want errno {want}")


def test_caps(env):
    d = env.ctx.query_device()
    wr, ssge, rsge = d.max_qp_wr, d.max_sge, d.max_sge
    bad = [
        ("send WRs", QPCap(max_send_wr=wr + 1, max_recv_wr=1)),
        ("recv WRs", QPCap(max_send_wr=1, max_recv_wr=wr + 1)),
        ("send SGEs", QPCap(max_send_wr=1, max_send_sge=ssge + 1)),
        ("recv SGEs", QPCap(max_recv_wr=1, max_recv_sge=rsge + 1)),
        ("nothing at all", QPCap(max_send_wr=0, max_recv_wr=0,
                                 max_send_sge=0, max_recv_sge=0)),
    ]
    for what, cap in bad:
        expect_create_errno(env, errno.EINVAL, what, "RC", cap)
    good = [QPCap(max_send_wr=wr, max_recv_wr=wr, max_send_sge=1,
                  max_recv_sge=1),
            QPCap(max_send_wr=1, max_recv_wr=1, max_send_sge=ssge,
                  max_recv_sge=rsge),
            QPCap(max_send_wr=0, max_recv_wr=1, max_send_sge=0,
                  max_recv_sge=0)]
    for kind in TYPES:
        for cap in good:
            qp = env.qp(kind, cap)
            c = qp.query(0)[0].cap
            got = (c.max_send_wr, c.max_recv_wr, c.max_send_sge,
                   c.max_recv_sge, c.max_inline_data)
            want = (cap.max_send_wr, cap.max_recv_wr, cap.max_send_sge,
                    cap.max_recv_sge, 0)
            check(got == want, f"{kind} caps {want}: query gives {got}")
            qp.close()
    print(f"{len(bad)} bad sizes refused, {3 * len(good)} limit QPs made")


def test_roundtrip(env):
    qp = env.qp("RC", QPCap(max_send_wr=7, max_recv_wr=5, max_send_sge=3,
                            max_recv_sge=2))
    a, ia = qp.query(0)
    check(a.qp_state == RESET and ia.qp_type == e.IBV_QPT_RC and
          a.cap.max_send_wr == 7 and a.cap.max_recv_wr == 5 and
          a.cap.max_send_sge == 3 and a.cap.max_recv_sge == 2,
          "after create")
    steps = [(RESET, INIT), (INIT, RTR), (RTR, RTS)]
    for cur, nxt in steps:
        modify(qp, "RC", cur, nxt)
        a = qp.query(0)[0]
        want = full_attr(nxt)
        fields = ["qp_state", "pkey_index", "port_num", "qp_access_flags"]
        if nxt != INIT:
            fields += ["path_mtu", "dest_qp_num", "rq_psn",
                       "max_dest_rd_atomic", "min_rnr_timer"]
        if nxt == RTS:
            fields += ["sq_psn", "timeout", "retry_cnt", "rnr_retry",
                       "max_rd_atomic"]
        for f in fields:
            check(getattr(a, f) == getattr(want, f),
                  f"{NAMES[nxt]}: {f} {getattr(a, f)} != {getattr(want, f)}")
        if nxt != INIT:
            check(a.ah_attr.dlid == 1 and a.ah_attr.sl == 2 and
                  a.ah_attr.port_num == 1, f"{NAMES[nxt]}: AV")
    # An alternate path, and rearming path migration.
    alt = QPAttr(qp_state=RTS)
    alt.alt_ah_attr = AHAttr(dlid=1, sl=5, port_num=1)
    alt.alt_port_num = 1
    alt.alt_pkey_index = 0
    alt.alt_timeout = 17
    alt.path_mig_state = e.IBV_MIG_REARM
    qp.modify(alt, e.IBV_QP_ALT_PATH | e.IBV_QP_PATH_MIG_STATE)
    a = qp.query(0)[0]
    check(a.alt_ah_attr.sl == 5 and a.alt_ah_attr.dlid == 1 and
          a.alt_timeout == 17 and a.alt_port_num == 1 and
          a.path_mig_state == e.IBV_MIG_REARM, "alternate path")
    ud = env.qp("UD")
    bring_to(ud, "UD", RTS)
    a = ud.query(0)[0]
    check(a.qkey == 0x1234 and a.sq_psn == 0x222 and a.qp_state == RTS,
          "UD Q_Key and SQ PSN")
    print("create, INIT, RTR, RTS and alternate path round-trip")


def test_flush(env):
    qp = env.qp("RC", QPCap(max_send_wr=1, max_recv_wr=8, max_recv_sge=1))
    mr = MR(env.pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)
    bring_to(qp, "RC", INIT)
    for i in range(5):
        sge = SGE(mr.buf, 64, mr.lkey)
        qp.post_recv(RecvWR(wr_id=100 + i, num_sge=1, sg=[sge]))
    check(env.cq.poll(8)[0] == 0, "completions before ERR")
    modify(qp, "RC", INIT, ERR)
    npolled, wcs = env.cq.poll(16)
    ids = sorted(wc.wr_id for wc in wcs)
    check(npolled == 5 and ids == list(range(100, 105)),
          f"flushed {npolled}: {ids}")
    check(all(wc.status == e.IBV_WC_WR_FLUSH_ERR for wc in wcs),
          f"statuses {[wc.status for wc in wcs]}")
    check(all(wc.qp_num == qp.qp_num for wc in wcs), "QP numbers")
    # Back through RESET the ring starts empty.
    modify(qp, "RC", ERR, RESET)
    bring_to(qp, "RC", INIT)
    modify(qp, "RC", INIT, ERR)
    check(env.cq.poll(8)[0] == 0, "completions after a reset")
    print("5 receives on the mapped ring flushed with IBV_WC_WR_FLUSH_ERR")


def expect_no_more_qps(env, what):
    expect_create_errno(env, errno.ENOMEM, what, "UD", None)


def test_max_qp(env, max_qp, in_use):
    check(env.ctx.query_device().max_qp == max_qp, "max_qp reported")
    qps = [env.qp(["RC", "UC", "UD"][i % 3]) for i in range(max_qp - in_use)]
    expect_no_more_qps(env, "at max_qp")
    qps.pop().close()
    qps.append(env.qp("RC"))
    expect_no_more_qps(env, "after reuse")
    for qp in qps:
        qp.close()
    print(f"{max_qp - in_use} QPs created ({in_use} kernel), then ENOMEM")


# RESET only shows for a QP reset while the kernel was printing it.
LINE = re.compile(r"^N (\d+) QPN 0x([0-9a-f]{6}) (RC|UC|UD|SMI|GSI) "
                  r"(RESET|INIT|RTR|RTS|SQD|SQE|ERR) R (\d+) port (\d+) .* "
                  r"PID (-?\d+)$")


# No read of qp_stats needs more than this: a read that goes on is a
# runaway iteration.
QP_STATS_MAX = 1 << 20


def read_qp_stats(name, chunk=None):
    """The lines of one read of qp_stats, parsed; small chunks make the
    kernel stop and restart its iteration many times."""
    fd = os.open(QP_STATS.format(name), os.O_RDONLY)
    try:
        data = b""
        while True:
            piece = os.read(fd, chunk or 65536)
            if not piece:
                break
            data += piece
            check(len(data) <= QP_STATS_MAX,
                  f"qp_stats read in {chunk}-byte pieces never ends")
    finally:
        os.close(fd)
    rows = []
    for line in data.decode().splitlines():
        m = LINE.match(line)
        check(m, f"bad qp_stats line: {line!r}")
        rows.append((int(m.group(2), 16), m.group(3), m.group(4),
                     int(m.group(6)), int(m.group(7))))
    return rows


def kernel_qps(name):
    return {(r[0], r[3]) for r in read_qp_stats(name) if r[0] <= 1}


def test_debugfs(env, name):
    base = read_qp_stats(name)
    check(all(r[0] <= 1 and r[4] == 0 for r in base),
          f"only the MAD layer's QPs to start with: {base}")
    qps = {}
    for i, kind in enumerate(["RC", "UC", "UD"] * 6):
        qp = env.qp(kind)
        state = [RESET, INIT, RTR, RTS, SQD, ERR][i % 6]
        bring_to(qp, kind, state)
        qps[qp.qp_num] = (qp, kind, state)
    rows = read_qp_stats(name, chunk=97)
    ours = {r[0]: r for r in rows if r[0] > 1}
    want = {qpn for qpn, (_, _, s) in qps.items() if s != RESET}
    check(set(ours) == want, f"listed {sorted(ours)}, want {sorted(want)}")
    check(len(rows) == len(ours) + len(base), f"duplicates in {rows}")
    for qpn, r in ours.items():
        _, kind, state = qps[qpn]
        check(r[1] == kind and r[2] == NAMES[state] and r[3] == 1 and
              r[4] == os.getpid(), f"row {r} for {kind} {NAMES[state]}")
    for qpn in list(qps)[::2]:
        qps.pop(qpn)[0].close()
    ours = {r[0] for r in read_qp_stats(name) if r[0] > 1}
    want = {qpn for qpn, (_, _, s) in qps.items() if s != RESET}
    check(ours == want, f"after destroys: {sorted(ours)} != {sorted(want)}")
    for qp, _, _ in qps.values():
        qp.close()
    check(read_qp_stats(name) == base, "back to the MAD layer's QPs")
    print(f"qp_stats listed the {len(base)} kernel QPs and ours exactly")


def churn_once(env, rng):
    kind = rng.choice(list(TYPES))
    try:
        qp = env.qp(kind)
    except PyverbsRDMAError as err:
        check(err.error_code == errno.ENOMEM, f"create: {err}")
        return 0
    cur = RESET
    for _ in range(rng.randrange(6)):
        nxt = rng.choice(sorted(LEGAL[cur]))
        modify(qp, kind, cur, nxt)
        cur = nxt
    qp.close()
    return 1


def test_churn(env, seconds, seed):
    rng = random.Random(seed)
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += churn_once(env, rng)
    print(f"worker {seed}: {n} QPs created, walked and destroyed")
    # A worker that never got a QP churned nothing: the test did not run.
    check(n > 0, f"worker {seed}: no QP created in {seconds} s")


def test_split_reads(env, name, nqps):
    """With nothing changing, qp_stats read in pieces small enough to stop
    the kernel's iteration at every QP shows what one whole read shows:
    every restart resumes where the last read stopped, within a hash
    bucket too, whatever order the core keeps its buckets in."""
    qps = []
    try:
        for i in range(nqps):
            kind = "RC" if i % 2 else "UD"
            qps.append(env.qp(kind))
            bring_to(qps[-1], kind, INIT)
        whole = sorted(read_qp_stats(name))
        check({qp.qp_num for qp in qps} <= {r[0] for r in whole},
              "a QP missing from qp_stats")
        for chunk in (61, 200, 1000, 4096):
            rows = sorted(read_qp_stats(name, chunk=chunk))
            check(rows == whole, f"{chunk}-byte reads: {len(rows)} lines, "
                  f"a whole read has {len(whole)}")
    finally:
        for qp in qps:
            qp.close()
    print(f"{nqps} QPs: reads in 61 to 4096-byte pieces show the "
          f"{len(whole)} lines of a whole read")


def test_watch(env, name, seconds, nstable):
    stable = []
    for i in range(nstable):
        kind = "RC" if i % 2 else "UD"
        stable.append(env.qp(kind))
        bring_to(stable[-1], kind, INIT)
    want = {qp.qp_num for qp in stable}
    kernel = kernel_qps(name)
    chunks = [61, 200, 1000, 4096, 65536]
    end = time.monotonic() + seconds
    reads = 0
    while time.monotonic() < end:
        rows = read_qp_stats(name, chunk=chunks[reads % len(chunks)])
        qpns = [r[0] for r in rows if r[0] > 1]
        check(len(qpns) == len(set(qpns)), f"read {reads}: a QP twice")
        check(want <= set(qpns), f"read {reads}: a stable QP missing")
        check({(r[0], r[3]) for r in rows if r[0] <= 1} == kernel,
              f"read {reads}: kernel QPs {rows}")
        reads += 1
    for qp in stable:
        qp.close()
    print(f"{reads} reads of qp_stats, each with all {nstable} stable QPs "
          "once")


def main():
    name, test, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    env = Env(name)
    try:
        if test == "states":
            test_states(env)
        elif test == "attrs":
            test_attrs(env)
        elif test == "caps":
            test_caps(env)
        elif test == "roundtrip":
            test_roundtrip(env)
        elif test == "flush":
            test_flush(env)
        elif test == "max-qp":
            test_max_qp(env, int(args[0]), int(args[1]))
        elif test == "debugfs":
            test_debugfs(env, name)
        elif test == "churn":
            test_churn(env, float(args[0]), int(args[1]))
        elif test == "split-reads":
            test_split_reads(env, name, int(args[0]))
        elif test == "watch":
            test_watch(env, name, float(args[0]), int(args[1]))
        else:
            raise SystemExit(f"unknown test {test}")
    finally:
        env.close()


if __name__ == "__main__":
    main()
