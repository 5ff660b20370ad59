#!/bin/bash
# Build the guest initramfs: static busybox, the guest kernel's modules
# needed to mount the host's / over virtio-9p with a tmpfs overlay (none
# when they are built in, as in the debug kernel), and tools/vm/init.
# Usage: mkinitramfs.sh [OUT]
#
# The image is cached as build/vm/initramfs-<release>.cpio.gz (one per
# kernel, see env.sh for which one boots) and only rebuilt when an
# input (this script, init, busybox, the module files) changes; OUT, if given
# and different, receives a copy.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"

BUSYBOX=/bin/busybox
# Modules the stage-1 init needs; their dependencies are added automatically.
# virtio_pci is the transport of the 9p device: built in on 6.12, a module
# on 6.1.
ROOT_MODULES=(virtio_pci 9pnet_virtio 9p overlay)
CACHE=$BUILD_VM/initramfs-$KVER.cpio.gz
STAMP=$CACHE.inputs

# Append the module closure of $1 to MODS, dependencies first (so MODS is
# the insmod order).  Built-in modules (no file) are skipped.
declare -A SEEN=()
MODS=()
module_closure() {
	local m=$1 deps dep file
	[[ -z ${SEEN[$m]:-} ]] || return 0
	SEEN[$m]=1
	deps=$(modinfo -b "$MODBASE" -k "$KVER" -F depends "$m") || die "modinfo $m failed"
	for dep in ${deps//,/ }; do
		module_closure "$dep"
	done
	file=$(module_file "$m")
	if [[ $file == /* ]]; then
		MODS+=("$m")
	fi
}

module_file() {
	modinfo -b "$MODBASE" -k "$KVER" -F filename "$1"
}

# The initramfs has no xz/zstd-aware insmod, so store plain .ko files.
decompress_module() {
	local src=$1 dst=$2
	case $src in
	*.ko.xz) xz -dc "$src" >"$dst" ;;
	*.ko.zst) zstd -qdc "$src" >"$dst" ;;
	*.ko.gz) gzip -dc "$src" >"$dst" ;;
	*.ko) cp "$src" "$dst" ;;
	*) die "unknown module format: $src" ;;
	esac
}

check_busybox() {
	[[ -x $BUSYBOX ]] || die "$BUSYBOX missing (install busybox-static; tools/setup.sh)"
	# A dynamic busybox would die in the initramfs with a cryptic error.
	if LC_ALL=C ldd "$BUSYBOX" 2>&1 | grep -q '=>'; then
		die "$BUSYBOX is dynamically linked; install busybox-static"
	fi
}

# Hash of everything the image is made of, to decide whether to rebuild.
# Contents only, not paths: the same inputs reached via another path (or
# another clone) must not force a rebuild.
inputs_hash() {
	local mods=("$@") m f
	{
		echo "$KVER ${mods[*]}"
		for f in "${BASH_SOURCE[0]}" "$VM_DIR/init" "$BUSYBOX"; do
			sha256sum <"$f"
		done
		for m in "${mods[@]}"; do
			sha256sum <"$(module_file "$m")"
		done
	} | sha256sum | cut -d' ' -f1
}

build_image() {
	local out=$1 mods=("${@:2}") root m applet
	root=$(mktemp -d "$BUILD_VM/initramfs.root.XXXXXX")
	# shellcheck disable=SC2064 # expand $root now
	trap "rm -rf '$root' '$root.cpio.gz'" EXIT

	mkdir -p "$root"/{bin,dev,proc,sys,mnt/lower,mnt/rw,newroot,lib/modules,etc}
	cp "$BUSYBOX" "$root/bin/busybox"
	for applet in $("$BUSYBOX" --list); do
		[[ $applet == busybox ]] || ln -s busybox "$root/bin/$applet"
	done
	ln -s bin "$root/sbin"
	install -m 0755 "$VM_DIR/init" "$root/init"

	# Load order for init: one module name per line, dependencies first.
	for m in "${mods[@]}"; do
		decompress_module "$(module_file "$m")" "$root/lib/modules/$m.ko"
		echo "$m"
	done >"$root/etc/modules.order"
	echo "$KVER" >"$root/etc/kver"

	(cd "$root" && find . -print0 | LC_ALL=C sort -z |
		cpio --null --quiet -o -H newc -R 0:0 --reproducible) |
		gzip -9n >"$root.cpio.gz"
	mv "$root.cpio.gz" "$out"
	rm -rf "$root"
	trap - EXIT
}

main() {
	local out=${1:-$CACHE} m hash lock_fd
	(($# <= 1)) || die "usage: ${0##*/} [OUT]"
	check_busybox
	mkdir -p "$BUILD_VM"
	for m in "${ROOT_MODULES[@]}"; do
		module_closure "$m"
	done
	hash=$(inputs_hash "${MODS[@]}")

	# Concurrent runs must not build the cache at the same time.
	exec {lock_fd}>"$BUILD_VM/.initramfs.lock"
	flock "$lock_fd"

	if [[ -s $CACHE && -r $STAMP && $(<"$STAMP") == "$hash" ]]; then
		log "initramfs up to date ($CACHE)"
	else
		log "building initramfs for $KVER (modules: ${MODS[*]})"
		build_image "$CACHE" "${MODS[@]}"
		echo "$hash" >"$STAMP"
	fi
	if [[ $(realpath -m "$out") != "$(realpath -m "$CACHE")" ]]; then
		cp "$CACHE" "$out"
	fi
}

main "$@"
