"""Raw uverbs write() commands, for tests that need what libibverbs hides.

The provider always gives the kernel room for an mmap cookie and maps
each ring exactly once; these helpers let a test choose the response
size, map a cookie twice, map it from another context, or keep a ring
mapped after its CQ is gone.
"""
import ctypes
import errno
import mmap
import os
import struct

CMD_GET_CONTEXT = 0
CMD_ALLOC_PD = 3
CMD_DEALLOC_PD = 4
CMD_REG_MR = 9
CMD_DEREG_MR = 13
CMD_CREATE_CQ = 18
CMD_RESIZE_CQ = 19
CMD_DESTROY_CQ = 20
CMD_POLL_CQ = 21
CMD_REQ_NOTIFY_CQ = 23
CMD_CREATE_QP = 24
CMD_MODIFY_QP = 26
CMD_DESTROY_QP = 27

QPT_RC = 2              # IB_UVERBS_QPT_RC
QPS_INIT = 1
QPS_ERR = 6
QP_STATE = 1            # IB_QP_STATE and the masks RESET->INIT needs
QP_INIT_MASK = QP_STATE | 8 | 16 | 32   # + ACCESS_FLAGS, PKEY_INDEX, PORT
WC_WR_FLUSH_ERR = 5
RWQE_HEADER = 16        # struct rvt_rwqe: u64 wr_id, u8 num_sge, padding
SGE_SIZE = 16           # struct ib_sge

UVERBS_WC_SIZE = 48     # struct ib_uverbs_wc
CQ_RING_HEADER = 8      # struct rvt_cq_wc: u32 head, u32 tail
PAGE = mmap.PAGESIZE


def cq_ring_bytes(cqe):
    """Bytes of a user CQ ring of cqe entries (cqe + 1 slots)."""
    return CQ_RING_HEADER + UVERBS_WC_SIZE * (cqe + 1)


def page_align(n):
    return (n + PAGE - 1) // PAGE * PAGE


