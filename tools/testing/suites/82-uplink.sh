#!/bin/bash
# rvtsw's uplink in one guest (Documentation/wire.rst, "Uplinks"): a veth
# pair, veth0 the uplink (rvtsw uplink=veth0, an unmanaged fabric of one
# device: rvtsw_0 port 1 on switch port 1, the uplink on port 2, which
# the switch's LFT gives LID 2), veth1 in a network namespace of its own
# where uplink_peer.py plays the other host's uplink. The GUIDs come from
# veth0's MAC address; the link stays down while nobody answers its
# heartbeat (or a peer talks but does not echo it), trains up when the
# peer answers and goes down when it stops; the switch port's MTU follows
# the interface's. Packets the switch sends to LID 2 leave on veth1 as
# frames of ethertype 0x88B5 whose LRH, BTH, ICRC and VCRC the peer
# checks; a packet from the peer reaches rvtsw_0; bad frames from the
# peer are dropped, each counted by its reason. `rdma link delete` takes
# the uplink apart, `rdma link add` makes one (once per interface), and
# an interface that goes away takes its uplink with it.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/uplink.sh
source "$TESTING_DIR/lib/uplink.sh"

NS=uplinkpeer
BAD=(short kind length runt vcrc icrc)
plan $((16 + ${#BAD[@]}))

# switch_port2 FIELD: a field of the switch's PortInfo of port 2 (the
# uplink's), one hop from rvtsw_0 port 1.
switch_port2() {
	smpquery -C "$CA" -P 1 -D portinfo 0,1 2 | field "$1"
}

# stays STATE SECONDS: the uplink's port is in STATE and stays so.
stays() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		port_is "$UP/1" "$1" || { echo "state $(up_state) after $i tenths"; return 1; }
		sleep 0.1
	done
	echo "$1 for $2 s"
}

# Every GUID from veth0's MAC: its 48 bits, then rvtsw's 16.
guids_from_mac() {
	local mac want rc=0
	mac=$(tr -d ':' </sys/class/net/veth0/address)
	want="${mac:0:4}:${mac:4:4}:${mac:8:4}"
	expect "$CA node_guid" "$(<"$SYS/$CA/node_guid")" "$want:0000" || rc=1
	expect "$UP node_guid" "$(<"$SYS/$UP/node_guid")" "$want:fe00" || rc=1
	expect "switch Guid" \
		"$(smpquery -C "$CA" -P 1 -D nodeinfo 0,1 | field Guid)" \
		"0x$mac""ff00" || rc=1
	return "$rc"
}

# A peer that sends heartbeats but never echoes ours: heard, not up.
no_echo_stays_down() {
	local before after
	before=$(up_counter uplink_rx_heartbeats)
	peer_start --no-echo
	stays DOWN 2 || return
	after=$(up_counter uplink_rx_heartbeats)
	peer_stop
	echo "heartbeats heard: $((after - before))"
	((after - before >= 5))
}

trains_up() {
	local out
	retrains || return
	out=$(rdma link show "$UP/1") || return
	echo "$out"
	grep -q "state ACTIVE physical_state LINK_UP netdev veth0" <<<"$out" &&
		expect "switch port 2 LinkState" "$(switch_port2 LinkState)" Active
}

# mtu_is IBMTU: the uplink's switch port has MTUCap and NeighborMTU IBMTU.
mtu_is() {
	local out
	out=$(smpquery -C "$CA" -P 1 -D portinfo 0,1 2)
	expect_fields "$out" "MtuCap=$1" "NeighborMTU=$1"
}

# bad_frame KIND: one bad frame from the peer, dropped and counted once
# by its reason (on the uplink, or at rvtsw_0 for the end-to-end ICRC).
bad_frame() {
	local kind=$1 dev=$UP counter before after i
	case $kind in
	short | runt) counter=drop_short ;;
	kind) counter=drop_malformed ;;
	length) counter=drop_bad_length ;;
	vcrc) counter=drop_bad_vcrc ;;
	icrc) counter=drop_bad_icrc dev=$CA ;;
	esac
	before=$(sleep 0.02; hw_counter "$dev" 1 "$counter")
	inject "$kind" 1 || return
	for ((i = 0; i < 50; i++)); do
		after=$(sleep 0.02; hw_counter "$dev" 1 "$counter")
		((after == before)) || break
		sleep 0.1
	done
	sleep 0.2
	after=$(sleep 0.02; hw_counter "$dev" 1 "$counter")
	echo "$kind: $dev $counter +$((after - before))"
	((after == before + 1))
}

