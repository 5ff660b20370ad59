#!/bin/bash
# rvtsw's virtual switch, seen as a user and a subnet manager see it:
# its SMA's attributes (NodeInfo, SwitchInfo, PortInfo of its ports, the
# forwarding tables) field by field, directed routes through it (hop
# pointer, initial and return paths; a path to a port it does not have),
# the fabric as ibnetdiscover and ibroute draw it, and routing by its
# tables: a wrong LFT entry sends GSI traffic to the wrong port, which
# drops it, and loses an RC connection's packets; an MFT entry without a
# port keeps a multicast group's datagrams from it. Then the tables are
# put back and traffic flows again.
#
# Two devices of two ports: HCA LIDs 1-4 on switch ports 1-4, the
# switch's own LID 5.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

plan 15

CA0=rvtsw_0
CA1=rvtsw_1
SW_LID=5
SW_GUID=0x0002c903019fff00
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

setup() {
	modprobe ib_umad &&
		load_rvtsw devices=2 ports=2 &&
		wait_for 50 test -e "$SYS/$CA1/ports/2/lid"
}

# smp [smpquery ARGS...]: smpquery from rvtsw_0 port 1, output shown.
smp() {
	local out
	out=$(smpquery -C "$CA0" -P 1 "$@") || { echo "$out"; return 1; }
	echo "$out"
}

# NodeInfo of the switch, one hop from the port it is asked from (the
# path's first hop is that port): its LocalPort is the switch port that
# port is linked to.
switch_nodeinfo() {
	local ca=$1 port=$2 sw_port=$3 out
	out=$(smpquery -C "$ca" -P "$port" -D nodeinfo "0,$port") || return
	echo "$out"
	expect_fields "$out" BaseVers=1 ClassVers=1 NodeType=Switch \
		NumPorts=4 "SystemGuid=$SW_GUID" "Guid=$SW_GUID" \
		"PortGuid=$SW_GUID" PartCap=1 DevId=0x5358 \
		Revision=0x00000001 "LocalPort=$sw_port" VendorId=0x001175
}

# Two hops, 0,1,PORT: out of the switch's port PORT, to the HCA port
# linked to it; the answer comes back by the return path.
through_switch() {
	local path=$1 ca=$2 port=$3 out
	out=$(smp -D nodeinfo "$path") || { echo "$out"; return 1; }
	echo "$out"
	expect_fields "$out" "NodeType=Channel Adapter" \
		"Guid=$(sysfs_guid "$SYS/$ca/node_guid")" \
		"PortGuid=$(port_guid "$ca" "$port")" "LocalPort=$port" || return
	out=$(smp -D portinfo "$path") || return
	expect_fields "$out" "Lid=$(($(<"$SYS/$ca/ports/$port/lid")))" \
		LinkState=Active
}

# A path through a port the switch does not have: the switch drops the
# SMP, and smpquery hears nothing back.
dr_no_such_port() {
	local out
	if out=$(smpquery -C "$CA0" -P 1 -D -t 500 nodeinfo 0,1,9 2>&1); then
		echo "$out"
		echo "answered"
		return 1
	fi
	grep -i "timeout\|timed out\|failed" <<<"$out"
}

# SwitchInfo, LID-routed to the switch's LID: its capacities and what a
# fresh fabric's tables hold.
switchinfo() {
	local out
	out=$(smp switchinfo "$SW_LID") || return
	expect_fields "$out" LinearFdbCap=49152 RandomFdbCap=0 \
		McastFdbCap=16383 "LinearFdbTop=$SW_LID" PartEnforceCap=0 \
		EnhancedPort0=0 StateChange=0
}

# PortInfo of each switch port: the links up and as fast as the HCAs';
# port 0 has the switch's LID.
switch_portinfo() {
	local out p rc=0
	for p in 1 2 3 4; do
		out=$(smp -D portinfo 0,1 "$p") || return
		expect_fields "$out" LinkState=Active PhysLinkState=LinkUp \
			LinkWidthActive=4X LinkSpeedExtActive="25.78125 Gbps" \
			NeighborMTU=4096 MtuCap=4096 LocalPort=1 ||
			{ echo "switch port $p"; rc=1; }
	done
	out=$(smp -D portinfo 0,1 0) || return
	expect_fields "$out" "Lid=$SW_LID" || rc=1
	return "$rc"
}

# ibnetdiscover draws the fabric: one switch with a link to each HCA
# port, two CAs.
netdiscover() {
	local out ca p sw_port=0 guid rc=0
	out=$(ibnetdiscover -C "$CA0" -P 1) || { echo "$out"; return 1; }
	echo "$out"
	grep -q "^Switch[[:space:]]4 \"S-${SW_GUID#0x}\".* lid $SW_LID " \
		<<<"$out" || { echo "no switch"; rc=1; }
	[[ $(grep -c '^Ca[[:space:]]' <<<"$out") == 2 ]] || { echo "not 2 CAs"; rc=1; }
	for ca in "$CA0" "$CA1"; do
		guid=$(tr -d ':' <"$SYS/$ca/node_guid")
		for p in 1 2; do
			((sw_port++))
			grep -qE "^\[$sw_port\][[:space:]]+\"H-$guid\"\[$p\]" <<<"$out" ||
				{ echo "no link: switch port $sw_port to $ca port $p"; rc=1; }
		done
	done
	return "$rc"
}

