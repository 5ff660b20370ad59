#!/bin/bash
# Queue pairs from userspace through libibverbs: the state machine, the
# attribute checks, queue sizes, query round trips, the receive ring
# flush, max_qp and debugfs qp_stats.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

DEV=rvtsw_0
MAX_QP=40
QP_STATS=/sys/kernel/debug/rvtsw/$DEV/qp_stats
plan 7

qp_test() { "$PY" "$TESTING_DIR/py/qp_test.py" "$DEV" "$@"; }

# QPs of $DEV that exist, whoever owns them (the MAD layer's QP0 and QP1).
qp_count() {
	rdma resource show qp | grep -c "link $DEV/"
}

mad_qps_up() {
	(($(grep -c ' SMI RTS \| GSI RTS ' "$QP_STATS") == 2))
}

max_qp_test() {
	local in_use
	in_use=$(qp_count)
	echo "QPs held by kernel clients: $in_use"
	qp_test max-qp "$MAX_QP" "$in_use"
}

step load load_rvtsw max_qp=$MAX_QP
step mad-qps-up wait_for 100 mad_qps_up
t state-machine qp_test states
known_on_distro "upstream accepts out-of-range attributes such as an RC timeout of 32" \
	'AssertionError: RC RTR->RTS timeout 32: succeeded, want EINVAL' \
	bad-attributes qp_test attrs
t queue-sizes qp_test caps
known_on_distro "upstream's query does not return the alternate path as it was set" \
	'AssertionError: alternate path$' \
	query-roundtrip qp_test roundtrip
t rq-ring-flush qp_test flush
skip_on_distro "WARNs the distro core: its rvt_create_qp error path at max_qp vfree()s a user RQ ring that is no vmalloc area" \
	max-qp max_qp_test
t debugfs-lists-qps qp_test debugfs
step unload unload_all
