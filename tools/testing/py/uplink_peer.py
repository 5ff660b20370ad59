#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The far end of an rvtsw uplink, for 82-uplink: another host's uplink
as far as rvtsw can tell, on an AF_PACKET socket (Documentation/wire.rst,
"Uplinks").

  uplink_peer.py serve IFACE LOG [--no-echo]
      Send a heartbeat every 100 ms and answer rvtsw's (echo its number;
      with --no-echo never), until killed. Every frame of the uplink's
      ethertype that arrives goes on a line of LOG:
        HELLO guid=0x... seq=N echo=N
        DATA ok vl=V dlid=D slid=S lnh=L opcode=O dqpn=Q pkey=P len=N
        DATA bad <what is wrong>
        FRAME bad <what is wrong>
      A DATA frame is "ok" only if its LRH, BTH, ICRC and VCRC are as
      IBTA says.
  uplink_peer.py inject IFACE DEST_MAC KIND [DLID]
      Send one frame to DEST_MAC: KIND is one of short (2 bytes of
      header), kind (an unknown kind), length (a header longer than the
      frame), runt (an IB packet shorter than LRH, BTH and CRCs), vcrc,
      icrc (a payload byte changed, the VCRC made right again), good (a
      UD SEND_ONLY to QP 1 at DLID, from LID 0x123, with a PerfMgt Get of
      ClassPortInfo).
  uplink_peer.py selftest
      The CRCs against the known answers of rvtsw's own self-test
      (rvtsw/wire_selftest.c).
"""

import os
import socket
import struct
import sys
import time
import zlib

ETHERTYPE = 0x88B5
KIND_DATA = 0x01
KIND_HELLO = 0x02
PEER_GUID = 0x0002C9FEEDFACE01
HELLO_S = 0.1


def vcrc(data):
    """IBTA's VCRC: CRC-16, polynomial 0x100B, least significant bit
    first, seeded with ones, inverted."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xD008 if crc & 1 else crc >> 1
    return crc ^ 0xFFFF


def icrc(pkt):
    """IBTA's ICRC of a local packet (LRH, BTH, ...; no GRH): CRC-32 over
    it with the LRH's VL and the BTH's resv8a read as ones."""
    masked = bytearray(pkt)
    masked[0] |= 0xF0
    masked[8 + 4] = 0xFF
    return zlib.crc32(bytes(masked)) & 0xFFFFFFFF


def seal(pkt):
    """Append the ICRC and the VCRC to a packet's LRH..pad."""
    pkt = pkt + struct.pack("<I", icrc(pkt))
    return pkt + struct.pack("<H", vcrc(pkt))


def check_ib(pkt):
    """What is wrong with an IB packet, LRH to VCRC; None if nothing."""
    if len(pkt) < 8 + 12 + 6:
        return "short (%d bytes)" % len(pkt)
    b0, b1, dlid, pktlen, slid = struct.unpack(">BBHHH", pkt[:8])
    if b0 & 0x0F:
        return "LVer %d" % (b0 & 0x0F)
    if (pktlen & 0x7FF) * 4 != len(pkt) - 2:
        return "PktLen %d words for %d bytes" % (pktlen & 0x7FF, len(pkt))
    if b1 & 3 != 2:
        return "LNH %d (no GRH expected)" % (b1 & 3)
    body = pkt[:-6]
    if struct.unpack("<I", pkt[-6:-2])[0] != icrc(body):
        return "bad ICRC"
    if struct.unpack("<H", pkt[-2:])[0] != vcrc(pkt[:-2]):
        return "bad VCRC"
    opcode, flags, pkey = struct.unpack(">BBH", pkt[8:12])
    dqpn = int.from_bytes(pkt[13:16], "big")
    if flags & 0x0F:
        return "TVer %d" % (flags & 0x0F)
    return ("vl=%d dlid=%d slid=%d lnh=%d opcode=0x%02x dqpn=0x%x pkey=0x%04x len=%d"
            % (b0 >> 4, dlid, slid, b1 & 3, opcode, dqpn, pkey, len(pkt)))


def describe(frame):
    """A log line for one frame of the uplink's ethertype."""
    if len(frame) < 18:
        return "FRAME bad %d bytes" % len(frame)
    kind, version, length = struct.unpack(">BBH", frame[14:18])
    body = frame[18:]
    if version != 0 or length > len(body):
        return "FRAME bad version %d length %d of %d" % (version, length, len(body))
    body = body[:length]
    if kind == KIND_HELLO:
        if length != 16:
            return "FRAME bad hello of %d bytes" % length
        guid, seq, echo = struct.unpack(">QLL", body)
        return "HELLO guid=0x%016x seq=%d echo=%d" % (guid, seq, echo)
    if kind != KIND_DATA:
        return "FRAME bad kind %d" % kind
    fields = check_ib(body)
    if fields is None or not fields.startswith("vl="):
        return "DATA bad %s" % fields
    return "DATA ok " + fields


