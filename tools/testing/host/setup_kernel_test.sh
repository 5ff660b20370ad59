#!/bin/bash
# Host-side check that tools/setup.sh installs no kernel: for every kernel
# of tools/kernels that is in the kernel cache (make check's always is,
# setup.sh fetched it), setup.sh runs as it does for `KVER=<release> make
# check`, with stand-ins for apt-get, apt, dpkg and dpkg-query on PATH
# that record their arguments and install nothing (dpkg-query reports
# every package missing until the stand-in apt-get has "installed" them).
# What setup.sh asks apt to install must hold no linux-image-*,
# linux-headers-*, linux-modules-* or linux-kbuild-* (the guest's kernel
# comes from the cache, tools/kernels.sh), and nothing may call dpkg to
# install or unpack a package into the host. The list must be setup.sh's
# real one (it must include qemu-system-x86), so that an empty list
# cannot pass.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
KERNELS=$REPO/tools/kernels.sh
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FAILED=0
CHECKED=0

# The stand-ins. CALLS is their log, one invocation a line; INSTALLED
# exists once the stand-in apt-get install has run.
stand_ins() {
	local bin=$TMP/bin tool
	mkdir -p "$bin"
	for tool in apt-get apt dpkg; do
		cat >"$bin/$tool" <<'EOF'
#!/bin/bash
echo "${0##*/} $*" >>"$CALLS"
case " $* " in
*" install "*) : >"$INSTALLED" ;;
esac
exit 0
EOF
	done
	cat >"$bin/dpkg-query" <<'EOF'
#!/bin/bash
echo "dpkg-query $*" >>"$CALLS"
[[ -e $INSTALLED ]] && printf installed
exit 0
EOF
	# setup.sh installs only as root; the stand-ins need no root.
	cat >"$bin/id" <<'EOF'
#!/bin/bash
[[ $* == -u ]] && { echo 0; exit 0; }
exec /usr/bin/id "$@"
EOF
	chmod +x "$bin"/*
}

fail() {
	echo "FAIL $1: $2"
	FAILED=$((FAILED + 1))
}

# check_release REL: setup.sh for REL, its apt and dpkg calls checked.
check_release() {
	local rel=$1 out=$TMP/$1.out bad installs
	CALLS=$TMP/$rel.calls INSTALLED=$TMP/$rel.installed
	export CALLS INSTALLED
	: >"$CALLS"
	CHECKED=$((CHECKED + 1))
	if ! KVER=$rel PATH=$TMP/bin:$PATH "$REPO/tools/setup.sh" >"$out" 2>&1; then
		sed 's/^/    /' "$out"
		fail "$rel" "setup.sh failed"
		return
	fi
	installs=$(sed -n 's/^\(apt-get\|apt\) .*install //p' "$CALLS" | tr ' ' '\n' |
		grep -v '^-' | sort -u)
	grep -qx qemu-system-x86 <<<"$installs" ||
		{ fail "$rel" "setup.sh asked apt to install no qemu-system-x86: not its package list"; return; }
	bad=$(grep -E '^linux-(image|headers|modules|kbuild)-' <<<"$installs" | tr '\n' ' ')
	[[ -z $bad ]] ||
		{ fail "$rel" "setup.sh would install kernel packages: $bad"; return; }
	bad=$(grep -E '^dpkg( .*)? (-i|--install|--unpack|--configure|-[a-zA-Z]*i)( |$)' "$CALLS")
	[[ -z $bad ]] || { fail "$rel" "setup.sh would run: $bad"; return; }
	echo "ok $rel: $(wc -l <<<"$installs") packages to install, no kernel among them"
}

main() {
	local rel default
	stand_ins
	default=$("$KERNELS" default) || exit 1
	[[ -s $("$KERNELS" dir "$default")/packages ]] ||
		{ echo "FAIL make check's kernel $default is not in the kernel cache (tools/setup.sh)"; exit 1; }
	for rel in $("$KERNELS" list); do
		if [[ -s $("$KERNELS" dir "$rel")/packages ]]; then
			check_release "$rel"
		else
			echo "not fetched, not checked: $rel"
		fi
	done
	echo "$CHECKED kernels checked, $FAILED failed"
	((FAILED == 0 && CHECKED > 0))
}

main "$@"
