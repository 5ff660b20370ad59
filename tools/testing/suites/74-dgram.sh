#!/bin/bash
# Datagram delivery in detail (dgram_test.py, mcast_test.c): completion
# fields, GRH, Q_Key and P_Key checks, the MTU limit, drops and their
# counters, multicast fan-out; and RC/UC requests that cannot arrive.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

WORK=$(mktemp -d)

dgram() { "$PY" "$TESTING_DIR/dgram_test.py" "$@"; }

build_mcast_test() {
	cc -O2 -Wall -Wextra -Werror -o "$WORK/mcast_test" \
		"$TESTING_DIR/mcast_test.c" -libverbs
}

# A P_Key without a partition number is refused at load.
bad_extra_pkey() {
	! load_rvtsw extra_pkey=0x8000 && ! lsmod | grep -q '^rvtsw '
}

t bad-extra-pkey-refused bad_extra_pkey
t load load_rvtsw devices=2 ports=2 extra_pkey=0x8001
t ready wait_for 50 test -e /dev/infiniband/uverbs1
for test in deliver grh qkey pkey oversize unknown-lid no-qp no-recv \
	too-small lost-rc; do
	t "$test" dgram "$test"
done
t lost-rc-to-other-device dgram lost-rc rvtsw_0:1 rvtsw_1:1
t between-ports dgram between rvtsw_0:1 rvtsw_0:2
t between-devices dgram between rvtsw_0:2 rvtsw_1:1
t build-mcast-test build_mcast_test
t multicast "$WORK/mcast_test" rvtsw_0:1 rvtsw_0:1 rvtsw_0:2 rvtsw_1:1 \
	rvtsw_1:2
t unload unload_all
rm -rf "$WORK"
