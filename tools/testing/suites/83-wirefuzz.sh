#!/bin/bash
# The wire fuzzer (issue 34, section 6; tools/testing/py/wire_fuzz.py):
# random and mutated frames of the uplink's ethertype sent into rvtsw's
# uplink from an AF_PACKET socket at the far end of its link, while RC,
# UC and UD QPs are live on rvtsw_0 (tools/testing/progs/wire_qps.c,
# connected to the fuzzer's LID) and the fuzzer keeps the link trained
# with heartbeats of its own. The setup is 82-uplink's: a veth pair,
# veth0 the uplink (rvtsw uplink=veth0, one device; wire_all=1, so that
# rvtsw_0's own traffic afterwards goes through the packet engine too),
# veth1 in a network namespace of its own.
#
# Nothing a frame says may make the kernel complain (the harness fails
# the run on any report; the debug kernel adds KASAN, lockdep, kmemleak).
# Afterwards: every drop reason the mix must reach was counted, on the
# uplink (what a link checks) or on rvtsw_0 (what a transport checks);
# the live QPs can be destroyed (none is stuck); the link trains again,
# a good frame still comes in and one goes out, an RC and a UD ping-pong
# over rvtsw_0 still carry data (-c, through the engine); rvtsw unloads.
#
# One run of RVT_WIREFUZZ_COUNT frames (default 20000) or
# RVT_WIREFUZZ_SECONDS (default 40), whichever ends first, from seed
# RVT_WIREFUZZ_SEED (default 83): make check's. `make fuzz-wire` runs it
# for 30 minutes on the debug kernel, with a seed from the date
# (Documentation/testing.rst). The seed and the frames' digest are
# printed; a seed and a count give the same frames (the MAC addresses
# and the MR's address are fixed), which reproducible checks by drawing
# them again:
#   wire_fuzz.py frames INFO --seed SEED --count N    (their digest)
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/uplink.sh
source "$TESTING_DIR/lib/uplink.sh"

FUZZ_PY=$TESTING_DIR/py/wire_fuzz.py
QPS=$PROGS/wire_qps
NS=wirefuzzpeer
PEER_LID=2
SEED=${RVT_WIREFUZZ_SEED:-83}
SECS=${RVT_WIREFUZZ_SECONDS:-40}
COUNT=${RVT_WIREFUZZ_COUNT:-20000}
INFO=$WORK/qps.info
# Each drop reason the mix must reach, and the device that counts it:
# the uplink counts what its frames and a link's checks find (and what
# the switch cannot route), rvtsw_0 what its transport finds.
UP_DROPS=(drop_short drop_malformed drop_bad_length drop_bad_vcrc
	drop_own_heartbeat drop_unknown_lid)
CA_DROPS=(drop_bad_icrc drop_malformed drop_no_dest_qp drop_bad_pkey
	drop_bad_qkey drop_psn_out_of_window drop_opcode_out_of_sequence
	drop_oversize)
plan 11

# The QPs: wire_qps holds them, connected to the peer's LID.
qps_start() {
	rm -f "$INFO"
	bg_start qps "$QPS" "$CA" "$PEER_LID" "$INFO"
	wait_for 100 test -s "$INFO" || { cat "$WORK/qps.out"; return 1; }
	cat "$INFO"
}

# wire_qps told to stop: it destroys its QPs, MR, CQ and PD, and says so
# (it runs outside this shell: its words, not its exit status).
qps_stop() {
	bg_stop qps 30 || { echo "wire_qps still running 30 s after SIGTERM"; return 1; }
	cat "$WORK/qps.out"
	grep -q "^wire_qps: every QP, the MR, CQ and PD destroyed" "$WORK/qps.out"
}

# The fuzzer's first find, fixed: a UC SEND out of sequence after a
# completed one let go of the completed one's receive buffer references
# again (the MR's count below zero, percpu_ref's WARN; its
# deregistration then failed with EBUSY).
uc_abort() {
	qps_start || return
	at_peer "$FUZZ_PY" uc-abort "$INFO" || return
	qps_stop
}

