#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The wire fuzzer of 83-wirefuzz (issue 34, section 6): random and
mutated frames of the uplink's ethertype (0x88B5) into an rvtsw uplink,
from an AF_PACKET socket at the far end of its link, while this program
keeps the link trained with heartbeats of its own (as uplink_peer.py's
serve does; Documentation/wire.rst, "Uplinks").

  wire_fuzz.py run IFACE DEST_MAC INFO --seed N [--count N] [--seconds S]
      Train the link (heartbeats until the uplink echoes ours), then send
      frames until COUNT are sent or S seconds have passed, answering the
      uplink's heartbeats all the while. INFO is wire_qps's line (the live
      QPs' numbers, the Q_Key, the MR's rkey, address and length); the
      packets come from LID --slid (the LID the QPs are connected to) to
      --dlid (their port's). Prints the seed, what it sent by class and
      what came back, and the digest of every frame sent.
  wire_fuzz.py frames INFO --seed N --count N [--dest-mac M --src-mac M]
      The same frames, not sent: their digest (a seed, a count, the QPs
      and the two MAC addresses, 83-wirefuzz's by default, give the same
      frames whatever happens on the wire).
  wire_fuzz.py uc-abort IFACE DEST_MAC INFO
      The reproduction of the fuzzer's first find: UC SEND_ONLYs to the
      UC QP at PSNs 0, 100, 200 and 300, each after the first out of
      sequence, so that it ends (aborts) the SEND before it, completed.
      rvtsw let go of that SEND's receive buffer references twice (the
      second time at the abort): the MR's reference count went below
      zero, and its deregistration failed.
  wire_fuzz.py selftest
      The table VCRC and the CRC sealing against uplink_peer.py's.

