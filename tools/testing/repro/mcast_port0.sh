#!/bin/bash
# Reproduces rvt_attach_mcast()'s read of rdi->ports[-1] for a QP that has
# no port yet (mcast_port0.c says how). On Debian's kernel the read goes
# unseen (no KASAN) and both calls return EINVAL; the distro's rdmavt.ko
# cannot load on make check-debug's kernel, where KASAN saw it in our
# core before commit 2fc4ae4 fixed it:
#   make KDIR=DIR/src W=1 modules tests
#   tools/vm/run.sh --kernel DIR --mem 3072 --timeout 2000 \
#       tools/testing/repro/mcast_port0.sh
# 68-fuzz's mcast-no-port runs the program on our core: both calls
# return EINVAL and the kernel log stays clean.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

have_progs repro/mcast_port0 || exit 1
load_rvtsw || exit 1
wait_for 50 test -e /sys/class/infiniband/rvtsw_0 || exit 1
"$PROGS/repro/mcast_port0" rvtsw_0
