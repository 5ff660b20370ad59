#!/bin/bash
# rvtsw's packet engine between two devices: RC, UC and UD as InfiniBand
# packets from rvtsw_0 port 1 across the switch to rvtsw_1 port 1
# (Documentation/wire.rst). libibverbs' ping-pongs with their payload
# checks (-c); perftest's send, write, read and atomic tests, judged as
# 72-perftest judges them; pyverbs cases (wire_test.py) for each RC
# operation, UC and a remote access error. (wire_all, a port's traffic
# to itself as packets: 71-wire-all; the recovery paths and bad packets,
# by the switch's fault knob: 75-wire-fault; rping between the devices,
# over IPoIB and an SM: 78-opensm.)
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

# shellcheck source-path=SCRIPTDIR source=../lib/perftest.sh
source "$TESTING_DIR/lib/perftest.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/pycases.sh
source "$TESTING_DIR/lib/pycases.sh"

A=rvtsw_0:1
B=rvtsw_1:1
WORK=$(mktemp -d)
CASES=(rc-send rc-write-imm rc-read rc-atomic uc remote-access)
PERF_ITERS=100
plan $((14 + ${#CASES[@]}))

# counter DEV NAME: port 1's hw counter NAME. The IB core serves the file
# from a copy up to a jiffy old: let one pass.
counter() {
	sleep 0.02
	cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"
}

# The ping-pongs' packets crossed both ports' links (the PMA counts them,
# RC and UC included), and the responders acknowledged RC requests: no
# more ACKs than requests that asked for one (ACKs are coalesced).
wire_counted() {
	local dev tx rx reqs acks rc=0
	for dev in rvtsw_0 rvtsw_1; do
		tx=$(counter $dev tx_link_packets)
		rx=$(counter $dev rx_link_packets)
		reqs=$(counter $dev rc_ack_requests)
		acks=$(counter $dev rc_acks_sent)
		echo "$dev: tx_link_packets $tx, rx_link_packets $rx," \
			"rc_ack_requests $reqs, rc_acks_sent $acks"
		((tx >= 4 * ITERS && rx >= 4 * ITERS)) || rc=1
		((acks >= ITERS && acks <= reqs)) || rc=1
	done
	perfquery -C rvtsw_0 -P 1 "$(sysfs_lid rvtsw_0 1)" 1 | grep -E 'Port(Xmit|Rcv)Pkts'
	return "$rc"
}

step load load_rvtsw devices=2
step ready wait_for 50 test -e /dev/infiniband/uverbs1
t rc-pingpong pingpong ibv_rc_pingpong $A $B -c
t rc-pingpong-100k pingpong ibv_rc_pingpong $A $B -c -s 100000
t uc-pingpong pingpong ibv_uc_pingpong $A $B -c
t ud-pingpong pingpong ibv_ud_pingpong $A $B -c -s 2048
# One QP, for the reason 61-dp-user gives.
t srq-pingpong pingpong ibv_srq_pingpong $A $B -c -q 1
t wire-counted wire_counted

PERF_DEV=rvtsw_0
PERF_CLIENT_DEV=rvtsw_1
t send-bw perf_test bw "$PERF_ITERS" ib_send_bw
t send-bw-uc perf_test bw "$PERF_ITERS" ib_send_bw -c UC
t send-bw-ud perf_test bw "$PERF_ITERS" ib_send_bw -c UD -s 2048
t write-bw perf_test bw "$PERF_ITERS" ib_write_bw
t write-bw-uc perf_test bw "$PERF_ITERS" ib_write_bw -c UC
t read-bw perf_test bw "$PERF_ITERS" ib_read_bw
t atomic-bw perf_test bw "$PERF_ITERS" ib_atomic_bw
t read-lat perf_test lat "$PERF_ITERS" ib_read_lat

pycases "$TESTING_DIR/py/wire_test.py" wire "${CASES[@]}"
step unload unload_all

rm -rf "$WORK"
