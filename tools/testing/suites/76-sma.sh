#!/bin/bash
# rvtsw's SMA and PMA, seen through infiniband-diags as a user sees them:
# smpquery's attributes field by field against sysfs (what query_device
# and query_port report), directed-route SMPs to the local port,
# LID-routed SMPs across devices, the MAD layer's answer for what is not
# the SMA's, and perfquery's counters against rvtsw's own.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

plan 17

CA0=rvtsw_0
CA1=rvtsw_1

setup() {
	modprobe ib_umad &&
		load_rvtsw devices=2 ports=2 extra_pkey=0x8001 &&
		wait_for 50 test -e "$SYS/$CA1/ports/2/lid"
}

# NodeInfo of the local port by a directed route of no hops.
nodeinfo_local() {
	local port=$1 out
	out=$(smpquery -C "$CA0" -P "$port" -D nodeinfo 0) || return
	echo "$out"
	expect_fields "$out" BaseVers=1 ClassVers=1 \
		"NodeType=Channel Adapter" NumPorts=2 \
		"SystemGuid=$(sysfs_guid "$SYS/$CA0/sys_image_guid")" \
		"Guid=$(sysfs_guid "$SYS/$CA0/node_guid")" \
		"PortGuid=$(port_guid "$CA0" "$port")" \
		PartCap=2 DevId=0x5357 Revision=0x00000001 \
		"LocalPort=$port" VendorId=0x001175
}

# NodeInfo of another device's port 2, LID-routed over QP0 from rvtsw_0.
nodeinfo_other_device() {
	local out
	out=$(smpquery -C "$CA0" -P 1 nodeinfo "$(sysfs_lid "$CA1" 2)") ||
		return
	echo "$out"
	expect_fields "$out" "Guid=$(sysfs_guid "$SYS/$CA1/node_guid")" \
		"PortGuid=$(port_guid "$CA1" 2)" LocalPort=2
}

# NodeDescription follows the node_desc that sysfs sets.
nodedesc() {
	local want="renamed by 76-sma" out
	out=$(smpquery -C "$CA0" -P 1 -D nodedesc 0) || return
	expect before "$(field "Node Description" <<<"$out")" \
		"$(<"$SYS/$CA0/node_desc")" || return
	echo -n "$want" >"$SYS/$CA0/node_desc" || return
	out=$(smpquery -C "$CA0" -P 1 -D nodedesc 0) || return
	echo "$out"
	expect after "$(field "Node Description" <<<"$out")" "$want"
}

# PortInfo of PORT, asked for on port 1 (modifier PORT): the port's
# fields, and LocalPort the port the SMP came in by.
portinfo() {
	local port=$1 out p=$SYS/$CA0/ports/$1
	out=$(smpquery -C "$CA0" -P 1 -D portinfo 0 "$port") || return
	echo "$out"
	expect_fields "$out" "Lid=$(sysfs_lid "$CA0" "$port")" \
		"SMLid=$(($(<"$p/sm_lid")))" "LMC=$(<"$p/lid_mask_count")" \
		LocalPort=1 LinkState=Active PhysLinkState=LinkUp \
		LinkWidthActive=4X LinkSpeedActive="10.0 Gbps" \
		LinkSpeedExtActive="25.78125 Gbps" NeighborMTU=4096 \
		MtuCap=4096 VLCap=VL0 OperVLs=VL0 GidPrefix=0xfe80000000000000 \
		|| return
	expect CapMask "$(($(field CapMask <<<"$out" | cut -d' ' -f1)))" \
		"$(($(<"$p/cap_mask")))"
}

# mad_refused STATUS CMD...: CMD (smpquery or perfquery) fails because
# the MAD's response had STATUS (libibmad prints it with -d), not for a
# timeout or any other cause.
mad_refused() {
	local status=$1 out
	shift
	if out=$("$1" -d "${@:2}" 2>&1); then
		echo "$out"
		echo "answered with success"
		return 1
	fi
	grep "error status\|iberror\|timed out" <<<"$out"
	grep -q "MAD completed with error status $status;" <<<"$out"
}

# A port beyond the device's: the SMA answers "invalid attribute
# modifier" (0x1c), and smpquery fails.
portinfo_bad_port() {
	local out
	mad_refused 0x1c smpquery -C "$CA0" -P 1 -D portinfo 0 3
}

# The P_Key table: both P_Keys, and a capacity of 2.
pkeys() {
	local out
	out=$(smpquery -C "$CA0" -P 1 -D pkeys 0) || return
	echo "$out"
	grep -q "0xffff" <<<"$out" && grep -q "0x8001" <<<"$out" &&
		grep -q "^2 pkeys capacity" <<<"$out"
}

# GUIDInfo: the port's GUID is entry 0.
guidinfo() {
	local out want
	out=$(smpquery -C "$CA0" -P 2 -D guidinfo 0) || return
	echo "$out"
	want=$(port_guid "$CA0" 2)
	grep -q "^Guid0:.*$want\|0: *$want\| $want" <<<"$out"
}

# Every SL maps to VL0.
sl2vl() {
	local out
	out=$(smpquery -C "$CA0" -P 1 -D sl2vl 0) || return
	echo "$out"
	# The table's row: 16 SLs, each on VL 0.
	grep -Eq '^ports: in +0, out +0: (\| 0){16}\|$' <<<"$out"
}

