#!/bin/bash
# Where a work request's time goes, exactly: one rvt_wr_bench case (SENDs
# posted and polled in the kernel, see tools/testing/kmod/wr_bench.c)
# on our rdmavt.ko and on the distro's, each in a guest of its own on an
# instruction-counted clock with QEMU's instruction profiler
# (tools/vm/insn_profile.c), then the instructions per request by module
# and by function of rdmavt, rvtsw and the bench, side by side. Each core
# boots twice, with ITERS requests and with a tenth of them: the
# difference of the two profiles is what the extra requests cost, with
# the boot's and the setup's instructions cancelled out (the kernel's
# own functions included: locks, the IB core's wrappers).
#
# A CASE may also be one of make bench's perftest rows by name (e.g.
# send_rate_64, see PERF_BENCHMARKS in tools/testing/lib/perftest.sh):
# then the profile is of the whole message, user space (perftest,
# libibverbs and the provider, as one "(user)" entry: the profiler names
# kernel symbols only), the system call, ib_uverbs and the IB core
# included, which shows how much of a perftest row the core is.
#
# Usage: tools/profile.sh [CASE [ITERS]]  (default rc8 500000; CASE is
# <rc|uc|ud><bytes>, one of rvt_wr_bench's cases, or a perftest row,
# whose ITERS default to 50000)
# Output in build/profile/: <core>-<case>-<iters>.prof (addresses),
# <core>-<case>-<iters>.out (the guest's console: results and kallsyms),
# report-<case>.txt (the comparison).
#
# tools/profile.sh --engine CASE:ITERS...: perftest rows on our core
# through rvtsw's packet engine (rvtsw_1 to rvtsw_0) and through
# rdmavt's loopback (within rvtsw_0), all in one boot, cut apart by the
# profiler's marks (tools/guest/profile.sh engine); per message, the
# engine's column then loopback's. Output: engine.prof.<n> and
# engine.out, report-engine-<case>.txt.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$REPO/build/profile

# run_guest CORE CASE ITERS: one profiled boot; adds its pair of files.
run_guest() {
	local core=$1 case=$2 iters=$3 name=$1-$2-$3
	echo "profile: $case x $iters on $core"
	"$REPO/tools/vm/run.sh" --pci-testdev --no-slab-debug --smp 2 --icount 3 \
		--insn-profile "$OUT/$name.prof" --log "$OUT/$name.log" \
		--timeout 1800 "$REPO/tools/guest/profile.sh" \
		"$core" "$case" "$iters" >"$OUT/$name.out" 2>&1 || {
		echo "profile: the $core guest failed (see $OUT/$name.log)"
		return 1
	}
	grep '^RESULT ' "$OUT/$name.out"
	PAIRS+=("$OUT/$name.prof" "$OUT/$name.out")
}

# engine_report CASE: the report of CASE's four marked runs, from the
# guest's MARK lines (n target case iterations).
engine_report() {
	local case=$1 target n iters args=() most=0
	for target in engine loopback; do
		while read -r n iters; do
			args+=("$OUT/engine.prof.$n" "$OUT/engine.out")
			((most)) || most=$iters
		done < <(awk -v t="$target" -v c="$case" \
			'$1 == "MARK" && $3 == t && $4 == c { print $2, $5 }' \
			"$OUT/engine.out" | sort -k2,2nr)
	done
	((${#args[@]} == 8)) || { echo "profile: $case did not run"; return 1; }
	echo "columns: engine, loopback; instructions per message ($case)"
	python3 "$REPO/tools/vm/insn_profile.py" --diff \
		--per "$((most - most / 10))" --top 40 "${args[@]}" |
		tee "$OUT/report-engine-$case.txt"
}

# engine_main CASE:ITERS...: one boot, then a report per CASE.
engine_main() {
	local spec
	mkdir -p "$OUT"
	make -C "$REPO" modules tests >"$OUT/build.log" 2>&1 ||
		{ cat "$OUT/build.log"; return 1; }
	rm -f "$OUT"/engine.prof*
	echo "profile: $* through the engine and loopback"
	"$REPO/tools/vm/run.sh" --pci-testdev --no-slab-debug --smp 2 --icount 3 \
		--insn-profile "$OUT/engine.prof" --log "$OUT/engine.log" \
		--timeout 900 "$REPO/tools/guest/profile.sh" engine "$@" \
		>"$OUT/engine.out" 2>&1 || {
		echo "profile: the guest failed (see $OUT/engine.log)"
		return 1
	}
	grep -E '^(RESULT|MARK) ' "$OUT/engine.out"
	for spec in "$@"; do
		engine_report "${spec%%:*}" || return
	done
}

main() {
	[[ ${1:-} != --engine ]] || { engine_main "${@:2}"; return; }
	local case=${1:-rc8} iters=${2:-} base core
	if [[ -z $iters ]]; then
		iters=500000
		[[ $case =~ ^(rc|uc|ud)[0-9]+$ ]] || iters=50000
	fi
	base=$((iters / 10))
	((base > 0)) || { echo "profile: ITERS must be 10 or more"; return 2; }
	PAIRS=()
	mkdir -p "$OUT"
	make -C "$REPO" modules tests >"$OUT/build.log" 2>&1 ||
		{ cat "$OUT/build.log"; return 1; }
	for core in ours distro; do
		run_guest "$core" "$case" "$iters" &&
			run_guest "$core" "$case" "$base" || return
	done
	echo "columns: ours, distro; instructions per request (or message)"
	python3 "$REPO/tools/vm/insn_profile.py" --diff \
		--per "$((iters - base))" --top 30 \
		--module rdmavt --module rvtsw --module rvt_wr_bench \
		--module vmlinux --module ib_core --module ib_uverbs \
		"${PAIRS[@]}" | tee "$OUT/report-$case.txt"
}

main "$@"
