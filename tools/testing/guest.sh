#!/bin/bash
# Runs inside the guest: every suite under tools/testing/suites, in order,
# or the ones named on the command line, once on each rdmavt core named in
# RVT_CORES ("ours distro" by default; the distro core needs the guest's
# pci-testdev). A suite that exits non-zero is a failure of its own
# (@exit); so is one still running after RVT_SUITE_TIMEOUT seconds
# (default 900, @timeout): then the kernel's view of every task goes to
# the log and the suite is killed, so that a hang costs minutes, not the
# whole run. The results it did not report are missing from its plan,
# which the host counts. After each suite the modules are unloaded, within
# RVT_UNLOAD_TIMEOUT seconds (default 300): a device that cannot be
# removed (@unload) leaves no clean slate for the suites after it, so the
# run ends there, with the same report of what is stuck.
set -uo pipefail

# shellcheck source-path=SCRIPTDIR source=lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/suite.sh"

SUITE_TIMEOUT=${RVT_SUITE_TIMEOUT:-900}
UNLOAD_TIMEOUT=${RVT_UNLOAD_TIMEOUT:-300}

# What a hung suite is doing: its processes, their kernel stacks, and
# the kernel's backtraces of all CPUs and of blocked tasks.
hang_report() {
	local pgid=$1 pid
	echo "--- processes"
	ps -eo pid,pgid,stat,wchan:32,etime,args | indent
	for pid in $(pgrep -g "$pgid"); do
		echo "--- kernel stack of $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline")"
		indent <"/proc/$pid/stack"
	done
	# Not on the host of harness_test.sh, whose tasks are none of ours.
	[[ ${RVT_HANG_SYSRQ:-1} == 1 ]] || return 0
	echo l >/proc/sysrq-trigger
	echo w >/proc/sysrq-trigger
	sleep 2
}

# run_bounded WHAT LIMIT CMD...: run CMD in a process group of its own;
# return its status, or 124 after reporting what it is doing and killing
# it when it outlives LIMIT seconds. WHAT names it in the log.
run_bounded() {
	local what=$1 limit=$2 pid waited=0
	shift 2
	setsid "$@" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		if ((waited >= limit)); then
			echo "$what still running after $limit s"
			hang_report "$pid" 2>&1
			kill -KILL -- "-$pid" 2>/dev/null
			# A task stuck in the kernel may not die: do not wait on it.
			wait_for 100 sh -c "! kill -0 $pid" ||
				echo "$what could not be killed"
			return 124
		fi
		sleep 1
		((waited++))
	done
	wait "$pid"
}

# unload_after NAME: unload every module suite NAME may have left, within
# UNLOAD_TIMEOUT; false (and @unload failed) if that did not finish.
unload_after() {
	local name=$1 rc=0
	run_bounded "unloading after suite $name" "$UNLOAD_TIMEOUT" \
		bash -c "source '$TESTING_DIR/lib/suite.sh' && unload_all >/dev/null 2>&1" ||
		rc=$?
	# unload_all's own status is not a verdict: what it could not remove
	# is the next suite's failure to load. Only a hang is this one's.
	((rc != 124)) && return 0
	SUITE=$name fail @unload "modules still loading or unloading $UNLOAD_TIMEOUT s after the suite"
	return 1
}

# On a kernel with kmemleak (make check-debug's): what the last suite
# leaked is a failure of its own (@kmemleak), with kmemleak's report on
# the console. Objects younger than kmemleak's minimum age (5 s) are not
# reported yet, hence the wait; and a scan holds back an object whose
# contents changed since the scan before (a task that exited during the
# suite, say), hence two scans: otherwise its leak would be blamed on a
# later suite.
KMEMLEAK=/sys/kernel/debug/kmemleak

kmemleak_check() {
	local name=$1 report start=$SECONDS
	[[ -w $KMEMLEAK ]] || return 0
	sleep 6
	echo scan >"$KMEMLEAK"
	echo scan >"$KMEMLEAK"
	echo "kmemleak: the wait and two scans took $((SECONDS - start)) s"
	report=$(cat "$KMEMLEAK")
	[[ -n $report ]] || return 0
	echo "kmemleak after suite $name:"
	head -n 400 <<<"$report" | indent
	echo clear >"$KMEMLEAK"
	SUITE=$name fail @kmemleak \
		"$(grep -c '^unreferenced object' <<<"$report") unreferenced object(s)"
}

# What the kernel leaked before the first suite is not ours to report.
kmemleak_forget_boot() {
	[[ -w $KMEMLEAK ]] || return 0
	echo scan >"$KMEMLEAK"
	echo clear >"$KMEMLEAK"
}

run_suite() {
	local file=$1 name rc=0 start=$SECONDS
	name=$(basename "$file" .sh)
	# In a pair of guests (tools/vm/pair.sh) each reports as its role.
	name=${name#[0-9][0-9]-}${RVT_ROLE:+-$RVT_ROLE}
	echo "=== suite $name (core: $RVT_CORE)"
	SUITE=$name run_bounded "suite $name" "$SUITE_TIMEOUT" bash "$file" ||
		rc=$?
	if ((rc == 124)); then
		SUITE=$name fail @timeout "killed after $SUITE_TIMEOUT s"
	elif ((rc != 0)); then
		SUITE=$name fail @exit "suite exited with status $rc"
	fi
	# Leave the next suite a clean slate whatever this one did.
	unload_after "$name" || return
	kmemleak_check "$name"
	# Where a slow lane's time goes (the debug kernel's above all).
	echo "=== suite $name took $((SECONDS - start)) s"
}

run_core() {
	local suite
	export RVT_CORE=$1
	shift
	for suite in "$@"; do
		[[ -f $suite ]] || suite=$TESTING_DIR/suites/$suite
		run_suite "$suite" || return
	done
}

main() {
	local core
	if (($# == 0)); then
		set -- "$TESTING_DIR"/suites/*.sh
	fi
	kmemleak_forget_boot
	for core in ${RVT_CORES:-ours distro}; do
		run_core "$core" "$@" || {
			echo "a device could not be removed: the run ends here"
			return 1
		}
	done
}

main "$@"