class Uverbs:
    """One open of a uverbs device with its own user context."""

    def __init__(self, path="/dev/infiniband/uverbs0"):
        self.fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
        resp = self._cmd(CMD_GET_CONTEXT, b"", 8)
        async_fd, self.num_comp_vectors = struct.unpack("<II", resp)
        os.close(async_fd)

    def close(self):
        os.close(self.fd)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _cmd(self, command, body, out_len, with_response=True):
        """Send a write() command; return its response bytes."""
        buf = ctypes.create_string_buffer(max(out_len, 8))
        if with_response:
            body = struct.pack("<Q", ctypes.addressof(buf)) + body
        in_len = 8 + len(body)
        hdr = struct.pack("<IHH", command, in_len // 4, out_len // 4)
        os.write(self.fd, hdr + body)
        return buf.raw[:out_len]

    def alloc_pd(self):
        return struct.unpack("<I", self._cmd(CMD_ALLOC_PD, b"", 4))[0]

    def dealloc_pd(self, pd):
        self._cmd(CMD_DEALLOC_PD, struct.pack("<I", pd), 0, False)

    def reg_mr(self, pd, start, length, iova, access):
        """Return (handle, lkey, rkey)."""
        body = struct.pack("<QQQII", start, length, iova, pd, access)
        return struct.unpack("<III", self._cmd(CMD_REG_MR, body, 12))

    def dereg_mr(self, mr):
        self._cmd(CMD_DEREG_MR, struct.pack("<I", mr), 0, False)

    def create_cq(self, cqe, driver_out=8, comp_vector=0):
        """Return (handle, cqe, cookie); cookie is None without driver_out."""
        body = struct.pack("<QIIiI", 0, cqe, comp_vector, -1, 0)
        resp = self._cmd(CMD_CREATE_CQ, body, 8 + driver_out)
        handle, got = struct.unpack_from("<II", resp)
        cookie = struct.unpack_from("<Q", resp, 8)[0] if driver_out >= 8 \
            else None
        return handle, got, cookie

    def resize_cq(self, cq, cqe, driver_out=8):
        """Return (cqe, cookie)."""
        resp = self._cmd(CMD_RESIZE_CQ, struct.pack("<II", cq, cqe),
                         8 + driver_out)
        got = struct.unpack_from("<I", resp)[0]
        cookie = struct.unpack_from("<Q", resp, 8)[0] if driver_out >= 8 \
            else None
        return got, cookie

    def destroy_cq(self, cq):
        self._cmd(CMD_DESTROY_CQ, struct.pack("<II", cq, 0), 8)

    def poll_cq(self, cq, ne):
        """Poll through the kernel; return the count."""
        resp = self._cmd(CMD_POLL_CQ, struct.pack("<II", cq, ne),
                         8 + UVERBS_WC_SIZE * ne)
        return struct.unpack_from("<I", resp)[0]

    def req_notify_cq(self, cq, solicited_only=False):
        self._cmd(CMD_REQ_NOTIFY_CQ,
                  struct.pack("<II", cq, int(solicited_only)), 0, False)

    def poll_wcs(self, cq, ne):
        """Poll through the kernel; return [(wr_id, status, qp_num)]."""
        resp = self._cmd(CMD_POLL_CQ, struct.pack("<II", cq, ne),
                         8 + UVERBS_WC_SIZE * ne)
        count = struct.unpack_from("<I", resp)[0]
        return [struct.unpack_from("<QI16xI", resp, 8 + UVERBS_WC_SIZE * i)
                for i in range(count)]

    def create_qp(self, pd, send_cq, recv_cq, max_recv_wr=4,
                  qp_type=QPT_RC):
        """Return (handle, qpn, max_recv_wr, max_recv_sge, rq_cookie)."""
        body = struct.pack("<QIIIIIIIIIBBBB", 0, pd, send_cq, recv_cq, 0,
                           4, max_recv_wr, 1, 1, 0, 0, qp_type, 0, 0)
        resp = self._cmd(CMD_CREATE_QP, body, 32 + 8)
        handle, qpn, _, rwr, _, rsge = struct.unpack_from("<6I", resp)
        return handle, qpn, rwr, rsge, struct.unpack_from("<Q", resp, 32)[0]

    def modify_qp(self, qp, state, mask, port=0):
        """Move qp to state; the other attributes are zero (P_Key index 0,
        no remote access) but port_num."""
        tail = struct.pack("<7I2H14B2x", qp, mask, 0, 0, 0, 0, 0, 0, 0,
                           state, 0, 0, 0, 0, 0, 0, 0, port, 0, 0, 0, 0, 0)
        self._cmd(CMD_MODIFY_QP, bytes(64) + tail, 0, False)

    def destroy_qp(self, qp):
        self._cmd(CMD_DESTROY_QP, struct.pack("<II", qp, 0), 4)

    def post_ring_recv(self, ring, rq_size, max_sge, wr_id):
        """Post a receive of no SGE into a mapped RQ ring (struct rvt_rwq:
        u32 head, u32 tail, then rq_size requests)."""
        head = struct.unpack_from("<I", ring)[0]
        slot = 8 + head * (RWQE_HEADER + SGE_SIZE * max_sge)
        struct.pack_into("<QB", ring, slot, wr_id, 0)
        struct.pack_into("<I", ring, 0, (head + 1) % rq_size)

    def map(self, cookie, length):
        return mmap.mmap(self.fd, length, mmap.MAP_SHARED,
                         mmap.PROT_READ | mmap.PROT_WRITE, offset=cookie)


def expect_errno(want, func, *args):
    """Call func(*args); it must fail with OSError errno want."""
    try:
        func(*args)
    except OSError as err:
        if err.errno != want:
            raise AssertionError(
                f"{func.__name__}{args}: {errno.errorcode.get(err.errno)}, "
                f"want {errno.errorcode[want]}") from err
        return
    raise AssertionError(f"{func.__name__}{args} succeeded, "
                         f"want {errno.errorcode[want]}")
