#!/bin/bash
# perftest's bandwidth and latency tests between two processes on
# rvtsw_0. Each is judged by what it is about: both sides finish without
# error and report every iteration done (lib/perftest.sh, perf_test).
# The figures are shown but judged only when perftest's clock calibration
# worked: under TCG it often does not, and that says nothing of rdmavt.
# Iteration counts are small: the guest runs under TCG.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

# shellcheck source-path=SCRIPTDIR source=../lib/perftest.sh
source "$TESTING_DIR/lib/perftest.sh"

ITERS=100
plan 11

step load load_rvtsw
step ready wait_for 50 test -e /dev/infiniband/uverbs0
t send-bw perf_test bw "$ITERS" ib_send_bw
t send-bw-uc perf_test bw "$ITERS" ib_send_bw -c UC
t send-bw-ud perf_test bw "$ITERS" ib_send_bw -c UD -s 2048
t write-bw perf_test bw "$ITERS" ib_write_bw
t read-bw perf_test bw "$ITERS" ib_read_bw
t atomic-bw perf_test bw "$ITERS" ib_atomic_bw
t send-lat perf_test lat "$ITERS" ib_send_lat
t send-lat-uc perf_test lat "$ITERS" ib_send_lat -c UC
t send-lat-ud perf_test lat "$ITERS" ib_send_lat -c UD -s 2048
t write-lat perf_test lat "$ITERS" ib_write_lat
t read-lat perf_test lat "$ITERS" ib_read_lat
step unload unload_all
