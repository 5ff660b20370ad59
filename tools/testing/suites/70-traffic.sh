#!/bin/bash
# Traffic between two processes with libibverbs' example programs: RC,
# UC, UD and SRQ ping-pong on one port, between two ports of a device,
# and (UD) between two devices; the port counters see it.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

plan 14

# counter DEV PORT NAME: the value of a port's hw counter. The IB core
# serves the file from a copy up to a jiffy old: let one pass.
counter() {
	sleep 0.02
	cat "/sys/class/infiniband/$1/ports/$2/hw_counters/$3"
}

# The UD ping-pong moved datagrams both ways through port 1, and `rdma
# statistic` shows the same counters.
ud_counted() {
	local tx rx
	tx=$(counter rvtsw_0 1 tx_packets)
	rx=$(counter rvtsw_0 1 rx_packets)
	echo "rvtsw_0/1: tx_packets $tx, rx_packets $rx"
	rdma statistic show link rvtsw_0/1
	((tx >= 2 * ITERS && rx >= 2 * ITERS)) &&
		rdma statistic show link rvtsw_0/1 | grep -qw "tx_packets $tx"
}

# RC and UC traffic went through rdmavt's loopback engine.
loopback_counted() {
	local n
	n=$(counter rvtsw_0 1 loopback_packets)
	echo "rvtsw_0/1: loopback_packets $n"
	((n >= 2 * ITERS))
}

# RC and UC through rdmavt's loopback engine, UD through rvtsw's delivery,
# SRQ on top of RC: on one port, between two ports of a device and (UD)
# between two devices. One load serves all: two devices of two ports.
step load load_rvtsw devices=2 ports=2
step ready wait_for 50 test -e /dev/infiniband/uverbs1
P1=rvtsw_0:1
t rc-pingpong pingpong ibv_rc_pingpong $P1 $P1 -c
t rc-pingpong-events-100k pingpong ibv_rc_pingpong $P1 $P1 -c -e -s 100000
t uc-pingpong pingpong ibv_uc_pingpong $P1 $P1 -c
t loopback-counted loopback_counted
t ud-pingpong-4k pingpong ibv_ud_pingpong $P1 $P1 -c -s 4096
t ud-pingpong-events pingpong ibv_ud_pingpong $P1 $P1 -c -e
t ud-counted ud_counted
# One QP, for the reason 61-dp-user gives.
t srq-pingpong pingpong ibv_srq_pingpong $P1 $P1 -c -q 1
t rc-pingpong-2-ports pingpong ibv_rc_pingpong $P1 rvtsw_0:2 -c
t ud-pingpong-2-ports pingpong ibv_ud_pingpong $P1 rvtsw_0:2 -c
t ud-pingpong-2-devices pingpong ibv_ud_pingpong $P1 rvtsw_1:2 -c
step unload unload_all

# The copy modes a driver can ask rdmavt for (dparms.sge_copy_mode): the
# data of 100 kB RC messages arrives intact (-c) when copied around the
# cache (1) and adaptively (2); in the adaptive mode rdmavt's working-set
# estimate counted the pages the messages landed in.
COPY_MODE=/sys/kernel/debug/rvtsw/rvtsw_0/copy_mode
working_set_counted() {
	cat "$COPY_MODE"
	grep -qx 'mode 2' "$COPY_MODE" &&
		(($(sed -n 's/^working_set_pages //p' "$COPY_MODE") > 0))
}
step load-copy-cacheless load_rvtsw sge_copy_mode=1
t rc-pingpong-copy-cacheless pingpong ibv_rc_pingpong $P1 $P1 -c -s 100000
step unload-copy-cacheless unload_all
step load-copy-adaptive load_rvtsw sge_copy_mode=2
t rc-pingpong-copy-adaptive pingpong ibv_rc_pingpong $P1 $P1 -c -s 100000
t copy-adaptive-working-set working_set_counted
step unload-copy-adaptive unload_all
