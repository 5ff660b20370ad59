#!/bin/bash
# Reproduces upstream rdmavt's loopback deadlock (Documentation/
# differences.rst): rvt_dp_test.ko loaded over and over on rvtsw over the
# distro's rdmavt.ko, with cq_overrun's destroy racing the send engine's
# flush. Not part of `make check`: when it hits, the guest hangs for good.
#
# Run two guests side by side (the race wants a loaded host), each with a
# monitor, e.g.:
#   RVT_REPRO_ROUNDS=60 tools/vm/run.sh --pci-testdev --timeout 2400 \
#       --monitor /tmp/mon.sock tools/testing/repro/loopback_deadlock.sh
# Once the console stops after "CQ is full!", 'info registers -a' on the
# monitor shows both CPUs spinning with interrupts off (IF clear), and
# 'nmi' panics the guest with every CPU's stack in the console log.
#
# cq_overrun itself now waits for the engine before it destroys; setting
# RVT_REPRO_RACE=1 (the default) puts the race back via the module's
# cq_overrun_race parameter.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

export RVT_CORE=${RVT_CORE:-distro}
KMOD=$REPO/tools/testing/kmod/rvt_dp_test.ko
ROUNDS=${RVT_REPRO_ROUNDS:-30}

sysctl -qw kernel.unknown_nmi_panic=1 kernel.panic_print=64
load_rvtsw || exit 1
wait_for 50 test -e /sys/class/infiniband/rvtsw_0 || exit 1
for ((i = 1; i <= ROUNDS; i++)); do
	insmod "$KMOD" dev=rvtsw_0 "cq_overrun_race=${RVT_REPRO_RACE:-1}" ||
		exit 1
	echo "round $i: $(grep -c '^ok' /sys/kernel/debug/rvt_dp_test/results) ok"
	rmmod rvt_dp_test
done
echo "no deadlock in $ROUNDS rounds"
