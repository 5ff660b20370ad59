#!/bin/bash
# perftest's bandwidth and latency tests between two processes on
# rvtsw_0: each must finish on both sides and report non-zero figures.
# Iteration counts are small: the guest runs under TCG.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

# shellcheck source-path=SCRIPTDIR source=../lib/perftest.sh
source "$TESTING_DIR/lib/perftest.sh"

t load load_rvtsw
t ready wait_for 50 test -e /dev/infiniband/uverbs0
t send-bw perf bw ib_send_bw -n 100
t send-bw-uc perf bw ib_send_bw -n 100 -c UC
t send-bw-ud perf bw ib_send_bw -n 100 -c UD -s 2048
t write-bw perf bw ib_write_bw -n 100
t read-bw perf bw ib_read_bw -n 100
t atomic-bw perf bw ib_atomic_bw -n 100
t send-lat perf lat ib_send_lat -n 100
t send-lat-uc perf lat ib_send_lat -n 100 -c UC
t send-lat-ud perf lat ib_send_lat -n 100 -c UD -s 2048
t write-lat perf lat ib_write_lat -n 100
t read-lat perf lat ib_read_lat -n 100
t unload unload_all
