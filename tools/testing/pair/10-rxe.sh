#!/bin/bash
# rdma_rxe between the two guests of a pair (tools/vm/pair.sh), over
# their virtio-net link: the baseline that rvtsw's uplink is later
# measured and tested against (issue 34), and a test of the pair
# harness itself. Each guest makes rxe0 on its eth0; b runs the servers,
# a the clients, and each side reports its own verdict: RC and UD
# ping-pongs with every buffer checked (-c), rping with its data
# validated, and perftest's RC send, write, read and atomic bandwidth
# tests, each with all its iterations counted and, on the side that
# measures, positive figures.
set -uo pipefail

# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/perftest.sh
source "$TESTING_DIR/lib/perftest.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/pair.sh
source "$TESTING_DIR/lib/pair.sh"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
GID_IDX=
# What rping sends and checks (-V) each time, and how many.
RPING_COUNT=5
PERF_ITERS=200
ATOMIC_ITERS=500

server_addr() {
	if is_server; then echo "$LINK_ADDR"; else echo "$PEER_ADDR"; fi
}

# pingpong_test NAME PROG [ARGS...]: PROG between the guests, ITERS
# exchanges with both sides' buffers checked; this side finished all.
pingpong_test() {
	local name=$1 prog=$2 port out=$WORK/$1
	shift 2
	port=$(next_port)
	# shellcheck disable=SC2034 # passed by name
	local cmd=("$prog" -d rxe0 -g "$GID_IDX" -p "$port" -n "$ITERS" -c "$@")
	# shellcheck disable=SC2034
	local ccmd=("${cmd[@]}" "$PEER_ADDR")
	pair_run "$name" "$out" "tcp_listening $port" cmd ccmd || return
	grep -q "^$ITERS iters in" "$out" ||
		{ echo "no '$ITERS iters in' on this side"; return 1; }
}

# rdma_cm's listener for rping, once it is there.
rping_listening() {
	rdma resource show cm_id | grep -q 'state LISTEN.*comm rping'
}

# rping: RPING_COUNT pings, each one's data checked (-V) and shown (-v)
# on this side.
rping_test() {
	local out=$WORK/rping got
	# shellcheck disable=SC2034 # passed by name
	local scmd=(rping -s -a "$(server_addr)" -C "$RPING_COUNT" -V -v)
	# shellcheck disable=SC2034
	local ccmd=(rping -c -a "$(server_addr)" -C "$RPING_COUNT" -V -v)
	pair_run rping "$out" rping_listening scmd ccmd || return
	got=$(grep -c "ping data: rdma-ping-" "$out")
	((got == RPING_COUNT)) ||
		{ echo "$got pings on this side, $RPING_COUNT sent"; return 1; }
}

# perftest_test NAME ITERS PROG [ARGS...]: a perftest RC program between
# the guests: this side exits 0; the client's report counts all ITERS
# iterations with positive figures (unless its clock calibration failed:
# lib/perftest.sh), and so does the server's when it prints one (its
# figures, on the passive side, are the client's: not judged there).
perftest_test() {
	local name=$1 iters=$2 prog=$3 port out=$WORK/$1
	shift 3
	port=$(next_port)
	# shellcheck disable=SC2034 # passed by name
	local cmd=("$prog" -d rxe0 -x "$GID_IDX" -p "$port" -F -n "$iters" "$@")
	# shellcheck disable=SC2034
	local ccmd=("${cmd[@]}" "$PEER_ADDR")
	pair_run "$name" "$out" "tcp_listening $port" cmd ccmd || return
	if ! is_server; then
		perf_side_ok bw "$out" "$iters"
	elif [[ -n $(perf_report_line "$out") ]]; then
		[[ $(perf_iterations "$out") == "$iters" ]] ||
			{ echo "server: $(perf_iterations "$out") iterations reported, $iters run"; return 1; }
	fi
}

plan 7
pair_start
pair_step rxe-up rxe_link_up &&
	GID_IDX=$(gid_index rxe0 "$LINK_ADDR") &&
	echo "rxe0: RoCE v2 GID $GID_IDX of $LINK_ADDR"
pair_step peer-ping ping -c 2 -W 5 "$PEER_ADDR"

t rc-pingpong pingpong_test rc-pingpong ibv_rc_pingpong
t ud-pingpong pingpong_test ud-pingpong ibv_ud_pingpong -s 512
t rping rping_test
t send-bw perftest_test send-bw "$PERF_ITERS" ib_send_bw
t write-bw perftest_test write-bw "$PERF_ITERS" ib_write_bw
t read-bw perftest_test read-bw "$PERF_ITERS" ib_read_bw
t atomic-bw perftest_test atomic-bw "$ATOMIC_ITERS" ib_atomic_bw

pair_step rxe-down rxe_link_down
