#!/bin/bash
# The guest half of `make bench`: the same perftest runs, one after the
# other in this one boot, on rvtsw over our rdmavt.ko, on rvtsw over the
# distro's rdmavt.ko, on rdma_rxe over lo, and between two rvtsw devices
# through rvtsw's packet engine (wire). Each figure is printed as
#   RVT-BENCH <target> <benchmark> <value> <unit>
# (or "failed"), once per round; tools/bench.sh makes the table. Rounds
# go through every target in turn, so that a slow spell of the host does
# not fall on one target only. Everything else is indented.
#
# Usage: tools/guest/bench.sh [--rounds N] [--scale N] [--scale-counts LIST]
# [--wr-only | --scale-only] [TARGET...]: N rounds (default 3), iteration
# counts multiplied by N (default 1), the numbers of live QPs the scale
# rows are measured at (default 1000,10000,100000), only the rvt_wr_bench
# rows (for the boot on an instruction-counted clock, see tools/bench.sh)
# or only the rvt_scale_bench rows (the QP table and what a destroy costs
# the other CPUs, in a boot of any vCPU count or kernel:
# Documentation/performance.rst), targets among ours, distro, rxe and wire
# (rvtsw's packet engine between two devices on our core; default all
# four; also wire-crc: the same with local_crc=1, every packet's CRCs
# computed and checked), and, in a pair of guests (tools/vm/pair.sh, tools/bench.sh
# --link), rxe-link: rdma_rxe between the two guests over their link,
# and rvtsw-link: rvtsw over its uplink on that link in both guests, the
# rows of LINK_BENCHMARKS, printed by guest a (b serves).
set -uo pipefail

# shellcheck source-path=SCRIPTDIR source=../testing/lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../testing/lib/suite.sh"
# shellcheck source-path=SCRIPTDIR source=../testing/lib/perftest.sh
source "$TESTING_DIR/lib/perftest.sh"
# shellcheck source-path=SCRIPTDIR source=../testing/lib/pair.sh
source "$TESTING_DIR/lib/pair.sh"

ROUNDS=3
SCALE=1
WR_ONLY=0
SCALE_ONLY=0
TARGETS="ours distro rxe wire"
LOG=/tmp/bench-perftest.log
FAILURES=0

# target_up TARGET: bring the device up and point perftest at it.
target_up() {
	local mtu
	case $1 in
	ours | distro)
		RVT_CORE=$1 load_rvtsw && PERF_DEV=rvtsw_0 PERF_OPTS= ;;
	wire)
		# Between two devices: rvtsw's packet engine across the switch
		# (ours loops back within one device).
		RVT_CORE=ours load_rvtsw devices=2 && PERF_DEV=rvtsw_0 \
			PERF_CLIENT_DEV=rvtsw_1 PERF_OPTS= ;;
	wire-crc)
		# The same with every packet's ICRC and VCRC computed and
		# checked: beside wire, what the CRCs cost.
		RVT_CORE=ours load_rvtsw devices=2 local_crc=1 &&
			PERF_DEV=rvtsw_0 PERF_CLIENT_DEV=rvtsw_1 PERF_OPTS= ;;
	rxe)
		rxe_up lo && PERF_DEV=rxe0 PERF_OPTS="-x 1" ;; # GID 1: see rxe_up
	rxe-link)
		in_pair && rxe_link_up && PERF_DEV=rxe0 &&
			PERF_OPTS="-x $(gid_index rxe0 "$LINK_ADDR")" ;;
	rvtsw-link)
		# rvtsw over its uplink in both guests, b's OpenSM managing
		# both (lib/pair.sh); port 1, and the uplink's MTU.
		in_pair && rvtsw_link_up && mtu=$(link_mtu) &&
			PERF_DEV=$LINK_CA PERF_OPTS="-i 1 -m $mtu" ;;
	*) return 1 ;;
	esac
}

# The rows measured between two guests (PERF_BENCHMARKS' names): 64 KiB
# bandwidth, 64 B message rate, 8 B latency, RC read and atomic.
LINK_BENCHMARKS="send_bw_64k read_bw_64k send_rate_64 atomic_rate send_lat_8"

# link_target TARGET: TARGET runs between the two guests of a pair.
link_target() {
	[[ $1 == *-link ]]
}

target_down() {
	PERF_CLIENT_DEV=
	case $1 in
	rxe) rxe_down ;;
	rxe-link) rxe_link_down ;;
	rvtsw-link) rvtsw_link_down ;;
	*) unload_all ;;
	esac
}

# bench TARGET NAME KIND FIELD UNIT ITERS PROG [OPTS...]
bench() {
	local target=$1 name=$2 kind=$3 field=$4 unit=$5 iters=$6 value
	shift 6
	echo "== $target $name: $* -n $((iters * SCALE))" >>"$LOG"
	if link_target "$target"; then
		link_bench "$target" "$name" "$kind" "$field" "$unit" \
			"$@" -n "$((iters * SCALE))"
		return
	fi
	if perf "$kind" "$@" -n "$((iters * SCALE))" >>"$LOG" 2>&1; then
		value=$(awk -v f="$field" '{ print $f }' <<<"$PERF_REPORT")
		echo "RVT-BENCH $target $name $value $unit"
	else
		echo "RVT-BENCH $target $name failed $unit"
		((FAILURES++))
	fi
}

# link_bench TARGET NAME KIND FIELD UNIT PROG [OPTS...]: bench()'s run
# between the guests: b serves, a measures and prints the figure.
link_bench() {
	local target=$1 name=$2 kind=$3 field=$4 unit=$5 value=failed
	shift 5
	if pair_perf "$kind" "$@" >>"$LOG" 2>&1; then
		value=$(awk -v f="$field" '{ print $f }' <<<"$PERF_REPORT")
	else
		((FAILURES++))
	fi
	is_server || echo "RVT-BENCH $target $name $value $unit"
}

