#!/bin/bash
# Reproduces rvt_attach_mcast()'s read of rdi->ports[-1] for a QP that has
# no port yet (mcast_port0.c says how). Not part of `make check`. KASAN
# (make check-debug's kernel, with the modules built for it) reports it:
#   make KDIR=DIR/src W=1 modules tests
#   tools/vm/run.sh --kernel DIR --mem 3072 --timeout 2000 \
#       tools/testing/repro/mcast_port0.sh
# On Debian's kernel the read goes unseen. Both calls return EINVAL; on a
# fixed core the kernel log stays clean too.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cc -O2 -Wall -Wextra -Werror -o "$WORK/mcast_port0" \
	"$TESTING_DIR/repro/mcast_port0.c" -libverbs || exit 1
load_rvtsw || exit 1
wait_for 50 test -e /sys/class/infiniband/rvtsw_0 || exit 1
"$WORK/mcast_port0" rvtsw_0