# VL arbitration: VL0 with weight 1 in both tables.
vlarb() {
	local out
	out=$(smpquery -C "$CA0" -P 1 -D vlarb 0) || return
	echo "$out"
	grep -q "VL *: *|0x0 " <<<"$out" && grep -q "WEIGHT *: *|0x1 " <<<"$out"
}

# SwitchInfo is not an HCA's: the SMA answers "unsupported method or
# attribute" (0xc), by directed route and by LID.
not_sma_attribute() {
	mad_refused 0xc smpquery -C "$CA0" -P 1 -D switchinfo 0 &&
		mad_refused 0xc smpquery -C "$CA0" -P 1 switchinfo \
			"$(sysfs_lid "$CA1" 1)"
}

# ClassPortInfo says the 64-bit counters exist: sysfs then shows the
# extended set.
pma_extended_counters() {
	local c=$SYS/$CA0/ports/1/counters
	ls "$c"
	test -r "$c/unicast_xmit_packets" && test -r "$c/multicast_rcv_packets"
}

# counters CA PORT: PMA counters (sysfs, read through process_mad: no
# traffic) and rvtsw's own hw_counters, as NAME=VALUE lines.
counters() {
	local c=$SYS/$1/ports/$2 f
	for f in port_xmit_packets port_rcv_packets port_xmit_data \
		port_rcv_data unicast_xmit_packets; do
		echo "$f=$(<"$c/counters/$f")"
	done
	for f in tx_packets rx_link_packets tx_link_words rx_link_words; do
		echo "$f=$(<"$c/hw_counters/$f")"
	done
}

# delta BEFORE AFTER NAME: how much NAME grew.
delta() {
	local a b
	a=$(sed -n "s/^$3=//p" <<<"$1")
	b=$(sed -n "s/^$3=//p" <<<"$2")
	echo $((b - a))
}

# The PMA counts what rvtsw's link counters count: a UD ping-pong
# between two devices, 2048-byte datagrams (520 words each on a link).
pma_counts_traffic() {
	local before after pkts rc=0
	before=$(counters "$CA0" 1)
	pingpong ibv_ud_pingpong "$CA1:1" "$CA0:1" -s 2048 || return
	after=$(counters "$CA0" 1)
	pkts=$(delta "$before" "$after" port_xmit_packets)
	echo "sent $pkts datagrams, received $(delta "$before" "$after" port_rcv_packets)"
	((pkts >= ITERS)) || { echo "fewer than $ITERS datagrams sent"; rc=1; }
	expect xmit-pkts "$pkts" "$(delta "$before" "$after" tx_packets)" || rc=1
	expect rcv-pkts "$(delta "$before" "$after" port_rcv_packets)" \
		"$(delta "$before" "$after" rx_link_packets)" || rc=1
	expect xmit-words "$(delta "$before" "$after" port_xmit_data)" \
		$((pkts * 520)) || rc=1
	expect rcv-words "$(delta "$before" "$after" port_rcv_data)" \
		"$(delta "$before" "$after" rx_link_words)" || rc=1
	expect unicast "$(delta "$before" "$after" unicast_xmit_packets)" \
		"$pkts" || rc=1
	return "$rc"
}

# perfquery over QP1 to the port's own LID. The PMA reads the counters
# before it sends its response; that response, a 256-byte MAD (72 words),
# is then the only packet more that sysfs sees.
perfquery_local() {
	local out sys lid
	lid=$(sysfs_lid "$CA0" 1)
	out=$(perfquery -C "$CA0" -P 1 -x "$lid" 1) || return
	sys=$(counters "$CA0" 1)
	echo "$out"
	expect xmit-pkts $(($(sed -n 's/^port_xmit_packets=//p' <<<"$sys") -
		$(field PortXmitPkts <<<"$out"))) 1 || return
	expect xmit-words $(($(sed -n 's/^port_xmit_data=//p' <<<"$sys") -
		$(field PortXmitData <<<"$out"))) 72
}

# A PortSelect beyond the device's ports is refused: "invalid attribute
# modifier" (0x1c).
perfquery_bad_port() {
	mad_refused 0x1c perfquery -C "$CA0" -P 1 "$(sysfs_lid "$CA0" 1)" 3
}

# perfquery -R clears the counters: afterwards sysfs sees only what the
# reset's own response added (one packet, 72 words).
perfquery_reset() {
	local sys
	perfquery -C "$CA0" -P 1 -R "$(sysfs_lid "$CA0" 1)" 1 || return
	sys=$(counters "$CA0" 1)
	echo "$sys"
	expect xmit-pkts "$(sed -n 's/^port_xmit_packets=//p' <<<"$sys")" 1 &&
		expect xmit-words "$(sed -n 's/^port_xmit_data=//p' <<<"$sys")" 72
}

teardown() {
	unload_all && modprobe -r ib_umad
}

step setup setup
t nodeinfo-local-port1 nodeinfo_local 1
t nodeinfo-local-port2 nodeinfo_local 2
t nodeinfo-lid-routed-other-device nodeinfo_other_device
t nodedesc-follows-sysfs nodedesc
t portinfo-port1 portinfo 1
t portinfo-port2-by-modifier portinfo 2
t portinfo-bad-port-refused portinfo_bad_port
t pkey-table pkeys
t guid-info guidinfo
t sl-to-vl sl2vl
t vl-arbitration vlarb
t switchinfo-unsupported not_sma_attribute
t pma-extended-counters pma_extended_counters
t pma-counts-traffic pma_counts_traffic
t perfquery-local perfquery_local
t perfquery-bad-port-refused perfquery_bad_port
t perfquery-reset perfquery_reset
step teardown teardown
