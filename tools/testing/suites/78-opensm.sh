#!/bin/bash
# A managed fabric (rvtsw managed=1), brought up by Debian's OpenSM.
#
# First without an SM: every port starts in INIT with LID 0 and the
# switch unprogrammed; data does not cross a port that is not ACTIVE;
# PortInfo Sets (ibportstate) walk the state machine at an HCA's port and
# at a switch port (INIT, ARMED, ACTIVE, DOWN and back to INIT; disable,
# enable), forbidden moves and fields are refused and change nothing.
# Then, on a fresh load, OpenSM: every port ACTIVE with its own LID, the
# switch's LFT by the SM, the fabric in ibnetdiscover, every link in
# iblinkinfo, the SA's records, UD between devices; IPoIB in two network
# namespaces (ping), perfquery by LID counting the pings, the broadcast
# group's joins in the MFT; rdma_cm over it (rping,
# ucmatose, udaddy, mckey, ib_send_bw -R, ib_write_lat -R); a switch port
# disabled and enabled again is swept again and comes back ACTIVE.
#
# Two devices of two ports: HCA ports on switch ports 1-4. The rdma_cm
# programs run between rvtsw_0 port 1 and rvtsw_1 port 1, each in its own
# namespace: RC and UC cross the switch as packets (73-wire).
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

plan 23

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

