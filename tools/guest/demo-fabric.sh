#!/bin/bash
# The guest half of `make demo-fabric`: rvtsw's managed fabric
# (managed=1), two devices of two ports on one switch, brought up by
# Debian's OpenSM and shown by the tools an InfiniBand user reaches for;
# then IPoIB in two network namespaces and rdma_cm's rping across it.
#
# Each section is a function. The first that fails ends the demo, named,
# with status 1: the sections after it build on it. The fabric is torn
# down either way.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=../testing/lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../testing/lib/suite.sh"

CA0=rvtsw_0
CA1=rvtsw_1
# Every HCA port, as DEVICE/PORT, in switch port order.
PORTS=("$CA0/1" "$CA0/2" "$CA1/1" "$CA1/2")
WORK=$(mktemp -d)
NS_A=fabric-a
NS_B=fabric-b
ADDR_A=10.79.0.1
ADDR_B=10.79.0.2
OPENSM_PID=

# section TITLE CMD...: a labelled section; its failure ends the demo.
section() {
	local title=$1
	shift
	printf '\n### %s\n' "$title"
	"$@" && return
	printf '\n### FAILED: %s\n' "$title"
	exit 1
}

# every_port STATE: each HCA port is in STATE.
every_port() {
	ports_are "$1" "${PORTS[@]}"
}

load() {
	load_managed || return
	lsmod | grep -E '^(rvtsw|rdmavt|ib_umad|ib_uverbs|ib_core) '
	echo "rvtsw managed=$(</sys/module/rvtsw/parameters/managed)"
}

# No SM yet: the links are up, but every port waits in INIT with LID 0.
before_sm() {
	local p
	ibstat "$CA0" && ibstat "$CA1" || return
	for p in "${PORTS[@]}"; do
		if ! port_is "$p" INIT || (($(sysfs_lid "${p%/*}" "${p#*/}"))); then
			echo "$p: not INIT with LID 0"
			return 1
		fi
	done
	echo "every port INIT, LID 0: the fabric waits for a subnet manager"
}

sm_up() {
	grep -q "SUBNET UP" "$WORK/opensm.log" && every_port ACTIVE
}

# OpenSM bound to rvtsw_0 port 1, in the background (-d2: its log
# flushed at each line, for the wait on SUBNET UP); two minutes at most.
start_opensm() {
	local guid start=$SECONDS
	guid=$(port_guid "$CA0" 1)
	echo "opensm -g $guid   ($CA0 port 1)"
	opensm -g "$guid" -f "$WORK/opensm.log" -d2 >"$WORK/opensm.out" 2>&1 &
	OPENSM_PID=$!
	if ! wait_for 1200 sm_up; then
		indent <"$WORK/opensm.out"
		tail -n 30 "$WORK/opensm.log" | indent
		return 1
	fi
	grep -E "SUBNET UP|Entering (MASTER|DISCOVERING)" "$WORK/opensm.log" |
		indent
	echo "SUBNET UP after $((SECONDS - start)) s"
}

after_sm() {
	ibstat "$CA0" && ibstat "$CA1" && every_port ACTIVE
}

# From rvtsw_1 port 2: the SM's side of the fabric is not special.
netdiscover() {
	local out
	out=$(ibnetdiscover -C "$CA1" -P 2) || return
	echo "$out"
	expect switches "$(grep -c '^Switch' <<<"$out")" 1 &&
		expect HCAs "$(grep -c '^Ca' <<<"$out")" 2
}

