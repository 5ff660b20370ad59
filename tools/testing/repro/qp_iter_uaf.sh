#!/bin/bash
# Reproduces upstream rdmavt's use-after-free in rvt_qp_iter()
# (Documentation/differences.rst): rvt_stress.ko's qp_iter_cb_destroys
# case on the distro's rdmavt.ko, which 67-stress skips there. Its
# callback resets the QP the walk stands on and destroys the QPs behind
# it in its bucket; upstream's walk then follows the reset QP's stale
# next link into a freed QP. Not part of `make check`: it oopses the guest
# (with slub_debug's poison, a general protection fault in
# rvt_qp_iter_next()). Run it as
#   RVT_CORE=distro tools/vm/run.sh --pci-testdev \
#       tools/testing/repro/qp_iter_uaf.sh
# On our core (RVT_CORE=ours) the case passes.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

export RVT_CORE=${RVT_CORE:-distro}
KMOD=$REPO/tools/testing/kmod/rvt_stress.ko

# Four buckets: every bucket's chain holds several of the victims.
load_rvtsw qp_table_size=4 || exit 1
wait_for 50 test -e /sys/class/infiniband/rvtsw_0 || exit 1
insmod "$KMOD" dev=rvtsw_0 seconds=2 cases=qp_iter_cb_destroys || exit 1
grep -v SKIP /sys/kernel/debug/rvt_stress/results
rmmod rvt_stress
unload_all
