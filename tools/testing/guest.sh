#!/bin/bash
# Runs inside the guest: every suite under tools/testing/suites, in order,
# or the ones named on the command line, once on each rdmavt core named in
# RVT_CORES ("ours distro" by default; the distro core needs the guest's
# pci-testdev). A suite that exits non-zero is a failure of its own
# (@exit); so is one still running after RVT_SUITE_TIMEOUT seconds
# (default 900, @timeout): then the kernel's view of every task goes to
# the log and the suite is killed, so that a hang costs minutes, not the
# whole run. The results it did not report are missing from its plan,
# which the host counts.
set -uo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SUITE_TIMEOUT=${RVT_SUITE_TIMEOUT:-900}

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
	echo l >/proc/sysrq-trigger
	echo w >/proc/sysrq-trigger
	sleep 2
}

# run_bounded NAME FILE: run the suite in a process group of its own;
# return its status, or 124 after killing it when it outlives the timeout.
run_bounded() {
	local name=$1 file=$2 pid waited=0
	SUITE=$name setsid bash "$file" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		if ((waited >= SUITE_TIMEOUT)); then
			echo "suite $name still running after $SUITE_TIMEOUT s"
			hang_report "$pid" 2>&1
			kill -KILL -- "-$pid" 2>/dev/null
			# A task stuck in the kernel may not die: do not wait on it.
			wait_for 100 sh -c "! kill -0 $pid" ||
				echo "suite $name could not be killed"
			return 124
		fi
		sleep 1
		((waited++))
	done
	wait "$pid"
}

# On a kernel with kmemleak (make check-debug's): what the last suite
# leaked is a failure of its own (@kmemleak), with kmemleak's report on
# the console. Objects younger than kmemleak's minimum age (5 s) are not
# reported yet, hence the wait.
KMEMLEAK=/sys/kernel/debug/kmemleak

kmemleak_check() {
	local name=$1 report
	[[ -w $KMEMLEAK ]] || return 0
	sleep 6
	echo scan >"$KMEMLEAK"
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
	local file=$1 name rc=0
	name=$(basename "$file" .sh)
	name=${name#[0-9][0-9]-}
	echo "=== suite $name (core: $RVT_CORE)"
	run_bounded "$name" "$file" || rc=$?
	if ((rc == 124)); then
		SUITE=$name fail @timeout "killed after $SUITE_TIMEOUT s"
	elif ((rc != 0)); then
		SUITE=$name fail @exit "suite exited with status $rc"
	fi
	# Leave the next suite a clean slate whatever this one did.
	unload_all >/dev/null 2>&1
	kmemleak_check "$name"
}

run_core() {
	local suite
	export RVT_CORE=$1
	shift
	for suite in "$@"; do
		[[ -f $suite ]] || suite=$TESTING_DIR/suites/$suite
		run_suite "$suite"
	done
}

main() {
	local core
	if (($# == 0)); then
		set -- "$TESTING_DIR"/suites/*.sh
	fi
	kmemleak_forget_boot
	for core in ${RVT_CORES:-ours distro}; do
		run_core "$core" "$@"
	done
}

main "$@"
