# shellcheck shell=bash
# The VM scripts' own environment: their paths, the kernel the guest
# boots, their messages, the profiler plugin's build, a pair's cores.
# Sourced by run.sh, pair.sh and mkinitramfs.sh (and by tools/check.sh
# for the plugin and the pair's cores), not executed.
# Everything is derived from the location of this file and from the
# kernel list (tools/kernels.sh), so the repo works from any clone
# directory.

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$VM_DIR/../.." && pwd)
# shellcheck disable=SC2034 # used by the scripts sourcing this file
BUILD_VM=$REPO_ROOT/build/vm

die() {
	echo "${0##*/}: error: $*" >&2
	exit 1
}

log() {
	echo "${0##*/}: $*" >&2
}

# role_cores ROLE: the rdmavt cores the guest of ROLE (a or b) of a pair
# runs its suites on: RVT_CORES_A or RVT_CORES_B, else RVT_CORES, else
# guest.sh's default. pair.sh hands them to each guest; check.sh counts
# each guest's results on them.
role_cores() {
	local var=RVT_CORES_${1^^}
	echo "${!var:-${RVT_CORES:-ours distro}}"
}

# The kernel the guest boots comes from a directory holding vmlinuz,
# kernelrelease and its modules under modules/lib/modules/<release>:
# RVT_KERNEL_DIR's (run.sh --kernel: tools/debug-kernel.sh's output), or
# else the kernel cache's copy of the Debian kernel of this run
# (tools/kernels.sh: KVER=<release>, or make check's), which
# tools/setup.sh fetches. RVT_KERNEL_DIR goes to the guest, whose
# /lib/modules/<release> is that directory's.
# shellcheck disable=SC2034 # KVER, VMLINUZ, MODBASE: for the scripts sourcing this file
kernel_paths() {
	RVT_KERNEL_DIR=$1 KVER=$2 VMLINUZ=$1/vmlinuz MODBASE=$1/modules
	export RVT_KERNEL_DIR
}

use_kernel_dir() {
	local dir=$1
	[[ -r $dir/kernelrelease && -r $dir/vmlinuz ]] ||
		die "$dir holds no built kernel (vmlinuz, kernelrelease)"
	kernel_paths "$dir" "$(<"$dir/kernelrelease")"
}

if [[ -n ${RVT_KERNEL_DIR:-} ]]; then
	use_kernel_dir "$RVT_KERNEL_DIR"
else
	KVER=$("$REPO_ROOT/tools/kernels.sh" release) || exit
	kernel_paths "$("$REPO_ROOT/tools/kernels.sh" dir "$KVER")" "$KVER"
fi

# compile_insn_profile SO [FLAG...]: build the instruction profiler's
# QEMU plugin (insn_profile.c) into SO, and its mark (insn_mark.c, for
# the guest) beside it as insn_mark, with any extra gcc FLAGs (make check
# adds -Werror).
compile_insn_profile() {
	local so=$1
	shift
	gcc -O2 -Wall -Wextra -shared -fPIC -fvisibility=hidden "$@" \
		-o "$so" "$VM_DIR/insn_profile.c" -lpthread &&
		gcc -O2 -Wall -Wextra "$@" -o "$(dirname "$so")/insn_mark" \
			"$VM_DIR/insn_mark.c"
}
