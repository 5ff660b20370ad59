#!/bin/bash
# rvtsw's packet engine under faults, between rvtsw_0 port 1 and
# rvtsw_1 port 1 (Documentation/wire.rst): the switch's fault knob
# (debugfs) drops, holds or spoils chosen packets, and wire_test.py's
# cases see every recovery path taken and its counter move, each payload
# checked: RNR NAKs and their retries (and retries exceeded), a sequence
# NAK, a request lost and sent again by the timer, a duplicate request,
# a READ response asked again, an atomic answered from the ACK queue and
# run once, retries exceeded (RETRY_EXC_ERR, then flush), a packet held
# and let go late. Then bad packets, one of each kind the receiver must
# drop, each counted by its reason, and the connection still carries
# data: short, wrong PktLen, bad VCRC, bad ICRC, unknown QPN, wrong
# P_Key, wrong Q_Key, PSN outside the window (a request's, an ACK's),
# longer than the path MTU, opcode out of sequence (UC: the message
# lost; RC: NAKed as an invalid request, both QPs in error, flushed, and
# carrying data again once reset).
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

# shellcheck source-path=SCRIPTDIR source=../lib/pycases.sh
source "$TESTING_DIR/lib/pycases.sh"

WORK=$(mktemp -d)
KNOB=/sys/kernel/debug/rvtsw/switch
CASES=(rnr rnr-exceeded seq-nak request-lost dup-request read-resend
	atomic-replay retry-exceeded hold-release
	bad-short bad-length bad-vcrc bad-icrc bad-qpn bad-pkey bad-qkey
	bad-psn bad-oversize bad-opcode bad-ack-psn
	bad-opcode-rc-only bad-opcode-rc-first bad-opcode-rc-write)
plan $((2 + ${#CASES[@]}))

# The knob's action is one of its names: anything else is refused.
action_refused() {
	local out
	out=$(bash -c 'echo nonsense >"$1"' bash "$KNOB/fault_action" 2>&1) &&
		{ echo "fault_action took 'nonsense'"; return 1; }
	echo "refused: $out"
	grep -q 'Invalid argument' <<<"$out" && grep -qx drop "$KNOB/fault_action"
}

step load load_rvtsw devices=2
step ready wait_for 50 test -e /dev/infiniband/uverbs1
t knob-action-refused action_refused
pycases "$TESTING_DIR/py/wire_test.py" wire "${CASES[@]}"
t knob-holds-nothing test "$(cat "$KNOB/fault_held")" = 0
step unload unload_all
rm -rf "$WORK"
