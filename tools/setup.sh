#!/bin/bash
# Install everything needed to build the modules and to test them in a QEMU
# guest, pinned to the kernel ABI named in tools/pinned-kernel. Packages
# named as arguments are installed too (make bench's chart wants
# python3-matplotlib, which make check does not).
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

read_kver() {
	local f=$TOOLS_DIR/pinned-kernel kver
	[[ -r $f ]] || die "missing $f"
	read -r kver <"$f" || true
	[[ -n $kver ]] || die "$f is empty"
	echo "$kver"
}

KVER=$(read_kver)
# Debian names the source package by major.minor ("linux-source-6.12").
KSERIES=$(echo "$KVER" | cut -d. -f1-2)
SRC_TARBALL=/usr/src/linux-source-$KSERIES.tar.xz
SCRIPTS_CACHE=$REPO_ROOT/build/linux-scripts

PACKAGES=(
	"linux-image-$KVER-unsigned" # the guest kernel + its /lib/modules
	"linux-headers-$KVER"        # to build the out-of-tree modules
	"linux-source-$KSERIES"      # only for scripts/checkpatch.pl
	make                         # kbuild; headers pull in gcc but not make
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
# directory, so the three files are kept together.
extract_checkpatch() {
	local files=(checkpatch.pl spelling.txt const_structs.checkpatch) f tmp
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
	chmod 0755 "$tmp" "$tmp/checkpatch.pl"
	rm -rf "$SCRIPTS_CACHE"
	mv "$tmp" "$SCRIPTS_CACHE"
	trap - EXIT
	log "checkpatch at build/linux-scripts/checkpatch.pl"
}

check_kernel_files() {
	local f
	for f in "/boot/vmlinuz-$KVER" "/lib/modules/$KVER/modules.dep" \
		"/lib/modules/$KVER/build/Makefile"; do
		[[ -e $f ]] || die "$f missing although packages are installed"
	done
}

main() {
	log "pinned kernel $KVER"
	install_packages
	check_kernel_files
	extract_checkpatch
	log "done"
}

main "$@"