def open_socket(iface):
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETHERTYPE))
    sock.bind((iface, ETHERTYPE))
    return sock


def mac_of(iface):
    with open("/sys/class/net/%s/address" % iface) as f:
        return bytes.fromhex(f.read().strip().replace(":", ""))


def frame(dest, src, kind, body, length=None):
    length = len(body) if length is None else length
    return dest + src + struct.pack(">HBBH", ETHERTYPE, kind, 0, length) + body


def serve(iface, log_path, echo_back):
    sock = open_socket(iface)
    sock.settimeout(HELLO_S / 2)
    src = mac_of(iface)
    seq, heard, next_hello = 0, 0, 0.0
    with open(log_path, "a", buffering=1) as log:
        while True:
            now = time.monotonic()
            if now >= next_hello:
                seq += 1
                body = struct.pack(">QLL", PEER_GUID, seq, heard if echo_back else 0)
                sock.send(frame(b"\xff" * 6, src, KIND_HELLO, body))
                next_hello = now + HELLO_S
            try:
                data, addr = sock.recvfrom(65535)
            except socket.timeout:
                continue
            if addr[2] == socket.PACKET_OUTGOING:
                continue
            line = describe(data)
            if line.startswith("HELLO"):
                heard = int(line.split("seq=")[1].split()[0])
            log.write(line + "\n")


def ib_packet(dlid, slid, payload):
    """A UD SEND_ONLY to QP 1 with Q_Key 0x80010000, from QP 1, VL 0."""
    pad = -len(payload) % 4
    words = (8 + 12 + 8 + len(payload) + pad + 4) // 4
    lrh = struct.pack(">BBHHH", 0x00, 0x02, dlid, words, slid)
    bth = struct.pack(">BBHL", 0x64, pad << 4, 0xFFFF, 1) + struct.pack(">L", 0x42)
    deth = struct.pack(">LL", 0x80010000, 1)
    return seal(lrh + bth + deth + payload + b"\0" * pad)


def perf_get_classportinfo():
    """A PerfMgt (class 4) Get of ClassPortInfo, 256 bytes."""
    hdr = struct.pack(">BBBBHHQHHL", 1, 4, 1, 1, 0, 0, 0x1234, 0x0001, 0, 0)
    return hdr + b"\0" * (256 - len(hdr))


def inject(iface, dest_mac, kind, dlid):
    sock = open_socket(iface)
    dest = bytes.fromhex(dest_mac.replace(":", ""))
    src = mac_of(iface)
    good = ib_packet(dlid, 0x123, perf_get_classportinfo())
    if kind == "short":
        data = dest + src + struct.pack(">H", ETHERTYPE) + b"\x01\x00"
    elif kind == "kind":
        data = frame(dest, src, 0x7F, good)
    elif kind == "length":
        data = frame(dest, src, KIND_DATA, good[:40], length=len(good))
    elif kind == "runt":
        data = frame(dest, src, KIND_DATA, good[:16])
    elif kind == "vcrc":
        data = frame(dest, src, KIND_DATA, good[:-1] + bytes([good[-1] ^ 0x55]))
    elif kind == "icrc":
        bad = bytearray(good[:-6])
        bad[40] ^= 0x01
        body = bytes(bad) + good[-6:-2]
        data = frame(dest, src, KIND_DATA, body + struct.pack("<H", vcrc(body)))
    elif kind == "good":
        data = frame(dest, src, KIND_DATA, good)
    else:
        sys.exit("unknown kind %s" % kind)
    sock.send(data)


def selftest():
    tail = bytes([0x64, 0x30, 0xFF, 0xFF, 0, 0, 0, 0x12, 0, 0, 0x01, 0x23,
                  0x80, 0x01, 0, 0, 0, 0, 0, 0x01]) + b"rvtsw\0\0\0"
    local = bytes([0, 0x02, 0, 0x02, 0, 0x0A, 0, 0x01]) + tail
    got = seal(local)
    want_icrc, want_vcrc = 0x04F1DCB5, 0x8AFB
    ok = (struct.unpack("<I", got[-6:-2])[0] == want_icrc
          and struct.unpack("<H", got[-2:])[0] == want_vcrc
          and check_ib(got).startswith("vl=0 dlid=2 slid=1"))
    print("selftest:", "ok" if ok else "FAILED", got[-6:].hex())
    return 0 if ok else 1


def main(argv):
    if argv[1:2] == ["serve"]:
        serve(argv[2], argv[3], "--no-echo" not in argv[4:])
    elif argv[1:2] == ["inject"]:
        inject(argv[2], argv[3], argv[4], int(argv[5], 0) if len(argv) > 5 else 1)
    elif argv[1:2] == ["selftest"]:
        return selftest()
    else:
        sys.exit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
