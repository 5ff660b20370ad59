"""Hold CQs and MRs of a device until killed, to count them from outside.

Usage: hold_objects.py DEVICE NCQ NMR READY_FILE
"""
import signal
import sys
import time

from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
import pyverbs.enums as e


def main():
    name, ncq, nmr, ready = sys.argv[1], int(sys.argv[2]), \
        int(sys.argv[3]), sys.argv[4]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with Context(name=name) as ctx, PD(ctx) as pd:
        cqs = [CQ(ctx, 32) for _ in range(ncq)]
        mrs = [MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE) for _ in range(nmr)]
        with open(ready, "w", encoding="ascii") as f:
            f.write(f"{len(cqs)} {len(mrs)}\n")
        while True:
            time.sleep(1)


if __name__ == "__main__":
    main()
