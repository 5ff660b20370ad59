#!/bin/bash
# Host test of tools/abi-check: build stand-in rdmavt.ko modules from
# tools/testing/fixtures/abi, each clean or with one planted ABI defect,
# and check that abi-check passes the clean one and fails each defect for
# the right reason (exit status and the verdict it prints).
#
# Usage: abi-check-test.sh [WORKDIR]   (default build/abi-check-test)
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
WORK=${1:-$REPO/build/abi-check-test}
KVER=$("$REPO/tools/kernels.sh" release)
KCACHE=$("$REPO/tools/kernels.sh" dir)
KDIR=$KCACHE/headers
FAILED=0

# build VARIANT [MAKE-VARS...]: a fresh copy of the fixture built in
# $WORK/VARIANT.
build() {
	local dir=$WORK/$1
	shift
	rm -rf "$dir"
	mkdir -p "$dir"
	cp "$REPO"/tools/testing/fixtures/abi/{Kbuild,stub.c} "$dir/"
	make -s -C "$KDIR" M="$dir" "$@" modules >"$dir/build.log" 2>&1 || {
		cat "$dir/build.log"
		echo "FAIL: building fixture variant ${dir##*/}"
		exit 1
	}
}

# A kernel's packages unpacked as 6.1's are (tools/abi-kernels.sh's
# --root): the kernel's distro modules as plain .ko files, its headers'
# Module.symvers. The kernel of the run ships them compressed (6.12) or
# plain (6.1).
plain_ko_root() {
	local mod src dir=$WORK/root/lib/modules/$KVER/kernel/drivers/infiniband
	rm -rf "$WORK/root" "$WORK/empty"
	mkdir -p "$WORK/empty" "$WORK/root/usr/src/linux-headers-$KVER"
	ln -s "$KDIR/Module.symvers" "$WORK/root/usr/src/linux-headers-$KVER/"
	for mod in sw/rdmavt/rdmavt hw/hfi1/hfi1 hw/qib/ib_qib; do
		mkdir -p "$dir/$(dirname "$mod")"
		src=$KCACHE/root/lib/modules/$KVER/kernel/drivers/infiniband/$mod.ko
		if [[ -e $src.xz ]]; then
			xz -dc "$src.xz" >"$dir/$mod.ko"
		else
			cp "$src" "$dir/$mod.ko"
		fi
	done
}

# expect NAME STATUS PATTERN ARGS...: run abi-check ARGS, want exit
# STATUS and PATTERN (grep -E) somewhere in its output.
expect() {
	local name=$1 want=$2 pattern=$3 out rc=0
	shift 3
	out=$("$REPO/tools/abi-check" "$@" 2>&1) || rc=$?
	if ((rc == want)) && grep -qE -- "$pattern" <<<"$out"; then
		echo "PASS: $name"
		return
	fi
	printf '%s\n' "$out" | sed 's/^/    /'
	echo "FAIL: $name (exit $rc, wanted $want and /$pattern/)"
	FAILED=1
}

# on VARIANT: the abi-check arguments for that variant's build.
on() {
	echo --module "$WORK/$1/${2:-rdmavt}.ko" --symvers "$WORK/$1/Module.symvers"
}

main() {
	build clean
	build no-tracepoint ABI_TEST_FLAGS=-DABI_TEST_NO_TRACEPOINT
	build gpl ABI_TEST_FLAGS=-DABI_TEST_GPL
	build namespace ABI_TEST_FLAGS=-DABI_TEST_NS
	build extra ABI_TEST_FLAGS=-DABI_TEST_EXTRA
	build proprietary ABI_TEST_FLAGS=-DABI_TEST_PROPRIETARY
	build renamed MODNAME=rvtstub

	# shellcheck disable=SC2046 # on() prints separate arguments
	{
	# The CRC is the kernel's (tools/kernels.sh): ours must equal the
	# distro's, whatever its value.
	expect clean-passes 0 'rvt_init_port +(0x[0-9a-f]{8}) +\1 .* ok$' \
		$(on clean) --allow-missing
	expect missing-fails-by-default 1 '27 distro export\(s\) not provided' \
		$(on clean)
	expect missing-crc-types-fail 1 'rvt_alloc_device .*DIFF: CRC,importer CRC' \
		$(on no-tracepoint) --allow-missing
	expect gpl-export-fails 1 'rvt_init_port .*GPL .*DIFF: GPL-ness' \
		$(on gpl) --allow-missing
	expect namespace-fails 1 'ns:RDMAVT_TEST .*DIFF: namespace' \
		$(on namespace) --allow-missing
	expect extra-export-fails 1 'rvt_abi_test_extra .* EXTRA$' \
		$(on extra) --allow-missing
	expect licence-fails 1 "license 'Proprietary' is not GPL-compatible" \
		$(on proprietary) --allow-missing
	expect module-name-fails 1 "module name: 'rvtstub' vs 'rdmavt'" \
		$(on renamed rvtstub) --allow-missing
	sed "s#$WORK/no-tracepoint/#$WORK/clean/#" \
		"$WORK/no-tracepoint/Module.symvers" >"$WORK/stale.symvers"
	expect stale-symvers-fails 1 'our exports in .* vs .*stale.symvers' \
		--module "$WORK/clean/rdmavt.ko" --symvers "$WORK/stale.symvers" \
		--allow-missing
	expect unreadable-input-exits-2 2 'abi-check: .*nonexistent' \
		--module "$WORK/nonexistent.ko"
	expect crc-count-line 0 "^${KVER//+/[+]}: 5/32 CRCs\$" \
		$(on clean) --allow-missing
	plain_ko_root
	expect root-with-plain-ko-passes 0 'rvt_init_port +(0x[0-9a-f]{8}) +\1 .* ok$' \
		$(on clean) --allow-missing --root "$WORK/root"
	expect root-without-rdmavt-exits-2 2 'abi-check: .*/empty/lib/modules/.*rdmavt.ko' \
		$(on clean) --allow-missing --root "$WORK/empty"
	}
	return "$FAILED"
}

main "$@"
