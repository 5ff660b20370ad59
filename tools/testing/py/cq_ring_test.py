"""CQ rings and their mmap() cookies, through raw uverbs commands.

Usage: cq_ring_test.py TEST, with TEST one of
  cookies        cookies are distinct page-aligned offsets past page 0
  map-once       a ring maps once, whole or in part, only by its context
  outlive        a mapped ring stays readable after its CQ is destroyed
  kernel-ring    without room for a cookie, the CQ is polled by the kernel
  destroyed-qp   such a CQ keeps no completion of a QP once it is destroyed
  resize         resizing gives a new cookie; the old mapping survives
  resize-no-cookie  a mapped CQ cannot be resized without a new cookie
  bogus-indices  garbage head/tail written by the process stay harmless
"""
import errno
import struct
import sys

from uverbs_raw import (PAGE, QP_INIT_MASK, QP_STATE, QPS_ERR, QPS_INIT,
                        RWQE_HEADER, SGE_SIZE, WC_WR_FLUSH_ERR, Uverbs,
                        cq_ring_bytes, expect_errno, page_align)


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def ring_indices(ring):
    return struct.unpack_from("<II", ring)


def test_cookies(uv):
    cqs = [uv.create_cq(cqe) for cqe in (1, 10, 100, 5000, 3)]
    cookies = [c for _, _, c in cqs]
    for (_, cqe, cookie) in cqs:
        check(cookie >= PAGE and cookie % PAGE == 0, f"cookie {cookie:#x}")
    spans = sorted((c, c + page_align(cq_ring_bytes(cqe)))
                   for _, cqe, c in cqs)
    for (_, end), (start, _) in zip(spans, spans[1:]):
        check(end <= start, f"cookie ranges overlap: {spans}")
    for handle, _, _ in cqs:
        uv.destroy_cq(handle)
    print(f"cookies {[hex(c) for c in cookies]} distinct and page aligned")


def test_map_once(uv):
    handle, cqe, cookie = uv.create_cq(100)
    size = page_align(cq_ring_bytes(cqe))
    expect_errno(errno.EINVAL, uv.map, cookie, size + PAGE)
    with Uverbs() as other:
        expect_errno(errno.EINVAL, other.map, cookie, size)
    expect_errno(errno.EINVAL, uv.map, cookie + size, size)
    # The refused attempts left the cookie mappable: once.
    ring = uv.map(cookie, PAGE)
    check(ring_indices(ring) == (0, 0), "new ring not empty")
    expect_errno(errno.EINVAL, uv.map, cookie, PAGE)
    ring.close()
    expect_errno(errno.EINVAL, uv.map, cookie, PAGE)
    uv.destroy_cq(handle)
    print("ring mapped once; too big, foreign, unknown and repeated maps "
          "refused with EINVAL")


def test_outlive(uv):
    handle, cqe, cookie = uv.create_cq(50)
    ring = uv.map(cookie, cq_ring_bytes(cqe))
    uv.destroy_cq(handle)
    check(ring_indices(ring) == (0, 0), "ring after destroy")
    struct.pack_into("<II", ring, 0, 7, 9)
    check(ring_indices(ring) == (7, 9), "ring not writable after destroy")
    ring.close()
    # A destroyed CQ's cookie is gone even if it was never mapped.
    handle, cqe, cookie = uv.create_cq(50)
    uv.destroy_cq(handle)
    expect_errno(errno.EINVAL, uv.map, cookie, PAGE)
    print("ring stayed mapped after its CQ was destroyed")


def test_kernel_ring(uv):
    handle, cqe, cookie = uv.create_cq(20, driver_out=0)
    check(cookie is None and cqe >= 20, f"kernel-ring CQ cqe {cqe}")
    check(uv.poll_cq(handle, 8) == 0, "kernel-polled CQ not empty")
    uv.req_notify_cq(handle)
    uv.req_notify_cq(handle, True)
    uv.destroy_cq(handle)
    # A CQ with a mapped ring cannot be polled through the kernel.
    handle, cqe, cookie = uv.create_cq(20)
    expect_errno(errno.EINVAL, uv.poll_cq, handle, 8)
    uv.destroy_cq(handle)
    print("CQ without a cookie polled through the kernel; mapped one refused")