# counters DEV: each of DEV port 1's hw_counters, NAME VALUE a line.
counters() {
	local f
	sleep 0.02
	for f in "$SYS/$1/ports/1/hw_counters/"*; do
		[[ ${f##*/} == lifespan ]] || echo "${f##*/} $(($(<"$f")))"
	done
}

# The frames the run sent are the seed's and the count's alone: drawn
# again without a wire, they have the same digest.
reproducible() {
	local sent again seed count
	sent=$(grep -o 'seed [0-9]* count [0-9]* digest [0-9a-f]*' "$WORK/fuzz.out") ||
		{ echo "no digest from the run"; return 1; }
	read -r _ seed _ count _ _ <<<"$sent"
	again=$("$PY" "$FUZZ_PY" frames "$INFO" --seed "$seed" --count "$count") ||
		return
	echo "sent:   $sent"
	echo "drawn: ${again#wire_fuzz: }"
	[[ ${again#wire_fuzz: } == "$sent" ]]
}

fuzz() {
	counters "$UP" >"$WORK/$UP.before"
	counters "$CA" >"$WORK/$CA.before"
	at_peer "$FUZZ_PY" run "$INFO" --seed "$SEED" --count "$COUNT" \
		--seconds "$SECS" >"$WORK/fuzz.out" 2>&1
	local rc=$?
	cat "$WORK/fuzz.out"
	return "$rc"
}

# moved DEV NAME...: DEV's counters since fuzz began, every one that
# moved shown; each NAME must have.
moved() {
	local dev=$1 rc=0 name
	shift
	counters "$dev" >"$WORK/$dev.after"
	echo "$dev:"
	join <(sort "$WORK/$dev.before") <(sort "$WORK/$dev.after") |
		awk '$3 != $2 { printf "    %s +%d\n", $1, $3 - $2 }' | tee "$WORK/$dev.moved"
	for name; do
		grep -q "^    $name +" "$WORK/$dev.moved" ||
			{ echo "$dev $name did not move"; rc=1; }
	done
	return "$rc"
}

drops_counted() {
	local rc=0
	[[ -s $WORK/$UP.before ]] || { echo "no counters from before"; return 1; }
	moved "$UP" "${UP_DROPS[@]}" uplink_rx_frames || rc=1
	moved "$CA" "${CA_DROPS[@]}" rx_packets || rc=1
	return "$rc"
}

# The QPs the fuzz ran against are destroyed at wire_qps's exit: none
# stuck, and rvtsw_0 holds only its MAD QPs.
only_mad_qps() {
	local out
	out=$(rdma resource show qp link "$CA") || return
	printf '%s\n' "$out"
	! grep -vE "^link $CA/[0-9]+ lqpn [01] type (SMI|GSI) " <<<"$out" |
		grep -q .
}

qps_destroyed() {
	qps_stop || return
	wait_for 50 only_mad_qps
	only_mad_qps
}

step crcs "$PY" "$FUZZ_PY" selftest
step progs have_progs wire_qps
# Fixed MAC addresses: the frames carry them, and the uplink's GUIDs are
# made of veth0's (wire_fuzz.py's SUITE_*_MAC).
step veth veth_up 02:83:00:00:00:01 02:83:00:00:00:02
step load load_rvtsw uplink=veth0 wire_all=1
step umad modprobe ib_umad
step ready wait_for 50 test -e "$SYS/$UP/ports/1/state"
t uc-abort-after-send uc_abort
step qps qps_start
t fuzz fuzz
t reproducible reproducible
t drops-counted drops_counted
t qps-destroyed qps_destroyed
# The peer of 82-uplink, answering heartbeats: the link trains again, a
# good frame still comes in and a packet to the peer's LID still leaves
# on veth1, good (after the fuzz, the good frame is asked only to move
# rvtsw_0's rx_packets: --any).
t retrains retrains
t good-frame-in good_frame_in --any
t frame-out frame_out GMP "vl=0 dlid=$PEER_LID slid=1 " \
	perfquery -C "$CA" -P 1 -t 200 "$PEER_LID"
t rc-pingpong-after pingpong ibv_rc_pingpong "$CA:1" "$CA:1" -c
t ud-pingpong-after pingpong ibv_ud_pingpong "$CA:1" "$CA:1" -c
peer_stop
bg_stop qps 5
veth_down
t unload unload_all
rm -rf "$WORK"
