#!/bin/bash
# Host-side check of dkms.conf's rule: which kernels it builds for, which
# it declines, and how it declines them for each dkms. dkms.conf is
# sourced as dkms sources it (bash, with $kernelver and
# $kernel_source_dir naming the kernel), with a stand-in `dkms` on PATH
# that answers --version as Debian 12's (3.0.10) or trixie's (3.2.2) does.
# A declined kernel must get, from 3.0.10, the stand-in build and
# OBSOLETE_BY the kernel itself (its install then skips every module);
# from 3.2.2, BUILD_EXCLUSIVE_* directives that exclude it as dkms
# evaluates them. A served kernel gets neither. The suites 92-dkms and
# 93-dkms-upgrade show what the real dkms makes of it in the guest.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/bin"
cat >"$TMP/bin/dkms" <<'EOF'
#!/bin/sh
[ "$1" = --version ] && echo "dkms-$FAKE_DKMS_VERSION"
EOF
chmod +x "$TMP/bin/dkms"
FAILED=0
CHECKED=0

# conf KERNEL CONFIG DKMS_VERSION: dkms.conf's variables for KERNEL, whose
# .config is the line CONFIG (none if CONFIG is "-"), one "NAME=value"
# a line; and dkms 3.2's verdict on its BUILD_EXCLUSIVE_* directives
# ("excluded=yes" or "excluded=no").
conf() {
	local dir=$TMP/kernel
	rm -rf "$dir" && mkdir -p "$dir"
	[[ $2 == - ]] || echo "$2" >"$dir/.config"
	(
		# shellcheck disable=SC2034 # dkms.conf reads them
		kernelver=$1 kernel_source_dir=$dir FAKE_DKMS_VERSION=$3
		export FAKE_DKMS_VERSION
		PATH=$TMP/bin:$PATH
		# shellcheck source=/dev/null
		source "$REPO/dkms.conf" || exit
		echo "MAKE=${MAKE[0]:-}"
		echo "OBSOLETE_BY=${OBSOLETE_BY:-}"
		echo "STRIP=${STRIP[*]:-}"
		echo "AUTOINSTALL=${AUTOINSTALL:-}"
		echo "BUILD_EXCLUSIVE_KERNEL=${BUILD_EXCLUSIVE_KERNEL:-}"
		echo "BUILD_EXCLUSIVE_CONFIG=${BUILD_EXCLUSIVE_CONFIG:-}"
		# dkms 3.2's read_conf, on the directives.
		excluded=no
		[[ ${BUILD_EXCLUSIVE_KERNEL:-} && ! $kernelver =~ $BUILD_EXCLUSIVE_KERNEL ]] &&
			excluded=yes
		if [[ ${BUILD_EXCLUSIVE_CONFIG:-} && -e $dir/.config ]] &&
		   ! grep -qE "^${BUILD_EXCLUSIVE_CONFIG}=[ym]" "$dir/.config"; then
			excluded=yes
		fi
		echo "excluded=$excluded"
	)
}

# get NAME: NAME's value in the output of conf on stdin.
get() {
	sed -n "s/^$1=//p"
}

fail() {
	echo "FAIL: $*"
	FAILED=1
}

# served KERNEL CONFIG: built as usual, whatever the dkms.
served() {
	local v out
	for v in 3.0.10 3.2.2; do
		((CHECKED++))
		out=$(conf "$1" "$2" "$v")
		[[ $(get MAKE <<<"$out") == "" && $(get OBSOLETE_BY <<<"$out") == "" &&
		   $(get excluded <<<"$out") == no &&
		   $(get AUTOINSTALL <<<"$out") == yes ]] ||
			fail "$1 ($2) with dkms $v: not built as usual:"$'\n'"$out"
	done
}

# declined KERNEL CONFIG WHY: declined, as each dkms allows, with WHY in
# the stand-in's message.
declined() {
	local out
	((CHECKED += 2))
	out=$(conf "$1" "$2" 3.0.10)
	[[ $(get MAKE <<<"$out") == "echo 'rdmavt-dkms declines $1: "*"$3"*"' && : >rdmavt.ko && : >rvtsw/rvtsw.ko" &&
	   $(get OBSOLETE_BY <<<"$out") == "$1" &&
	   $(get STRIP <<<"$out") == "no no" &&
	   $(get BUILD_EXCLUSIVE_KERNEL <<<"$out") == "" &&
	   $(get AUTOINSTALL <<<"$out") == yes ]] ||
		fail "$1 ($2) with dkms 3.0.10: not declined by stand-ins and OBSOLETE_BY:"$'\n'"$out"
	out=$(conf "$1" "$2" 3.2.2)
	[[ $(get excluded <<<"$out") == yes && $(get MAKE <<<"$out") == "" &&
	   $(get OBSOLETE_BY <<<"$out") == "" ]] ||
		fail "$1 ($2) with dkms 3.2.2: not excluded by BUILD_EXCLUSIVE_*:"$'\n'"$out"
}

served 6.12.107+deb12-amd64 CONFIG_INFINIBAND=m
served 6.12.118+deb12-rt-amd64 CONFIG_INFINIBAND=m
served 6.12.118+deb12-cloud-amd64 CONFIG_INFINIBAND=m
served 6.12.118+deb13-amd64 CONFIG_INFINIBAND=y
# Without a .config the options cannot be told: the build is tried.
served 6.12.118+deb12-amd64 -
# Debian 12's default series, built through the compat layer.
served 6.1.0-57-amd64 CONFIG_INFINIBAND=m
served 6.1.0-57-rt-amd64 CONFIG_INFINIBAND=m
# A series whose name begins as a served one's does not pass for it.
declined 6.10.14-amd64 CONFIG_INFINIBAND=m "builds on Linux 6.1 6.12, not 6.10"
declined 6.16.3+deb13-amd64 CONFIG_INFINIBAND=m "not 6.16"
declined 6.120.0 CONFIG_INFINIBAND=m "not 6.120"
declined 7.3.0+bpo-amd64 CONFIG_INFINIBAND=m "not 7.3"
declined 6.12.118+deb12-amd64 "# CONFIG_INFINIBAND is not set" "no CONFIG_INFINIBAND"
declined 6.12.118+deb12-amd64 CONFIG_INFINIBAND_RDMAVT=m "no CONFIG_INFINIBAND"
declined not-a-release CONFIG_INFINIBAND=m "no kernel version"

echo "$CHECKED cases checked"
exit "$FAILED"
