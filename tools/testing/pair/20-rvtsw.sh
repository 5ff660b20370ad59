#!/bin/bash
# rvtsw between the two guests of a pair (tools/vm/pair.sh), over its
# uplink (Documentation/wire.rst, "Uplinks"): each guest loads rvtsw
# managed, with uplink=eth0 (the virtio link), so that its switch's
# uplink port trains with the other guest's. One OpenSM, on b, then
# manages the fabric of both: two switches and two HCAs, every LID
# unique, as ibnetdiscover and smpquery see it from either side. Between
# rvtsw_0 of a and rvtsw_0 of b, as pair/10-rxe does for rxe (lib/pair.sh's
# link_* helpers): RC and UD ping-pongs with every buffer checked (-c),
# rping over IPoIB with its data validated (-V), and perftest's RC send,
# write, read and atomic bandwidth tests, all their iterations counted.
# b runs the servers and the SM, a the clients; each side reports its
# own verdict. The fabric's bring-up (rvtsw loaded, the SM, the uplink's
# MTU) is lib/pair.sh's, which make bench's rvtsw-link target shares.
set -uo pipefail

# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/perftest.sh
source "$TESTING_DIR/lib/perftest.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/pair.sh
source "$TESTING_DIR/lib/pair.sh"

CA=$LINK_CA
UP=$LINK_UP
PAIR_OUT=$(mktemp -d)
# IPoIB on rvtsw_0 port 1 of each guest, for rdma_cm (rping).
declare -A IB_ADDR=([a]=10.0.35.1 [b]=10.0.35.2)
PERF_ITERS=200
ATOMIC_ITERS=500
PAIR_PP_DEV=(-d "$CA" -i 1)
# perftest's MTU is the uplink's (-m, after sm-up: lib/pair.sh's link_mtu).
PAIR_PERF_DEV=(-d "$CA" -i 1)
MTU=

cleanup() {
	link_sm_stop >/dev/null
	rm -rf "$PAIR_OUT"
}
trap cleanup EXIT

# phys DEVICE/PORT: its physical state (LinkUp, Polling, Disabled).
phys() {
	local s
	s=$(<"$SYS/${1%/*}/ports/${1#*/}/phys_state")
	echo "${s#*: }"
}

uplink_linkup() { [[ $(phys "$UP/1") == LinkUp ]]; }

# The uplink trained with the peer's: the peer answers its heartbeat.
uplink_trained() {
	if ! wait_for 300 uplink_linkup; then
		echo "$UP/1: $(port_state "$UP/1"), $(phys "$UP/1") after 30 s"
		rdma statistic show link "$UP/1"
		return 1
	fi
	rdma link show "$UP/1"
}

# What this side knows of its own fabric half, for the peer: its HCA's
# LID, its switch's LID, its HCA's node GUID, its switch's GUID.
PEER_HCA_LID=
PEER_SW_LID=
PEER_HCA_GUID=
PEER_SW_GUID=
my_half() {
	echo "$(port_lid "$CA/1"):$(switch_lid):$(sysfs_guid "$SYS/$CA/node_guid"):$(smpquery -C "$CA" -P 1 -D nodeinfo 0,1 | field Guid)"
}

# exchange_halves: both sides' halves meet; PEER_* get the peer's.
exchange_halves() {
	local mine
	mine=$(my_half)
	barrier halves "$mine" || return
	IFS=: read -r PEER_HCA_LID PEER_SW_LID PEER_HCA_GUID PEER_SW_GUID \
		<<<"$PEER_WORD"
	echo "this side: HCA LID, switch LID, HCA GUID, switch GUID: ${mine//:/ }"
	echo "the peer:  ${PEER_WORD//:/ }"
}

# Four LIDs, none 0, none twice; two HCA and two switch GUIDs, none
# twice; both HCAs' SM is b's (one OpenSM for both hosts).
lids_unique() {
	local mine l seen=" " sm want rc=0
	exchange_halves || return
	mine=$(my_half)
	for l in "${mine%%:*}" "$(cut -d: -f2 <<<"$mine")" "$PEER_HCA_LID" \
		"$PEER_SW_LID"; do
		[[ -n $l && $l != 0 ]] || { echo "LID '$l'"; rc=1; }
		[[ $seen != *" $l "* ]] || { echo "LID $l twice"; rc=1; }
		seen+="$l "
	done
	[[ $(cut -d: -f3 <<<"$mine") != "$PEER_HCA_GUID" ]] ||
		{ echo "the HCAs share GUID $PEER_HCA_GUID"; rc=1; }
	[[ $(cut -d: -f4 <<<"$mine") != "$PEER_SW_GUID" ]] ||
		{ echo "the switches share GUID $PEER_SW_GUID"; rc=1; }
	sm=$(($(<"$SYS/$CA/ports/1/sm_lid")))
	if is_server; then want=${mine%%:*}; else want=$PEER_HCA_LID; fi
	expect "$CA/1 SM LID" "$sm" "$want" || rc=1
	if ! is_server && pgrep -x opensm >/dev/null; then
		echo "an OpenSM runs on a"
		rc=1
	fi
	return "$rc"
}

