#!/bin/bash
# Datagram delivery in detail (dgram_test.py, mcast_test.c): completion
# fields, GRH, Q_Key and P_Key checks, the MTU limit, drops and their
# counters, multicast fan-out; and RC/UC requests that cannot arrive.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/pycases.sh
source "$TESTING_DIR/lib/pycases.sh"

WORK=$(mktemp -d)
# dgram_test.py's cases, run in one process; each is reported on its own.
CASES=(deliver grh qkey pkey oversize unknown-lid no-qp no-recv too-small
	lost-rc lost-rc-to-other-device between-ports between-devices)
plan $((2 + ${#CASES[@]}))

# A P_Key without a partition number is refused at load.
bad_extra_pkey() {
	load_refused extra_pkey=0x8000 "Invalid parameters" \
		"extra_pkey=0x8000 is not a valid P_Key"
}

t bad-extra-pkey-refused bad_extra_pkey
step load load_rvtsw devices=2 ports=2 extra_pkey=0x8001
step ready wait_for 50 test -e /dev/infiniband/uverbs1
pycases "$TESTING_DIR/py/dgram_test.py" dgram "${CASES[@]}"
step progs have_progs mcast_test
t multicast "$PROGS/mcast_test" rvtsw_0:1 rvtsw_0:1 rvtsw_0:2 rvtsw_1:1 \
	rvtsw_1:2
step unload unload_all
rm -rf "$WORK"
