#!/bin/bash
# rdma-core's pyverbs rdma_cm tests (tests/test_rdmacm.py, as Debian
# ships them) on rvtsw_0, over IPoIB on a fabric OpenSM manages.
#
# The tests find their IP address as rdma-core's base.py does: the first
# interface listed in /sys/class/infiniband/<dev>/device/net/, its first
# address, for both ends. That directory exists only when the IB device
# has a parent device (IPoIB puts its netdevs under the HCA's parent), so
# rvtsw gets the guest's pci-testdev as its parent on both cores (run.sh
# --pci-testdev). One device of one port: its IPoIB interface is the only
# one there, so the first. rdma_cm resolves the route by an SA path record,
# so the fabric is managed (managed=1) and OpenSM runs on that port
# (without an SM nine of the ten tests error out; the tenth, a bad flow,
# passes by its traffic failing, as it would anyway); both
# ends of every test are on the port, RC by rdmavt's loopback, UD and
# multicast by rvtsw's delivery and the switch's MFT.
#
# Each test of the file is one result: it must pass. A skip is a FAIL:
# none of them needs RoCE or an Ethernet feature, so on rvtsw's
# InfiniBand port every one runs.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

TESTS_SRC=/usr/share/doc/rdma-core/tests
CA=rvtsw_0
ADDR=10.81.0.1
WORK=$(mktemp -d)
LOG=$WORK/rdmacm.log
# test_rdmacm.py's tests in rdma-core v44 (Debian's python3-pyverbs
# 44.0-2), all in class CMTestCase. A test the file gains or loses is a
# FAIL (@unlisted, or the missing test's own), so a pyverbs update that
# changes them is noticed.
TESTS=(
	test_rdmacm_async_ex_leave_multicast_traffic
	test_rdmacm_async_ex_multicast_traffic
	test_rdmacm_async_multicast_traffic
	test_rdmacm_async_read
	test_rdmacm_async_reject_traffic
	test_rdmacm_async_traffic
	test_rdmacm_async_traffic_external_qp
	test_rdmacm_async_udp_traffic
	test_rdmacm_async_write
	test_rdmacm_sync_traffic
)
plan "${#TESTS[@]}"

# OpenSM's pid: it is started in a step's subshell, so kept in a file.
OPENSM_PID=$WORK/opensm.pid

stop_opensm() {
	[[ -s $OPENSM_PID ]] || return 0
	kill "$(<"$OPENSM_PID")" 2>/dev/null
	wait_for 100 test ! -d "/proc/$(<"$OPENSM_PID")" || return
	rm -f "$OPENSM_PID"
}

