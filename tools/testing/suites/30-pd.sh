#!/bin/bash
# Protection domains from userspace, and the max_pd limit.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

MAX_PD=8
plan 1

step load load_rvtsw max_pd=$MAX_PD
# Kernel clients (the MAD layer) may hold PDs of their own; they count
# against max_pd like any other.
kernel_pds() {
	rdma resource show pd dev rvtsw_0 | grep -c 'dev rvtsw_0'
}

pd_test() {
	local in_use
	in_use=$(kernel_pds)
	echo "PDs held by kernel clients: $in_use"
	"$PY" "$TESTING_DIR/py/pd_test.py" rvtsw_0 $MAX_PD "$in_use"
}

t pd-alloc-dealloc pd_test
step unload unload_all
