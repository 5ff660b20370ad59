#!/bin/bash
# Datagram delivery in detail (dgram_test.py, mcast_test.c): completion
# fields, GRH, Q_Key and P_Key checks, the MTU limit, drops and their
# counters, multicast fan-out; and RC/UC requests that cannot arrive.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

WORK=$(mktemp -d)
# dgram_test.py's cases, run in one process; each is reported on its own.
CASES=(deliver grh qkey pkey oversize unknown-lid no-qp no-recv too-small
	lost-rc lost-rc-to-other-device between-ports between-devices)
plan $((2 + ${#CASES[@]}))

# run_cases: every case in one process; its exit status is kept.
run_cases() {
	local rc=0
	"$PY" "$TESTING_DIR/py/dgram_test.py" "${CASES[@]}" >"$WORK/dgram.log" 2>&1 ||
		rc=$?
	echo "$rc" >"$WORK/dgram.status"
	echo "dgram_test.py exited with status $rc"
}

# case_result NAME: the case's part of the log; its verdict.
case_result() {
	awk -v c="--- CASE $1" -v r="--- RESULT $1 " \
		'$0 == c { on = 1; next } index($0, r) == 1 { print; exit }
		 on' "$WORK/dgram.log"
	grep -q -- "^--- RESULT $1 PASS\$" "$WORK/dgram.log"
}

# dgram_test.py exits 0 exactly when every case passed. If its status
# says otherwise (it died after the verdicts, or a verdict went missing)
# that is a failure of its own.
check_dgram_status() {
	local rc passed exited_ok=0 all_passed=0
	rc=$(<"$WORK/dgram.status")
	passed=$(grep -c '^--- RESULT [^ ]* PASS$' "$WORK/dgram.log")
	((rc == 0)) && exited_ok=1
	((passed == ${#CASES[@]})) && all_passed=1
	if ((exited_ok != all_passed)); then
		fail @dgram-status "dgram_test.py exited $rc with $passed of ${#CASES[@]} cases passed"
	fi
}

# A P_Key without a partition number is refused at load.
bad_extra_pkey() {
	load_refused extra_pkey=0x8000 "Invalid parameters" \
		"extra_pkey=0x8000 is not a valid P_Key"
}

t bad-extra-pkey-refused bad_extra_pkey
step load load_rvtsw devices=2 ports=2 extra_pkey=0x8001
step ready wait_for 50 test -e /dev/infiniband/uverbs1
step run-cases run_cases
for name in "${CASES[@]}"; do
	t "$name" case_result "$name"
done
[[ -n $STEP_FAILED ]] || check_dgram_status
step progs have_progs mcast_test
t multicast "$PROGS/mcast_test" rvtsw_0:1 rvtsw_0:1 rvtsw_0:2 rvtsw_1:1 \
	rvtsw_1:2
step unload unload_all
rm -rf "$WORK"
