#!/bin/bash
# The QP core from inside the kernel: tools/testing/kmod/rvt_qp_test.ko
# (built by `make testmods`) runs its KTAP tests on rvtsw_0 with two ports
# when loaded; each KTAP result becomes a result of this suite.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

KMOD=$REPO/tools/testing/kmod/rvt_qp_test.ko
RESULTS=/sys/kernel/debug/rvt_qp_test/results
# QPN test cycles: 100000 take about a minute under TCG.
CYCLES=${RVT_QP_CYCLES:-100000}
# Tests the module reports; a shorter plan means a test went missing.
EXPECTED=17

# The MAD layer's QP0 and QP1 on both ports, in the QP table.
mad_qps_up() {
	(($(grep -c ' SMI RTS \| GSI RTS ' \
		/sys/kernel/debug/rvtsw/rvtsw_0/qp_stats) == 4))
}

# report_ktap FILE: one result per KTAP line, then the plan's.
report_ktap() {
	local line plan=0 n=0
	while read -r line; do
		case $line in
		"ok "*)
			n=$((n + 1))
			pass "kmod-$(awk '{print $3}' <<<"$line")"
			;;
		"not ok "*)
			n=$((n + 1))
			fail "kmod-$(awk '{print $4}' <<<"$line")" \
				"${line#*# }"
			;;
		1..*) plan=${line#1..} ;;
		esac
	done <"$1"
	if ((plan == n && n == EXPECTED)); then
		pass kmod-plan
	else
		fail kmod-plan "plan $plan, $n results, $EXPECTED expected"
	fi
}

run_kmod() {
	local out=/tmp/rvt_qp_test.ktap start=$SECONDS
	[[ -f $KMOD ]] || { fail kmod-load "$KMOD missing: make testmods"; return; }
	if ! insmod "$KMOD" dev=rvtsw_0 cycles="$CYCLES"; then
		fail kmod-load "insmod failed"
		return
	fi
	echo "    module ran for $((SECONDS - start)) s"
	cp "$RESULTS" "$out"
	indent <"$out"
	rmmod rvt_qp_test
	pass kmod-load
	report_ktap "$out"
}

t load load_rvtsw ports=2
t mad-qps-up wait_for 100 mad_qps_up
run_kmod
t unload unload_all
