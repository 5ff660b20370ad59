#!/bin/bash
# rvtsw's module parameter wire_all: every packet through the packet
# engine, a port's traffic to its own LID too (which otherwise takes
# rdmavt's loopback engine, or UD's direct delivery; Documentation/
# wire.rst). 70-traffic's ping-pongs on one port and between two ports
# of a device, their payloads checked (-c), and the port's counters
# seeing packets on the link and none through rdmavt's loopback. (Any
# suite runs this way with RVT_RVTSW_PARAMS=wire_all=1; this is the
# subset make check can afford.)
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

plan 8

# counter DEV PORT NAME: a port's hw counter. The IB core serves the
# file from a copy up to a jiffy old: let one pass.
counter() {
	sleep 0.02
	cat "/sys/class/infiniband/$1/ports/$2/hw_counters/$3"
}

# The ping-pongs' RC and UC went as packets over the port's link, none
# through rdmavt's loopback engine; UD's datagrams too.
wire_counted() {
	local loop wire
	loop=$(counter rvtsw_0 1 loopback_packets)
	wire=$(counter rvtsw_0 1 tx_link_packets)
	echo "rvtsw_0/1: loopback_packets $loop, tx_link_packets $wire"
	((loop == 0 && wire >= 8 * ITERS))
}

P1=rvtsw_0:1
step load load_rvtsw wire_all=1 ports=2
step ready wait_for 50 test -e /dev/infiniband/uverbs0
t rc-pingpong-events-100k pingpong ibv_rc_pingpong $P1 $P1 -c -e -s 100000
t uc-pingpong pingpong ibv_uc_pingpong $P1 $P1 -c
t ud-pingpong-4k pingpong ibv_ud_pingpong $P1 $P1 -c -s 4096
# One QP, for the reason 61-dp-user gives.
t srq-pingpong pingpong ibv_srq_pingpong $P1 $P1 -c -q 1
t rc-pingpong-2-ports pingpong ibv_rc_pingpong $P1 rvtsw_0:2 -c
t uc-pingpong-2-ports pingpong ibv_uc_pingpong $P1 rvtsw_0:2 -c -s 10000
t ud-pingpong-2-ports pingpong ibv_ud_pingpong $P1 rvtsw_0:2 -c
t wire-counted wire_counted
step unload unload_all
