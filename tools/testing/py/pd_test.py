"""PD allocation and the device's max_pd limit, through libibverbs.

Usage: pd_test.py DEVICE MAX_PD IN_USE, where IN_USE PDs of DEVICE are
held by kernel clients and stay held throughout.
"""
import errno
import sys

from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def expect_enomem(ctx, what):
    try:
        PD(ctx)
    except PyverbsRDMAError as err:
        check(err.error_code == errno.ENOMEM,
              f"{what}: errno {err.error_code}, want ENOMEM")
    else:
        raise AssertionError(f"{what}: PD allocated beyond max_pd")


def main():
    name, max_pd, in_use = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    free = max_pd - in_use
    with Context(name=name) as ctx:
        check(ctx.query_device().max_pd == max_pd, "max_pd reported")
        pds = [PD(ctx) for _ in range(free)]
        expect_enomem(ctx, "at the limit")
        pds.pop().close()
        pds.append(PD(ctx))
        expect_enomem(ctx, "after reuse")
        for pd in pds:
            pd.close()
    # A second context sees the whole budget again: nothing leaked.
    with Context(name=name) as ctx:
        pds = [PD(ctx) for _ in range(free)]
        expect_enomem(ctx, "second context")
        for pd in pds:
            pd.close()
    print(f"{free} PDs allocated ({in_use} kernel), the next refused with ENOMEM")


if __name__ == "__main__":
    main()
