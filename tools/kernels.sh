#!/bin/bash
# The Debian kernels a test guest boots (listed in tools/kernels) and
# their cache. No kernel package gets installed: a kernel's image,
# modules and headers are downloaded with apt-get download and unpacked
# with dpkg-deb -x into
#   ${RVT_CACHE:-/var/cache/rvt}/kernels/<release>/
# (as tools/debug-kernel.sh caches the debug kernel), which holds
#   root/          the packages unpacked: boot/vmlinuz-<release>,
#                  lib/modules/<release>/ (with its modules.dep, and
#                  build pointing at the headers by absolute path),
#                  usr/src/linux-headers-*,
#                  usr/lib/linux-kbuild-*
#   vmlinuz        the image (a link into root/)
#   modules        root/ again, the modules' INSTALL_MOD_PATH (tools/vm/
#                  run.sh boots a kernel from any directory laid out so)
#   headers        the headers to build modules against (KDIR)
#   kernelrelease  the release
#   depends        what the headers need from apt (gcc-12, pahole, ...)
#   packages       the packages unpacked and their versions; written last:
#                  a directory without it is fetched again
#
# Usage: kernels.sh COMMAND [RELEASE]
#   release        the kernel of this run: $KVER if set (it must be
#                  listed), else the default one
#   default        make check's kernel (the one marked "check")
#   list           every listed release
#   listed REL     exit status 0 if REL is listed
#   pick SERIES FLAVOUR
#                  the one listed release of SERIES (6.12) and FLAVOUR
#                  (generic, rt, cloud) from the host's suite (make
#                  check-rt's kernel: pick 6.12 rt)
#   dir [REL]      REL's cache directory, whether fetched or not
#   fetch [REL]    fetch REL into the cache unless it is there (root and
#                  the network are needed the first time); prints its
#                  directory, quickly when it is there
#   depends [REL]  the packages REL's headers need from apt, one a line;
#                  none for a kernel of another suite than the host's,
#                  which cannot be built for here (see tools/kernels)
# RELEASE defaults to the kernel of this run.
set -euo pipefail

TOOLS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LIST=$TOOLS_DIR/kernels
CACHE_ROOT=${RVT_CACHE:-/var/cache/rvt}/kernels

die() {
	echo "kernels.sh: error: $*" >&2
	exit 1
}

log() {
	echo "kernels.sh: $*" >&2
}

# The list without its comments: release suite flavour role, a line each.
entries() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$LIST"
}

is_listed() {
	entries | awk -v r="$1" '$1 == r { found = 1 } END { exit !found }'
}

suite_of() {
	entries | awk -v r="$1" '$1 == r { print $2 }'
}

