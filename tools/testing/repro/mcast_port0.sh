#!/bin/bash
# Reproduces rvt_attach_mcast()'s read of rdi->ports[-1] for a QP that has
# no port yet (mcast_port0.c says how). Not part of `make check`.
#   tools/vm/run.sh --timeout 300 tools/testing/repro/mcast_port0.sh
# RVT_REPRO_STATE (a list, run in order) reset (the default): an
# out-of-bounds read, reported by KASAN on make check-debug's kernel
# (--kernel DIR, modules built for it), silent on Debian's. err: the QP
# moved RESET -> ERR, and the stray word is used as the port (a crash, or
# worse, on any kernel).
# Expected on a fixed core: EINVAL for both calls, a clean kernel log.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cc -O2 -Wall -Wextra -Werror -o "$WORK/mcast_port0" \
	"$TESTING_DIR/repro/mcast_port0.c" -libverbs || exit 1
load_rvtsw || exit 1
wait_for 50 test -e /sys/class/infiniband/rvtsw_0 || exit 1
for state in ${RVT_REPRO_STATE:-reset}; do
	"$WORK/mcast_port0" rvtsw_0 "$state"
done
