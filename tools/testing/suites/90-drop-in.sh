#!/bin/bash
# Drop-in: installed under updates/, our rdmavt.ko is what modprobe loads,
# and the distro's hfi1.ko and ib_qib.ko load on top of it unchanged (no
# hardware needed: they register their PCI drivers and wait). On the
# distro core the same steps show the reference behaviour.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

KVER=$(uname -r)
UPDATES=/lib/modules/$KVER/updates
plan 10

# What `make install` does, into the guest's writable overlay: both
# modules under updates/, then depmod. On the distro core only rvtsw is
# installed, and modprobe finds the distro's own rdmavt.
install_ours() {
	mkdir -p "$UPDATES" &&
	cp "$REPO/rvtsw/rvtsw.ko" "$UPDATES/" || return
	on_distro_core || cp "$REPO/rdmavt.ko" "$UPDATES/" || return
	depmod -a "$KVER"
}

uninstall_ours() {
	rm -f "$UPDATES/rdmavt.ko" "$UPDATES/rvtsw.ko"
	depmod -a "$KVER"
}

# The rdmavt modprobe resolves: ours from updates/, or the distro's.
resolves_to_expected_core() {
	local path
	path=$(modinfo -n rdmavt) || return
	echo "modprobe resolves rdmavt to $path"
	if on_distro_core; then
		[[ $path == */kernel/drivers/infiniband/sw/rdmavt/* ]]
	else
		[[ $path == "$UPDATES/rdmavt.ko" ]]
	fi
}

# rdmavt as loaded is ours exactly when it is an out-of-tree module.
loaded_core_is_expected() {
	local taint
	taint=$(</sys/module/rdmavt/taint)
	echo "rdmavt taint flags: '$taint'"
	if on_distro_core; then
		[[ $taint != *O* ]]
	else
		[[ $taint == *O* ]]
	fi
}

modprobe_driver() {
	modprobe "$1" || return
	lsmod | grep "^$1 " || return
	lsmod | grep '^rdmavt ' | grep -qw "$1"
}

# The distro core logs through the HCA's PCI device (see load_rvtsw).
PARENT=()
if on_distro_core; then
	PARENT=("parent=$(pci_testdev)")
fi

step install install_ours
t modprobe-resolves resolves_to_expected_core
t modprobe-rvtsw modprobe rvtsw "${PARENT[@]}"
t loaded-core loaded_core_is_expected
t rvtsw-device wait_for 50 test -e /sys/class/infiniband/rvtsw_0
t modprobe-hfi1 modprobe_driver hfi1
t modprobe-ib_qib modprobe_driver ib_qib
t unload-hfi1 modprobe -r hfi1
t unload-ib_qib modprobe -r ib_qib
t unload-rvtsw modprobe -r rvtsw
t rdmavt-gone bash -c '! lsmod | grep -q "^rdmavt "'
step uninstall uninstall_ours
