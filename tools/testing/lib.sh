# shellcheck shell=bash
# Helpers for the guest-side test suites; sourced by tools/testing/guest.sh
# and by each suite.
#
# A suite reports each test as one line on the console,
#   RVT-RESULT: PASS|FAIL|SKIP|KNOWN <core>/<suite>/<test>[: reason]
# SKIP: not run here, with the reason. KNOWN: failed on the distro core
# where ours passes, a difference documented at the test.
# which the host counts. Everything else a test prints is indented so the
# log stays readable and cannot be mistaken for a result.

TESTING_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$TESTING_DIR/../.." && pwd)
# shellcheck disable=SC2034 # for the suites
PY=/usr/bin/python3	# Debian's, which has pyverbs
# Which rdmavt core the suites run on: ours (the repo's rdmavt.ko) or the
# distro's (the pinned kernel's own rdmavt.ko).
RVT_CORE=${RVT_CORE:-ours}
# One rvtsw.ko for both cores: it is linked against our core's exports,
# whose modversions CRCs equal the distro core's (tools/abi-check).
RVTSW_KO=$REPO/rvtsw/rvtsw.ko

result() {
	echo "RVT-RESULT: $1 $RVT_CORE/${SUITE:-?}/$2${3:+: $3}"
}

pass() { result PASS "$1"; }
fail() { result FAIL "$1" "${2:-}"; }

indent() { sed 's/^/    /'; }

# t NAME CMD [ARGS...]: run CMD, show its output indented, report by status.
t() {
	local name=$1 out rc=0
	shift
	out=$("$@" 2>&1) || rc=$?
	[[ -z $out ]] || printf '%s\n' "$out" | indent
	if ((rc == 0)); then
		pass "$name"
	else
		fail "$name" "exit status $rc"
	fi
	return 0
}

# on_distro_core CMD...: true when the suites run on the distro core.
on_distro_core() { [[ $RVT_CORE == distro ]]; }

# skip_on_distro REASON NAME CMD...: run the test on our core only; on the
# distro core report it skipped, with REASON (for example, it crashes
# the distro core).
skip_on_distro() {
	local reason=$1
	shift
	if on_distro_core; then
		result SKIP "$1" "$reason"
	else
		t "$@"
	fi
}

# known_on_distro REASON NAME CMD...: run the test everywhere; a failure
# on the distro core is a known difference, reported as such with REASON.
known_on_distro() {
	local reason=$1 name=$2 out rc=0
	shift 2
	if ! on_distro_core; then
		t "$name" "$@"
		return 0
	fi
	out=$("$@" 2>&1) || rc=$?
	[[ -z $out ]] || printf '%s\n' "$out" | indent
	if ((rc == 0)); then
		pass "$name"
	else
		result KNOWN "$name" "$reason"
	fi
}

# Load the IB core and the selected rdmavt core.
load_core() {
	modprobe ib_core && modprobe ib_uverbs || return
	if [[ $RVT_CORE == ours ]]; then
		insmod "$REPO/rdmavt.ko"
	else
		modprobe rdmavt
	fi
}

# The address of QEMU's pci-testdev (1b36:0005), if the guest has one.
pci_testdev() {
	local dev
	for dev in /sys/bus/pci/devices/*; do
		if [[ $(<"$dev/vendor") == 0x1b36 &&
		      $(<"$dev/device") == 0x0005 ]]; then
			basename "$dev"
			return 0
		fi
	done
	return 1
}

# load_rvtsw [PARAM=VALUE...]: load rvtsw on the core, with parameters.
# The distro core logs through the HCA's PCI device, so there rvtsw gets
# the pci-testdev as its parent.
load_rvtsw() {
	local parent
	lsmod | grep -q '^rdmavt ' || load_core || return
	if [[ $RVT_CORE != ours ]]; then
		parent=$(pci_testdev) ||
			{ echo "no pci-testdev for the distro core" >&2; return 1; }
		set -- "parent=$parent" "$@"
	fi
	insmod "$RVTSW_KO" "$@"
}

unload_rvtsw() {
	! lsmod | grep -q '^rvtsw ' || rmmod rvtsw
}

unload_all() {
	unload_rvtsw && { ! lsmod | grep -q '^rdmavt ' || rmmod rdmavt; }
}

# rdma_rxe over lo, as rxe0, for comparisons with rvtsw. Its GID 1 is
# lo's ::ffff:127.0.0.1 (RoCE v2); the link-local GID 0 is unroutable on
# lo (ENETUNREACH), so tools must be told to use GID 1.
rxe_up() {
	modprobe rdma_rxe && rdma link add rxe0 type rxe netdev lo &&
		wait_for 50 test -e /sys/class/infiniband/rxe0
}

rxe_down() {
	rdma link delete rxe0 2>/dev/null
	modprobe -r rdma_rxe
}

# Is something listening on TCP port $1?
tcp_listening() {
	ss -Hltn "sport = :$1" | grep -q .
}

# server_client OUT PORT SERVER CLIENT: run the command in the array named
# SERVER in the background, then, once something listens on TCP PORT,
# the command in the array named CLIENT. Their outputs go to OUT/server
# and OUT/client and are shown with their exit statuses.
# Return: 0 if both exited 0.
server_client() {
	local out=$1 port=$2 spid rc=0 src=0
	local -n server_cmd=$3 client_cmd=$4
	timeout 300 "${server_cmd[@]}" >"$out/server" 2>&1 &
	spid=$!
	if ! wait_for 100 tcp_listening "$port"; then
		echo "server never listened"
		kill "$spid" 2>/dev/null
		rc=1
	else
		timeout 300 "${client_cmd[@]}" >"$out/client" 2>&1 || rc=$?
	fi
	wait "$spid" || src=$?
	echo "server (status $src):"
	indent <"$out/server"
	echo "client (status $rc):"
	indent <"$out/client" 2>/dev/null
	((rc == 0 && src == 0))
}

# wait_for COUNT CMD...: retry CMD up to COUNT times, 0.1 s apart.
wait_for() {
	local n=$1
	shift
	while ! "$@" >/dev/null 2>&1; do
		((--n > 0)) || return 1
		sleep 0.1
	done
}
