#!/bin/bash
# The driver contract, differentially: tools/testing/kmod/rvt_contract.ko
# registers a device as hfi1 does (one port) and as qib does (two ports of
# a QLE7342), runs the same scripted sequences and logs every callback
# rdmavt makes into it and what a driver reads after each step. The suite
# runs it with both personalities on our core and on the distro's, in
# this one pass, and compares the logs (tools/testing/lib/
# contract_compare.py): every difference must be one of
# Documentation/contract-differences.txt.
#
# Both cores in one pass, not one core per pass of guest.sh: the
# comparison needs both logs, and a pass that loads each core in turn
# depends on no state kept between passes, on no order of RVT_CORES and
# on no other suite. So the comparison runs in the first core's pass of
# RVT_CORES and the other pass reports it skipped.
#
# The logs are printed at the end, xz-compressed and base64-encoded, one
# line each ("RVT-CONTRACT-LOG <core>-<personality> <data>"); to read them
# on the host: tools/testing/host/contract_logs.sh SERIAL_LOG DIR.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

KMOD=$REPO/tools/testing/kmod/rvt_contract.ko
LIST=$REPO/Documentation/contract-differences.txt
COMPARE=$REPO/tools/testing/lib/contract_compare.py
OUT=/tmp/rvt-contract
PERSONALITIES=(qib hfi1)
# The callback neither core ever calls: upstream declares free_all_qps and
# requires it at registration, but nothing calls it (rdma_vt.h).
NEVER_CALLED=free_all_qps
# Every callback of struct rvt_driver_provided.
ALL_CALLBACKS=30

# run_one CORE PERSONALITY: the module on the loaded core; keeps its log.
run_one() {
	local core=$1 pers=$2 parent start=$SECONDS
	local log=$OUT/$core-$pers.log
	parent=$(pci_testdev) || { echo "no pci-testdev"; return 1; }
	insmod "$KMOD" personality="$pers" parent="$parent" || return 1
	echo "ran for $((SECONDS - start)) s"
	cp /sys/kernel/debug/rvt_contract/log "$log"
	rmmod rvt_contract || return 1
	echo "$(wc -l <"$log") lines"
	! grep -q '^-|log full' "$log" || { echo "log full"; return 1; }
}

# not_called CORE PERSONALITY WHAT: the log's list of WHAT not called.
not_called() {
	local line
	line=$(grep "^selfcheck|$3-not-called " "$OUT/$1-$2.log") || return 1
	echo "${line#*: }" | tr ' ' '\n' | sed '/^none$/d; /^$/d' | sort
}

# selfcheck PERSONALITY: the script called every export, and every
# callback the personality sets was called on one core or the other (but
# free_all_qps, which nothing calls). Which core calls what is the
# comparison's business.
selfcheck() {
	local exports callbacks core
	for core in ours distro; do
		exports=$(not_called "$core" "$1" exports) || return 1
		echo "exports not called ($core): ${exports:-none}"
		[[ -z $exports ]] || return 1
	done
	callbacks=$(comm -12 <(not_called ours "$1" callbacks-set) \
			     <(not_called distro "$1" callbacks-set))
	echo "callbacks set but called by neither core: ${callbacks//$'\n'/ }"
	[[ $callbacks == "$NEVER_CALLED" ]]
}

# Between them the personalities set every callback of rvt_driver_provided.
coverage() {
	local n
	n=$(grep -h '^selfcheck|callbacks-set ' "$OUT"/*.log |
	    sed 's/^[^:]*://' | tr ' ' '\n' | sed '/^$/d' | sort -u | wc -l)
	echo "$n of $ALL_CALLBACKS callbacks set by one personality or the other"
	((n == ALL_CALLBACKS))
}

compare() {
	local runs=() pers
	for pers in "${PERSONALITIES[@]}"; do
		runs+=("$pers:$OUT/ours-$pers.log:$OUT/distro-$pers.log")
	done
	"$PY" "$COMPARE" --list "$LIST" "${runs[@]}"
}

# The logs, for the host: one line per log.
print_logs() {
	local f
	for f in "$OUT"/*.log; do
		echo "RVT-CONTRACT-LOG $(basename "$f" .log) $(xz -3 <"$f" | base64 -w0)"
	done
}

first_core() {
	local cores
	read -ra cores <<<"${RVT_CORES:-ours distro}"
	echo "${cores[0]}"
}

# load_named_core CORE: load_core for CORE; results keep this pass's name.
load_named_core() {
	local RVT_CORE=$1
	load_core
}

if [[ $RVT_CORE != "$(first_core)" ]]; then
	plan 1
	result SKIP compare "both cores are compared in the $(first_core) pass"
	exit 0
fi
# On a kernel of our own (make check-debug), `modprobe rdmavt` loads that
# kernel's build of upstream's core, whose loopback engine takes a QP's
# locks in the inverted order (Documentation/differences.rst): lockdep
# reports it and turns itself off for the rest of the run. The debug lane
# is for our core; the comparison is make check's, on Debian's kernel.
distro_comparable() {
	[[ $(uname -r) == "$(<"$REPO/tools/pinned-kernel")" ]]
}
NOT_HERE="the distro core's column is make check's (not on this kernel)"

# Per core and personality a run, per personality a self-check, then
# the coverage and the comparison.
plan $((2 * ${#PERSONALITIES[@]} + ${#PERSONALITIES[@]} + 2))
step module test -f "$KMOD"
step clean-out bash -c "rm -rf '$OUT' && mkdir -p '$OUT'"
for core in ours distro; do
	if [[ $core == distro ]] && ! distro_comparable; then
		for pers in "${PERSONALITIES[@]}"; do
			result SKIP "run-$core-$pers" "$NOT_HERE"
		done
		continue
	fi
	unload_all >/dev/null 2>&1
	step "load-$core" load_named_core "$core"
	for pers in "${PERSONALITIES[@]}"; do
		t "run-$core-$pers" run_one "$core" "$pers"
	done
	step "unload-$core" unload_all
done
for pers in "${PERSONALITIES[@]}"; do
	if distro_comparable; then
		t "selfcheck-$pers" selfcheck "$pers"
	else
		result SKIP "selfcheck-$pers" "$NOT_HERE"
	fi
done
t callbacks-covered coverage
if distro_comparable; then
	t compare compare
else
	result SKIP compare "$NOT_HERE"
fi
print_logs
