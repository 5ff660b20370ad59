#!/bin/bash
# Reproduces rvt_post_send()'s NULL dereference on a POST_SEND of no work
# request (post_send_no_wr.c says how). On the distro core the guest
# oopses, and hangs once something destroys the QP (68-fuzz runs the
# program on our core only). Either core:
#   make tests
#   RVT_CORE=ours tools/vm/run.sh --pci-testdev --timeout 300 \
#       tools/testing/repro/post_send_no_wr.sh
# Expected on a fixed core: "ibv_post_send: ok" (or an errno) and a clean
# kernel log.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

have_progs repro/post_send_no_wr || exit 1
load_rvtsw || exit 1
wait_for 50 test -e /sys/class/infiniband/rvtsw_0 || exit 1
"$PROGS/repro/post_send_no_wr" rvtsw_0