def flushed_receive(uv, pd, cq, wr_id):
    """An RC QP on cq whose one receive, posted into its mapped ring, is
    flushed by the move to ERR (synchronously: the modify itself
    completes it); returns (handle, qpn) of the QP, still alive."""
    qp, qpn, rwr, rsge, cookie = uv.create_qp(pd, cq, cq)
    ring = uv.map(cookie, page_align(8 + (rwr + 1) *
                                     (RWQE_HEADER + SGE_SIZE * rsge)))
    uv.modify_qp(qp, QPS_INIT, QP_INIT_MASK, port=1)
    uv.post_ring_recv(ring, rwr + 1, rsge, wr_id)
    uv.modify_qp(qp, QPS_ERR, QP_STATE)
    ring.close()
    return qp, qpn


def test_destroyed_qp(uv):
    """ib_uverbs_poll_cq() reads wc->qp->qp_num of every completion it
    copies out: one left behind by a destroyed QP would have the kernel
    read the freed QP (found by uverbs_fuzz under KASAN)."""
    pd = uv.alloc_pd()
    cq, _, _ = uv.create_cq(8, driver_out=0)
    qp, qpn = flushed_receive(uv, pd, cq, 0x11)
    wcs = uv.poll_wcs(cq, 4)
    check(wcs == [(0x11, WC_WR_FLUSH_ERR, qpn)],
          f"live QP {qpn:#x}: completions {wcs}, want its flushed receive")
    uv.destroy_qp(qp)
    qp, qpn = flushed_receive(uv, pd, cq, 0x22)
    uv.destroy_qp(qp)
    wcs = uv.poll_wcs(cq, 4)
    check(not wcs, f"destroyed QP {qpn:#x}'s completion still queued: {wcs}")
    uv.destroy_cq(cq)
    uv.dealloc_pd(pd)
    print("a live QP's flushed receive polled; a destroyed QP's dropped")


def test_resize(uv):
    handle, cqe, cookie = uv.create_cq(10)
    old = uv.map(cookie, cq_ring_bytes(cqe))
    for want in (100, 5, 3000):
        got, new_cookie = uv.resize_cq(handle, want)
        check(got >= want, f"resize to {want}: {got}")
        check(new_cookie not in (None, 0, cookie),
              f"resize cookie {new_cookie} (old {cookie:#x})")
        check(ring_indices(old) == (0, 0), "old ring after resize")
        old.close()
        old = uv.map(new_cookie, cq_ring_bytes(got))
        check(ring_indices(old) == (0, 0), "new ring not empty")
        cookie = new_cookie
    expect_errno(errno.EINVAL, uv.resize_cq, handle, 0)
    old.close()
    uv.destroy_cq(handle)
    handle, _, _ = uv.create_cq(10, driver_out=0)
    got, _ = uv.resize_cq(handle, 40, 0)
    check(got >= 40 and uv.poll_cq(handle, 4) == 0, "kernel ring resize")
    uv.destroy_cq(handle)
    print("resize moved rings to new cookies; old mappings stayed valid")


def test_resize_no_cookie(uv):
    """A mapped CQ resized with no room for the new cookie: the provider
    could never map the new ring, so the resize must be refused."""
    handle, _, _ = uv.create_cq(10)
    expect_errno(errno.EINVAL, uv.resize_cq, handle, 50, 0)
    uv.destroy_cq(handle)
    print("resize of a mapped CQ without room for the cookie refused")


def test_bogus_indices(uv):
    handle, cqe, cookie = uv.create_cq(10)
    ring = uv.map(cookie, cq_ring_bytes(cqe))
    # head beyond the ring counts as its last slot: cqe entries queued.
    struct.pack_into("<II", ring, 0, 0xFFFFFFFF, 0)
    expect_errno(errno.EINVAL, uv.resize_cq, handle, cqe - 1)
    got, new_cookie = uv.resize_cq(handle, cqe)
    ring.close()
    ring = uv.map(new_cookie, cq_ring_bytes(got))
    check(ring_indices(ring) == (cqe, 0), f"moved {ring_indices(ring)}")
    struct.pack_into("<II", ring, 0, 0x80000000, 0xFFFFFFF0)
    uv.resize_cq(handle, 2 * cqe)
    ring.close()
    uv.destroy_cq(handle)
    print("garbage ring indices clamped into the ring")


def main():
    tests = {
        "cookies": test_cookies, "map-once": test_map_once,
        "outlive": test_outlive, "kernel-ring": test_kernel_ring,
        "destroyed-qp": test_destroyed_qp,
        "resize": test_resize, "resize-no-cookie": test_resize_no_cookie,
        "bogus-indices": test_bogus_indices,
    }
    with Uverbs() as uv:
        tests[sys.argv[1]](uv)


if __name__ == "__main__":
    main()