# After a failed step too: no SM or IPoIB left for the next suite.
cleanup() {
	stop_opensm
	modprobe -r ib_ipoib 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

# The suite as 80-pyverbs prepares it: uncompressed, a directory of its own.
prepare() {
	cp -r "$TESTS_SRC" "$WORK/tests" && gunzip "$WORK"/tests/*.gz &&
		test -f "$WORK/tests/test_rdmacm.py"
}

# rvtsw managed, one device of one port, the pci-testdev its parent (on
# the distro core load_rvtsw gives it one already); rdma_ucm for the
# tests' rdma_cm, ib_umad for OpenSM.
load_with_parent() {
	local dev parent=()
	if ! on_distro_core; then
		dev=$(pci_testdev) ||
			{ echo "no pci-testdev: run the guest with --pci-testdev"; return 1; }
		parent=("parent=$dev")
	fi
	modprobe ib_umad && modprobe rdma_ucm &&
		load_rvtsw "${parent[@]}" devices=1 ports=1 managed=1 &&
		wait_for 50 test -e "$SYS/$CA/ports/1/lid" &&
		ls -l "$SYS/$CA/device"
}

port_active() {
	[[ $(<"$SYS/$CA/ports/1/state") == *ACTIVE ]]
}

# OpenSM on the port: ACTIVE and SUBNET UP within two minutes. -d2
# flushes its log after each message, for the grep.
start_opensm() {
	opensm -g "$(port_guid "$CA" 1)" -f "$WORK/opensm.log" -s 5 -d2 \
		>"$WORK/opensm.out" 2>&1 &
	echo "$!" >"$OPENSM_PID"
	if ! wait_for 1200 port_active; then
		cat "$WORK/opensm.out"
		tail -n 30 "$WORK/opensm.log"
		return 1
	fi
	wait_for 100 grep -q "SUBNET UP" "$WORK/opensm.log"
}

# first_netdev: the interface base.py takes, the first under device/net.
first_netdev() {
	local nets=("$SYS/$CA/device/net/"*)
	[[ -e ${nets[0]} ]] || return 1
	basename "${nets[0]}"
}

carrier_up() {
	[[ $(<"/sys/class/net/$1/operstate") == up ]]
}

# IPoIB up on the first netdev under device/net, which must be the port's,
# with ADDR as its first address; its carrier comes once it has joined
# the broadcast group.
ipoib_up() {
	local dev
	modprobe ib_ipoib && wait_for 50 first_netdev || return
	dev=$(first_netdev)
	echo "first under $SYS/$CA/device/net: $dev"
	[[ $(netdev_of "$CA/1") == "$dev" ]] ||
		{ echo "$dev is not $CA port 1's"; return 1; }
	ip addr add "$ADDR/24" dev "$dev" && ip link set "$dev" up &&
		wait_for 300 carrier_up "$dev" && ip addr show "$dev"
}

# Run the file's tests on the port; the log keeps each test's outcome
# (pyverbs_suite.py's "  PASS|SKIP|FAIL|ERROR <id>" lines). Its own
# status is not the verdict: each test's line is.
run_rdmacm() {
	(cd "$WORK" && timeout 600 "$PY" "$TESTING_DIR/py/pyverbs_suite.py" \
		"$WORK/tests" "$CA" "rdmacm-$RVT_CORE" --only test_rdmacm) \
		>"$LOG" 2>&1
	indent <"$LOG"
}

# why_failed NAME: the last line of the test's traceback in unittest's
# report (the exception it raised), or where to look.
why_failed() {
	local why
	why=$(awk -v name="$1" '
		$0 ~ "^(FAIL|ERROR): " name " " { on = 1; next }
		on && /^(-+|=+)$/ && last != "" { print last; exit }
		on && NF { last = $0 }' "$LOG")
	echo "${why:-no traceback; see the log}"
}

# report NAME: NAME's result from its line in the log.
report() {
	local id=tests.test_rdmacm.CMTestCase.$1 line
	line=$(grep -E "^  (PASS|SKIP|FAIL|ERROR) $id(:|\$)" "$LOG" | head -n 1)
	case $line in
	"  PASS $id") pass "$1" ;;
	"  SKIP $id: "*) fail "$1" "skipped, not passed: ${line#*"$id: "}" ;;
	"  FAIL $id") fail "$1" "failed: $(why_failed "$1")" ;;
	"  ERROR $id") fail "$1" "error: $(why_failed "$1")" ;;
	*) fail "$1" "no result in the run$(last_words "$(<"$LOG")")" ;;
	esac
}

# Tests the run reports that TESTS does not list.
unlisted() {
	local t
	sed -nE 's/^  (PASS|SKIP|FAIL|ERROR) tests\.test_rdmacm\.[^.]+\.([^: ]+).*/\2/p' \
		"$LOG" | while read -r t; do
		[[ " ${TESTS[*]} " == *" $t "* ]] || echo "$t"
	done
}

report_all() {
	local t extra
	for t in "${TESTS[@]}"; do
		not_run "$t" || report "$t"
	done
	[[ -f $LOG ]] || return 0
	extra=$(unlisted)
	[[ -z $extra ]] ||
		fail "@unlisted" "tests not in TESTS: $(tr '\n' ' ' <<<"$extra")"
}

teardown() {
	stop_opensm && modprobe -r ib_ipoib && unload_all
}

step prepare prepare
step load load_with_parent
step opensm start_opensm
step ipoib ipoib_up
[[ -n $STEP_FAILED ]] || run_rdmacm
report_all
step teardown teardown
