#!/bin/bash
# make check's abi-check of every listed kernel, from headers alone (no
# boot): the tree is built against each kernel's headers and tools/
# abi-check compares the rdmavt.ko it gives with that kernel's own
# rdmavt.ko, Module.symvers and hfi1/ib_qib __versions. A kernel whose
# packages ship no rdmavt.ko (the cloud flavour) is built, not compared.
#
# The kernels are tools/kernels.sh's list and cache (its image, modules
# and headers unpacked under ${RVT_CACHE:-/var/cache/rvt}/kernels/<rel>/,
# fetched the first time); without tools/kernels.sh, the pinned kernel
# installed on the host. A kernel whose headers call a compiler this
# machine lacks (trixie's gcc-14 on Debian 12) is skipped, and said so.
#
# The kernel of the tree's own build (make modules, KDIR) is checked on
# that build, which make check's first step has just made. Every other
# kernel builds in its own copy of the sources, kept outside the checkout
# (a fresh clone need not build them again), ${RVT_CACHE}/abi-builds/<rel>/
# (Kbuild of 6.1 and 6.12 writes its objects next to the sources): only
# changed files are copied, so make rebuilds only what changed, and a
# kernel whose sources and headers are those of its last good build is
# not built at all.
#
# Usage: abi-kernels.sh [RELEASE...]   (default: every listed kernel)
# Prints "<release>: N/M CRCs" (or "build only") per kernel; exit status
# 0 when every kernel built and every compared one matched.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KERNELS=$REPO/tools/kernels.sh
OUT=${RVT_CACHE:-/var/cache/rvt}/abi-builds
FAILED=0

releases() {
	if [[ -x $KERNELS ]]; then
		"$KERNELS" list
	else
		cat "$REPO/tools/pinned-kernel"
	fi
}

# root REL: where REL's packages are unpacked (lib/modules, usr/src),
# fetching them into the cache if need be.
root_of() {
	local dir
	if [[ ! -x $KERNELS ]]; then
		echo /
		return
	fi
	dir=$("$KERNELS" fetch "$1") || return
	echo "$dir/root"
}

# The compiler the headers were configured with, the first word of
# CONFIG_CC_VERSION_TEXT ("x86_64-linux-gnu-gcc-12 (Debian ...) 12.2.0").
kernel_cc() {
	sed -n 's/^CONFIG_CC_VERSION_TEXT="\{0,1\}\([^ "]*\).*/\1/p' \
		"$1/include/config/auto.conf"
}

# The release a module was built for, from its vermagic.
built_for() {
	[[ -r $1 ]] && modinfo -F vermagic "$1" | cut -d' ' -f1
}

# The files of the module build: the Kbuild files, sources and headers of
# the core and rvtsw (not tools/, whose test modules are make tests').
sources() {
	local dir
	for dir in . rvtsw; do
		(cd "$REPO/$dir" && find . -maxdepth 1 -type f \
			\( -name Kbuild -o -name '*.[ch]' \) ! -name '*.mod.c' -printf "$dir/%P\n")
	done | sed 's|^\./||' | sort
}

# sync DIR: copy the sources that differ into DIR, keeping their times.
sync_sources() {
	local dir=$1 f
	while read -r f; do
		mkdir -p "$dir/$(dirname "$f")"
		cmp -s "$REPO/$f" "$dir/$f" || cp -p "$REPO/$f" "$dir/$f"
	done < <(sources)
}

# What a build depends on: the sources' contents and the headers.
build_key() {
	local kdir=$1
	{
		readlink -f "$kdir"
		sort "$kdir/Module.symvers" | sha256sum
		(cd "$REPO" && sources | xargs sha256sum)
	} | sha256sum | cut -d' ' -f1
}

# build REL KDIR DIR: the modules of the tree for REL in DIR, warning-free.
build() {
	local rel=$1 kdir=$2 dir=$3 key log=$3/build.log
	key=$(build_key "$kdir")
	if [[ -r $dir/build.key && $(<"$dir/build.key") == "$key" &&
		-r $dir/rdmavt.ko ]]; then
		echo "$rel: sources and headers unchanged since the last build"
		return
	fi
	rm -f "$dir/build.key"
	sync_sources "$dir"
	if ! make -C "$kdir" M="$dir" W=1 -j"$(nproc)" modules >"$log" 2>&1; then
		sed 's/^/    /' "$log"
		echo "$rel: build failed"
		return 1
	fi
	if grep -E '(warning|error):' "$log"; then
		echo "$rel: build warnings"
		return 1
	fi
	echo "$key" >"$dir/build.key"
	echo "$rel: built"
}

check_kernel() {
	local rel=$1 root kdir cc dir=$OUT/$1 out
	root=$(root_of "$rel") || { echo "$rel: FAIL: cannot fetch"; return 1; }
	kdir=$root/usr/src/linux-headers-$rel
	cc=$(kernel_cc "$kdir")
	if ! command -v "$cc" >/dev/null; then
		echo "$rel: SKIP: its headers build with $cc, which this machine lacks"
		return 0
	fi
	if [[ $(built_for "$REPO/rdmavt.ko") == "$rel" ]]; then
		# make check's build step has just built the tree for it.
		dir=$REPO
		echo "$rel: the tree's own build"
	else
		mkdir -p "$dir"
		build "$rel" "$kdir" "$dir" || { echo "$rel: FAIL"; return 1; }
	fi
	if ! compgen -G "$root/lib/modules/$rel/kernel/drivers/infiniband/sw/rdmavt/rdmavt.ko*" >/dev/null; then
		echo "$rel: build only (the kernel ships no rdmavt.ko to compare with)"
		return 0
	fi
	if ! out=$("$REPO/tools/abi-check" --kver "$rel" --root "$root" \
		--module "$dir/rdmavt.ko" --symvers "$dir/Module.symvers" 2>&1); then
		printf '%s\n' "$out" | sed 's/^/    /'
		echo "$rel: FAIL"
		return 1
	fi
	grep -F "$rel: " <<<"$out" | grep -E ': [0-9]+/[0-9]+ CRCs$'
}

main() {
	local rel rels=()
	(($#)) || mapfile -t rels < <(releases)
	for rel in "${@:-${rels[@]}}"; do
		check_kernel "$rel" || FAILED=1
	done
	((FAILED == 0))
}

main "$@"
