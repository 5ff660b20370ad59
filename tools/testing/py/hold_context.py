"""Open a device, allocate a PD, signal readiness, hold both until killed."""
import signal
import sys
import time

from pyverbs.device import Context
from pyverbs.pd import PD


def main():
    name, ready = sys.argv[1], sys.argv[2]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with Context(name=name) as ctx, PD(ctx):
        with open(ready, "w", encoding="ascii") as f:
            f.write("ready\n")
        while True:
            time.sleep(1)


if __name__ == "__main__":
    main()