cleanup() {
	pkill -x opensm
	ip netns del "$NS_A" 2>/dev/null
	ip netns del "$NS_B" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

# phys DEVICE/PORT: its physical state (LinkUp, Polling, Disabled).
phys() {
	local s
	s=$(<"$SYS/${1%/*}/ports/${1#*/}/phys_state")
	echo "${s#*: }"
}

all_active() {
	ports_are ACTIVE "${HCA_PORTS[@]}"
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
		expect "$p state" "$(port_state "$p")" INIT || rc=1
		expect "$p phys" "$(phys "$p")" LinkUp || rc=1
		expect "$p lid" "$(port_lid "$p")" 0 || rc=1
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
# and the sending port counts each datagram it could not send. The
# server, which never gets a datagram either, is stopped once the client
# is done: a timeout of its own would race the client's connect on a
# slow (debug) kernel, and a client that cannot connect sends nothing.
no_data_before_active() {
	local before after out port=$((TCP_PORT + 700)) spid rc=0
	before=$(hw_counter "$CA0" 1 drop_link_not_active)
	timeout 300 ibv_ud_pingpong -d "$CA0" -i 2 -p "$port" -n 3 \
		>"$WORK/server" 2>&1 &
	spid=$!
	if ! wait_for 100 tcp_listening "$port"; then
		echo "the server never listened:"
		cat "$WORK/server"
		kill "$spid" 2>/dev/null
		return 1
	fi
	out=$(timeout 10 ibv_ud_pingpong -d "$CA0" -i 1 -p "$port" -n 3 \
		localhost 2>&1) || rc=$?
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	after=$(hw_counter "$CA0" 1 drop_link_not_active)
	echo "$out"
	echo "client status $rc, drop_link_not_active +$((after - before))"
	((rc != 0 && after > before)) && return
	echo "the server said:"
	cat "$WORK/server"
	return 1
}

# ibp DEVICE/PORT OP...: ibportstate on the port itself (directed route
# of no hops), ops as ibportstate takes them; the output is shown.
ibp() {
	ibportstate -C "${1%/*}" -P "${1#*/}" -D 0 "${1#*/}" "${@:2}" 2>&1
}

# expect_state DEVICE/PORT STATE: the port is in STATE now.
expect_state() {
	expect "$1" "$(port_state "$1")" "$2"
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
	ibp "$p" lid 0x30 >/dev/null && expect "$p lid" "$(port_lid "$p")" 48
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
	expect "$p lid" "$(port_lid "$p")" 48
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

# Every port has a LID of its own, not 0, and the SM's LID as its SM LID;
# so has the switch.
lids_assigned() {
	local p l sm seen=" " rc=0
	sm=$(port_lid "$CA0/1")
	for p in "${HCA_PORTS[@]}"; do
		l=$(port_lid "$p")
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
		grep -q "^$(printf '0x%04x %03d :' "$(port_lid "${HCA_PORTS[i]}")" \
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

# links: iblinkinfo -l's lines, one link each, as "GUID LID PORT STATE
# PHYS PEER_GUID PEER_LID PEER_PORT" (port GUIDs, decimal LIDs).
links() {
	sed -nE 's/^(0x[0-9a-f]+) "[^"]*" +([0-9]+) +([0-9]+)\[[^]]*\] ==\(.* ([A-Za-z]+)\/ *([A-Za-z]+)\)==> +(0x[0-9a-f]+) +([0-9]+) +([0-9]+)\[.*/\1 \2 \3 \4 \5 \6 \7 \8/p'
}

# iblinkinfo, from the other device: switch port N (1-4) Active and
# LinkUp, linked to the Nth HCA port (its GUID, SM-given LID and number),
# that port linked back to switch port N; and no other link.
linkinfo() {
	local out got i p end want rc=0 sw
	sw=$(switch_lid)
	out=$(iblinkinfo -C "$CA1" -P 2 -l) || { echo "$out"; return 1; }
	echo "$out"
	got=$(links <<<"$out")
	for i in 0 1 2 3; do
		p=${HCA_PORTS[i]}
		end="$(port_guid "${p%/*}" "${p#*/}") $(port_lid "$p") ${p#*/}"
		for want in "$SW_GUID $sw $((i + 1)) Active LinkUp $end" \
			    "$end Active LinkUp $SW_GUID $sw $((i + 1))"; do
			grep -qFx "$want" <<<"$got" ||
				{ echo "no link: $want"; rc=1; }
		done
	done
	expect links "$(grep -c . <<<"$got")" 8 || rc=1
	return "$rc"
}

# The SA answers: a NodeRecord for each HCA port's LID names its node,
# and one for the switch's.
sa_records() {
	local p out rc=0
	for p in "${HCA_PORTS[@]}"; do
		out=$(saquery -C "$CA1" -P 2 NR "$(port_lid "$p")") || return
		grep -q "node_guid\.*$(sysfs_guid "$SYS/${p%/*}/node_guid")" \
			<<<"$out" || { echo "$out"; echo "$p: no NodeRecord"; rc=1; }
	done
	out=$(saquery -C "$CA1" -P 2 NR "$(switch_lid)") || return
	grep -q "node_type\.*Switch" <<<"$out" ||
		{ echo "$out"; echo "switch: no NodeRecord"; rc=1; }
	return "$rc"
}

# IPoIB on rvtsw_0 port 1 and rvtsw_1 port 1, each in a namespace of its
# own.
ipoib_up() {
	modprobe ib_ipoib && wait_for 50 netdev_of "$CA1/1" &&
		netns_with_port "$NS_A" "$CA0/1" "$ADDR_A" &&
		netns_with_port "$NS_B" "$CA1/1" "$ADDR_B"
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

# perf_pkts DEVICE/PORT: "XMIT RCV", the port's PortXmitPkts and
# PortRcvPkts, asked from rvtsw_1 port 2 by the port's LID: the query and
# its answer cross the switch by the SM's LFT.
perf_pkts() {
	local out l
	l=$(port_lid "$1")
	out=$(perfquery -C "$CA1" -P 2 "$l" "${1#*/}") || { echo "$out"; return 1; }
	grep -q "^# Port counters: Lid $l port ${1#*/} " <<<"$out" ||
		{ echo "$out"; return 1; }
	echo "$(field PortXmitPkts <<<"$out") $(field PortRcvPkts <<<"$out")"
}

# Twenty pings from namespace A to B: rvtsw_1 port 1, B's, received each
# request and sent each reply, so perfquery sees both its packet
# counters grow by twenty at least (IPoIB's own traffic and perfquery's
# MADs may add a few).
perfquery_counts_ping() {
	local before after out n=20 x0 r0 x1 r1
	before=$(perf_pkts "$CA1/1") || { echo "$before"; return 1; }
	out=$(in_a ping -c "$n" -i 0.2 -W 5 "$ADDR_B")
	echo "$out"
	grep -q " $n received" <<<"$out" || return
	after=$(perf_pkts "$CA1/1") || { echo "$after"; return 1; }
	read -r x0 r0 <<<"$before"
	read -r x1 r1 <<<"$after"
	echo "$CA1/1: PortXmitPkts $x0 -> $x1, PortRcvPkts $r0 -> $r1"
	((x1 - x0 >= n && r1 - r0 >= n))
}

# Both IPoIB ports joined the broadcast group: the SA has it and the
# SM put switch ports 1 and 3 in its MFT entry, and no other.
broadcast_in_mft() {
	local out mlid mask
	out=$(saquery -C "$CA1" -P 2 -g 2>&1) || { echo "$out"; return 1; }
	mlid=$(grep -A1 "MGID\.*ff12:401b:ffff::ffff:ffff" <<<"$out" |
		sed -n 's/.*Mlid\.*//p')
	echo "broadcast group MLID: ${mlid:-none}"
	[[ -n $mlid ]] || { echo "$out"; return 1; }
	mask=$("$PROGS/smp_table" "$CA1" 2 mft "$(switch_lid)" "$mlid") || return
	echo "its MFT entry: $mask"
	expect "MFT ports" "${mask#* }" 0xa
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
# iterations, between the two devices; the client's result line has them.
perftest_cm() {
	local prog=$1
	run_pair "$prog" "$prog" -R -d "$CA0" -i 1 -n 200 -F -- \
		"$prog" -R -d "$CA1" -i 1 -n 200 -F "$ADDR_A" &&
		grep -qE "^ +[0-9]+ +200 " "$WORK/$prog.client"
}

# Switch port 2 disabled, LID-routed: its HCA port goes DOWN; enabled
# again, the SM hears of it (the switch's trap 128, or PortStateChange at
# its next sweep) and brings the port back ACTIVE, with its LID.
resweep() {
	local p=$CA0/2 was
	was=$(port_lid "$p")
	ibportstate -C "$CA0" -P 1 "$(switch_lid)" 2 disable >/dev/null || return
	expect_state "$p" DOWN || return
	ibportstate -C "$CA0" -P 1 "$(switch_lid)" 2 enable >/dev/null || return
	# The link trains to INIT, which is not asserted: woken by the trap,
	# the SM may have armed and activated the port before it is read.
	# Only the SM can make it ACTIVE (hca-state-machine: INIT on link up).
	wait_for 600 port_is "$p" ACTIVE
	expect_state "$p" ACTIVE && expect "$p lid" "$(port_lid "$p")" "$was"
}

# Back to one namespace, IPoIB and the SM gone, rvtsw unloaded.
teardown() {
	netns_release "$NS_A" && netns_release "$NS_B" &&
		kill_opensm && modprobe -r ib_ipoib && unload_all
}

step progs have_progs smp_table
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
t iblinkinfo-managed linkinfo
t saquery-records sa_records
t ud-across-devices pingpong ibv_ud_pingpong "$CA0:1" "$CA1:2"
step ipoib ipoib_up
t ipoib-ping-netns ipoib_ping
t perfquery-counts-ping perfquery_counts_ping
t broadcast-in-mft broadcast_in_mft
t rping rping_test
t ucmatose ucmatose_test
t udaddy udaddy_test
t mckey mckey_test
t ib-send-bw-cm perftest_cm ib_send_bw
t ib-write-lat-cm perftest_cm ib_write_lat
t port-resweep resweep
t ud-after-resweep pingpong ibv_ud_pingpong "$CA0:2" "$CA1:1"
step teardown teardown
