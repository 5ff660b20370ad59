#!/bin/bash
# A managed fabric (rvtsw managed=1), brought up by Debian's OpenSM.
#
# First without an SM: every port starts in INIT with LID 0 and the
# switch unprogrammed; data does not cross a port that is not ACTIVE;
# PortInfo Sets (ibportstate) walk the state machine at an HCA's port and
# at a switch port (INIT, ARMED, ACTIVE, DOWN and back to INIT; disable,
# enable), forbidden moves and fields are refused and change nothing.
# Then, on a fresh load, OpenSM: every port ACTIVE with its own LID, the
# switch's LFT by the SM, the fabric in ibnetdiscover and the SA's
# records, UD between devices; IPoIB in two network namespaces (ping),
# the broadcast group's joins in the MFT; rdma_cm over it (rping,
# ucmatose, udaddy, mckey, ib_send_bw -R, ib_write_lat -R); a switch port
# disabled and enabled again is swept again and comes back ACTIVE.
#
# Two devices of two ports: HCA ports on switch ports 1-4. RC needs both
# ends on one device (rvtsw's RC is rdmavt's loopback), so the rdma_cm
# programs run between rvtsw_0's ports, each in its own namespace.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

plan 21

CA0=rvtsw_0
CA1=rvtsw_1
SW_GUID=0x0002c903019fff00
# Every HCA port, as DEVICE/PORT, in switch port order.
HCA_PORTS=("$CA0/1" "$CA0/2" "$CA1/1" "$CA1/2")
WORK=$(mktemp -d)
NS_A=rvt78a
NS_B=rvt78b
ADDR_A=10.78.0.1
ADDR_B=10.78.0.2

# OpenSM runs in the background of a test's subshell: found by name.
no_opensm() {
	! pgrep -x opensm
}

stop_opensm() {
	pkill -x opensm
	wait_for 100 no_opensm
}

