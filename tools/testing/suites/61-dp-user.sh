#!/bin/bash
# The data path from userspace through rdma-core's ipathverbs provider:
# rdma-core's ping-pong examples between two processes on rvtsw_0 (data
# checked with -c), and dp_user_test.py (pyverbs) for RDMA WRITE/READ,
# atomics, errors, a user SRQ's resize handshake and limit event, and a
# process writing garbage into its mapped receive ring.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

DEV=rvtsw_0
ITERS=200

user_test() { (cd "$TESTING_DIR" && "$PY" dp_user_test.py "$DEV" "$@"); }

listening() { ss -Hltn 'sport = :18515' | grep -q .; }

# pingpong PROG [ARGS...]: server and client on $DEV; both must succeed
# and report $ITERS iterations.
pingpong() {
	local prog=$1 sout=/tmp/pp-server.$$ cout=/tmp/pp-client.$$ spid rc=0
	shift
	timeout 120 "$prog" -d "$DEV" -n "$ITERS" "$@" >"$sout" 2>&1 &
	spid=$!
	wait_for 100 listening || rc=1
	timeout 120 "$prog" -d "$DEV" -n "$ITERS" "$@" localhost \
		>"$cout" 2>&1 || rc=1
	wait "$spid" || rc=1
	echo "client:"
	cat "$cout"
	echo "server:"
	cat "$sout"
	grep -q "^$ITERS iters in" "$cout" || rc=1
	grep -q "^$ITERS iters in" "$sout" || rc=1
	rm -f "$sout" "$cout"
	return "$rc"
}

t load load_rvtsw
t rc-pingpong pingpong ibv_rc_pingpong -c
t rc-pingpong-64k-events pingpong ibv_rc_pingpong -c -e -s 65536
t uc-pingpong pingpong ibv_uc_pingpong -c
t srq-pingpong pingpong ibv_srq_pingpong -c -q 4
t rc-ops user_test rc-ops
t errors user_test errors
t srq user_test srq
known_on_distro "upstream takes a user ring's SGE count and head index as they are" \
	hostile-rq user_test hostile-rq
t unload unload_all
