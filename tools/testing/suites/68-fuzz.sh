#!/bin/bash
# A hostile uverbs client (tools/testing/progs/uverbs_fuzz.c): random
# write() commands and ioctl methods with boundary values, stale handles
# and bad pointers, scribbled user rings, random mmaps, children killed
# with objects live. Every call must be answered with an errno or
# success (the fuzzer checks what the ABI promises and exits non-zero on
# anything else), the kernel must log nothing (the harness fails the run
# on any report; the debug kernel adds KASAN, lockdep, kmemleak), and
# afterwards the device must still move data and hold no QP but its MAD
# QPs.
#
# Two runs of RVT_FUZZ_SECONDS (default 60) each: one with the fixed seed
# RVT_FUZZ_SEED (default 68), so the run is reproducible, and one with a
# seed from the date. Both seeds are printed; a failure is replayed with
#   uverbs_fuzz --device rvtsw_0 --seed SEED --steps STEP --no-fork \
#       --seconds 3600 --avoid LIST --verbose
# On the distro core the fuzzer also keeps away from that core's own
# crashes and WARNs on hostile input (DISTRO_AVOID), and runs otherwise
# the same.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

DEV=rvtsw_0
FUZZ_SECONDS=${RVT_FUZZ_SECONDS:-60}
FIXED_SEED=${RVT_FUZZ_SEED:-68}
DATE_SEED=$(date +%s)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# Known kernel bugs the fuzzer is told to keep away from (--avoid), so
# that a run can find the next one. Found by this fuzzer, in both cores,
# each with a reproduction in tools/testing/repro/; while one is avoided,
# a SKIP says so (RVT_FUZZ_AVOID= runs into them):
declare -A FOUND=(
	[post-send-no-wr]="rvt_post_send() dereferences the WR list, NULL for a POST_SEND of no WR: an oops with s_hlock held (repro/post_send_no_wr.sh)"
	[mcast-no-port]="rvt_attach_mcast() and rvt_detach_mcast() read rdi->ports[-1] for a QP still in RESET: KASAN slab-out-of-bounds (repro/mcast_port0.sh)"
)
AVOID=${RVT_FUZZ_AVOID-post-send-no-wr,mcast-no-port}
# The distro core's crashes and WARNs on hostile input: rvt_resize_cq()
# without room for the cookie of a mapped CQ, a user ring's SGE count
# overrunning r_sg_list (both in Documentation/differences.rst), and
# rvt_create_qp()'s error path freeing a user RQ ring twice ("Trying to
# vfree() nonexistent vm area") when the ring's cookie cannot be written
# (differences.rst has the same path, reached at max_qp).
DISTRO_AVOID=resize-cq-no-cookie,rq-sge-count,create-qp-response
if on_distro_core; then
	AVOID=${AVOID:+$AVOID,}$DISTRO_AVOID
fi

# The found bugs being avoided, in a fixed order.
avoided_found() {
	local bug
	for bug in post-send-no-wr mcast-no-port; do
		[[ ,$AVOID, != *,$bug,* ]] || echo "$bug"
	done
}
AVOIDED_FOUND=$(avoided_found)

plan $((4 + $(wc -w <<<"$AVOIDED_FOUND")))

build_fuzzer() {
	cc -O2 -Wall -Wextra -Werror -o "$WORK/uverbs_fuzz" \
		"$TESTING_DIR/progs/uverbs_fuzz.c"
}

# fuzz SEED: one run; its failures and its summary are the output.
fuzz() {
	local rc=0
	echo "seed $1, $FUZZ_SECONDS s"
	"$WORK/uverbs_fuzz" --device "$DEV" --seed "$1" \
		--seconds "$FUZZ_SECONDS" ${AVOID:+--avoid "$AVOID"} \
		>"$WORK/out" 2>&1 || rc=$?
	cat "$WORK/out"
	return "$rc"
}

# No QP is left on the device but the MAD QPs (0 and 1) of each port.
only_mad_qps() {
	local out
	out=$(rdma resource show qp link "$DEV") || return
	printf '%s\n' "$out"
	grep -qE 'lqpn 0 type SMI' <<<"$out" &&
		grep -qE 'lqpn 1 type GSI' <<<"$out" &&
		! grep -vE "^link $DEV/[0-9]+ lqpn [01] type (SMI|GSI) " <<<"$out" |
			grep -q .
}

# ... within 5 s of the fuzzer's exit (a killed child's file may close late).
qps_settle() {
	wait_for 50 only_mad_qps
	only_mad_qps
}

step build build_fuzzer
step load load_rvtsw
step ready wait_for 50 test -e /sys/class/infiniband/$DEV
echo "    fixed seed $FIXED_SEED, date seed $DATE_SEED, avoiding ${AVOID:-nothing}"
t fuzz-fixed-seed fuzz "$FIXED_SEED"
t fuzz-date-seed fuzz "$DATE_SEED"
for bug in $AVOIDED_FOUND; do
	result SKIP "$bug" "not fuzzed, a known bug: ${FOUND[$bug]}"
done
t traffic-after pingpong ibv_rc_pingpong "$DEV:1" "$DEV:1"
t only-mad-qps-after qps_settle
step unload unload_all
