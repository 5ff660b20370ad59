#!/bin/bash
# Datagram delivery in detail (dgram_test.py, mcast_test.c): completion
# fields, GRH, Q_Key and P_Key checks, the MTU limit, drops and their
# counters, multicast fan-out; and RC/UC requests that cannot arrive.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

WORK=$(mktemp -d)
# dgram_test.py's cases, run in one process; each is reported on its own.
CASES=(deliver grh qkey pkey oversize unknown-lid no-qp no-recv too-small
	lost-rc lost-rc-to-other-device between-ports between-devices)

run_cases() {
	"$PY" "$TESTING_DIR/py/dgram_test.py" "${CASES[@]}" >"$WORK/dgram.log" 2>&1
	echo "dgram_test.py exited with status $?"
}

# case_result NAME: the case's part of the log; its verdict.
case_result() {
	awk -v c="--- CASE $1" -v r="--- RESULT $1 " \
		'$0 == c { on = 1; next } index($0, r) == 1 { print; exit }
		 on' "$WORK/dgram.log"
	grep -q -- "^--- RESULT $1 PASS\$" "$WORK/dgram.log"
}

build_mcast_test() {
	cc -O2 -Wall -Wextra -Werror -o "$WORK/mcast_test" \
		"$TESTING_DIR/progs/mcast_test.c" -libverbs
}

# A P_Key without a partition number is refused at load.
bad_extra_pkey() {
	! load_rvtsw extra_pkey=0x8000 && ! lsmod | grep -q '^rvtsw '
}

t bad-extra-pkey-refused bad_extra_pkey
t load load_rvtsw devices=2 ports=2 extra_pkey=0x8001
t ready wait_for 50 test -e /dev/infiniband/uverbs1
run_cases
for name in "${CASES[@]}"; do
	t "$name" case_result "$name"
done
t build-mcast-test build_mcast_test
t multicast "$WORK/mcast_test" rvtsw_0:1 rvtsw_0:1 rvtsw_0:2 rvtsw_1:1 \
	rvtsw_1:2
t unload unload_all
rm -rf "$WORK"
