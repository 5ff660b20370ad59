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
#   uverbs_fuzz --device rvtsw_0 --seed SEED --steps STEP --no-fork
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

DEV=rvtsw_0
FUZZ_SECONDS=${RVT_FUZZ_SECONDS:-60}
FIXED_SEED=${RVT_FUZZ_SEED:-68}
DATE_SEED=$(date +%s)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# The distro core cannot take it: its rvt_resize_cq dereferences a NULL
# kernel ring when a resize of a mapped CQ gives no room for the new
# cookie, and its receive path overruns r_sg_list with a user ring's
# SGE count (Documentation/differences.rst); the fuzzer does both.
DISTRO_CRASHES="crashes the distro core (rvt_resize_cq without room for the cookie; a user ring's SGE count overruns r_sg_list)"

plan 4

build_fuzzer() {
	cc -O2 -Wall -Wextra -Werror -o "$WORK/uverbs_fuzz" \
		"$TESTING_DIR/progs/uverbs_fuzz.c"
}

# fuzz SEED: one run; its failures and its summary are the output.
fuzz() {
	local rc=0
	echo "seed $1, $FUZZ_SECONDS s"
	"$WORK/uverbs_fuzz" --device "$DEV" --seed "$1" \
		--seconds "$FUZZ_SECONDS" >"$WORK/out" 2>&1 || rc=$?
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
echo "    fixed seed $FIXED_SEED, date seed $DATE_SEED"
skip_on_distro "$DISTRO_CRASHES" fuzz-fixed-seed fuzz "$FIXED_SEED"
skip_on_distro "$DISTRO_CRASHES" fuzz-date-seed fuzz "$DATE_SEED"
t traffic-after pingpong ibv_rc_pingpong "$DEV:1" "$DEV:1"
t only-mad-qps-after qps_settle
step unload unload_all
