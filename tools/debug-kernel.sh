#!/bin/bash
# Build, once, the debug kernel of `make check-debug`: Debian's
# linux-source-6.12 with x86_64_defconfig, kvm_guest.config and
# tools/debug-kernel.config (KASAN, lockdep, kmemleak, UBSAN, fault
# injection, ...). Usage: debug-kernel.sh
#
# The result lives outside the checkout, in
#   ${RVT_CACHE:-/var/cache/rvt}/debug-kernel/<source version>-<key>/
# where key hashes the config fragment and RECIPE: a later run with the
# same inputs finds it and returns at once. The directory holds
#   src/            the configured and built tree (KDIR for our modules)
#   vmlinuz         the kernel image
#   kernelrelease   its release string (uname -r in the guest)
#   modules/        its modules, as INSTALL_MOD_PATH (lib/modules/<release>)
#   build-seconds   how long the first build took
# The directory's path is the last line printed on stdout; progress goes
# to stderr.
set -euo pipefail

TOOLS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FRAGMENT=$TOOLS_DIR/debug-kernel.config
SERIES=6.12
SOURCE_PKG=linux-source-$SERIES
TARBALL=/usr/src/$SOURCE_PKG.tar.xz
CACHE_ROOT=${RVT_CACHE:-/var/cache/rvt}/debug-kernel
PROGRESS_EVERY=60
# Bump when a change here changes what gets built (not for cosmetics: a
# new key costs a whole build).
RECIPE=1

die() {
	echo "debug-kernel.sh: error: $*" >&2
	exit 1
}

log() {
	echo "debug-kernel.sh: $*" >&2
}

source_version() {
	dpkg-query -W -f='${Version}' "$SOURCE_PKG" 2>/dev/null ||
		die "$SOURCE_PKG is not installed (make check-debug installs it)"
}

# The cache key: everything that decides what gets built.
cache_dir() {
	local version key
	version=$(source_version)
	key=$({ cat "$FRAGMENT" && echo "recipe $RECIPE"; } | sha256sum | cut -c1-12)
	echo "$CACHE_ROOT/$SERIES-$version-$key"
}

extract_source() {
	local src=$1
	log "extracting $TARBALL"
	rm -rf "$src"
	mkdir -p "$src"
	tar -xJf "$TARBALL" -C "$src" --strip-components=1
}

# Every option of the fragment must have the value it asks for: Kconfig
# silently drops what its dependencies refuse.
check_config() {
	local config=$1 line name bad=0
	while read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF -- "$line" "$config" || {
				log "asked for $line, got: $(grep -E "^(# )?${line%%=*}[= ]" "$config" || echo unset)"
				bad=1
			}
			;;
		"# CONFIG_"*" is not set")
			name=${line#\# }
			name=${name%% *}
			if grep -qE "^$name=[ym]" "$config"; then
				log "asked for $name off, got: $(grep -E "^$name=" "$config")"
				bad=1
			fi
			;;
		esac
	done <"$FRAGMENT"
	((bad == 0)) || die "the debug config did not take (see above)"
}

configure() {
	local src=$1
	log "configuring: x86_64_defconfig + kvm_guest.config + ${FRAGMENT##*/}"
	make -s -C "$src" x86_64_defconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$src" "$src/.config" \
		"$src/kernel/configs/kvm_guest.config" "$FRAGMENT" >/dev/null
	make -s -C "$src" olddefconfig >/dev/null
	check_config "$src/.config"
}

# One line a minute while make runs: objects so far and the elapsed time.
show_progress() {
	local src=$1 start=$2 objs
	while sleep "$PROGRESS_EVERY"; do
		objs=$(find "$src" -name '*.o' -newer "$src/.config" 2>/dev/null | wc -l)
		log "building: $objs objects after $(((SECONDS - start) / 60)) min"
	done
}

compile() {
	local src=$1 logfile=$2 start=$SECONDS progress rc=0
	log "building with $(nproc) jobs (the first build takes long; log: $logfile)"
	show_progress "$src" "$start" &
	progress=$!
	make -C "$src" -j"$(nproc)" bzImage modules >"$logfile" 2>&1 || rc=$?
	kill "$progress" 2>/dev/null
	wait "$progress" 2>/dev/null || true
	if ((rc != 0)); then
		tail -n 40 "$logfile" >&2
		die "kernel build failed (full log: $logfile)"
	fi
}

install_results() {
	local src=$1 dir=$2
	rm -rf "$dir/modules"
	make -s -C "$src" INSTALL_MOD_PATH="$dir/modules" modules_install \
		>>"$dir/build.log" 2>&1 || die "modules_install failed"
	cp "$src/arch/x86/boot/bzImage" "$dir/vmlinuz"
	make -s -C "$src" kernelrelease >"$dir/kernelrelease"
}

build() {
	local dir=$1 start=$SECONDS
	extract_source "$dir/src"
	configure "$dir/src"
	compile "$dir/src" "$dir/build.log"
	install_results "$dir/src" "$dir"
	echo $((SECONDS - start)) >"$dir/build-seconds"
	log "built $(<"$dir/kernelrelease") in $(($(<"$dir/build-seconds") / 60)) min"
}

main() {
	local dir lock_fd
	(($# == 0)) || die "usage: ${0##*/}"
	[[ -r $TARBALL ]] || die "missing $TARBALL ($SOURCE_PKG)"
	dir=$(cache_dir)
	mkdir -p "$dir"
	# Two runs at once must not build the same tree.
	exec {lock_fd}>"$dir.lock"
	flock "$lock_fd"
	if [[ -s $dir/build-seconds && -s $dir/vmlinuz ]]; then
		log "cached: $(<"$dir/kernelrelease") in $dir (first build took $(($(<"$dir/build-seconds") / 60)) min)"
	else
		rm -f "$dir/build-seconds"
		build "$dir"
	fi
	echo "$dir"
}

main "$@"