The frames depend only on the seed and their number: a random number
generator seeded once draws, for each frame, one class:
  random      random bytes of a random length after the Ethernet header;
              or a good uplink header and random bytes for the IB
              packet; or random bytes with a right PktLen and VCRC (so
              that they reach the HCA's parser)
  valid       a good packet for a live QP (RC, UC: SEND, RDMA WRITE,
              READ, atomics, responses; UD SEND_ONLY; to QP 1 and QP 0
              too), its PSN the next of that QP's
  bitflip     a good packet with 1 to 8 bits flipped; some with the CRCs
              made right again, some with the VCRC alone
  truncate    cut at a random length; some with PktLen and the CRCs made
              right for the shorter packet
  extend      random bytes appended; the same
  field       one field replaced (LRH VL, LVer, SL, LNH, DLID, PktLen,
              SLID; BTH opcode, SE, MigReq, pad count, TVer, P_Key, DestQP,
              AckReq, PSN; DETH Q_Key, source QP; RETH address, rkey,
              length; AETH syndrome, MSN; AtomicETH address, rkey), the
              CRCs made right again nine times in ten
  header      the uplink header: kind, version, length
  hello       a heartbeat: wrong length, seq 0, the uplink's own GUID,
              an echo out of its window; once in a while another GUID
              (the link retrains)
The PSN of a QP's next good packet is its count of good packets sent,
which goes back to 0 now and then (as the QP's, when wire_qps puts it
back to RTS after an error): a responder sees packets in sequence,
duplicates and packets ahead.
"""

import argparse
import hashlib
import os
import random
import socket
import struct
import sys
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import uplink_peer as peer  # noqa: E402

KIND_DATA = peer.KIND_DATA
KIND_HELLO = peer.KIND_HELLO
ETH_HDR = 14
MTU = 256                   # wire_qps's path MTU
REMOTE_QPN = 0x100          # wire_qps: its QP i is connected to 0x100 + i
TRAIN_S = 30
# The MAC addresses 83-wirefuzz gives veth0 (the uplink) and veth1: the
# frames carry them, and the heartbeats the uplink's GUID made of them.
SUITE_DEST_MAC = "02:83:00:00:00:01"
SUITE_SRC_MAC = "02:83:00:00:00:02"

# IBTA's opcodes (vol. 1, 9.2): RC is 0x00 on, UC 0x20 on, UD 0x64.
SEND_FIRST, SEND_MIDDLE, SEND_LAST, SEND_LAST_IMM = 0, 1, 2, 3
SEND_ONLY, SEND_ONLY_IMM = 4, 5
WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST, WRITE_LAST_IMM = 6, 7, 8, 9
WRITE_ONLY, WRITE_ONLY_IMM, READ_REQ = 0x0A, 0x0B, 0x0C
READ_RESP_FIRST, READ_RESP_MIDDLE, READ_RESP_LAST = 0x0D, 0x0E, 0x0F
READ_RESP_ONLY, ACK, ATOMIC_ACK, CMP_SWAP, FETCH_ADD = 0x10, 0x11, 0x12, 0x13, 0x14
SEND_LAST_INV, SEND_ONLY_INV = 0x16, 0x17
UC = 0x20
UD_SEND_ONLY, UD_SEND_ONLY_IMM = 0x64, 0x65


def _vcrc_table():
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xD008 if crc & 1 else crc >> 1
        table.append(crc)
    return table


VCRC_TABLE = _vcrc_table()


def vcrc(data):
    """uplink_peer.py's VCRC, a byte at a time."""
    crc = 0xFFFF
    for byte in data:
        crc = (crc >> 8) ^ VCRC_TABLE[(crc ^ byte) & 0xFF]
    return crc ^ 0xFFFF


def icrc(pkt):
    """The ICRC of LRH..pad: uplink_peer.py's for a local packet; for a
    global one (LNH 3) the whole LRH and the GRH's TClass, FlowLabel and
    HopLmt read as ones too, and the BTH after the GRH."""
    if len(pkt) < 8 or pkt[1] & 3 != 3 or len(pkt) < 8 + 40 + 12:
        return peer.icrc(pkt) if len(pkt) > 12 else 0
    masked = bytearray(pkt)
    masked[0:8] = b"\xff" * 8
    masked[8] |= 0x0F
    masked[9:12] = b"\xff" * 3
    masked[15] = 0xFF
    masked[48 + 4] = 0xFF
    return zlib.crc32(bytes(masked)) & 0xFFFFFFFF


def seal(pkt):
    """ICRC and VCRC appended to LRH..pad."""
    pkt = pkt + struct.pack("<I", icrc(pkt))
    return pkt + struct.pack("<H", vcrc(pkt))


def seal_body(body, fix_len=True):
    """LRH..pad sealed, its PktLen (if fix_len) made right first."""
    body = bytearray(body)
    if fix_len and len(body) >= 8:
        words = (len(body) + 4) // 4
        body[4] = (body[4] & 0xF8) | ((words >> 8) & 0x07)
        body[5] = words & 0xFF
    return seal(bytes(body))


def reseal(pkt, fix_len=True):
    """A sealed packet's CRCs (and PktLen, if fix_len) made right again."""
    return seal_body(pkt[:-6], fix_len)


class Target:
    """What wire_qps made: the QPs the packets are for."""

    def __init__(self, line, dlid, slid):
        f = dict(kv.split("=") for kv in line.split())
        self.rc = [int(q) for q in f["rc"].split(",")]
        self.uc = int(f["uc"])
        self.ud = int(f["ud"])
        self.qkey = int(f["qkey"])
        self.rkey = int(f["rkey"])
        self.addr = int(f["addr"])
        self.len = int(f["len"])
        self.dlid = dlid
        self.slid = slid
        # RC QPs are wire_qps's 0 and 1, UC its 2: their remote QPNs.
        self.remote = {self.rc[0]: REMOTE_QPN, self.rc[1]: REMOTE_QPN + 1,
                       self.uc: REMOTE_QPN + 2}
        self.psn = {q: 0 for q in self.rc + [self.uc, self.ud, 1, 0]}


def packet(t, opcode, dqpn, psn, ext=b"", payload=b"", vl=0, pkey=0xFFFF,
           ackreq=0, se=0):
    """A sealed local packet: LRH, BTH, extension headers, payload."""
    pad = -len(payload) % 4
    words = (8 + 12 + len(ext) + len(payload) + pad + 4) // 4
    lrh = struct.pack(">BBHHH", vl << 4, 0x02, t.dlid, words & 0x7FF, t.slid)
    bth = struct.pack(">BBHLL", opcode, (se << 7) | 0x40 | (pad << 4), pkey,
                      dqpn & 0xFFFFFF, (ackreq << 31) | (psn & 0xFFFFFF))
    return seal(lrh + bth + ext + payload + b"\0" * pad)


def reth(t, r, length):
    """An RETH inside wire_qps's MR, mostly; now and then not."""
    off = r.randrange(0, t.len - length + 1) if length <= t.len else 0
    rkey = t.rkey if r.random() < 0.9 else r.getrandbits(32)
    return struct.pack(">QLL", t.addr + off, rkey, length)


def atomic_eth(t, r):
    off = r.randrange(0, t.len // 8) * 8
    if r.random() < 0.1:
        off += r.choice([1, 4, t.len])
    return struct.pack(">QLQQ", t.addr + off, t.rkey, r.getrandbits(64),
                       r.getrandbits(64))


def aeth(r, msn):
    syndrome = r.choice([0x1F, 0x00, 0x05, 0x20 | r.randrange(32), 0x60,
                         0x61, 0x62, 0x63, 0x64, r.getrandbits(8)])
    return struct.pack(">L", (syndrome << 24) | (msn & 0xFFFFFF))


def next_psn(t, r, qpn):
    """The PSN of the next good packet for QPN: its count, back to 0 now
    and then (as the QP's own after wire_qps puts it back to RTS)."""
    if r.random() < 0.01:
        t.psn[qpn] = 0
    psn = t.psn[qpn]
    t.psn[qpn] = (psn + 1) & 0xFFFFFF
    return psn


def good_rc_uc(t, r, qpn, uc):
    """One good request (or, for RC, response) for a connected QP."""
    base = UC if uc else 0
    choices = [SEND_ONLY, SEND_ONLY_IMM, SEND_FIRST, SEND_MIDDLE, SEND_LAST,
               SEND_LAST_IMM, WRITE_ONLY, WRITE_ONLY_IMM, WRITE_FIRST,
               WRITE_MIDDLE, WRITE_LAST, WRITE_LAST_IMM]
    if not uc:
        choices += [READ_REQ, CMP_SWAP, FETCH_ADD, SEND_ONLY_INV,
                    SEND_LAST_INV, ACK, ACK, ATOMIC_ACK, READ_RESP_ONLY,
                    READ_RESP_FIRST, READ_RESP_MIDDLE, READ_RESP_LAST]
    op = r.choice(choices)
    imm = struct.pack(">L", r.getrandbits(32))
    ext, payload = b"", b""
    last_len = r.randrange(0, MTU + 1)
    full = bytes(r.getrandbits(8) for _ in range(MTU)) if r.random() < 0.2 \
        else b"\xa5" * MTU
    if op in (SEND_FIRST, SEND_MIDDLE, WRITE_MIDDLE, READ_RESP_MIDDLE):
        payload = full
    elif op in (SEND_ONLY, SEND_LAST, WRITE_LAST):
        payload = full[:last_len]
    elif op in (SEND_ONLY_IMM, SEND_LAST_IMM, WRITE_LAST_IMM):
        ext, payload = imm, full[:last_len]
    elif op in (SEND_ONLY_INV, SEND_LAST_INV):
        ext, payload = struct.pack(">L", r.getrandbits(32)), full[:last_len]
    elif op == WRITE_FIRST:
        ext, payload = reth(t, r, MTU * r.randrange(2, 5)), full
    elif op == WRITE_ONLY:
        ext, payload = reth(t, r, last_len), full[:last_len]
    elif op == WRITE_ONLY_IMM:
        ext, payload = reth(t, r, last_len) + imm, full[:last_len]
    elif op == READ_REQ:
        ext = reth(t, r, r.randrange(0, 4 * MTU))
    elif op in (CMP_SWAP, FETCH_ADD):
        ext = atomic_eth(t, r)
    elif op == ACK:
        ext = aeth(r, r.randrange(8))
    elif op == ATOMIC_ACK:
        ext = aeth(r, r.randrange(8)) + struct.pack(">Q", r.getrandbits(64))
    elif op in (READ_RESP_FIRST, READ_RESP_LAST, READ_RESP_ONLY):
        ext = aeth(r, r.randrange(8))
        payload = full if op == READ_RESP_FIRST else full[:last_len]
    if op >= READ_RESP_FIRST and op <= ATOMIC_ACK:
        # A response's PSN is one of the requester's, which wire_qps
        # sends from 0 on: near the start.
        psn = r.randrange(0, 64)
    else:
        psn = next_psn(t, r, qpn)
    return packet(t, base + op, qpn, psn, ext, payload,
                  ackreq=int(r.random() < 0.5), se=int(r.random() < 0.1))


def good_ud(t, r):
    """A UD SEND_ONLY: to the UD QP, to QP 1 (a MAD), to QP 0 on VL15."""
    dest = r.choice([t.ud, t.ud, t.ud, 1, 0])
    qkey = t.qkey if dest not in (0, 1) else 0x80010000
    if dest == 0:
        qkey = 0
    size = r.choice([0, 1, 4, 64, 256, r.randrange(0, MTU + 1)])
    if dest in (0, 1):
        size = 256
    payload = bytes(r.getrandbits(8) for _ in range(size))
    if dest in (0, 1) and r.random() < 0.7:
        # A MAD header that a class agent reads: base version 1, a class,
        # version, method.
        payload = bytes([1, r.choice([1, 0x81, 4, 6, 7, 3, 0x0A]),
                         r.choice([1, 2]), r.choice([1, 2, 3, 5, 6, 7, 0x81])]) + payload[4:]
    op = UD_SEND_ONLY_IMM if r.random() < 0.2 else UD_SEND_ONLY
    ext = struct.pack(">LL", qkey, r.getrandbits(24))
    if op == UD_SEND_ONLY_IMM:
        ext += struct.pack(">L", r.getrandbits(32))
    return packet(t, op, dest, next_psn(t, r, dest), ext, payload,
                  vl=15 if dest == 0 else 0)


def good_packet(t, r):
    kind = r.random()
    if kind < 0.45:
        q = r.choice(t.rc)
        return good_rc_uc(t, r, q, False)
    if kind < 0.7:
        return good_rc_uc(t, r, t.uc, True)
    return good_ud(t, r)


def flip_bits(r, pkt):
    b = bytearray(pkt)
    for _ in range(r.randrange(1, 9)):
        i = r.randrange(len(b) * 8)
        b[i // 8] ^= 1 << (i % 8)
    return bytes(b)


def replace_field(t, r, pkt):
    """One header field of a good local packet replaced."""
    b = bytearray(pkt[:-6])
    ext = 20
    field = r.randrange(19)
    if field == 0:          # VL
        b[0] = (r.getrandbits(4) << 4) | (b[0] & 0x0F)
    elif field == 1:        # LVer
        b[0] = (b[0] & 0xF0) | r.randrange(1, 16)
    elif field == 2:        # SL, LNH
        b[1] = r.getrandbits(8)
    elif field == 3:        # DLID
        struct.pack_into(">H", b, 2, r.choice([0, 2, 3, 0xFFFF, 0xC000,
                                               0xC001, r.getrandbits(16)]))
    elif field == 4:        # PktLen (not made right again below)
        struct.pack_into(">H", b, 4, r.getrandbits(16))
        return seal(bytes(b))
    elif field == 5:        # SLID
        struct.pack_into(">H", b, 6, r.choice([0, 1, 3, 0xFFFF, r.getrandbits(16)]))
    elif field == 6:        # opcode
        b[8] = r.choice([r.getrandbits(8), r.randrange(0x18, 0x20),
                         r.randrange(0x20, 0x40), r.randrange(0x40, 0x80),
                         r.randrange(0x17)])
    elif field == 7:        # SE, MigReq, pad, TVer
        b[9] = r.getrandbits(8)
    elif field == 8:        # P_Key
        struct.pack_into(">H", b, 10, r.choice([0, 0x7FFF, 0x8001, 0xFFFE,
                                                r.getrandbits(16)]))
    elif field == 9:        # DestQP
        q = r.choice([0, 1, 2, 0xFFFFFF, 0xFFFFFE, t.ud, r.getrandbits(24)]
                     + t.rc + [t.uc])
        b[13:16] = q.to_bytes(3, "big")
    elif field == 10:       # AckReq, PSN
        psn = r.choice([r.getrandbits(24), 0x800000, 0xFFFFFF,
                        (int.from_bytes(b[17:20], "big") + r.randrange(-8, 9)) & 0xFFFFFF])
        struct.pack_into(">L", b, 16, (r.getrandbits(1) << 31) | psn)
    elif field == 11:       # pad count alone
        b[9] = (b[9] & 0xCF) | (r.randrange(4) << 4)
    else:                   # the first extension header's words
        if len(b) <= ext:
            b[9] ^= 0x30
        else:
            off = ext + 4 * r.randrange(max(1, min(7, (len(b) - ext) // 4)))
            what = r.choice([0, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF,
                             r.getrandbits(32), t.qkey, t.rkey,
                             t.addr & 0xFFFFFFFF, t.addr >> 32, MTU + 1,
                             0x10000, t.len])
            if off + 4 <= len(b):
                struct.pack_into(">L", b, off, what)
    if r.random() < 0.1:
        # The old VCRC kept: the link's check must catch it.
        return seal(bytes(b))[:-2] + pkt[-2:]
    return seal(bytes(b))


def random_bytes(r, n):
    return bytes(r.getrandbits(8) for _ in range(n))


class Fuzzer:
    CLASSES = ["random", "valid", "bitflip", "truncate", "extend", "field",
               "header", "hello"]
    WEIGHTS = [10, 15, 15, 10, 8, 35, 5, 2]

    def __init__(self, target, seed, dest, src):
        self.t = target
        self.r = random.Random(seed)
        self.dest = dest
        self.src = src
        self.sent = {c: 0 for c in self.CLASSES}
        self.digest = hashlib.sha256()
        # The uplink's switch GUID, from its MAC (wire.rst, "GUIDs").
        self.own_guid = (int.from_bytes(dest, "big") << 16) | 0xFF00

    def frame(self, kind, body, length=None):
        return peer.frame(self.dest, self.src, kind, body, length)

    def next(self):
        """One frame, and the class it was drawn from."""
        r, t = self.r, self.t
        cls = r.choices(self.CLASSES, self.WEIGHTS)[0]
        if cls == "random":
            how = r.randrange(3)
            n = r.choice([0, 1, 2, 3, 4, 5, 8, 20, 25, 26, 27, 30,
                          r.randrange(0, 1500)])
            if how == 0:
                f = self.dest + self.src + struct.pack(">H", peer.ETHERTYPE) \
                    + random_bytes(r, n)
            elif how == 1:
                f = self.frame(KIND_DATA, random_bytes(r, n))
            else:
                body = bytearray(random_bytes(r, max(n & ~3, 8)))
                body[0] &= 0xF0
                body[1] = (body[1] & 0xFC) | r.choice([2, 2, 3])
                f = self.frame(KIND_DATA, seal_body(body))
        elif cls == "hello":
            how = r.randrange(6)
            seq = r.getrandbits(32)
            guid = peer.PEER_GUID
            if how == 0:
                body = struct.pack(">QLL", guid, seq, 0) + random_bytes(r, r.randrange(1, 9))
            elif how == 1:
                body = struct.pack(">QLL", guid, seq, 0)[:r.randrange(16)]
            elif how == 2:
                body = struct.pack(">QLL", guid, 0, r.getrandbits(32))
            elif how == 3:
                body = struct.pack(">QLL", self.own_guid, seq, r.getrandbits(32))
            elif how == 4:
                body = struct.pack(">QLL", guid, seq, r.getrandbits(32))
            else:
                # Another peer: ends ours (the link retrains) if it is
                # heard; rarely.
                if r.random() < 0.05:
                    guid = r.getrandbits(64)
                body = struct.pack(">QLL", guid, seq, 0)
            f = self.frame(KIND_HELLO, body)
        else:
            pkt = good_packet(t, r)
            if cls == "valid":
                f = self.frame(KIND_DATA, pkt)
            elif cls == "bitflip":
                bad = flip_bits(r, pkt)
                how = r.random()
                if how < 0.4:
                    bad = reseal(bad, fix_len=False)
                elif how < 0.7:
                    # The ICRC wrong, the VCRC right: for the HCA's check.
                    bad = bad[:-2] + struct.pack("<H", vcrc(bad[:-2]))
                f = self.frame(KIND_DATA, bad)
            elif cls == "truncate":
                n = r.randrange(0, len(pkt))
                bad = pkt[:n]
                if r.random() < 0.6 and n >= 14:
                    # What is left of LRH..pad, in whole words, sealed.
                    bad = seal_body(pkt[:min(n, len(pkt) - 6) & ~3])
                f = self.frame(KIND_DATA, bad)
            elif cls == "extend":
                extra = random_bytes(r, r.choice([1, 2, 3, 4, 8, MTU, 1024,
                                                  r.randrange(1, 1400)]))
                bad = pkt + extra
                if r.random() < 0.6:
                    bad = seal_body(pkt[:-6] + extra[:len(extra) & ~3])
                f = self.frame(KIND_DATA, bad)
            elif cls == "field":
                f = self.frame(KIND_DATA, replace_field(t, r, pkt))
            else:   # header
                how = r.randrange(4)
                if how == 0:
                    f = self.frame(r.choice([0, 3, 0x7F, 0xFF, r.getrandbits(8)]), pkt)
                elif how == 1:
                    f = self.dest + self.src + struct.pack(
                        ">HBBH", peer.ETHERTYPE, KIND_DATA, r.randrange(1, 256),
                        len(pkt)) + pkt
                elif how == 2:
                    f = self.frame(KIND_DATA, pkt, length=r.choice(
                        [len(pkt) + 1, len(pkt) + 100, 0xFFFF, r.getrandbits(16)]))
                else:
                    f = self.frame(KIND_DATA, pkt, length=r.randrange(len(pkt)))
        self.sent[cls] += 1
        self.digest.update(struct.pack(">H", len(f)) + f)
        return f


class Heart:
    """The link's heartbeat, as uplink_peer.py's serve keeps it."""

    def __init__(self, sock, src):
        self.sock = sock
        self.src = src
        self.seq = 0
        self.heard = 0
        self.echoed = 0
        self.next_at = 0.0
        self.rx = {}

    def tick(self, now):
        if now >= self.next_at:
            self.seq += 1
            body = struct.pack(">QLL", peer.PEER_GUID, self.seq, self.heard)
            self.sock.send(peer.frame(b"\xff" * 6, self.src, KIND_HELLO, body))
            self.next_at = now + peer.HELLO_S
        while True:
            try:
                data, addr = self.sock.recvfrom(65535, socket.MSG_DONTWAIT)
            except BlockingIOError:
                return
            if addr[2] == socket.PACKET_OUTGOING or len(data) < 18:
                continue
            kind = data[14]
            if kind == KIND_HELLO and len(data) >= 34:
                _, seq, echo = struct.unpack(">QLL", data[18:34])
                self.heard = seq
                if echo and self.seq - echo < 10:
                    self.echoed += 1
            elif kind == KIND_DATA and len(data) >= 18 + 20:
                op = data[18 + 8]
                self.rx[op] = self.rx.get(op, 0) + 1


def load_target(path, args):
    with open(path) as f:
        return Target(f.read().strip(), args.dlid, args.slid)


def run(args):
    t = load_target(args.info, args)
    sock = peer.open_socket(args.iface)
    src = peer.mac_of(args.iface)
    dest = bytes.fromhex(args.dest_mac.replace(":", ""))
    print("wire_fuzz: seed %d, count %d, seconds %s" % (args.seed, args.count,
                                                        args.seconds), flush=True)
    heart = train(sock, src)
    if not heart:
        return 1
    fz = Fuzzer(t, args.seed, dest, src)
    start = time.monotonic()
    deadline = start + args.seconds if args.seconds else None
    n = 0
    errors = 0
    while not args.count or n < args.count:
        now = time.monotonic()
        if deadline and now >= deadline:
            break
        heart.tick(now)
        f = fz.next()
        n += 1
        try:
            sock.send(f)
        except OSError:
            # A frame the interface refuses (longer than its MTU).
            errors += 1
        if args.rate:
            time.sleep(1.0 / args.rate)
    took = time.monotonic() - start
    # A last second of heartbeats: the link stays up for what follows.
    end = time.monotonic() + 1
    while time.monotonic() < end:
        heart.tick(time.monotonic())
        time.sleep(0.02)
    print("wire_fuzz: %d frames in %.1f s (%d/s), %d refused by the interface"
          % (n, took, n / took if took else 0, errors))
    print("wire_fuzz: sent by class: " +
          " ".join("%s=%d" % kv for kv in fz.sent.items()))
    print("wire_fuzz: came back by opcode: " +
          " ".join("0x%02x=%d" % kv for kv in sorted(heart.rx.items())))
    print("wire_fuzz: heartbeats sent %d, answers heard %d" % (heart.seq, heart.echoed))
    print("wire_fuzz: from %s to %s" % (src.hex(":"), dest.hex(":")))
    print("wire_fuzz: seed %d count %d digest %s" % (args.seed, n, fz.digest.hexdigest()))
    return 0


def train(sock, src):
    """Heartbeats until the uplink answers ours; the Heart, or None."""
    heart = Heart(sock, src)
    start = time.monotonic()
    while heart.echoed < 3:
        now = time.monotonic()
        if now - start > TRAIN_S:
            print("wire_fuzz: the uplink never echoed our heartbeat in %d s" % TRAIN_S)
            return None
        heart.tick(now)
        time.sleep(0.01)
    print("wire_fuzz: link trained in %.1f s" % (time.monotonic() - start), flush=True)
    return heart


def uc_abort(args):
    t = load_target(args.info, args)
    sock = peer.open_socket(args.iface)
    src = peer.mac_of(args.iface)
    dest = bytes.fromhex(args.dest_mac.replace(":", ""))
    heart = train(sock, src)
    if not heart:
        return 1
    for psn in (0, 100, 200, 300):
        pkt = packet(t, UC + SEND_ONLY, t.uc, psn, b"", b"\x5a" * 64)
        sock.send(peer.frame(dest, src, KIND_DATA, pkt))
        end = time.monotonic() + 0.3
        while time.monotonic() < end:
            heart.tick(time.monotonic())
            time.sleep(0.02)
    print("wire_fuzz: 4 UC SEND_ONLYs sent to QP %d, PSNs 0, 100, 200, 300" % t.uc)
    return 0


def frames(args):
    t = load_target(args.info, args)
    fz = Fuzzer(t, args.seed, bytes.fromhex(args.dest_mac.replace(":", "")),
                bytes.fromhex(args.src_mac.replace(":", "")))
    for _ in range(args.count):
        fz.next()
    print("wire_fuzz: seed %d count %d digest %s" % (args.seed, args.count,
                                                     fz.digest.hexdigest()))
    return 0


def selftest(_args):
    r = random.Random(1)
    ok = True
    for n in (0, 1, 7, 26, 300):
        data = random_bytes(r, n)
        ok &= vcrc(data) == peer.vcrc(data)
        if n >= 20:
            ok &= seal(data) == peer.seal(data)
    ok &= peer.check_ib(packet(Target("rc=5,6 uc=7 ud=8 qkey=1 rkey=2 addr=3 len=4",
                                      1, 2), SEND_ONLY, 5, 0, b"", b"abc")).startswith("vl=0")
    print("wire_fuzz selftest:", "ok" if ok else "FAILED")
    return 0 if ok else 1


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("run")
    p.add_argument("--count", type=int, default=0)
    p.add_argument("--seconds", type=float, default=0)
    p.add_argument("--rate", type=float, default=0)
    p.set_defaults(func=run)
    q = sub.add_parser("frames")
    q.add_argument("info")
    q.add_argument("--count", type=int, required=True)
    # 83-wirefuzz's veth0 and veth1.
    q.add_argument("--dest-mac", default=SUITE_DEST_MAC)
    q.add_argument("--src-mac", default=SUITE_SRC_MAC)
    q.set_defaults(func=frames)
    u = sub.add_parser("uc-abort")
    u.set_defaults(func=uc_abort)
    for s in (p, u):
        s.add_argument("iface")
        s.add_argument("dest_mac")
        s.add_argument("info")
    for s in (p, q):
        s.add_argument("--seed", type=int, required=True)
    for s in (p, q, u):
        s.add_argument("--dlid", type=int, default=1)
        s.add_argument("--slid", type=int, default=2)
    s = sub.add_parser("selftest")
    s.set_defaults(func=selftest)
    args = ap.parse_args(argv[1:])
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
