#!/bin/bash
# `make bench`: perftest on rvtsw over our rdmavt.ko, on rvtsw over the
# distro's rdmavt.ko, and on rdma_rxe, side by side in each guest boot
# (timings under TCG mean little on their own; the ratios between
# targets in one boot are what to read). Prints a table of medians over
# the rounds; the raw perftest output is in build/bench/guest.log.
#
# `bench.sh --table LOG` only prints the table of a guest log;
# `bench.sh --chart-data LOG` what its chart would be drawn from (a line
# a bar: tools/bench_chart.py --data).
#
# `bench.sh --link`: the rows between two guests on a virtio-net link
# (tools/vm/pair.sh), one column per target of RVT_BENCH_LINK_TARGETS
# (default "rxe-link rvtsw-link": rdma_rxe over the link, and rvtsw over
# its uplink on it, one OpenSM on guest b managing both switches),
# measured by guest a; the table and the raw output in
# build/bench/link.log, its chart in build/bench/link-chart.png and .svg.
#
# RVT_BENCH_ROUNDS (default 3), RVT_BENCH_SCALE (iteration multiplier),
# RVT_BENCH_QPS (live QPs of the scale rows, default 1000,10000,100000)
# and RVT_BENCH_TARGETS (default "ours distro rxe wire") are passed to the
# guest's half, tools/guest/bench.sh; RVT_BENCH_MEM is the
# guest's memory in MB (default 6144: 100k QPs take more than a GB),
# RVT_BENCH_SMP its vCPUs (default 4, for the multi-QP rows) and
# RVT_BENCH_ICOUNT the shift of the wr rows' instruction-counted clock
# (default 3: 8 ns an instruction).
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$REPO/build/bench

# table FILE: the RVT-BENCH lines of FILE as one row per benchmark, a
# column per target holding the median of its rounds ("failed" if any
# round failed), and a ratio column for each pair of RATIOS whose two
# targets both ran: ours against the distro core and against rdma_rxe,
# wire (rvtsw's packet engine between two devices) against ours
# (loopback within one device), and rvtsw-link against rxe-link (the two
# between guests over one link). Above 1 is the first faster (for the
# units of LOWER_BETTER, latencies among them, the ratio is inverted so
# that this holds too); "-" where either has no figure. The chart
# (tools/bench_chart.py) draws a bar for each of these ratio columns,
# given the same two lists.
RATIOS="ours/distro ours/rxe wire/ours rvtsw-link/rxe-link"
# Times, sizes, shares and interrupts: less is better.
LOWER_BETTER="usec ns B/QP permille IPI"

