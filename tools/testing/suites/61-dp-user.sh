#!/bin/bash
# The data path from userspace through rdma-core's ipathverbs provider:
# rdma-core's ping-pong examples between two processes on rvtsw_0 (data
# checked with -c), and dp_user_test.py (pyverbs) for RDMA WRITE/READ,
# atomics, errors, a user SRQ's resize handshake and limit event, and a
# process writing garbage into its mapped receive ring.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

DEV=rvtsw_0
ITERS=200
plan 9

user_test() { (cd "$TESTING_DIR/py" && "$PY" dp_user_test.py "$DEV" "$@"); }

step load load_rvtsw
t rc-pingpong pingpong ibv_rc_pingpong "$DEV:1" "$DEV:1" -c
t rc-pingpong-64k-events pingpong ibv_rc_pingpong "$DEV:1" "$DEV:1" -c -e -s 65536
t uc-pingpong pingpong ibv_uc_pingpong "$DEV:1" "$DEV:1" -c
# One QP: with several, ibv_srq_pingpong's client may post up to one
# ping per QP beyond -n after the server has its count and destroys its
# QPs; on loopback such a ping fails at once (IB_WC_RETRY_EXC_ERR, as
# upstream's loopback does) and the run with it. srq-shared below puts
# several QPs on one SRQ deterministically.
t srq-pingpong pingpong ibv_srq_pingpong "$DEV:1" "$DEV:1" -c -q 1
t rc-ops user_test rc-ops
t errors user_test errors
t srq user_test srq
t srq-shared user_test srq-shared
known_on_distro "upstream takes a user ring's SGE count and head index as they are" \
	'AssertionError: completion 0x7 status 0, want 0x7 status 2$' \
	hostile-rq user_test hostile-rq
step unload unload_all
