#!/bin/bash
# make check-dkms (not make check: DKMS compiles the modules under TCG,
# longer than make check allows a suite).
#
# The rdmavt-dkms package (`make deb`) as a user meets it: `dpkg -i` has
# DKMS build our modules for the running kernel into updates/dkms, where
# modprobe finds them before the kernel's own rdmavt; hfi1 and ib_qib
# load on ours and rvtsw runs an RC ping-pong; `apt-get remove` gives
# the kernel's own rdmavt back. Kernel upgrades with the package
# installed are 93-dkms-upgrade's.
#
# The package installs our core: the suite runs in the ours pass only,
# and on Debian's kernels (not make check-debug's).
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
# shellcheck source=../lib/dkms.sh
source "$TESTING_DIR/lib/dkms.sh"

TESTS=(dpkg-install source-tree built-for-running modinfo-updates-dkms
	modprobe-ours modprobe-hfi1 modprobe-ib_qib rvtsw-pingpong unload
	apt-get-remove distro-module-back distro-core-loads)
plan "${#TESTS[@]}"
skip_unless_packaged_here "${TESTS[@]}"

cleanup() {
	unload_all >/dev/null 2>&1
	purge_package
	depmod -a "$KVER"
}
trap cleanup EXIT

# The package's source tree holds what the build needs and nothing else.
source_tree() {
	local src=/usr/src/rdmavt-$VERSION extra
	[[ -f $src/dkms.conf && -f $src/Kbuild && -f $src/vt.c &&
	   -f $src/rvtsw/Kbuild && -f $src/rvtsw/main.c ]] ||
		{ echo "$src lacks dkms.conf, Kbuild, vt.c or rvtsw/"; return 1; }
	extra=$(cd "$src" && find . -type f ! -name '*.[ch]' ! -name Kbuild ! -name dkms.conf)
	[[ -z $extra ]] || { echo "$src holds more than the build's files:"; echo "$extra"; return 1; }
	echo "$src: $(find "$src" -type f | wc -l) files"
}

# rdmavt as loaded is ours (out of tree: taint O) or the kernel's.
loaded_rdmavt_is() {
	local taint
	taint=$(</sys/module/rdmavt/taint)
	echo "rdmavt taint flags: '$taint'"
	if [[ $1 == ours ]]; then
		[[ $taint == *O* ]]
	else
		[[ $taint != *O* ]]
	fi
}

# modprobe_core CORE: `modprobe rdmavt` loads CORE, ours or the distro's.
modprobe_core() {
	modprobe rdmavt && loaded_rdmavt_is "$1"
}

# driver_on_ours DRIVER: the distro's DRIVER loads, on our rdmavt (which
# modprobe loads for it, and takes out again with it when nothing else
# uses it), and uses it (no hardware: it registers its PCI driver and
# waits).
driver_on_ours() {
	modprobe "$1" && loaded_rdmavt_is ours || return
	lsmod | grep '^rdmavt ' | grep -qw "$1" ||
		{ echo "$1 does not use rdmavt"; return 1; }
	modprobe -r "$1"
}

rvtsw_pingpong() {
	modprobe rvtsw || return
	wait_for 50 test -e /sys/class/infiniband/rvtsw_0 ||
		{ echo "no rvtsw_0"; return 1; }
	pingpong ibv_rc_pingpong rvtsw_0:1 rvtsw_0:1
}

unload() {
	unload_all && ! lsmod | grep -q '^rdmavt '
}

distro_core_loads() {
	modprobe_core distro && modprobe -r rdmavt
}

package_step
step clean-slate clean_slate
t dpkg-install install_package
t source-tree source_tree
t built-for-running built_for "$KVER"
t modinfo-updates-dkms ours_resolved "$KVER"
t modprobe-ours modprobe_core ours
t modprobe-hfi1 driver_on_ours hfi1
t modprobe-ib_qib driver_on_ours ib_qib
t rvtsw-pingpong rvtsw_pingpong
t unload unload
t apt-get-remove remove_package
t distro-module-back package_gone "$KVER"
t distro-core-loads distro_core_loads