# ibnetdiscover from this side: two switches and two HCAs, each switch
# with its LID, and nothing else.
netdiscover() {
	local out mine rc=0 guid lid
	exchange_halves || return
	mine=$(my_half)
	out=$(ibnetdiscover -C "$CA" -P 1) || { echo "$out"; return 1; }
	echo "$out"
	expect switches "$(grep -c '^Switch' <<<"$out")" 2 || rc=1
	expect HCAs "$(grep -c '^Ca' <<<"$out")" 2 || rc=1
	for guid in "$(cut -d: -f3 <<<"$mine")" "$PEER_HCA_GUID"; do
		grep -qE "^Ca[[:space:]]+[0-9]+ \"H-${guid#0x}\"" <<<"$out" ||
			{ echo "no HCA $guid"; rc=1; }
	done
	for guid in "$(cut -d: -f4 <<<"$mine"):$(cut -d: -f2 <<<"$mine")" \
		"$PEER_SW_GUID:$PEER_SW_LID"; do
		lid=${guid#*:} guid=${guid%:*}
		grep -qE "^Switch[[:space:]]+[0-9]+ \"S-${guid#0x}\".* lid $lid " \
			<<<"$out" || { echo "no switch $guid with LID $lid"; rc=1; }
	done
	return "$rc"
}

# smpquery from this side, by LID: the peer's HCA and switch answer
# with their GUIDs, the peer's HCA port with its LID.
smpquery_peer() {
	local rc=0
	exchange_halves || return
	expect "NodeInfo of LID $PEER_HCA_LID" \
		"$(smpquery -C "$CA" -P 1 nodeinfo "$PEER_HCA_LID" | field Guid)" \
		"$PEER_HCA_GUID" || rc=1
	expect "NodeInfo of LID $PEER_SW_LID" \
		"$(smpquery -C "$CA" -P 1 nodeinfo "$PEER_SW_LID" | field Guid)" \
		"$PEER_SW_GUID" || rc=1
	expect "PortInfo of LID $PEER_HCA_LID" \
		"$(smpquery -C "$CA" -P 1 portinfo "$PEER_HCA_LID" 1 | field Lid)" \
		"$PEER_HCA_LID" || rc=1
	return "$rc"
}

# IPoIB on rvtsw_0 port 1 with this side's IB_ADDR/24.
ipoib_up() {
	local dev
	modprobe ib_ipoib && wait_for 50 netdev_of "$CA/1" || return
	dev=$(netdev_of "$CA/1")
	echo "$CA/1: $dev, ${IB_ADDR[$ROLE]}"
	ip addr add "${IB_ADDR[$ROLE]}/24" dev "$dev" && ip link set "$dev" up
}

# IPoIB carries pings across (a pings b; b waits for the barrier).
ipoib_ping() {
	local out peer=${IB_ADDR[a]} rc=0
	is_server || peer=${IB_ADDR[b]}
	# The first packets wait for the joins and the path queries.
	ping -c 1 -W 20 "$peer" >/dev/null
	out=$(ping -c 3 -W 5 "$peer") || rc=1
	echo "$out"
	grep -q " 3 received" <<<"$out" || rc=1
	barrier ipoib-ping "$rc" || return
	[[ $rc == 0 && $PEER_WORD == 0 ]] ||
		{ echo "the peer's pings: status $PEER_WORD"; return 1; }
}

# IPoIB gone, then the uplink's counters and rvtsw_0's, the SM gone,
# rvtsw unloaded (lib/pair.sh).
teardown() {
	modprobe -r ib_ipoib && rvtsw_link_down
}

plan 11
pair_start
pair_step load rvtsw_link_load
pair_step uplink-trained uplink_trained
pair_step sm-up link_sm_up && MTU=$(link_mtu) &&
	PAIR_PERF_DEV+=(-m "$MTU") &&
	echo "perftest: ${PAIR_PERF_DEV[*]}"

t lids-unique lids_unique
t ibnetdiscover netdiscover
t smpquery-peer smpquery_peer
t rc-pingpong link_pingpong rc-pingpong ibv_rc_pingpong
t ud-pingpong link_pingpong ud-pingpong ibv_ud_pingpong -s 512
pair_step ipoib ipoib_up
t ipoib-ping ipoib_ping
t rping link_rping "${IB_ADDR[b]}"
t send-bw link_perftest send-bw "$PERF_ITERS" ib_send_bw
t write-bw link_perftest write-bw "$PERF_ITERS" ib_write_bw
t read-bw link_perftest read-bw "$PERF_ITERS" ib_read_bw
t atomic-bw link_perftest atomic-bw "$ATOMIC_ITERS" ib_atomic_bw

pair_step teardown teardown
