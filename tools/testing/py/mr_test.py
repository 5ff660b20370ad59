"""Memory region registration through libibverbs and raw uverbs commands.

Usage: mr_test.py DEVICE TEST, with TEST one of
  access     register buffers of many sizes with each access combination
  bad        empty, wrapping, unmapped and read-only-for-write memory fail
  iova       a region may be registered at another IB virtual address
  many       hundreds of regions at once get distinct keys
"""
import ctypes
import errno
import mmap
import sys

from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
import pyverbs.enums as e

from uverbs_raw import Uverbs, expect_errno as expect_raw_errno
from verbs_checks import check, expect_errno

LW = e.IBV_ACCESS_LOCAL_WRITE
RW = e.IBV_ACCESS_REMOTE_WRITE
RR = e.IBV_ACCESS_REMOTE_READ
RA = e.IBV_ACCESS_REMOTE_ATOMIC

ACCESS = [0, LW, RR, LW | RW, LW | RA, LW | RW | RR, LW | RW | RR | RA]
SIZES = [1, 100, 4096, 4097, 65536 + 3, 1 << 20, 8 << 20]

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]


def anon_map(length, prot):
    addr = libc.mmap(None, length, prot,
                     mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
    check(addr not in (None, ctypes.c_void_p(-1).value), "mmap failed")
    return addr


def test_access(ctx, pd):
    check(ctx.query_device().max_mr == 1 << 16,
          "max_mr is the lkey table size (rvtsw: 16 bits)")
    keys = set()
    for size in SIZES:
        for acc in ACCESS:
            with MR(pd, size, acc) as mr:
                check(mr.lkey == mr.rkey and mr.lkey != 0,
                      f"size {size} access {acc:#x}: keys "
                      f"{mr.lkey:#x}/{mr.rkey:#x}")
                check(mr.lkey not in keys, f"key {mr.lkey:#x} reused")
                keys.add(mr.lkey)
                mr.write(b"x" * min(size, 16), min(size, 16))
    print(f"{len(keys)} registrations: sizes {SIZES}, "
          f"access {[int(a) for a in ACCESS]}")


def test_bad(ctx, pd):
    # The IB core: remote write or atomic needs local write.
    expect_errno(errno.EINVAL, "remote write without local write",
                 MR, pd, 4096, RW)
    expect_errno(errno.EINVAL, "remote atomic without local write",
                 MR, pd, 4096, RA)
    # Nothing mapped at the first page.
    expect_errno(errno.EFAULT, "unmapped address", MR, pd, 4096, LW,
                 address=4096)
    page = anon_map(4096, mmap.PROT_READ | mmap.PROT_WRITE)
    try:
        # Runs off the end of the mapping into unmapped memory.
        expect_errno(errno.EFAULT, "past the mapping", MR, pd, 1 << 40, LW,
                     address=page)
    finally:
        libc.munmap(page, 4096)
    readonly = anon_map(4096, mmap.PROT_READ)
    try:
        with MR(pd, 4096, 0, address=readonly):
            pass
        expect_errno(errno.EFAULT, "local write to read-only memory",
                     MR, pd, 4096, LW, address=readonly)
    finally:
        libc.munmap(readonly, 4096)
    with Uverbs() as uv:
        upd = uv.alloc_pd()
        expect_raw_errno(errno.EINVAL, uv.reg_mr, upd, 0x10000, 0, 0x10000,
                         LW)
        expect_raw_errno(errno.EINVAL, uv.reg_mr, upd, 1 << 63, 1 << 63,
                         1 << 63, LW)
        uv.dealloc_pd(upd)
    print("bad registrations refused: EINVAL, EFAULT as expected")


def test_iova(_ctx, _pd):
    buf = anon_map(8192, mmap.PROT_READ | mmap.PROT_WRITE)
    try:
        with Uverbs() as uv:
            upd = uv.alloc_pd()
            for iova in (0x7000_0000_0000, 0, buf + 0x10_0000):
                handle, lkey, rkey = uv.reg_mr(upd, buf + 0x123, 5000,
                                               iova + 0x123, LW | RW)
                check(lkey == rkey != 0, f"iova {iova:#x}: keys")
                uv.dereg_mr(handle)
            # The IB core wants the address and the IOVA on the same
            # page offset.
            expect_raw_errno(errno.EINVAL, uv.reg_mr, upd, buf, 4096,
                             0x7000_0000_0010, LW)
            uv.dealloc_pd(upd)
    finally:
        libc.munmap(buf, 8192)
    print("regions registered at other IB virtual addresses")


def test_many(ctx, pd):
    mrs = [MR(pd, 4096 * (1 + i % 4), LW | RW | RR) for i in range(300)]
    keys = {mr.lkey for mr in mrs}
    check(len(keys) == len(mrs), "duplicate keys among live regions")
    # Table slots are the keys' top 16 bits here: all distinct too.
    check(len({k >> 16 for k in keys}) == len(mrs), "shared table slots")
    for mr in mrs[::2]:
        mr.close()
    again = [MR(pd, 4096, LW) for _ in range(150)]
    check(not {mr.lkey for mr in again} & keys, "a freed key came back")
    for mr in mrs[1::2] + again:
        mr.close()
    print("450 regions registered with distinct keys, then released")


def main():
    name, test = sys.argv[1], sys.argv[2]
    tests = {"access": test_access, "bad": test_bad, "iova": test_iova,
             "many": test_many}
    with Context(name=name) as ctx, PD(ctx) as pd:
        tests[test](ctx, pd)


if __name__ == "__main__":
    main()