peer_stops_down() {
	peer_stop
	wait_for 50 port_is "$UP/1" DOWN || { echo "state $(up_state)"; return 1; }
	expect "switch port 2 LinkState" "$(switch_port2 LinkState)" Down &&
		stays DOWN 2
}

# set_mtu N: both ends of the veth pair.
set_mtu() {
	ip link set veth0 mtu "$1" && ip -n "$NS" link set veth1 mtu "$1"
}

# The switch port's MTU follows veth0's: 9000 carries 4096, 300 carries
# nothing (the link goes down), 1500 1024 again.
mtu_follows() {
	set_mtu 9000 || return
	wait_for 100 port_is "$UP/1" ACTIVE && mtu_is 4096 || return
	set_mtu 300 || return
	wait_for 50 port_is "$UP/1" DOWN || { echo "up at MTU 300"; return 1; }
	stays DOWN 1 || return
	set_mtu 1500 || return
	wait_for 100 port_is "$UP/1" ACTIVE && mtu_is 1024
}

link_delete() {
	rdma link delete "$UP" || return
	wait_for 50 test ! -e "$SYS/$UP" || { echo "$UP still there"; return 1; }
	expect "switch port 2 LinkState" "$(switch_port2 LinkState)" Down
}

link_add() {
	local out
	rdma link add up1 type rvtsw netdev veth0 || return
	wait_for 100 port_is up1/1 ACTIVE || { echo "up1: $(port_state up1/1)"; return 1; }
	out=$(rdma link show up1/1) && echo "$out" &&
		grep -q "netdev veth0" <<<"$out"
}

# One uplink per interface: a second is refused, and the first stays.
link_add_twice() {
	local out
	out=$(rdma link add up2 type rvtsw netdev veth0 2>&1) &&
		{ echo "a second uplink on veth0"; return 1; }
	echo "refused: $out"
	test ! -e "$SYS/up2" && port_is up1/1 ACTIVE
}

# veth0 goes away: its uplink with it, and the switch port DOWN. The
# deletion returns only once every reference on veth0 is let go (the
# refused second uplink's too): a leaked one keeps it waiting for good,
# so it runs in the background, given 20 s.
netdev_gone() {
	local pid
	peer_stop
	ip link del veth0 &
	pid=$!
	wait_for 200 pid_gone "$pid" ||
		{ echo "ip link del veth0 still waiting after 20 s: a reference on veth0 leaked"; return 1; }
	wait "$pid" || return
	wait_for 100 test ! -e "$SYS/up1" || { echo "up1 still there"; return 1; }
	expect "switch port 2 LinkState" "$(switch_port2 LinkState)" Down
}

# Without uplink ports (uplinks=0, the default), rdma link add is refused.
no_uplink_port() {
	local out
	unload_rvtsw && load_rvtsw || return
	veth_down
	veth_up || return
	out=$(rdma link add up3 type rvtsw netdev veth0 2>&1) &&
		{ echo "made with no uplink port"; return 1; }
	echo "refused: $out"
	test ! -e "$SYS/up3"
}

step peer-crcs "$PY" "$PEER_PY" selftest
step veth veth_up
step load load_rvtsw uplink=veth0
step umad modprobe ib_umad
step ready wait_for 50 test -e "$SYS/$UP/ports/1/state"
t guids-from-mac guids_from_mac
t down-without-peer stays DOWN 2
t no-echo-stays-down no_echo_stays_down
t trains-up trains_up
t mtu-1500 mtu_is 1024
t frame-out-gmp frame_out GMP "vl=0 dlid=2 slid=1 lnh=2 opcode=0x64 dqpn=0x1 " \
	perfquery -C "$CA" -P 1 -t 200 2
t frame-out-smp frame_out SMP "vl=15 dlid=2 slid=1 lnh=2 opcode=0x64 dqpn=0x0 " \
	smpquery -C "$CA" -P 1 -t 200 nodeinfo 2
t good-frame-in good_frame_in
for kind in "${BAD[@]}"; do
	t "bad-$kind" bad_frame "$kind"
done
t peer-stops-down peer_stops_down
t retrains retrains
t mtu-follows mtu_follows
t link-delete link_delete
t link-add link_add
t link-add-twice link_add_twice
t netdev-gone netdev_gone
t no-uplink-port no_uplink_port
peer_stop
veth_down
step unload unload_all
rm -rf "$WORK"