# Every link, both ends, one line each (-l); all four switch ports Active.
linkinfo() {
	local out
	out=$(iblinkinfo -C "$CA1" -P 2 -l) || return
	echo "$out"
	expect "Active links" \
		"$(grep -c 'Active/ *LinkUp' <<<"$out")" $((2 * ${#PORTS[@]}))
}

# The SA's NodeRecords: every node the SM found.
sa_nodes() {
	saquery -C "$CA1" -P 2 NR
}

# rvtsw_1 port 2's counters, asked by its LID from rvtsw_0 port 1: the
# query and its answer cross the switch by the SM's LFT.
perf() {
	local lid
	lid=$(sysfs_lid "$CA1" 2)
	echo "perfquery -C $CA0 -P 1 $lid 2   ($CA1 port 2)"
	perfquery -C "$CA0" -P 1 "$lid" 2
}

# rvtsw_0's two ports, each in a namespace of its own; one ping across.
ipoib() {
	modprobe ib_ipoib && wait_for 50 netdev_of "$CA0/2" &&
		netns_with_port "$NS_A" "$CA0/1" "$ADDR_A" &&
		netns_with_port "$NS_B" "$CA0/2" "$ADDR_B" || return
	# The first packet waits for the broadcast group's join.
	ip netns exec "$NS_A" ping -c 1 -W 10 "$ADDR_B" >/dev/null
	ip netns exec "$NS_A" ping -c 3 -W 5 "$ADDR_B"
}

rping_listening() {
	rdma resource show cm_id | grep -q "state LISTEN .*comm rping"
}

# rping over rdma_cm: the server in namespace A, the client in B; five
# pings, each one's data checked by both ends (-V). RC needs both ends on
# one device (rvtsw's RC is rdmavt's loopback), hence rvtsw_0's ports.
rping_pair() {
	local spid rc=0 src=0
	ip netns exec "$NS_A" timeout 120 rping -s -a "$ADDR_A" -C 5 -V -v \
		>"$WORK/rping.server" 2>&1 &
	spid=$!
	if wait_for 100 rping_listening; then
		ip netns exec "$NS_B" timeout 120 rping -c -a "$ADDR_A" -C 5 -V -v \
			>"$WORK/rping.client" 2>&1 || rc=$?
	else
		echo "the rping server never listened"
		kill "$spid"
		rc=1
	fi
	wait "$spid" || src=$?
	echo "server (namespace $NS_A, status $src):"
	indent <"$WORK/rping.server"
	echo "client (namespace $NS_B, status $rc):"
	indent <"$WORK/rping.client" 2>/dev/null
	((rc == 0 && src == 0)) &&
		expect "client pings" "$(grep -c 'ping data:' "$WORK/rping.client")" 5
}

# OpenSM leaves on SIGTERM ("Exiting SM"); how it exits is not the
# demo's concern, that it is gone is.
stop_opensm() {
	[[ -n $OPENSM_PID ]] || return 0
	kill "$OPENSM_PID" || return
	wait "$OPENSM_PID" || true
	OPENSM_PID=
	grep -q "Exiting SM" "$WORK/opensm.out"
}

teardown() {
	netns_release "$NS_A" && netns_release "$NS_B" && stop_opensm &&
		modprobe -r ib_ipoib && unload_all && modprobe -r ib_umad &&
		echo "namespaces deleted, OpenSM stopped, modules unloaded"
}

# After a failed section, what of the fabric is up comes down, each part
# whether or not another would.
on_exit() {
	local rc=$? ns
	if ((rc != 0)); then
		for ns in "$NS_A" "$NS_B"; do
			netns_release "$ns" >/dev/null 2>&1 || true
		done
		stop_opensm >/dev/null 2>&1 || true
		modprobe -r ib_ipoib >/dev/null 2>&1 || true
		unload_all >/dev/null 2>&1 || true
	fi
	rm -rf "$WORK"
	return "$rc"
}
trap on_exit EXIT

section "Loading ib_core, ib_uverbs, ib_umad, our rdmavt.ko and rvtsw.ko managed=1" load
section "Before any subnet manager: ibstat" before_sm
section "Starting OpenSM on $CA0 port 1, waiting for SUBNET UP" start_opensm
section "ibstat: every port ACTIVE, with the LID the SM gave it" after_sm
section "ibnetdiscover -C $CA1 -P 2: the switch and both HCAs" netdiscover
section "iblinkinfo -C $CA1 -P 2 -l: every link, both ends" linkinfo
section "saquery -C $CA1 -P 2 NR: the SA's node records" sa_nodes
section "perfquery: $CA1 port 2's counters, LID-routed" perf
section "IPoIB: $CA0 port 1 in namespace $NS_A, port 2 in $NS_B" ipoib
section "rping -V over rdma_cm, $NS_B to $NS_A" rping_pair
section "Teardown" teardown
echo
echo "demo-fabric done"
