#!/bin/bash
# Install everything needed to build the modules and to test them in a QEMU
# guest. Packages named as arguments are installed too (make bench's chart
# wants python3-matplotlib, which make check does not).
#
# The guest's kernel is not installed: tools/kernels.sh fetches the kernel
# of the run (KVER=<release> of tools/kernels, or make check's) with
# apt-get download, image, modules and headers, and unpacks it into the
# kernel cache outside the checkout. No linux-image or linux-headers
# package is installed, and the host's /boot stays as it was; apt installs
# only what the headers need to build with (gcc-12, pahole, ...).
#
# Idempotent and quick when everything is present: packages are checked with
# dpkg-query and apt is only touched when something is missing.  Works as root
# without a tty/stdin (CI).  Also caches checkpatch.pl from the kernel source
# tarball, because Debian ships it nowhere else.
set -euo pipefail

TOOLS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$TOOLS_DIR/.." && pwd)

die() {
	echo "setup.sh: error: $*" >&2
	exit 1
}

log() {
	echo "setup.sh: $*"
}

KERNELS=$TOOLS_DIR/kernels.sh
KVER=$("$KERNELS" release)
# checkpatch and kernel-doc come from the source of make check's kernel,
# whichever kernel this run is for: the style gate and the manual pages
# are the tree's, the same on every lane. Debian names the source package by major.minor
# ("linux-source-6.12").
KSERIES=$("$KERNELS" default | cut -d. -f1-2)
SRC_TARBALL=/usr/src/linux-source-$KSERIES.tar.xz
SCRIPTS_CACHE=$REPO_ROOT/build/linux-scripts

PACKAGES=(
	"linux-source-$KSERIES" # only for scripts/checkpatch.pl, kernel-doc
	make                    # kbuild
	qemu-system-x86
	busybox-static # the guest's initramfs userland
	kmod cpio gzip xz-utils zstd
	rdma-core ibverbs-utils ibverbs-providers perftest python3-pyverbs
	libibverbs-dev
	infiniband-diags # smpquery, perfquery: rvtsw's SMA and PMA (76-sma)
	opensm rdmacm-utils # the managed fabric: the SM, rping and friends
	libibmad-dev libibumad-dev # the tests' own SMPs (progs/smp_table.c)
	iproute2 iputils-ping # IPoIB between network namespaces (78-opensm)
	sparse
	shellcheck
	debhelper dh-dkms lintian # make deb: the rdmavt-dkms package
	dkms # the package's own dependency, for 92-dkms in the guest
	man-db
	"$@"
)

# Print the packages that are not fully installed.
missing_packages() {
	local p status
	for p in "${PACKAGES[@]}"; do
		status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null) || status=
		[[ $status == installed ]] || echo "$p"
	done
}

install_packages() {
	local missing
	mapfile -t missing < <(missing_packages)
	if ((${#missing[@]} == 0)); then
		log "all ${#PACKAGES[@]} packages present"
		return
	fi
	[[ $(id -u) -eq 0 ]] || die "need root to install: ${missing[*]}"
	log "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q </dev/null || die "apt-get update failed"
	apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null ||
		die "apt-get install failed for: ${missing[*]}"
	mapfile -t missing < <(missing_packages)
	((${#missing[@]} == 0)) || die "still missing after install: ${missing[*]}"
	log "packages installed"
}

# checkpatch.pl reads spelling.txt and const_structs.checkpatch from its own
# directory, so the three files are kept together; kernel-doc (for
# tools/mkman.sh) beside them.
extract_checkpatch() {
	local files=(checkpatch.pl spelling.txt const_structs.checkpatch kernel-doc) f tmp
	local need=0
	for f in "${files[@]}"; do
		[[ -s $SCRIPTS_CACHE/$f ]] || need=1
	done
	if ((need == 0)); then
		log "checkpatch cached in build/linux-scripts/"
		return
	fi
	[[ -r $SRC_TARBALL ]] || die "missing $SRC_TARBALL (linux-source-$KSERIES)"
	log "extracting checkpatch from $SRC_TARBALL (takes a while once)"
	mkdir -p "$REPO_ROOT/build"
	tmp=$(mktemp -d "$REPO_ROOT/build/linux-scripts.tmp.XXXXXX")
	# shellcheck disable=SC2064 # expand $tmp now: it is local
	trap "rm -rf '$tmp'" EXIT
	tar -xJf "$SRC_TARBALL" -C "$tmp" --strip-components=2 \
		"${files[@]/#/linux-source-$KSERIES/scripts/}" ||
		die "could not extract checkpatch files from $SRC_TARBALL"
	chmod 0755 "$tmp" "$tmp/checkpatch.pl" "$tmp/kernel-doc"
	rm -rf "$SCRIPTS_CACHE"
	mv "$tmp" "$SCRIPTS_CACHE"
	trap - EXIT
	log "checkpatch at build/linux-scripts/checkpatch.pl"
}

# The kernel of the run in the cache, and what its headers need from apt.
fetch_kernel() {
	local deps
	KERNEL_DIR=$("$KERNELS" fetch "$KVER") || die "cannot fetch kernel $KVER"
	mapfile -t deps < <("$KERNELS" depends "$KVER")
	PACKAGES+=("${deps[@]}")
}

check_kernel_files() {
	local f
	for f in "$KERNEL_DIR/vmlinuz" \
		"$KERNEL_DIR/modules/lib/modules/$KVER/modules.dep" \
		"$KERNEL_DIR/headers/Makefile"; do
		[[ -e $f ]] || die "$f missing although $KVER is fetched"
	done
}

main() {
	log "kernel $KVER"
	# The packages first: unpacking a kernel runs depmod (kmod), which a
	# fresh machine lacks; then what that kernel's headers need.
	install_packages
	fetch_kernel
	install_packages
	check_kernel_files
	extract_checkpatch
	log "done"
}

main "$@"
