# shellcheck shell=bash
# A pyverbs program's cases (dgram_test.py, wire_test.py) run in one
# process (starting pyverbs is slow under TCG), each case then reported
# as a result of its own. The program prints each case between
# "--- CASE name" and "--- RESULT name PASS" (or "FAIL: why") and exits
# 0 exactly when every case passed. Sourced after lib/suite.sh.

# pycases_run PROG LOG CASE...: run PROG with the cases; its output goes
# to LOG, its exit status to LOG.status.
pycases_run() {
	local prog=$1 log=$2 rc=0
	shift 2
	"$PY" "$prog" "$@" >"$log" 2>&1 || rc=$?
	echo "$rc" >"$log.status"
	echo "${prog##*/} exited with status $rc"
}

# pycases_result LOG NAME: the case's part of the log; its verdict.
pycases_result() {
	awk -v c="--- CASE $2" -v r="--- RESULT $2 " \
		'$0 == c { on = 1; next } index($0, r) == 1 { print; exit }
		 on' "$1"
	grep -q -- "^--- RESULT $2 PASS\$" "$1"
}

# pycases_check_status LOG COUNT NAME: if the program's exit status
# disagrees with its verdicts (it died after them, or one went missing),
# that is a failure of its own, @NAME-status.
pycases_check_status() {
	local log=$1 count=$2 rc passed
	rc=$(<"$log.status")
	passed=$(grep -c '^--- RESULT [^ ]* PASS$' "$log")
	if (((rc == 0) != (passed == count))); then
		fail "@$3-status" "the program exited $rc with $passed of $count cases passed"
	fi
}

# pycases PROG NAME CASE...: the whole of it, in a suite: a step that runs
# PROG's cases (its log in $WORK/NAME.log), a result for each, and the
# check of the exit status.
pycases() {
	local prog=$1 name=$2 log=$WORK/$2.log case
	shift 2
	step run-cases pycases_run "$prog" "$log" "$@"
	for case in "$@"; do
		t "$case" pycases_result "$log" "$case"
	done
	[[ -n $STEP_FAILED ]] || pycases_check_status "$log" $# "$name"
}
