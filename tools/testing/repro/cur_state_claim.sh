#!/bin/bash
# Reproduces upstream rvt_modify_qp()'s trust in IB_QP_CUR_STATE
# (cur_state_claim.py says how): on the distro core the modify succeeds,
# the QP is in RTS with port 0, and its destroy reads rdi->ports[-1]: a
# general protection fault in _rvt_reset_qp(), then the guest hangs. Either
# core:
#   RVT_CORE=distro tools/vm/run.sh --pci-testdev --timeout 600 \
#       tools/testing/repro/cur_state_claim.sh
# Expected on ours: "errno 22", "destroyed" and a clean kernel log; 55-qp's
# wrong-current-state runs the same claims on our core.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

load_rvtsw || exit 1
wait_for 50 test -e /sys/class/infiniband/rvtsw_0 || exit 1
"$PY" "$TESTING_DIR/repro/cur_state_claim.py" rvtsw_0
