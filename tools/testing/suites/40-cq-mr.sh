#!/bin/bash
# Completion queues, their mmap'd rings, and memory regions.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

DEV=rvtsw_0
MAX_CQ=24

# resource_count TYPE: how many TYPE objects of $DEV exist (any owner).
resource_count() {
	rdma resource show "$1" dev "$DEV" | grep -c "dev $DEV"
}

# Kernel clients (the MAD layer) hold CQs and MRs of their own.
snapshot() {
	CQ_BASE=$(resource_count cq)
	MR_BASE=$(resource_count mr)
	echo "    kernel clients hold $CQ_BASE CQs and $MR_BASE MRs"
}

back_to_baseline() {
	local cq mr
	cq=$(resource_count cq)
	mr=$(resource_count mr)
	echo "CQs $cq (baseline $CQ_BASE), MRs $mr (baseline $MR_BASE)"
	((cq == CQ_BASE && mr == MR_BASE))
}

cq_test() { "$PY" "$TESTING_DIR/cq_test.py" "$DEV" "$@"; }
ring_test() { (cd "$TESTING_DIR" && "$PY" cq_ring_test.py "$@"); }
max_cq_test() { cq_test max-cq "$MAX_CQ" "$CQ_BASE"; }

# The MAD layer's PD needs the DMA MR: its old complaint must be gone.
no_mad_pd_error() {
	local log
	log=$(dmesg | grep -i 'ib_mad' | tail -n 5)
	[[ -n $log ]] && echo "$log"
	! grep -q "Couldn't create ib_mad PD" <<<"$log"
}

t load load_rvtsw max_cq=$MAX_CQ
t ready wait_for 50 test -e /dev/infiniband/uverbs0
snapshot
t cq-sizes cq_test sizes
t cq-limits cq_test limits
t cq-max-cq max_cq_test
t cq-ring-cookies ring_test cookies
t cq-ring-map-once ring_test map-once
t cq-ring-outlives-cq ring_test outlive
t cq-kernel-polled-ring ring_test kernel-ring
t resources-back-to-baseline back_to_baseline
t unload unload_all
