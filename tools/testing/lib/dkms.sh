# shellcheck shell=bash
# What 92-dkms and 93-dkms-upgrade share: the rdmavt-dkms package that
# `make deb` left in build/deb, installing and removing it in the guest
# (whose / is an overlay: whatever they change goes with the guest), and
# where modprobe finds rdmavt for a kernel. Sourced after lib/suite.sh.

PKG=rdmavt-dkms
MODULES=/lib/modules
KVER=$(uname -r)
export DEBIAN_FRONTEND=noninteractive

# skip_unless_packaged_here TEST...: the package installs our core, so
# its suites run in the ours pass; and it is for Debian's kernels, not
# for one of our own build (make check-debug's). Every guest boots from a
# kernel directory (RVT_KERNEL_DIR); the kernel cache's copy of a Debian
# kernel is the one that lists its packages (tools/kernels.sh). Elsewhere
# the tests are reported skipped and the suite ends.
skip_unless_packaged_here() {
	local t why
	if on_distro_core; then
		why="the package installs our core: tested in the ours pass"
	elif [[ ! -s ${RVT_KERNEL_DIR:-}/packages ]]; then
		why="the package is for Debian's kernels, not one built here"
	else
		return 0
	fi
	for t in "$@"; do
		result SKIP "$t" "$why"
	done
	exit 0
}

# package_step: the suites' first step, the package make deb left.
# find_package runs once, in the suite's own shell (step runs what it is
# given in a subshell, whose variables would not reach the tests); the
# step reports what it found.
package_step() {
	find_package
	step package package_found
}

# find_package: DEB and VERSION of the one package make deb left
# (tools/deb.sh empties build/deb first), or NO_PACKAGE saying why not.
find_package() {
	local debs
	mapfile -t debs < <(find "$REPO/build/deb" -maxdepth 1 -name "${PKG}_*_all.deb" 2>/dev/null)
	if ((${#debs[@]} != 1)); then
		NO_PACKAGE="${#debs[@]} $PKG packages in build/deb: run make deb first"
		return 1
	fi
	DEB=${debs[0]}
	if ! VERSION=$(dpkg-deb -f "$DEB" Version 2>&1) || [[ -z $VERSION ]]; then
		NO_PACKAGE="no version in $DEB: $VERSION"
		VERSION=
		return 1
	fi
}

# package_found: find_package found it.
package_found() {
	[[ -n ${VERSION:-} ]] || { echo "$NO_PACKAGE"; return 1; }
	echo "$DEB, version $VERSION"
}

installed() {
	[[ $(dpkg-query -W -f='${db:Status-Status}' "$PKG" 2>/dev/null) == installed ]]
}

# ko_in KERNEL NAME: KERNEL's copy of module NAME from the package.
ko_in() {
	compgen -G "$MODULES/$1/updates/dkms/$2.ko*"
}

# distro_resolved KERNEL: modprobe finds the kernel's own rdmavt.
distro_resolved() {
	local path
	path=$(modinfo -k "$1" -n rdmavt) || return
	echo "rdmavt of $1 resolves to $path"
	[[ $path == "$MODULES/$1/kernel/drivers/infiniband/sw/rdmavt/"* ]]
}

# ours_resolved KERNEL: modprobe finds the package's rdmavt, in updates/dkms.
ours_resolved() {
	local path
	path=$(modinfo -k "$1" -n rdmavt) || return
	echo "rdmavt of $1 resolves to $path"
	[[ $path == "$(ko_in "$1" rdmavt)" ]]
}

# built_for KERNEL: dkms has built and installed both modules for KERNEL.
built_for() {
	local status
	status=$(dkms status -m rdmavt -v "$VERSION" -k "$1") || return
	echo "$status"
	[[ $status == *": installed"* ]] && ko_in "$1" rdmavt && ko_in "$1" rvtsw
}

# install_package: `dpkg -i` of the package; when it fails, the end of
# each build log dkms left, which says what the compiler said (the
# package's postinst runs the build, and dpkg shows only its status).
install_package() {
	dpkg -i "$DEB" && return
	show_make_logs
	return 1
}

# show_make_logs: the last lines of dkms' build logs of the package: the
# one of a build that failed (build/) and those of each kernel's build.
show_make_logs() {
	local log
	for log in /var/lib/dkms/rdmavt/*/build/make.log \
		   /var/lib/dkms/rdmavt/*/*/*/log/make.log; do
		[[ -f $log ]] || continue
		echo "== $log, its last 30 lines:"
		tail -n 30 "$log"
	done
}

clean_slate() {
	! installed || { echo "$PKG is installed already"; return 1; }
	distro_resolved "$KVER"
}

remove_package() {
	apt-get remove -y -q "$PKG" </dev/null || return
	! installed
}

# package_gone KERNEL...: after the removal, the kernel's own rdmavt for
# each KERNEL that has one, and nothing of the package's left: its
# sources, dkms' tree of it, its modules in any KERNEL's updates/dkms.
package_gone() {
	local k m left=()
	[[ ! -e /usr/src/rdmavt-$VERSION ]] || left+=("/usr/src/rdmavt-$VERSION")
	[[ ! -e /var/lib/dkms/rdmavt ]] || left+=(/var/lib/dkms/rdmavt)
	for k in "$@"; do
		[[ ! -e $MODULES/$k/kernel ]] || distro_resolved "$k" || return
		for m in rdmavt rvtsw; do
			! ko_in "$k" "$m" >/dev/null || left+=("$k/$m")
		done
	done
	((${#left[@]} == 0)) || { echo "left behind: ${left[*]}"; return 1; }
}

# purge_package: the EXIT traps' part, whatever the suite left.
purge_package() {
	! installed || dpkg --purge "$PKG" >/dev/null 2>&1
}
