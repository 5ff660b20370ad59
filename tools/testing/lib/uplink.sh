# shellcheck shell=bash
# What 82-uplink and 83-wirefuzz share (Documentation/wire.rst,
# "Uplinks"): a veth pair, veth0 rvtsw's uplink (UP, one device; CA is
# rvtsw_0), veth1 in the network namespace NS, which the suite names,
# where uplink_peer.py plays the other host's uplink; the peer started
# and stopped, the link trained, a good frame in and one out. Sourced
# after lib/suite.sh; the suite removes WORK at its end.

PEER_PY=$TESTING_DIR/py/uplink_peer.py
UP=rvtsw_up0
CA=rvtsw_0
WORK=$(mktemp -d)
# What the peer logs: a line a frame it heard (uplink_peer.py's serve).
LOG=$WORK/peer.log

# veth_up [MAC0 MAC1]: the veth pair, veth0 here, veth1 in NS, both up;
# veth0's and veth1's MAC addresses MAC0 and MAC1 if given, random if not.
# shellcheck disable=SC2120 # 83-wirefuzz passes its fixed ones (by step)
veth_up() {
	local mac0=() mac1=()
	if (($# == 2)); then
		mac0=(address "$1")
		mac1=(address "$2")
	fi
	modprobe veth && ip link add veth0 "${mac0[@]}" type veth \
		peer name veth1 "${mac1[@]}" &&
		ip netns add "$NS" && ip link set veth1 netns "$NS" &&
		ip link set veth0 up && ip -n "$NS" link set veth1 up
}

veth_down() {
	ip link del veth0 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	true
}

pid_gone() { ! kill -0 "$1" 2>/dev/null; }

# bg_start NAME CMD...: CMD in the background, its output in
# WORK/NAME.out, its PID in WORK/NAME.pid (tests run in command
# substitutions: it holds none of their output open).
bg_start() {
	local name=$1
	shift
	"$@" </dev/null >"$WORK/$name.out" 2>&1 &
	echo $! >"$WORK/$name.pid"
}

# bg_stop NAME SECONDS: SIGTERM, and gone within SECONDS.
bg_stop() {
	local pid
	[[ -s $WORK/$1.pid ]] || return 0
	pid=$(<"$WORK/$1.pid")
	: >"$WORK/$1.pid"
	kill "$pid" 2>/dev/null
	wait_for $(($2 * 10)) pid_gone "$pid"
}

# at_peer SCRIPT CMD ARG...: python SCRIPT's CMD in NS, on veth1, toward
# veth0's MAC address.
at_peer() {
	local script=$1 cmd=$2
	shift 2
	ip netns exec "$NS" "$PY" "$script" "$cmd" veth1 \
		"$(</sys/class/net/veth0/address)" "$@"
}

inject() { at_peer "$PEER_PY" inject "$@"; }

# peer_start [--no-echo]: the peer, answering heartbeats (or not), its
# log afresh.
# shellcheck disable=SC2120 # 82-uplink's no_echo_stays_down passes --no-echo
peer_start() {
	: >"$LOG"
	bg_start peer ip netns exec "$NS" "$PY" "$PEER_PY" serve veth1 "$LOG" "$@"
}

peer_stop() { bg_stop peer 5; }

# The uplink's port state; its counter NAME; a counter NAME of rvtsw_0
# port 1. The IB core serves hw_counters from a copy up to a jiffy old:
# let one pass.
up_state() { port_state "$UP/1"; }
up_counter() { sleep 0.02; hw_counter "$UP" 1 "$1"; }
ca_counter() { sleep 0.02; hw_counter "$CA" 1 "$1"; }

# The peer started, answering heartbeats: the link trains.
retrains() {
	peer_start
	wait_for 100 port_is "$UP/1" ACTIVE || { echo "state $(up_state)"; return 1; }
	echo "$UP/1 $(up_state)"
}

ca_rx_above() { (($(ca_counter rx_packets) > $1)); }

# good_frame_in [--any]: a good UD datagram from the peer reaches
# rvtsw_0's QP1 (the MAD layer's): rx_packets counts it once (with
# --any, moves at all).
good_frame_in() {
	local before after
	before=$(ca_counter rx_packets)
	inject good 1 || return
	wait_for 50 ca_rx_above "$before"
	after=$(ca_counter rx_packets)
	echo "rx_packets +$((after - before))"
	if [[ ${1:-} == --any ]]; then
		((after > before))
	else
		((after == before + 1))
	fi
}

# frame_out WHAT PATTERN CMD...: CMD sends a packet to LID 2; a frame the
# peer found good, matching PATTERN, arrives on veth1, the uplink counts
# it sent, and the peer found no bad one.
frame_out() {
	local what=$1 pattern=$2 before after
	shift 2
	before=$(up_counter uplink_tx_frames)
	"$@" >/dev/null 2>&1
	wait_for 50 grep -q "^DATA ok $pattern" "$LOG" ||
		{ echo "no $what frame in the peer's log:"; grep -v HELLO "$LOG" | tail; return 1; }
	grep "^DATA ok $pattern" "$LOG" | head -n 1
	after=$(up_counter uplink_tx_frames)
	echo "uplink_tx_frames +$((after - before))"
	((after > before)) || return 1
	! grep '^DATA bad\|^FRAME bad' "$LOG"
}
