#!/bin/bash
# The guest half of tools/profile.sh: one case on one core, then the
# kernel's text symbols (with the modules still loaded), each line
# prefixed "KS ", for tools/vm/insn_profile.py to name the addresses of
# the instruction profile QEMU takes.
#
# A case is one of rvt_wr_bench's (only=, e.g. rc8: requests posted and
# polled in the kernel), or a perftest row of make bench by its name
# (e.g. send_rate_64: the same program and options, ITERS iterations,
# server and client in this guest).
#
# Usage: tools/guest/profile.sh CORE CASE ITERS (CORE: ours or distro,
# or wire: a perftest row between rvtsw_0 and rvtsw_1 on our core,
# through rvtsw's packet engine, as make bench's wire target runs it)
#
# Or: tools/guest/profile.sh engine CASE:ITERS... (under run.sh
# --insn-profile FILE): perftest rows on our core, in one boot, each
# through the packet engine (rvtsw_1's client to rvtsw_0's server) and
# through rdmavt's loopback (both on rvtsw_0), as ackrate.sh runs them;
# each of the four runs per CASE is ITERS/10 then ITERS iterations
# between two of the profiler's marks (build/vm/insn_mark), and a line
#   MARK <n> <engine|loopback> <case> <iterations>
# names the profile that holds it, FILE.<n>. tools/profile.sh --engine
# boots this.
set -uo pipefail

# shellcheck source-path=SCRIPTDIR source=../testing/lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../testing/lib/suite.sh"
# shellcheck source-path=SCRIPTDIR source=../testing/lib/perftest.sh
source "$TESTING_DIR/lib/perftest.sh"

# kernel_case CORE CASE ITERS: rvt_wr_bench's case, its results as
# RESULT lines; the bench stays loaded for the symbols.
kernel_case() {
	insmod "$TESTING_DIR/kmod/rvt_wr_bench.ko" "iters=$3" "only=$2" ||
		return
	sed "s/^/RESULT $1 /" /sys/kernel/debug/rvt_wr_bench/results
}

# perftest_case CORE ITERS NAME KIND FIELD UNIT DEFAULT_ITERS PROG
# [OPTS...]: a perftest row with ITERS iterations, the client's report
# as a RESULT line.
perftest_case() {
	local core=$1 iters=$2 name=$3 out rc=0
	shift 7
	wait_for 50 test -e /dev/infiniband/uverbs0
	out=$(mktemp -d)
	perf_run_once "$out" "$@" -n "$iters" || rc=1
	echo "RESULT $core $name $(perf_report_line "$out/client")"
	((rc == 0)) || sed 's/^/  /' "$out/server" "$out/client"
	rm -rf "$out"
	return "$rc"
}

# marked_run TARGET CASE ITERS ROW...: one perftest row between two
# marks, ITERS iterations.
MARKS=0
marked_run() {
	local target=$1 case=$2 iters=$3
	shift 3
	perftest_case "$target" "$iters" "$@" || return
	"$REPO/build/vm/insn_mark" || return
	echo "MARK $((++MARKS)) $target $case $iters"
}

# engine CASE:ITERS...: the engine and loopback runs of each row.
engine() {
	local spec case iters row target
	RVT_CORE=ours load_rvtsw devices=2 || return
	wait_for 50 test -e /dev/infiniband/uverbs1
	# The boot and the loading, the profile FILE.1.
	"$REPO/build/vm/insn_mark" && echo "MARK $((++MARKS)) boot - 0"
	for spec in "$@"; do
		case=${spec%%:*} iters=${spec#*:}
		row=$(perf_benchmark "$case") ||
			{ echo "no perftest row $case"; return 1; }
		for target in engine loopback; do
			PERF_DEV=rvtsw_0 PERF_CLIENT_DEV=rvtsw_1
			[[ $target == engine ]] || PERF_CLIENT_DEV=
			# shellcheck disable=SC2086 # a row is a list of words
			marked_run "$target" "$case" "$((iters / 10))" $row &&
				marked_run "$target" "$case" "$iters" $row || return
		done
	done
	grep -E ' [tTwW] ' /proc/kallsyms | sed 's/^/KS /'
	RVT_CORE=ours unload_all
}

main() {
	local core=$1 case=${2:-} iters=${3:-} row
	if [[ $core == engine ]]; then
		engine "${@:2}"
		return
	fi
	if [[ $core == wire ]]; then
		RVT_CORE=ours load_rvtsw devices=2 || return
		PERF_DEV=rvtsw_0 PERF_CLIENT_DEV=rvtsw_1
	else
		RVT_CORE=$core load_rvtsw || return
	fi
	if row=$(perf_benchmark "$case"); then
		# shellcheck disable=SC2086 # a row is a list of words
		perftest_case "$core" "$iters" $row || return
	else
		kernel_case "$core" "$case" "$iters" || return
	fi
	grep -E ' [tTwW] ' /proc/kallsyms | sed 's/^/KS /'
	[[ -n $row ]] || rmmod rvt_wr_bench
	RVT_CORE=${core/wire/ours} unload_all
}

main "$@"
