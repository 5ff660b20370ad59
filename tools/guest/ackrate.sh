#!/bin/bash
# The 64-byte message rate of RC SEND and RDMA WRITE (ib_send_bw -s 64,
# ib_write_bw -s 64): through rvtsw's packet engine (client on rvtsw_1,
# server on rvtsw_0) beside rdmavt's loopback (both on rvtsw_0), for
# each rvtsw.ko given, in this one boot. With each run, how much the
# client's port's rc_timeouts and rc_resends grew: an ACK that came late
# or never makes them move.
#
# Usage: tools/guest/ackrate.sh [--iters N] [--counters] [NAME=RVTSW_KO...]
# (N iterations a run, default 4000; --counters prints both ports' rdma
# statistic after each run; default module: the tree's rvtsw.ko, named
# "tree"). Prints, a line per run,
#   RVT-ACKRATE <name> <wire|loopback> <send_bw|write_bw> <Mpps> <timeouts> <resends>
set -uo pipefail

# shellcheck source-path=SCRIPTDIR source=../testing/lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../testing/lib/suite.sh"
# shellcheck source-path=SCRIPTDIR source=../testing/lib/perftest.sh
source "$TESTING_DIR/lib/perftest.sh"

ITERS=4000
COUNTERS=
while [[ ${1:-} == --* ]]; do
	case $1 in
	--iters) ITERS=$2; shift 2 ;;
	--counters) COUNTERS=1; shift ;;
	*) echo "unknown option $1" >&2; exit 2 ;;
	esac
done
(($#)) || set -- "tree=$RVTSW_KO"

# rate NAME MODE PROG: one perftest run, its message rate and retries.
rate() {
	local name=$1 mode=$2 prog=$3 t0 r0 value=failed dev
	t0=$(hw_counter rvtsw_1 1 rc_timeouts)
	r0=$(hw_counter rvtsw_1 1 rc_resends)
	if perf bw "$prog" -s 64 -n "$ITERS" >>/tmp/ackrate.log 2>&1; then
		value=$(awk '{ print $5 }' <<<"$PERF_REPORT")
	fi
	echo "RVT-ACKRATE $name $mode ${prog#ib_} $value" \
		"$(($(hw_counter rvtsw_1 1 rc_timeouts) - t0))" \
		"$(($(hw_counter rvtsw_1 1 rc_resends) - r0))"
	[[ -z $COUNTERS ]] || for dev in rvtsw_0 rvtsw_1; do
		rdma statistic show link "$dev/1" | tr ' ' '\n' | paste -sd' ' | fold -w 200
	done
}

for variant in "$@"; do
	name=${variant%%=*}
	RVTSW_KO=${variant#*=}
	for prog in ib_send_bw ib_write_bw; do
		# Two devices: rvtsw_1's client to rvtsw_0's server, as packets.
		RVT_CORE=ours load_rvtsw devices=2 || exit 1
		wait_for 50 test -e /dev/infiniband/uverbs1
		PERF_DEV=rvtsw_0 PERF_CLIENT_DEV=rvtsw_1 rate "$name" wire "$prog"
		# Both ends on rvtsw_0: rdmavt's loopback engine.
		PERF_DEV=rvtsw_0 PERF_CLIENT_DEV='' rate "$name" loopback "$prog"
		unload_all
	done
done
