#!/bin/bash
# Reproduces ib_uverbs' task leak on a failed ioctl GET_CONTEXT
# (get_context_task_leak.c says how; ib_core's bug, on either core). It
# needs kmemleak, i.e. make check-debug's kernel:
#   make KDIR=DIR/src W=1 modules tests
#   tools/vm/run.sh --kernel DIR --timeout 2000 \
#       tools/testing/repro/get_context_task_leak.sh
# Processes that only open a context leak nothing; ones whose three
# ioctls fail leave their task_struct, signal_struct and creds behind.
# 68-fuzz keeps its random ioctls away from that method on both cores
# (ioctl-get-context). Exit status: 0 if neither leaked (a fixed
# ib_core), 1 if the failed ioctls leaked, 2 if it cannot tell.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

KMEMLEAK=/sys/kernel/debug/kmemleak
[[ -w $KMEMLEAK ]] || { echo "no kmemleak on this kernel"; exit 2; }
LEAK=$PROGS/repro/get_context_task_leak
have_progs repro/get_context_task_leak || exit 2
load_rvtsw || exit 2
wait_for 50 grep -qx rvtsw_0 /sys/class/infiniband_verbs/uverbs*/ibdev ||
	exit 2
DEV=$(grep -lx rvtsw_0 /sys/class/infiniband_verbs/uverbs*/ibdev)
DEV=${DEV%/ibdev}
DEV=/dev/infiniband/${DEV##*/}

# leaks_of ARGS...: run the program, then count what kmemleak finds
# (two scans: one holds back objects that changed since the last).
leaks_of() {
	echo scan >"$KMEMLEAK"
	echo clear >"$KMEMLEAK"
	local i
	# kmemleak is conservative: a stale copy of a pointer anywhere (a
	# scheduler's last task, a stack) hides a leak, so five processes.
	for i in 1 2 3 4 5; do
		"$LEAK" "$DEV" "$@" >&2 ||
			{ echo "the program failed"; return; }
	done
	sleep 10
	echo scan >"$KMEMLEAK"
	echo scan >"$KMEMLEAK"
	grep -c '^unreferenced object' "$KMEMLEAK"
	grep -A3 '^unreferenced object' "$KMEMLEAK" | grep -E 'unreferenced|comm' >&2
}

control=$(leaks_of 0)
failed=$(leaks_of 3)
echo "leaked: $control object(s) by five processes with no failed ioctl, $failed by five with three each"
[[ $control == 0 && $failed =~ ^[0-9]+$ ]] || exit 2
((failed == 0))
