#!/bin/bash
# rdma_rxe between the two guests of a pair (tools/vm/pair.sh), over
# their virtio-net link: the baseline that rvtsw's uplink is later
# measured and tested against (issue 34), and a test of the pair
# harness itself. Each guest makes rxe0 on its eth0; b runs the servers,
# a the clients, and each side reports its own verdict: RC and UD
# ping-pongs with every buffer checked (-c), rping with its data
# validated, and perftest's RC send, write, read and atomic bandwidth
# tests, each with all its iterations counted and, on the side that
# measures, positive figures (lib/pair.sh's link_* helpers, which
# pair/20-rvtsw runs over rvtsw's uplink).
set -uo pipefail

# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/perftest.sh
source "$TESTING_DIR/lib/perftest.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/pair.sh
source "$TESTING_DIR/lib/pair.sh"

PAIR_OUT=$(mktemp -d)
trap 'rm -rf "$PAIR_OUT"' EXIT
GID_IDX=
PERF_ITERS=200
ATOMIC_ITERS=500

server_addr() {
	if is_server; then echo "$LINK_ADDR"; else echo "$PEER_ADDR"; fi
}

plan 7
pair_start
pair_step rxe-up rxe_link_up &&
	GID_IDX=$(gid_index rxe0 "$LINK_ADDR") &&
	echo "rxe0: RoCE v2 GID $GID_IDX of $LINK_ADDR"
PAIR_PP_DEV=(-d rxe0 -g "$GID_IDX")
PAIR_PERF_DEV=(-d rxe0 -x "$GID_IDX")
pair_step peer-ping ping -c 2 -W 5 "$PEER_ADDR"

t rc-pingpong link_pingpong rc-pingpong ibv_rc_pingpong
t ud-pingpong link_pingpong ud-pingpong ibv_ud_pingpong -s 512
t rping link_rping "$(server_addr)"
t send-bw link_perftest send-bw "$PERF_ITERS" ib_send_bw
t write-bw link_perftest write-bw "$PERF_ITERS" ib_write_bw
t read-bw link_perftest read-bw "$PERF_ITERS" ib_read_bw
t atomic-bw link_perftest atomic-bw "$ATOMIC_ITERS" ib_atomic_bw

pair_step rxe-down rxe_link_down