# ibroute: each HCA LID to its port, the switch's to port 0.
lft_fresh() {
	local out lid rc=0
	out=$(ibroute -C "$CA0" -P 1 "$SW_LID") || { echo "$out"; return 1; }
	echo "$out"
	for lid in 1 2 3 4; do
		grep -q "^0x000$lid 00$lid :" <<<"$out" || { echo "LID $lid"; rc=1; }
	done
	grep -q "^0x0005 000 :" <<<"$out" || { echo "LID 5"; rc=1; }
	return "$rc"
}

# lft LID [PORT]: read (and set) one LFT entry; prints the port.
lft() {
	local out
	out=$("$PROGS/smp_table" "$CA0" 1 lft "$SW_LID" "$@") || return
	[[ $out == "$1 "* ]] || { echo "$out"; return 1; }
	echo "${out#* }"
}

# A SubnSet of one LFT block takes, and ibroute sees it.
lft_set() {
	local got
	got=$(lft 3 4)
	[[ $got == 4 ]] || { echo "set: $got"; return 1; }
	got=$(lft 3)
	[[ $got == 4 ]] || { echo "get: $got"; return 1; }
	ibroute -C "$CA0" -P 1 "$SW_LID" | grep "^0x0003 004 :"
}

# ibping LID COUNT: GSI echo from rvtsw_0 port 1 to LID, with a server on
# rvtsw_1 port 1 (LID 3); prints how many answers came back.
ibping_answers() {
	local spid out
	ibping -S -C "$CA1" -P 1 >/dev/null 2>&1 &
	spid=$!
	sleep 1
	out=$(ibping -C "$CA0" -P 1 -c "$2" -t 500 "$1" 2>&1)
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	sed -n 's/.* transmitted, \([0-9]*\) received.*/\1/p' <<<"$out"
}

# With LID 3's entry on port 4, GSI packets for LID 3 arrive at rvtsw_1
# port 2 (LID 4), which drops them: no answer, a drop counted there.
misroute_gsi() {
	local before after got
	[[ $(lft 3) == 4 ]] || lft 3 4 >/dev/null || return
	before=$(hw_counter "$CA1" 2 drop_unknown_lid)
	got=$(ibping_answers 3 3)
	after=$(hw_counter "$CA1" 2 drop_unknown_lid)
	echo "answers $got, drops at $CA1 port 2: +$((after - before))"
	[[ $got == 0 ]] && ((after - before >= 3))
}

# Put LID 3 back on port 3: the echo answers again.
restore_gsi() {
	local got
	[[ $(lft 3 3) == 3 ]] || return
	got=$(ibping_answers 3 3)
	echo "answers $got"
	[[ $got == 3 ]]
}

# RC between the ports of rvtsw_0 (LIDs 1 and 2), with LID 2 sent to
# switch port 3: the client on port 1 sends first, to the server on port
# 2; its packets never reach it, and that send ends in a retry error.
misroute_rc() {
	local out port=$((TCP_PORT + 1000)) spid
	[[ $(lft 2 3) == 3 ]] || return
	timeout 60 ibv_rc_pingpong -d "$CA0" -i 2 -p "$port" -n 5 \
		>"$WORK/server" 2>&1 &
	spid=$!
	wait_for 100 tcp_listening "$port" || { kill "$spid"; return 1; }
	out=$(timeout 60 ibv_rc_pingpong -d "$CA0" -i 1 -p "$port" -n 5 \
		localhost 2>&1)
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	echo "$out"
	grep -q "retry counter exceeded" <<<"$out"
}

restore_rc() {
	[[ $(lft 2 2) == 2 ]] && pingpong ibv_rc_pingpong "$CA0:1" "$CA0:2"
}

# mft MLID [MASK]: read (and set) position 0 of one MFT entry.
mft() {
	local out
	out=$("$PROGS/smp_table" "$CA0" 1 mft "$SW_LID" "$@") || return
	echo "${out#* }"
}

# mcast_test's group (0xc001) with its entry on ports 1, 2 and 4: its
# member on rvtsw_1 port 1 (switch port 3) receives nothing; with port 3
# back, all three do.
mft_routing() {
	local out
	[[ $(mft 0xc001) == 0x1e ]] || { echo "fresh: $(mft 0xc001)"; return 1; }
	[[ $(mft 0xc001 0x16) == 0x16 ]] || return
	out=$("$PROGS/mcast_test" "$CA0:1" "$CA0:2" "$CA1:1" 2>&1)
	echo "$out"
	grep -q "^member 0 .*ok$" <<<"$out" &&
		grep -q "^member 1: no successful receive" <<<"$out" || return
	[[ $(mft 0xc001 0x1e) == 0x1e ]] || return
	"$PROGS/mcast_test" "$CA0:1" "$CA0:2" "$CA1:1"
}

step progs have_progs smp_table mcast_test
step setup setup
t switch-nodeinfo-dr switch_nodeinfo "$CA0" 1 1
t switch-nodeinfo-dr-port-4 switch_nodeinfo "$CA1" 2 4
t dr-through-switch through_switch 0,1,4 "$CA1" 2
t dr-back-to-own-device through_switch 0,1,2 "$CA0" 2
t dr-no-such-port dr_no_such_port
t switchinfo-lid-routed switchinfo
t switch-portinfo switch_portinfo
t ibnetdiscover netdiscover
t ibroute-fresh-lft lft_fresh
t lft-set lft_set
t lft-misroute-gsi misroute_gsi
t lft-restore-gsi restore_gsi
t lft-misroute-rc misroute_rc
t lft-restore-rc restore_rc
t mft-routing mft_routing
step unload unload_all
