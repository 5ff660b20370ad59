#!/bin/bash
# Completion queues, their mmap'd rings, and memory regions.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

DEV=rvtsw_0
MAX_CQ=24
plan 20

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

# While a process holds 3 CQs and 5 MRs, the IB core counts them; when it
# exits they are gone (the baseline check proves that only if counting
# works at all).
counted_while_held() {
	local pid rc=0 ready=/tmp/hold-ready
	rm -f "$ready"
	"$PY" "$TESTING_DIR/py/hold_objects.py" "$DEV" 3 5 "$ready" &
	pid=$!
	wait_for 100 test -s "$ready" || { kill "$pid"; return 1; }
	echo "held: CQs $(resource_count cq), MRs $(resource_count mr)"
	(($(resource_count cq) == CQ_BASE + 3)) || rc=1
	(($(resource_count mr) == MR_BASE + 5)) || rc=1
	kill "$pid"
	wait "$pid" 2>/dev/null
	rm -f "$ready"
	return "$rc"
}

cq_test() { "$PY" "$TESTING_DIR/py/cq_test.py" "$DEV" "$@"; }
mr_test() { (cd "$TESTING_DIR/py" && "$PY" mr_test.py "$DEV" "$@"); }
ring_test() { (cd "$TESTING_DIR/py" && "$PY" cq_ring_test.py "$@"); }
max_cq_test() { cq_test max-cq "$MAX_CQ" "$CQ_BASE"; }

# Key checks from the kernel side (fast registration, bounds, access,
# invalidation, the global rkey, dereg of a busy region): the module's
# load is the verdict, its log the details, and the checks that failed
# are listed by name in one line (what the distro core's known
# difference is matched against).
mr_selftest() {
	local rc=0 before log
	before=$(dmesg | wc -l)
	insmod "$TESTING_DIR/kmod/rvt_mr_selftest.ko" dev="$DEV" || rc=$?
	log=$(dmesg | tail -n +"$((before + 1))" | grep rvt_mr_selftest)
	echo "$log" | tail -n 20
	echo "failed checks: $(sed -n 's/.*rvt_mr_selftest: \(check_[a-z_]*\):.*/\1/p' <<<"$log" |
		paste -sd ' ')"
	if lsmod | grep -q '^rvt_mr_selftest '; then
		rmmod rvt_mr_selftest || { echo "rmmod rvt_mr_selftest failed"; rc=1; }
	fi
	return "$rc"
}

# The MAD layer's PD needs the DMA MR: its old complaint must be gone.
# (It still fails further on until QPs exist; show how.)
no_mad_pd_error() {
	local log
	log=$(dmesg | grep "$DEV" | grep -i -e mad -e "open port")
	[[ -z $log ]] || echo "$log"
	! grep -q "Couldn't create ib_mad PD" <<<"$log"
}

step load load_rvtsw max_cq=$MAX_CQ
step ready wait_for 50 test -e /dev/infiniband/uverbs0
t mad-pd-created no_mad_pd_error
snapshot
t cq-sizes cq_test sizes
t cq-limits cq_test limits
t cq-max-cq max_cq_test
t cq-ring-cookies ring_test cookies
t cq-ring-map-once ring_test map-once
t cq-ring-outlives-cq ring_test outlive
t cq-kernel-polled-ring ring_test kernel-ring
known_on_distro "upstream keeps a destroyed QP's completions in a CQ polled through the kernel, and ib_uverbs_poll_cq() reads the freed QP of each (KASAN: slab-use-after-free; Documentation/differences.rst)" \
	"destroyed QP 0x[0-9a-f]+'s completion still queued" \
	cq-kernel-polled-destroyed-qp ring_test destroyed-qp
t cq-resize cq_test resize
t cq-ring-resize ring_test resize
skip_on_distro "oopses the distro core: its rvt_resize_cq picks the old ring by the new udata and dereferences a NULL kernel ring" \
	cq-ring-resize-no-cookie ring_test resize-no-cookie
t cq-ring-bogus-indices ring_test bogus-indices
t mr-access-and-sizes mr_test access
t mr-bad-registrations mr_test bad
t mr-iova mr_test iova
t mr-many mr_test many
known_on_distro "our key checks are stricter by design: exact access rights, no zero-length rkey, invalidation of fast-registration MRs only, rkey 0 only on IB_PD_UNSAFE_GLOBAL_RKEY PDs (mr.c)" \
	'^failed checks: check_dma_lkey check_fast_reg check_bounds check_access check_global_rkey check_global_rkey check_global_rkey$' \
	mr-kernel-key-checks mr_selftest
t resources-counted-while-held counted_while_held
t resources-back-to-baseline back_to_baseline
step unload unload_all