cleanup() {
	pkill -x opensm
	ip netns del "$NS_A" 2>/dev/null
	ip netns del "$NS_B" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

# state DEVICE/PORT: the port's state as sysfs says it (ACTIVE, INIT...).
state() {
	local s
	s=$(<"$SYS/${1%/*}/ports/${1#*/}/state")
	echo "${s#*: }"
}

# phys DEVICE/PORT: its physical state (LinkUp, Polling, Disabled).
phys() {
	local s
	s=$(<"$SYS/${1%/*}/ports/${1#*/}/phys_state")
	echo "${s#*: }"
}

# lid DEVICE/PORT: its LID, in decimal.
lid() {
	sysfs_lid "${1%/*}" "${1#*/}"
}

all_active() {
	local p
	for p in "${HCA_PORTS[@]}"; do
		[[ $(state "$p") == ACTIVE ]] || return
	done
}

build() {
	cc -O2 -Wall -Wextra -Werror -o "$WORK/smp_table" \
		"$TESTING_DIR/progs/smp_table.c" -libmad -libumad
}

load_managed() {
	modprobe ib_umad &&
		load_rvtsw devices=2 ports=2 managed=1 &&
		wait_for 50 test -e "$SYS/$CA1/ports/2/lid"
}

# sw_portinfo PORT: the switch's PortInfo of PORT, one hop from rvtsw_0.
sw_portinfo() {
	smpquery -C "$CA0" -P 1 -D portinfo 0,1 "$1"
}

# Before any SM: INIT, LID 0, links up; the switch without a LID or an
# LFT, its ports in INIT, PortStateChange set by the links' training.
fresh() {
	local p out rc=0
	for p in "${HCA_PORTS[@]}"; do
		expect "$p state" "$(state "$p")" INIT || rc=1
		expect "$p phys" "$(phys "$p")" LinkUp || rc=1
		expect "$p lid" "$(lid "$p")" 0 || rc=1
	done
	out=$(smpquery -C "$CA0" -P 1 -D switchinfo 0,1) || return
	expect_fields "$out" LinearFdbTop=0 StateChange=1 || rc=1
	out=$(sw_portinfo 0) || return
	expect_fields "$out" Lid=0 || rc=1
	for p in 1 2 3 4; do
		out=$(sw_portinfo "$p") || return
		expect_fields "$out" LinkState=Initialize PhysLinkState=LinkUp ||
			{ echo "switch port $p"; rc=1; }
	done
	return "$rc"
}

# UD between two ports in INIT: nothing arrives (the client gives up),
# and the sending port counts each datagram it could not send.
no_data_before_active() {
	local before after out port=$((TCP_PORT + 700)) spid rc=0
	before=$(hw_counter "$CA0" 1 drop_link_not_active)
	timeout 20 ibv_ud_pingpong -d "$CA0" -i 2 -p "$port" -n 3 \
		>"$WORK/server" 2>&1 &
	spid=$!
	wait_for 100 tcp_listening "$port" || { kill "$spid"; return 1; }
	out=$(timeout 10 ibv_ud_pingpong -d "$CA0" -i 1 -p "$port" -n 3 \
		localhost 2>&1) || rc=$?
	wait "$spid" 2>/dev/null
	after=$(hw_counter "$CA0" 1 drop_link_not_active)
	echo "$out"
	echo "client status $rc, drop_link_not_active +$((after - before))"
	((rc != 0 && after > before))
}

# ibp DEVICE/PORT OP...: ibportstate on the port itself (directed route
# of no hops), ops as ibportstate takes them; the output is shown.
ibp() {
	ibportstate -C "${1%/*}" -P "${1#*/}" -D 0 "${1#*/}" "${@:2}" 2>&1
}

is_state() {
	[[ $(state "$1") == "$2" ]]
}

# expect_state DEVICE/PORT STATE: the port is in STATE now.
expect_state() {
	expect "$1" "$(state "$1")" "$2"
}

# An HCA's port: ACTIVE is refused from INIT; ARMED, then ACTIVE; DOWN
# retrains the link, back to INIT; a new LID takes.
hca_state_machine() {
	local p=$CA1/2
	! ibp "$p" active >/dev/null || { echo "ACTIVE from INIT taken"; return 1; }
	expect_state "$p" INIT || return
	ibp "$p" arm >/dev/null && expect_state "$p" ARMED || return
	ibp "$p" active >/dev/null && expect_state "$p" ACTIVE || return
	ibp "$p" down >/dev/null && expect_state "$p" INIT || return
	expect "$p phys" "$(phys "$p")" LinkUp || return
	ibp "$p" lid 0x30 >/dev/null && expect "$p lid" "$(lid "$p")" 48
}

# A Set with a field the port cannot take (an LMC: every rvtsw port has
# one LID) fails as a whole: its new LID does not take either.
set_refused_whole() {
	local p=$CA1/2 out
	if out=$(ibp "$p" lid 0x40 lmc 1); then
		echo "$out"
		echo "LMC 1 taken"
		return 1
	fi
	grep -i "failed" <<<"$out"
	expect "$p lid" "$(lid "$p")" 48
}

# A switch port: ARMED by a Set; disabled, the link goes down at both
# ends (the HCA's polls); enabled, both ends train to INIT, and the
# switch says a port changed state.
switch_state_machine() {
	local p=$CA1/1 out
	ibportstate -C "$CA0" -P 1 -D 0,1 3 arm >/dev/null || return
	out=$(sw_portinfo 3) && expect_fields "$out" LinkState=Armed || return
	ibportstate -C "$CA0" -P 1 -D 0,1 3 disable >/dev/null || return
	out=$(sw_portinfo 3) || return
	expect_fields "$out" LinkState=Down PhysLinkState=Disabled || return
	expect_state "$p" DOWN && expect "$p phys" "$(phys "$p")" Polling ||
		return
	ibportstate -C "$CA0" -P 1 -D 0,1 3 enable >/dev/null || return
	out=$(sw_portinfo 3) || return
	expect_fields "$out" LinkState=Initialize PhysLinkState=LinkUp &&
		expect_state "$p" INIT && expect "$p phys" "$(phys "$p")" LinkUp
}

reload_managed() {
	unload_rvtsw && load_managed
}

# OpenSM on rvtsw_0 port 1: every port ACTIVE within two minutes.
start_opensm() {
	local start=$SECONDS
	opensm -g "$(port_guid "$CA0" 1)" -f "$WORK/opensm.log" -s 5 -d2 \
		>"$WORK/opensm.out" 2>&1 &
	if ! wait_for 1200 all_active; then
		cat "$WORK/opensm.out"
		tail -n 30 "$WORK/opensm.log"
		return 1
	fi
	echo "every port ACTIVE after $((SECONDS - start)) s"
	grep -q "SUBNET UP" "$WORK/opensm.log"
}

# switch_lid: port 0's LID, as the SM set it.
switch_lid() {
	sw_portinfo 0 | field Lid
}

# Every port has a LID of its own, not 0, and the SM's LID as its SM LID;
# so has the switch.
lids_assigned() {
	local p l sm seen=" " rc=0
	sm=$(lid "$CA0/1")
	for p in "${HCA_PORTS[@]}"; do
		l=$(lid "$p")
		echo "$p: LID $l, SM LID $(($(<"$SYS/${p%/*}/ports/${p#*/}/sm_lid")))"
		((l != 0)) || rc=1
		[[ $seen != *" $l "* ]] || { echo "LID $l twice"; rc=1; }
		seen+="$l "
		expect "$p SM LID" "$(($(<"$SYS/${p%/*}/ports/${p#*/}/sm_lid")))" \
			"$sm" || rc=1
	done
	l=$(switch_lid)
	echo "switch: LID $l"
	[[ -n $l && $l != 0 && $seen != *" $l "* ]] || rc=1
	return "$rc"
}

# The SM's LFT sends each HCA port's LID to the switch port it is linked
# to, and the switch's own to port 0.
lft_by_sm() {
	local out i sw rc=0
	sw=$(switch_lid)
	out=$(ibroute -C "$CA0" -P 1 "$sw") || { echo "$out"; return 1; }
	echo "$out"
	for i in 0 1 2 3; do
		grep -q "^$(printf '0x%04x %03d :' "$(lid "${HCA_PORTS[i]}")" \
			$((i + 1)))" <<<"$out" ||
			{ echo "${HCA_PORTS[i]}: not to port $((i + 1))"; rc=1; }
	done
	grep -q "^$(printf '0x%04x 000 :' "$sw")" <<<"$out" ||
		{ echo "switch LID $sw not to port 0"; rc=1; }
	return "$rc"
}

# ibnetdiscover, from the other device: the switch, with the LID the SM
# gave it, linked to every HCA port.
netdiscover() {
	local out i guid rc=0
	out=$(ibnetdiscover -C "$CA1" -P 2) || { echo "$out"; return 1; }
	echo "$out"
	grep -q "^Switch[[:space:]]4 \"S-${SW_GUID#0x}\".* lid $(switch_lid) " \
		<<<"$out" || { echo "no switch"; rc=1; }
	for i in 0 1 2 3; do
		guid=$(tr -d ':' <"$SYS/${HCA_PORTS[i]%/*}/node_guid")
		grep -qE "^\[$((i + 1))\][[:space:]]+\"H-$guid\"\[${HCA_PORTS[i]#*/}\]" \
			<<<"$out" || { echo "no link to ${HCA_PORTS[i]}"; rc=1; }
	done
	return "$rc"
}

# The SA answers: a NodeRecord for each HCA port's LID names its node,
# and one for the switch's.
sa_records() {
	local p out rc=0
	for p in "${HCA_PORTS[@]}"; do
		out=$(saquery -C "$CA1" -P 2 NR "$(lid "$p")") || return
		grep -q "node_guid\.*$(sysfs_guid "$SYS/${p%/*}/node_guid")" \
			<<<"$out" || { echo "$out"; echo "$p: no NodeRecord"; rc=1; }
	done
	out=$(saquery -C "$CA1" -P 2 NR "$(switch_lid)") || return
	grep -q "node_type\.*Switch" <<<"$out" ||
		{ echo "$out"; echo "switch: no NodeRecord"; rc=1; }
	return "$rc"
}

# netdev_of DEVICE/PORT: the IPoIB interface of the port: its hardware
# address ends with the port's GUID.
netdev_of() {
	local guid n
	guid=$(port_guid "${1%/*}" "${1#*/}")
	guid=$(sed 's/../&:/g; s/:$//' <<<"${guid#0x}")
	for n in /sys/class/net/*; do
		[[ $(<"$n/address") != *"$guid" ]] || { basename "$n"; return; }
	done
	return 1
}

# IPoIB on rvtsw_0's two ports, each in a namespace of its own.
ipoib_up() {
	local a b
	modprobe ib_ipoib || return
	wait_for 50 netdev_of "$CA0/2" || return
	a=$(netdev_of "$CA0/1") && b=$(netdev_of "$CA0/2") || return
	echo "$CA0/1: $a in $NS_A, $CA0/2: $b in $NS_B"
	ip netns add "$NS_A" && ip netns add "$NS_B" &&
		ip link set "$a" netns "$NS_A" &&
		ip link set "$b" netns "$NS_B" &&
		ip -n "$NS_A" addr add "$ADDR_A/24" dev "$a" &&
		ip -n "$NS_B" addr add "$ADDR_B/24" dev "$b" &&
		ip -n "$NS_A" link set "$a" up && ip -n "$NS_B" link set "$b" up
}

in_a() { ip netns exec "$NS_A" "$@"; }
in_b() { ip netns exec "$NS_B" "$@"; }

# Namespace A pings namespace B across the switch.
ipoib_ping() {
	# The first packets wait for the joins and the path queries.
	local out
	in_a ping -c 1 -W 10 "$ADDR_B" >/dev/null
	out=$(in_a ping -c 3 -W 5 "$ADDR_B")
	echo "$out"
	grep -q " 3 received" <<<"$out"
}

# Both IPoIB ports joined the broadcast group: the SA has it and the
# SM put switch ports 1 and 2 in its MFT entry, and no other.
broadcast_in_mft() {
	local out mlid mask
	out=$(saquery -C "$CA1" -P 2 -g 2>&1) || { echo "$out"; return 1; }
	mlid=$(grep -A1 "MGID\.*ff12:401b:ffff::ffff:ffff" <<<"$out" |
		sed -n 's/.*Mlid\.*//p')
	echo "broadcast group MLID: ${mlid:-none}"
	[[ -n $mlid ]] || { echo "$out"; return 1; }
	mask=$("$WORK/smp_table" "$CA1" 2 mft "$(switch_lid)" "$mlid") || return
	echo "its MFT entry: $mask"
	expect "MFT ports" "${mask#* }" 0x6
}

# run_pair NAME SERVER_CMD -- CLIENT_CMD: the server in namespace A, the
# client in B. An rdma_cm server listens on no TCP port to wait for, so
# the client starts after a pause and tries again while the server was
# not listening yet (rejected). Both outputs are shown; both must exit 0.
run_pair() {
	local name=$1 server=() spid rc=0 src=0 try
	shift
	while [[ $1 != -- ]]; do server+=("$1"); shift; done
	shift
	in_a timeout 120 "${server[@]}" >"$WORK/$name.server" 2>&1 &
	spid=$!
	for try in 1 2 3 4 5; do
		sleep 2
		rc=0
		in_b timeout 120 "$@" >"$WORK/$name.client" 2>&1 || rc=$?
		# Rejected: the server was not listening yet.
		if ((rc == 0)) || ! kill -0 "$spid" 2>/dev/null ||
		   ! grep -qi "reject\|refused" "$WORK/$name.client"; then
			break
		fi
	done
	wait "$spid" || src=$?
	echo "server (status $src):"
	indent <"$WORK/$name.server"
	echo "client (status $rc, try $try):"
	indent <"$WORK/$name.client"
	((rc == 0 && src == 0))
}

# rping: five pings, each one's data checked by both ends (-V).
rping_test() {
	run_pair rping rping -s -a "$ADDR_A" -C 5 -V -v -- \
		rping -c -a "$ADDR_A" -C 5 -V -v || return
	[[ $(grep -c "ping data: rdma-ping-" "$WORK/rping.client") == 5 &&
	   $(grep -c "ping data: rdma-ping-" "$WORK/rping.server") == 5 ]]
}

ucmatose_test() {
	run_pair ucmatose ucmatose -b "$ADDR_A" -- ucmatose -s "$ADDR_A" &&
		grep -q "data transfers complete" "$WORK/ucmatose.server" &&
		grep -q "data transfers complete" "$WORK/ucmatose.client"
}

udaddy_test() {
	run_pair udaddy udaddy -b "$ADDR_A" -- udaddy -s "$ADDR_A" &&
		grep -q "data transfers complete" "$WORK/udaddy.server" &&
		grep -q "data transfers complete" "$WORK/udaddy.client"
}

# mckey: B sends ten datagrams to a multicast group A joined; A receives
# them all.
mckey_test() {
	run_pair mckey mckey -m 239.78.0.1 -b "$ADDR_A" -C 10 -- \
		mckey -m 239.78.0.1 -b "$ADDR_B" -s -C 10 &&
		grep -q "data transfers complete" "$WORK/mckey.server"
}

# perftest PROG: PROG with its connection set up by rdma_cm (-R), 200
# iterations, between rvtsw_0's two ports; the client's result line has
# them.
perftest_cm() {
	local prog=$1
	run_pair "$prog" "$prog" -R -d "$CA0" -i 1 -n 200 -F -- \
		"$prog" -R -d "$CA0" -i 2 -n 200 -F "$ADDR_A" &&
		grep -qE "^ +[0-9]+ +200 " "$WORK/$prog.client"
}

# Switch port 3 disabled, LID-routed: its HCA port goes DOWN; enabled
# again, the SM sees the PortStateChange at its next sweep and brings the
# port back ACTIVE, with its LID.
resweep() {
	local p=$CA1/1 was
	was=$(lid "$p")
	ibportstate -C "$CA0" -P 1 "$(switch_lid)" 3 disable >/dev/null || return
	expect_state "$p" DOWN || return
	ibportstate -C "$CA0" -P 1 "$(switch_lid)" 3 enable >/dev/null || return
	expect_state "$p" INIT || return
	wait_for 600 is_state "$p" ACTIVE
	expect_state "$p" ACTIVE && expect "$p lid" "$(lid "$p")" "$was"
}

# Back to one namespace, IPoIB and the SM gone, rvtsw unloaded.
teardown() {
	local n
	for n in $(ip -n "$NS_A" -br link | awk '$1 != "lo" {print $1}'); do
		ip -n "$NS_A" link set "$n" netns 1
	done
	for n in $(ip -n "$NS_B" -br link | awk '$1 != "lo" {print $1}'); do
		ip -n "$NS_B" link set "$n" netns 1
	done
	ip netns del "$NS_A" && ip netns del "$NS_B" || return
	stop_opensm && modprobe -r ib_ipoib && unload_all
}

step build build
step setup load_managed
t managed-fresh fresh
t no-data-before-active no_data_before_active
t hca-state-machine hca_state_machine
t set-refused-whole set_refused_whole
t switch-state-machine switch_state_machine
step reload reload_managed
t opensm-subnet-up start_opensm
t lids-assigned lids_assigned
t lft-by-sm lft_by_sm
t ibnetdiscover-managed netdiscover
t saquery-records sa_records
t ud-across-devices pingpong ibv_ud_pingpong "$CA0:1" "$CA1:2"
step ipoib ipoib_up
t ipoib-ping-netns ipoib_ping
t broadcast-in-mft broadcast_in_mft
t rping rping_test
t ucmatose ucmatose_test
t udaddy udaddy_test
t mckey mckey_test
t ib-send-bw-cm perftest_cm ib_send_bw
t ib-write-lat-cm perftest_cm ib_write_lat
t port-resweep resweep
t ud-after-resweep pingpong ibv_ud_pingpong "$CA0:1" "$CA1:1"
step teardown teardown
