"""Completion queues through libibverbs (ipathverbs polls the mmap'd ring).

Usage: cq_test.py DEVICE TEST [ARGS], with TEST one of
  sizes                      create, poll, arm and destroy CQs of many sizes
  limits                     sizes 0 and max_cqe + 1 are refused with EINVAL
  max-cq MAX_CQ IN_USE       IN_USE CQs are held by kernel clients; the
                             rest of MAX_CQ can be created, then ENOMEM
  resize                     grow and shrink CQs, keep polling them
"""
import errno
import sys

from pyverbs.cq import CQ, CompChannel
from pyverbs.device import Context

from verbs_checks import check, expect_errno


def check_empty(cq, what):
    npolled, _ = cq.poll(4)
    check(npolled == 0, f"{what}: polled {npolled} from an empty CQ")


def test_sizes(ctx):
    max_cqe = ctx.query_device().max_cqe
    sizes = [1, 2, 3, 63, 64, 65, 4095, 4096, 100000, max_cqe]
    with CompChannel(ctx) as channel:
        for cqe in sizes:
            cq = CQ(ctx, cqe, None, channel, 0)
            check(cq.cqe >= cqe, f"cqe {cqe}: got {cq.cqe}")
            check_empty(cq, f"cqe {cqe}")
            cq.req_notify()
            cq.req_notify(1)
            check_empty(cq, f"cqe {cqe} after arming")
            cq.close()
    # Several alive at once, each with its own ring and mapping.
    cqs = [CQ(ctx, 16 + i) for i in range(16)]
    for cq in cqs:
        check_empty(cq, "one of 16")
    for cq in cqs:
        cq.close()
    print(f"created, polled and armed CQs of sizes {sizes}")


def test_limits(ctx):
    max_cqe = ctx.query_device().max_cqe
    expect_errno(errno.EINVAL, "max_cqe + 1", CQ, ctx, max_cqe + 1)
    expect_errno(errno.EINVAL, "cqe 0", CQ, ctx, 0)
    print(f"cqe 0 and {max_cqe + 1} refused with EINVAL")


def test_max_cq(ctx, max_cq, in_use):
    check(ctx.query_device().max_cq == max_cq, "max_cq reported")
    free = max_cq - in_use
    cqs = [CQ(ctx, 4) for _ in range(free)]
    expect_errno(errno.ENOMEM, "at the limit", CQ, ctx, 4)
    cqs.pop().close()
    cqs.append(CQ(ctx, 4))
    expect_errno(errno.ENOMEM, "after reuse", CQ, ctx, 4)
    for cq in cqs:
        cq.close()
    # All of it is free again.
    cqs = [CQ(ctx, 4) for _ in range(free)]
    for cq in cqs:
        cq.close()
    print(f"{free} CQs created ({in_use} kernel), the next refused with ENOMEM")


def test_resize(ctx):
    max_cqe = ctx.query_device().max_cqe
    cq = CQ(ctx, 8)
    for cqe in [16, 1000, 3, 1, 4096, max_cqe, 2]:
        cq.resize(cqe)
        check(cq.cqe >= cqe, f"resize to {cqe}: got {cq.cqe}")
        check_empty(cq, f"after resize to {cqe}")
    expect_errno(errno.EINVAL, "resize beyond max_cqe", cq.resize,
                 max_cqe + 1)
    check_empty(cq, "after a refused resize")
    cq.close()
    print("resized a CQ up and down; beyond max_cqe refused with EINVAL")


def main():
    name, test = sys.argv[1], sys.argv[2]
    with Context(name=name) as ctx:
        if test == "sizes":
            test_sizes(ctx)
        elif test == "limits":
            test_limits(ctx)
        elif test == "max-cq":
            test_max_cq(ctx, int(sys.argv[3]), int(sys.argv[4]))
        elif test == "resize":
            test_resize(ctx)
        else:
            raise SystemExit(f"unknown test {test}")


if __name__ == "__main__":
    main()
