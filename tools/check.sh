#!/bin/bash
# `make check`: build, style gates, then every guest suite in one boot.
# Prints one line per result, the failures again at the end, and closes
# with `N passed, N failed`; exits non-zero if anything failed.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$REPO/build/check
PASSED=0
FAILED=0
SKIPPED=0
FAILURES=()
SKIPS=()

record() {
	local status=$1 name=$2
	if [[ $status == PASS ]]; then
		((PASSED++))
	elif [[ $status == SKIP || $status == KNOWN ]]; then
		((SKIPPED++))
		SKIPS+=("$status $name")
	else
		((FAILED++))
		FAILURES+=("$name")
	fi
}

# host_step NAME CMD...: run CMD with its output in $OUT/NAME.log, shown
# on failure.
host_step() {
	local name=$1 log=$OUT/$1.log
	shift
	if "$@" >"$log" 2>&1; then
		echo "RVT-RESULT: PASS host/$name"
		record PASS "host/$name"
	else
		sed 's/^/    /' "$log"
		echo "RVT-RESULT: FAIL host/$name"
		record FAIL "host/$name"
	fi
}

build_clean() {
	local out
	out=$(make -C "$REPO" W=1 modules tests 2>&1) ||
		{ echo "$out"; return 1; }
	echo "$out"
	! grep -E '(warning|error):' <<<"$out"
}

# Count the guest's results; the runner's own verdict (kernel log clean,
# guest finished) is a result of its own.
run_guest() {
	local log=$OUT/guest.log rc=0 line
	# TCG is slow, and slower still when other guests share the host.
	"$REPO/tools/vm/run.sh" --pci-testdev --log "$OUT/serial.log" \
		--timeout "${RVT_VM_TIMEOUT:-3600}" \
		"$REPO/tools/testing/guest.sh" "$@" 2>&1 | tee "$log" ||
		rc=${PIPESTATUS[0]}
	while read -r line; do
		record "${line%% *}" "guest/${line#* }"
	done < <(sed -n 's/^RVT-RESULT: //p' "$log" | tr -d '\r')
	case $rc in
	0) record PASS guest/vm-run-and-kernel-log-clean ;;
	*) record FAIL "guest/vm-run-and-kernel-log-clean (run.sh status $rc)" ;;
	esac
}

# The guest's results by suite, the two rdmavt cores side by side.
print_core_table() {
	sed -n 's/^RVT-RESULT: //p' "$OUT/guest.log" | tr -d '\r' | awk '
	{
		split($2, part, "/")
		core = part[1]; suite = part[2]
		if (core != "ours" && core != "distro")
			next
		if (!(suite in seen)) { seen[suite] = 1; order[++n] = suite }
		st = ($1 == "PASS") ? "p" : ($1 == "FAIL") ? "f" : "s"
		count[suite, core, st]++
	}
	function cell(s, c) {
		return sprintf("%d/%d/%d", count[s, c, "p"], count[s, c, "f"],
			       count[s, c, "s"])
	}
	END {
		if (!n)
			exit
		print "Results by suite, passed/failed/skipped:"
		printf "  %-14s %-12s %-12s\n", "suite", "our core", "distro core"
		for (i = 1; i <= n; i++)
			printf "  %-14s %-12s %-12s\n", order[i],
			       cell(order[i], "ours"), cell(order[i], "distro")
	}'
}

main() {
	mkdir -p "$OUT"
	host_step build-W1 build_clean
	host_step abi-check "$REPO/tools/abi-check"
	host_step abi-check-selftest "$REPO/tools/testing/host/abi-check-test.sh"
	host_step checkpatch "$REPO/tools/style.sh" checkpatch
	host_step sparse "$REPO/tools/style.sh" sparse
	host_step shellcheck "$REPO/tools/style.sh" shellcheck
	host_step man-pages "$REPO/tools/testing/host/man_test.sh"
	host_step bench-table "$REPO/tools/testing/host/bench_table_test.sh"
	run_guest "$@"

	print_core_table
	if ((SKIPPED)); then
		echo "Skipped, and known differences of the distro core:"
		printf '  %s\n' "${SKIPS[@]}"
	fi
	if ((FAILED)); then
		echo "Failed:"
		printf '  %s\n' "${FAILURES[@]}"
	fi
	echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
	((FAILED == 0))
}

main "$@"