# pick SERIES FLAVOUR: exactly one listed kernel of the host's suite.
pick() {
	local rels
	rels=$(entries | awk -v s="$1" -v f="$2" -v suite="$(host_suite)" '
		index($1, s ".") == 1 && $3 == f && $2 == suite { print $1 }')
	[[ -n $rels && $rels != *$'\n'* ]] ||
		die "$LIST must list exactly one $(host_suite) kernel of $1, flavour $2 (has: ${rels//$'\n'/ })"
	echo "$rels"
}

default_release() {
	local rels
	rels=$(entries | awk '$4 == "check" { print $1 }')
	[[ -n $rels && $rels != *$'\n'* ]] ||
		die "$LIST must mark exactly one kernel \"check\""
	echo "$rels"
}

run_release() {
	local rel=${KVER:-}
	if [[ -z $rel ]]; then
		default_release
		return
	fi
	is_listed "$rel" ||
		die "KVER=$rel is not in $LIST; listed: $(entries | awk '{ printf " %s", $1 }')"
	echo "$rel"
}

host_suite() {
	(. /etc/os-release && echo "${VERSION_CODENAME:-}")
}

# apt-get and apt-cache options for a kernel of SUITE: none for the
# host's own suite; for another (trixie) a sources file and package lists
# of the cache's own, its security archive, where that suite's current
# kernels are. Nothing of the host's apt configuration changes.
APT_OPTS=()
use_apt_for() {
	local suite=$1 dir
	APT_OPTS=(-o APT::Sandbox::User=root)
	[[ $suite != "$(host_suite)" ]] || return 0
	dir=$CACHE_ROOT/apt-$suite
	mkdir -p "$dir/lists/partial" "$dir/archives/partial" "$dir/sources"
	cat >"$dir/sources/$suite.sources" <<EOF
Types: deb
URIs: http://deb.debian.org/debian-security
Suites: $suite-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
	APT_OPTS+=(-o "Dir::Etc::SourceList=/dev/null"
		-o "Dir::Etc::SourceParts=$dir/sources"
		-o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir")
	[[ -n $(find "$dir/lists" -maxdepth 1 -name '*_Packages*' -print -quit) ]] ||
		apt_update
}

apt_update() {
	log "apt-get update"
	apt-get "${APT_OPTS[@]}" update -q </dev/null >&2 ||
		die "apt-get update failed"
}

# The packages of a kernel: its image with its modules (in Debian's
# -unsigned package), its headers and the headers' own linux-headers-*
# and linux-kbuild-* dependencies (the common part, the build tools).
kernel_packages() {
	local rel=$1
	echo "linux-image-$rel-unsigned"
	echo "linux-headers-$rel"
	apt-cache "${APT_OPTS[@]}" depends "linux-headers-$rel" |
		sed -n 's/^ *|\{0,1\}Depends: \(linux-\(headers\|kbuild\)-[^ ]*\)$/\1/p'
}

# What the headers and build tools need from apt: the compiler, pahole,
# libraries; the kernel packages themselves are not among them.
toolchain_packages() {
	apt-cache "${APT_OPTS[@]}" depends "$@" |
		sed -n 's/^ *|\{0,1\}Depends: \([^< ][^ ]*\)$/\1/p' |
		grep -Ev '^linux-(image|headers|kbuild)-' | sort -u
}

# download DIR PKG...: the .deb files into DIR, after an apt-get update
# if apt does not have them (its lists may be older than the kernel list).
download() {
	local dir=$1
	shift
	log "downloading $*"
	(cd "$dir" && apt-get "${APT_OPTS[@]}" download -q "$@" </dev/null >&2) ||
		{ apt_update &&
			(cd "$dir" && apt-get "${APT_OPTS[@]}" download -q "$@" </dev/null >&2); } ||
		die "apt-get download failed for: $*"
}

unpack() {
	local dir=$1 rel=$2 deb link target root=$1/root
	for deb in "$dir"/debs/*.deb; do
		dpkg-deb -x "$deb" "$root" || die "dpkg-deb -x $deb failed"
	done
	# A merged-/usr package puts the modules under usr/lib.
	if [[ ! -d $root/lib/modules/$rel && -d $root/usr/lib/modules/$rel ]]; then
		mkdir -p "$root/lib/modules"
		mv "$root/usr/lib/modules/$rel" "$root/lib/modules/"
	fi
	[[ -r $root/boot/vmlinuz-$rel && -d $root/lib/modules/$rel/kernel ]] ||
		die "no vmlinuz-$rel or modules in the packages of $rel"
	# The flavour's Makefile includes the common headers' by absolute
	# path, and the modules' build and source links point at /usr/src:
	# all must stay in the cache.
	sed -i "s|^include /usr/src/|include $root/usr/src/|" \
		"$root/usr/src/linux-headers-$rel/Makefile"
	link_headers "$root" "$rel"
	depmod -b "$root" "$rel" || die "depmod for $rel failed"
}

# link_headers ROOT REL: point the modules' build and source links at the
# headers in the cache, by absolute path: the guest mounts the modules
# directory over /lib/modules/REL (tools/vm/guest-init), where a relative
# link would lead to the host's /usr/src. Rewrites a cache of an earlier
# layout (relative links); touches nothing when the links are right.
link_headers() {
	local root=$1 rel=$2 link target
	for link in "$root/lib/modules/$rel"/{build,source}; do
		target=$(readlink "$link") || continue
		case $target in
		/usr/src/*) target=$root$target ;;
		../../../usr/src/*) target=$root/${target#../../../} ;;
		*) continue ;;
		esac
		ln -sfn "$target" "$link" || die "cannot link $link to $target"
	done
}

fetch() {
	local rel=$1 dir=$CACHE_ROOT/$1 suite lock_fd pkgs pkg
	mkdir -p "$CACHE_ROOT"
	# Two runs at once must not fetch the same kernel.
	exec {lock_fd}>"$dir.lock"
	flock "$lock_fd"
	if [[ -s $dir/packages ]]; then
		link_headers "$dir/root" "$rel"
		log "cached: $rel in $dir"
		echo "$dir"
		return
	fi
	suite=$(suite_of "$rel")
	rm -rf "$dir"
	mkdir -p "$dir/debs" "$dir/root"
	use_apt_for "$suite"
	mapfile -t pkgs < <(kernel_packages "$rel")
	((${#pkgs[@]} > 2)) ||
		die "apt knows no headers for $rel (apt-get update, or pick another kernel of $LIST)"
	download "$dir/debs" "${pkgs[@]}"
	unpack "$dir" "$rel"
	if [[ $suite == "$(host_suite)" ]]; then
		toolchain_packages "${pkgs[@]:1}" >"$dir/depends"
	else
		: >"$dir/depends"
	fi
	ln -s root/boot/vmlinuz-"$rel" "$dir/vmlinuz"
	ln -s root "$dir/modules"
	ln -s "root/usr/src/linux-headers-$rel" "$dir/headers"
	echo "$rel" >"$dir/kernelrelease"
	for pkg in "$dir"/debs/*.deb; do
		# shellcheck disable=SC2016 # dpkg-deb's fields, not the shell's
		dpkg-deb -W --showformat='${Package} ${Version}\n' "$pkg"
	done >"$dir/packages.tmp"
	rm -rf "$dir/debs"
	mv "$dir/packages.tmp" "$dir/packages"
	log "fetched $rel into $dir ($(du -sh "$dir/root" | cut -f1))"
	echo "$dir"
}

depends() {
	local rel=$1 dir=$CACHE_ROOT/$1
	if [[ $(suite_of "$rel") != "$(host_suite)" ]]; then
		log "$rel is $(suite_of "$rel")'s: modules cannot be built for it here (see $LIST)"
		return
	fi
	[[ -s $dir/packages ]] || die "$rel is not fetched (tools/kernels.sh fetch $rel)"
	cat "$dir/depends"
}

main() {
	local cmd=${1:-} rel
	(($# <= 3)) || die "usage: ${0##*/} COMMAND [RELEASE]"
	case $cmd in
	release) run_release ;;
	default) default_release ;;
	list) entries | awk '{ print $1 }' ;;
	listed) (($# == 2)) || die "usage: ${0##*/} listed RELEASE"; is_listed "$2" ;;
	pick) (($# == 3)) || die "usage: ${0##*/} pick SERIES FLAVOUR"; pick "$2" "$3" ;;
	dir | fetch | depends)
		rel=${2:-$(run_release)}
		is_listed "$rel" || die "$rel is not in $LIST"
		case $cmd in
		dir) echo "$CACHE_ROOT/$rel" ;;
		fetch) fetch "$rel" ;;
		depends) depends "$rel" ;;
		esac
		;;
	*) die "usage: ${0##*/} release|default|list|listed|pick|dir|fetch|depends [RELEASE]" ;;
	esac
}

main "$@"
