#!/bin/bash
# The guest half of tools/profile.sh: one rvt_wr_bench case on one core,
# then the kernel's text symbols (with the modules still loaded), each
# line prefixed "KS ", for tools/vm/insn_profile.py to name the
# addresses of the instruction profile QEMU takes.
#
# Usage: profile-guest.sh CORE CASE ITERS (CORE: ours or distro; CASE:
# rvt_wr_bench's only=, e.g. rc8).
set -uo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

main() {
	local core=$1 case=$2 iters=$3
	RVT_CORE=$core load_rvtsw || return
	insmod "$TESTING_DIR/kmod/rvt_wr_bench.ko" "iters=$iters" "only=$case" ||
		return
	sed "s/^/RESULT $core /" /sys/kernel/debug/rvt_wr_bench/results
	grep -E ' [tTwW] ' /proc/kallsyms | sed 's/^/KS /'
	rmmod rvt_wr_bench
	RVT_CORE=$core unload_all
}

main "$@"
