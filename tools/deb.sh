#!/bin/bash
# `make deb`: the rdmavt-dkms Debian package, from this git checkout, into
# build/deb/ (emptied first, so it holds exactly one .deb), then lintian
# on it when lintian is installed (tools/setup.sh installs it): an error
# fails, warnings are shown.
#
# The version comes from git: a tag v<X> on HEAD gives X; N commits after
# it, X+gitN.g<hash>; with no tag, 0+git<commits>.g<hash>. Each sorts
# after the one before it, as dpkg compares versions. The packaged files
# are the tracked ones of the work tree (debian/, dkms.conf, the module
# sources); when they differ from HEAD the version ends in .dirty.
#
# Usage: tools/deb.sh    (prints the .deb's path last)
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$REPO/build/deb
# What the package is built from: debian/ and what it installs.
PATHS=(debian dkms.conf Kbuild ':(glob)*.[ch]' rvtsw)

die() {
	echo "deb.sh: error: $*" >&2
	exit 1
}

log() {
	echo "deb.sh: $*"
}

git_repo() {
	git -C "$REPO" "$@"
}

version() {
	local desc v
	if desc=$(git_repo describe --tags --long --match 'v[0-9]*' 2>/dev/null); then
		[[ $desc =~ ^v(.+)-([0-9]+)-g([0-9a-f]+)$ ]] ||
			die "cannot read git describe's '$desc'"
		v=${BASH_REMATCH[1]}
		((BASH_REMATCH[2] == 0)) ||
			v+="+git${BASH_REMATCH[2]}.g${BASH_REMATCH[3]}"
	else
		v="0+git$(git_repo rev-list --count HEAD).g$(git_repo rev-parse --short=7 HEAD)"
	fi
	[[ -z $(git_repo status --porcelain --untracked-files=no -- "${PATHS[@]}") ]] ||
		v+=".dirty"
	echo "$v"
}

# The maintainer as debian/control names it, for the changelog.
maintainer() {
	sed -n 's/^Maintainer: //p' "$REPO/debian/control"
}

# A changelog of one entry, dated as the commit: the build is
# reproducible (dpkg takes SOURCE_DATE_EPOCH from it).
changelog() {
	local version=$1
	cat <<EOF
rdmavt ($version) unstable; urgency=medium

  * Built from git commit $(git_repo rev-parse HEAD).

 -- $(maintainer)  $(git_repo log -1 --format=%aD HEAD)
EOF
}

stage() {
	local dir=$1
	mkdir -p "$dir"
	git_repo ls-files -z -- "${PATHS[@]}" |
		tar -C "$REPO" --null -T - -cf - | tar -C "$dir" -xf -
	[[ -x $dir/debian/rules ]] || die "no debian/rules in $dir"
	changelog "$VERSION" >"$dir/debian/changelog"
}

build() {
	local dir=$1
	log "dpkg-buildpackage in $dir (log: $OUT/build.log)"
	if ! (cd "$dir" && dpkg-buildpackage -b -us -uc) >"$OUT/build.log" 2>&1; then
		sed 's/^/    /' "$OUT/build.log" >&2
		die "dpkg-buildpackage failed (are its build dependencies installed? tools/setup.sh installs them)"
	fi
}

run_lintian() {
	local deb=$1 out rc=0 lines
	if ! command -v lintian >/dev/null; then
		log "lintian not installed: not run"
		return
	fi
	# Lintian's own note about running as root is not a finding.
	out=$(lintian --fail-on error "$deb" 2>&1) || rc=$?
	out=$(grep -v '^running with root privileges is not recommended!$' <<<"$out" || true)
	if [[ -n $out ]]; then
		log "lintian says:"
		mapfile -t lines <<<"$out"
		printf '    %s\n' "${lines[@]}"
	else
		log "lintian: no findings"
	fi
	((rc == 0)) || die "lintian found errors in $deb"
}

main() {
	local debs
	git_repo rev-parse --git-dir >/dev/null 2>&1 ||
		die "$REPO is not a git checkout: the version comes from git"
	VERSION=$(version)
	rm -rf "$OUT"
	mkdir -p "$OUT"
	stage "$OUT/rdmavt-$VERSION"
	build "$OUT/rdmavt-$VERSION"
	mapfile -t debs < <(find "$OUT" -maxdepth 1 -name 'rdmavt-dkms_*_all.deb')
	((${#debs[@]} == 1)) || die "expected one rdmavt-dkms .deb in $OUT, found ${#debs[@]}"
	run_lintian "${debs[0]}"
	log "version $VERSION"
	echo "${debs[0]}"
}

main "$@"
