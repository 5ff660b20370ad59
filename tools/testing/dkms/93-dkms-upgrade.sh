#!/bin/bash
# make check-dkms (not make check: DKMS compiles the modules under TCG,
# longer than make check allows a suite).
#
# Kernel upgrades with the rdmavt-dkms package installed. A kernel
# package's postinst runs the hooks of /etc/kernel (Debian 12's kernels
# through linux-run-hooks: run-parts --exit-on-error), dkms' among them,
# so a module that fails to build there fails the kernel's install. Three
# kernels are installed that way, their headers' postinst and their
# image's:
# - the next release of the running kernel (its headers stand in): dkms
#   builds our modules for it and modprobe finds them there;
# - an unknown future series and a kernel without CONFIG_INFINIBAND, each
#   with a stand-in headers tree whose build fails, as a kernel the tree
#   does not build on would: the package must decline them and the hooks
#   succeed, with nothing of ours in the kernels' modules.
# `apt-get remove` then takes the package out of every kernel.
#
# The package goes in while the running kernel's headers are hidden, so
# that its install builds nothing (92-dkms has that build): this suite
# pays for one build, the upgrade's. The package installs our core: the
# suite runs in the ours pass only, and on Debian's kernels.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
# shellcheck source=../lib/dkms.sh
source "$TESTING_DIR/lib/dkms.sh"

NEXT=$KVER-next
FUTURE=9.9.0-future-amd64
NOIB=${KVER%%-*}-noib-amd64
KERNELS=("$NEXT" "$FUTURE" "$NOIB")
STAND_INS=/tmp/rvt-dkms-headers
HEADERS=$MODULES/$KVER/build
HIDDEN=$MODULES/$KVER/build.hidden-by-93-dkms-upgrade
TESTS=(dpkg-install-no-headers upgrade-builds upgrade-module-resolves
	upgrade-declines-future upgrade-declines-no-infiniband
	apt-get-remove package-gone-everywhere)
plan "${#TESTS[@]}"
skip_unless_packaged_here "${TESTS[@]}"

cleanup() {
	local k
	purge_package
	for k in "${KERNELS[@]}"; do
		rm -rf "${MODULES:?}/$k"
	done
	rm -rf "$STAND_INS"
	[[ ! -L $HIDDEN ]] || mv -T "$HIDDEN" "$HEADERS"
	depmod -a "$KVER"
}
trap cleanup EXIT

hide_headers() {
	[[ -L $HEADERS ]] || { echo "$HEADERS is not a link"; return 1; }
	mv -T "$HEADERS" "$HIDDEN"
}

# The package installs, and builds for no kernel: none has headers.
install_no_headers() {
	local status
	install_package || return
	status=$(dkms status -m rdmavt -v "$VERSION") || return
	echo "dkms status: $status"
	[[ $status == *": added" ]]
}

# kernel_installed KERNEL: what its linux-headers and linux-image
# packages' postinst do, without the initramfs (INITRD=No, the
# initramfs-tools hook's switch), which a kernel without modules cannot
# have.
kernel_installed() {
	linux-run-hooks headers postinst "$1" -- configure || return
	INITRD=No linux-run-hooks image postinst "$1" "/boot/vmlinuz-$1" -- configure
}

# The next release, built with the running kernel's headers.
upgrade_builds() {
	mkdir -p "$MODULES/$NEXT" &&
		ln -s "$(readlink -f "$HIDDEN")" "$MODULES/$NEXT/build" || return
	if ! kernel_installed "$NEXT"; then
		show_make_logs
		return 1
	fi
	built_for "$NEXT"
}

# stand_in KERNEL CONFIG: KERNEL's headers as dkms sees them (include/,
# and a .config of the one line CONFIG), with a Makefile that fails
# whatever it is asked.
stand_in() {
	local dir=$STAND_INS/$1
	mkdir -p "$dir/include" "$MODULES/$1" || return
	echo "$2" >"$dir/.config"
	printf '%%:\n\t@echo "stand-in headers of %s: nothing builds"; exit 1\n' \
		"$1" >"$dir/Makefile"
	ln -s "$dir" "$MODULES/$1/build"
}

# upgrade_declined KERNEL CONFIG: the hooks succeed for KERNEL, and
# nothing of ours is in its modules.
upgrade_declined() {
	stand_in "$1" "$2" && kernel_installed "$1" || return
	if ko_in "$1" rdmavt || ko_in "$1" rvtsw; then
		echo "modules installed for $1"
		return 1
	fi
	echo "nothing of ours in $MODULES/$1"
}

package_step
step clean-slate clean_slate
step hide-headers hide_headers
t dpkg-install-no-headers install_no_headers
t upgrade-builds upgrade_builds
t upgrade-module-resolves ours_resolved "$NEXT"
t upgrade-declines-future upgrade_declined "$FUTURE" CONFIG_INFINIBAND=m
t upgrade-declines-no-infiniband upgrade_declined "$NOIB" \
	'# CONFIG_INFINIBAND is not set'
t apt-get-remove remove_package
t package-gone-everywhere package_gone "$KVER" "${KERNELS[@]}"
