#!/bin/bash
# A process scribbling on its mapped receive rings: ring_test.py breaks a
# ring's head or tail, checks what each kernel reader of the ring does
# (taking a request for RC, UD and SRQ traffic; the error flush and reset
# discard; SRQ resize; RC credits through rvt_credit_probe.ko), repairs
# the ring and checks it works again. Policy: rq.h.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

plan 6

ring_test() { (cd "$TESTING_DIR/py" && "$PY" ring_test.py "$@"); }

# Where upstream reads a broken index differently: it takes an
# out-of-range tail as 0 (and a head, in the flush and the credit count);
# taking a request, it does not check the head at all.
TAIL_AS_0="upstream takes an out-of-range tail as 0"
HEAD_AS_IS="upstream takes a request whatever the head: it counts up to any index and takes slots never posted"

step load load_rvtsw
known_on_distro "$HEAD_AS_IS" "a completion while the ring is broken" \
	rwqe-rc ring_test rwqe-rc
known_on_distro "$HEAD_AS_IS; $TAIL_AS_0: it takes slot 0's old request again" \
	"(head|tail) out of range: received \[\([12], 0\)\]" \
	rwqe-ud ring_test rwqe-ud
known_on_distro "$HEAD_AS_IS" "a completion while the SRQ ring is broken" \
	rwqe-srq ring_test rwqe-srq
known_on_distro "$TAIL_AS_0: it flushes requests already completed" \
	"flush of a broken ring completed \[\(11, " \
	flush ring_test flush
t srq-resize ring_test srq-resize
known_on_distro "$TAIL_AS_0: it advertises credits for slots never posted" \
	"tail out of range: credit code [1-9]" \
	credits ring_test credits
step unload unload_all