# link_up TARGET: the target up on both guests (each learns whether the
# other's came up).
link_up() {
	local word=ok
	target_up "$1" >>"$LOG" 2>&1 || word=fail
	barrier "up-$1" "$word" >>"$LOG" 2>&1 && [[ $word == ok && $PEER_WORD == ok ]]
}

# The QP table at scale (tools/testing/kmod/rvt_scale_bench.ko): per-QP
# costs with SCALE_COUNTS QPs alive, on the rdmavt cores only (rxe has no
# QP table of rdmavt's), as rows scale_<figure>_<count>; at the first
# count also what a destroy costs the other CPUs (destroy_*_<c>cpu).
SCALE_KO=$REPO/tools/testing/kmod/rvt_scale_bench.ko
SCALE_RESULTS=/sys/kernel/debug/rvt_scale_bench/results
SCALE_COUNTS=1000,10000,100000

scale_bench() {
	local target=$1 max=0 count n figure value unit
	[[ $target == ours || $target == distro ]] || return 0
	for count in ${SCALE_COUNTS//,/ }; do
		((count > max)) && max=$count
	done
	echo "== $target scale: $SCALE_COUNTS" >>"$LOG"
	if ! RVT_CORE=$target load_rvtsw max_qp=$((max + 16)) >>"$LOG" 2>&1 ||
		! insmod "$SCALE_KO" "counts=$SCALE_COUNTS" cost_qps=100 \
			>>"$LOG" 2>&1; then
		echo "RVT-BENCH $target scale failed -"
		((FAILURES++))
		unload_all >>"$LOG" 2>&1
		return
	fi
	while read -r n figure value unit; do
		echo "RVT-BENCH $target scale_${figure}_$n $value $unit"
	done <"$SCALE_RESULTS"
	rmmod rvt_scale_bench
	unload_all >>"$LOG" 2>&1
}

# The core's own cost per work request (tools/testing/kmod/
# rvt_wr_bench.ko): SENDs posted and polled in the kernel, as rows
# wr_<type>_<bytes> in ns per request; rdmavt cores only.
WR_KO=$REPO/tools/testing/kmod/rvt_wr_bench.ko
WR_RESULTS=/sys/kernel/debug/rvt_wr_bench/results

wr_bench() {
	local target=$1 type bytes ns mbs
	[[ $target == ours || $target == distro ]] || return 0
	echo "== $target wr: iters=$((50000 * SCALE))" >>"$LOG"
	if ! RVT_CORE=$target load_rvtsw >>"$LOG" 2>&1 ||
		! insmod "$WR_KO" "iters=$((50000 * SCALE))" >>"$LOG" 2>&1; then
		echo "RVT-BENCH $target wr failed -"
		((FAILURES++))
		unload_all >>"$LOG" 2>&1
		return
	fi
	while read -r type bytes ns mbs recv send poll; do
		echo "RVT-BENCH $target wr_${type}_$bytes $ns ns"
		echo "$target wr_${type}_$bytes: $mbs MB/s; ns per request in post_recv $recv, post_send $send, polling $poll" >>"$LOG"
	done <"$WR_RESULTS"
	rmmod rvt_wr_bench
	unload_all >>"$LOG" 2>&1
}

run_target() {
	local target=$1 entry
	if ((WR_ONLY)); then
		wr_bench "$target"
		return
	fi
	if ((SCALE_ONLY)); then
		scale_bench "$target"
		return
	fi
	if link_target "$target"; then
		if ! link_up "$target"; then
			is_server || echo "RVT-BENCH $target setup failed -"
			((FAILURES++))
			target_down "$target" >>"$LOG" 2>&1
			return
		fi
		for entry in $LINK_BENCHMARKS; do
			# shellcheck disable=SC2046 # an entry is a list of words
			bench "$target" $(perf_benchmark "$entry")
		done
		target_down "$target" >>"$LOG" 2>&1
		return
	fi
	if ! target_up "$target" >>"$LOG" 2>&1; then
		echo "RVT-BENCH $target setup failed -"
		((FAILURES++))
		return
	fi
	wait_for 50 test -e /dev/infiniband/uverbs0
	for entry in "${PERF_BENCHMARKS[@]}"; do
		# shellcheck disable=SC2086 # an entry is a list of words
		bench "$target" $entry
	done
	target_down "$target" >>"$LOG" 2>&1
	scale_bench "$target"
}

parse_args() {
	while (($#)); do
		case $1 in
		--rounds) ROUNDS=$2 && shift ;;
		--scale) SCALE=$2 && shift ;;
		--scale-counts) SCALE_COUNTS=$2 && shift ;;
		--wr-only) WR_ONLY=1 ;;
		--scale-only) SCALE_ONLY=1 ;;
		*) break ;;
		esac
		shift
	done
	(($# == 0)) || TARGETS="$*"
	((WR_ONLY + SCALE_ONLY < 2)) ||
		{ echo "--wr-only and --scale-only exclude each other" >&2; return 2; }
	[[ $ROUNDS =~ ^[1-9][0-9]*$ && $SCALE =~ ^[1-9][0-9]*$ &&
		$SCALE_COUNTS =~ ^[1-9][0-9]*(,[1-9][0-9]*){0,7}$ ]] ||
		{ echo "bad --rounds, --scale or --scale-counts" >&2; return 2; }
}

main() {
	local target round
	parse_args "$@" || return
	: >"$LOG"
	for ((round = 1; round <= ROUNDS; round++)); do
		for target in $TARGETS; do
			run_target "$target"
		done
	done
	echo "perftest output:"
	indent <"$LOG"
	((FAILURES == 0))
}

main "$@"
