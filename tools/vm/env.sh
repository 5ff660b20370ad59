# shellcheck shell=bash
# The VM scripts' own environment: their paths, the kernel the guest
# boots, their messages, the profiler plugin's build. Sourced by run.sh
# and mkinitramfs.sh (and by tools/check.sh for the plugin), not
# executed.
# Everything is derived from the location of this file and from
# tools/pinned-kernel, so the repo works from any clone directory.

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

read_kver() {
	local f=$REPO_ROOT/tools/pinned-kernel kver
	[[ -r $f ]] || die "missing $f"
	read -r kver <"$f" || true
	[[ -n $kver ]] || die "$f is empty"
	echo "$kver"
}

# The kernel the guest boots: the pinned Debian one, or the one in
# RVT_KERNEL_DIR (tools/debug-kernel.sh's output: vmlinuz, kernelrelease,
# and its modules under modules/lib/modules/<release>).
# shellcheck disable=SC2034 # KVER, VMLINUZ, MODBASE: for the scripts sourcing this file
use_kernel_dir() {
	local dir=$1
	[[ -r $dir/kernelrelease && -r $dir/vmlinuz ]] ||
		die "$dir holds no built kernel (vmlinuz, kernelrelease)"
	KVER=$(<"$dir/kernelrelease")
	VMLINUZ=$dir/vmlinuz
	MODBASE=$dir/modules
}

KVER=$(read_kver)
# shellcheck disable=SC2034 # used by the scripts sourcing this file
VMLINUZ=/boot/vmlinuz-$KVER
# shellcheck disable=SC2034
MODBASE=/
if [[ -n ${RVT_KERNEL_DIR:-} ]]; then
	use_kernel_dir "$RVT_KERNEL_DIR"
fi

# compile_insn_profile SO [FLAG...]: build the instruction profiler's
# QEMU plugin (insn_profile.c) into SO, with any extra gcc FLAGs
# (make check adds -Werror).
compile_insn_profile() {
	local so=$1
	shift
	gcc -O2 -Wall -Wextra -shared -fPIC -fvisibility=hidden "$@" \
		-o "$so" "$VM_DIR/insn_profile.c" -lpthread
}
