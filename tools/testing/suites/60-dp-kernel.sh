#!/bin/bash
# The data path from inside the kernel: tools/testing/kmod/rvt_dp_test.ko
# (built by `make testmods`) runs its KTAP tests on rvtsw_0 when loaded:
# RC/UC loopback with data checks, RNR, the responder's refusals, posting
# errors, CQ overrun, lost requests, SRQs. Each KTAP result becomes a
# result of this suite.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

KMOD=$REPO/tools/testing/kmod/rvt_dp_test.ko
RESULTS=/sys/kernel/debug/rvt_dp_test/results
# Tests the module reports; a shorter plan means a test went missing.
EXPECTED=30

# Where the distro core does what upstream rdmavt does, and that is not
# what the IBTA asks for (Documentation/datapath.rst): a failure there is
# a known difference, reported with its reason.
declare -A KNOWN_DIFF=(
	[write_qp_without_remote_write]="upstream answers a write to a QP without remote write access with IB_WC_REM_INV_REQ_ERR, not the access error"
	[send_too_long]="upstream completes the responder's receive with IB_WC_LOC_QP_OP_ERR, not IB_WC_LOC_LEN_ERR"
	[read_without_responder_resources]="upstream serves RDMA READ even with max_dest_rd_atomic 0"
	[uc_too_long_dropped]="upstream puts a UC responder in ERR instead of dropping the message"
	[post_wrong_state_sets_bad_wr]="upstream leaves bad_wr unset when the QP's state refuses a send"
	[comm_est_in_rtr]="upstream loopback never raises IB_EVENT_COMM_EST"
)

# On the distro core cq_overrun is not run: twice in six full runs this
# session the distro core spun right after that test's "CQ is full!"
# (never on ours), and the hang took the rest of the run with it. The
# cause is not known yet; upstream's rvt_send_cq()/rvt_recv_cq() put a
# QP in ERR from a CQ overflow holding only one of its two locks.
SKIP_REASON="spins the distro core now and then after its \"CQ is full!\" (cause not yet known)"

# report_ktap FILE: one result per KTAP line, then the plan's.
report_ktap() {
	local line name plan=0 n=0
	while read -r line; do
		case $line in
		"ok "*"# SKIP"*)
			n=$((n + 1))
			result SKIP "kmod-$(awk '{print $3}' <<<"$line")" \
				"$SKIP_REASON"
			;;
		"ok "*)
			n=$((n + 1))
			pass "kmod-$(awk '{print $3}' <<<"$line")"
			;;
		"not ok "*)
			n=$((n + 1))
			name=$(awk '{print $4}' <<<"$line")
			if on_distro_core && [[ -n ${KNOWN_DIFF[$name]:-} ]]; then
				result KNOWN "kmod-$name" "${KNOWN_DIFF[$name]}"
			else
				fail "kmod-$name" "${line#*# }"
			fi
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
	local out=/tmp/rvt_dp_test.ktap start=$SECONDS
	[[ -f $KMOD ]] || { fail kmod-load "$KMOD missing: make testmods"; return; }
	local params=(dev=rvtsw_0)
	on_distro_core && params+=(skip_cq_overrun=1)
	if ! insmod "$KMOD" "${params[@]}"; then
		fail kmod-load "insmod failed"
		return
	fi
	echo "    module ran for $((SECONDS - start)) s"
	cp "$RESULTS" "$out"
	indent <"$out"
	rmmod rvt_dp_test
	pass kmod-load
	report_ktap "$out"
}

t load load_rvtsw
run_kmod
t unload unload_all