table() {
	awk -v ratios="$RATIOS" -v lower="$LOWER_BETTER" '
	BEGIN {
		n = split(lower, u, " ")
		for (i = 1; i <= n; i++) lower_units[u[i]] = 1
	}
	function lower_better(u) { return u in lower_units }
	function median(list,    n, v, i, j, x) {
		n = split(list, v, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
				x = v[j]; v[j] = v[j - 1]; v[j - 1] = x
			}
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	# ratio(A, B, UNIT): A against B, above 1 when A is better.
	function ratio(a, b, u) {
		if (!(a + 0 > 0 && b + 0 > 0)) return "-"
		return sprintf("%.2fx", lower_better(u) ? b / a : a / b)
	}
	/^RVT-BENCH / {
		t = $2; b = $3
		if (!(t in seen)) { seen[t] = 1; targets[++nt] = t }
		if (!(b in unit)) { names[++nb] = b }
		unit[b] = $5
		if ($4 == "failed") failed[t, b] = 1
		runs[t, b] = runs[t, b] " " $4
	}
	END {
		n = split(ratios, pair, " ")
		for (i = 1; i <= n; i++) {
			split(pair[i], ab, "/")
			if ((ab[1] in seen) && (ab[2] in seen)) {
				num[++nr] = ab[1]; den[nr] = ab[2]; head[nr] = pair[i]
			}
		}
		printf "%-22s %-5s", "benchmark", "unit"
		for (i = 1; i <= nt; i++) printf " %10s", targets[i]
		for (r = 1; r <= nr; r++) printf "   %s", head[r]
		print ""
		for (j = 1; j <= nb; j++) {
			b = names[j]
			printf "%-22s %-5s", b, unit[b]
			for (i = 1; i <= nt; i++) {
				k = targets[i] SUBSEP b
				if (k in failed) value[k] = "failed"
				else if (k in runs) value[k] = median(runs[k])
				else value[k] = "-"
				printf " %10s", value[k]
			}
			for (r = 1; r <= nr; r++)
				printf "   %" length(head[r]) "s", ratio(value[num[r], b], value[den[r], b], unit[b])
			print ""
		}
	}' "$1"
}

# chart [--data] LOG [PREFIX]: LOG's chart as PREFIX.png and .svg, a
# bar for each ratio column of its table (tools/bench_chart.py); with
# --data, the bars as text instead.
chart() {
	/usr/bin/python3 "$REPO/tools/bench_chart.py" --ratios "$RATIOS" \
		--lower-better "$LOWER_BETTER" "$@"
}

# have_matplotlib: the chart can be drawn; said before the guests boot,
# not after. make bench installs Debian's python3-matplotlib (setup.sh).
have_matplotlib() {
	/usr/bin/python3 -c "import matplotlib" 2>/dev/null && return
	echo "bench: the chart wants matplotlib: tools/setup.sh python3-matplotlib" >&2
	return 1
}

# The modules, test modules and programs the guests run, built into
# $OUT (its log there, shown on failure).
build_tests() {
	mkdir -p "$OUT"
	make -C "$REPO" tests >"$OUT/build.log" 2>&1 ||
		{ cat "$OUT/build.log"; return 1; }
}

# What every guest half of a bench is given: the rounds and the scale.
ROUND_ARGS=(--rounds "${RVT_BENCH_ROUNDS:-3}" --scale "${RVT_BENCH_SCALE:-1}")

# boot NAME RUN_OPTS... -- GUEST_OPTS...: one guest running
# tools/guest/bench.sh, its output appended to guest.log (console:
# serial-NAME.log).
boot() {
	local name=$1 run_opts=() targets
	shift
	while [[ $1 != -- ]]; do
		run_opts+=("$1")
		shift
	done
	shift
	read -ra targets <<<"${RVT_BENCH_TARGETS:-}"
	echo "bench: $name boot" | tee -a "$OUT/guest.log"
	"$REPO/tools/vm/run.sh" --pci-testdev --no-slab-debug \
		--log "$OUT/serial-$name.log" \
		--timeout "${RVT_VM_TIMEOUT:-3600}" "${run_opts[@]}" \
		"$REPO/tools/guest/bench.sh" "${ROUND_ARGS[@]}" \
		"$@" "${targets[@]}" >>"$OUT/guest.log" 2>&1
}

# perftest and the scale rows run on the host's clock, with 4 vCPUs
# running in parallel. The wr rows, the core's own cost per request,
# get a boot of their own on an instruction-counted clock (run.sh
# --icount): what they time is the instructions the guest runs, whatever
# else the host does, so the rounds agree to a fraction of a percent.
# That clock suits nothing else: vCPUs take turns of up to a timer tick
# on it, so a process or a CPU spinning for another's answer waits a
# turn (perftest's latencies become ticks, IPIs a turn each).
main() {
	local rc=0
	have_matplotlib && build_tests || return
	: >"$OUT/guest.log"
	boot host --mem "${RVT_BENCH_MEM:-6144}" --smp "${RVT_BENCH_SMP:-4}" \
		-- --scale-counts "${RVT_BENCH_QPS:-1000,10000,100000}" ||
		rc=$?
	boot counted --smp 2 --icount "${RVT_BENCH_ICOUNT:-3}" -- --wr-only ||
		rc=$?
	echo "medians of ${RVT_BENCH_ROUNDS:-3} rounds; every run in $OUT/guest.log"
	table "$OUT/guest.log"
	chart "$OUT/guest.log" "$OUT/chart" || rc=1
	# README shows Documentation/bench/chart.svg: the last run's, once
	# committed.
	mkdir -p "$REPO/Documentation/bench"
	cp "$OUT/chart.svg" "$OUT/chart.png" "$REPO/Documentation/bench/" ||
		rc=1
	if ((rc != 0)); then
		echo "bench: guest exit status $rc (see $OUT/guest.log)"
	fi
	return "$rc"
}

# The link rows: one boot of a pair, guest a's console (its figures)
# without pair.sh's "[a] " before each line, b's with "[b] ".
link_main() {
	local rc=0 log=$OUT/link.log targets
	have_matplotlib && build_tests || return
	read -ra targets <<<"${RVT_BENCH_LINK_TARGETS:-rxe-link rvtsw-link}"
	"$REPO/tools/vm/pair.sh" --pci-testdev --no-slab-debug \
		--log "$OUT/serial-link.log" \
		--timeout "${RVT_VM_TIMEOUT:-3600}" "$REPO/tools/guest/bench.sh" \
		"${ROUND_ARGS[@]}" "${targets[@]}" 2>&1 | sed -u 's/^\[a\] //' >"$log" ||
		rc=${PIPESTATUS[0]}
	echo "medians of ${RVT_BENCH_ROUNDS:-3} rounds between two guests; every run in $log"
	table "$log"
	chart "$log" "$OUT/link-chart" || rc=1
	((rc == 0)) || echo "bench: pair exit status $rc (see $log)"
	return "$rc"
}

case ${1:-} in
--table) table "$2" ;;
--chart-data) chart --data "$2" ;;
--link) link_main ;;
*) main ;;
esac
