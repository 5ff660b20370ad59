#!/bin/bash
# The guest half of `make demo`.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=../testing/lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../testing/lib/suite.sh"

step() { printf '\n### %s\n' "$*"; }

step "Loading ib_core, ib_uverbs, our rdmavt.ko and rvtsw.ko"
load_rvtsw
lsmod | grep -E '^(rvtsw|rdmavt|ib_uverbs|ib_core) '
wait_for 50 test -e /dev/infiniband/uverbs0

step "ibv_devices"
ibv_devices

step "ibv_devinfo -d rvtsw_0"
ibv_devinfo -d rvtsw_0

step "rdma link"
rdma link show

step "RC ping-pong: ibv_rc_pingpong -c between two processes on rvtsw_0"
timeout 60 ibv_rc_pingpong -d rvtsw_0 -n 100 -c >/tmp/demo-server 2>&1 &
server=$!
status=0
wait_for 100 sh -c 'ss -Hltn "sport = :18515" | grep -q .' || status=1
echo "client:"
timeout 60 ibv_rc_pingpong -d rvtsw_0 -n 100 -c localhost 2>&1 | indent ||
	status=1
wait "$server" || status=1
echo "server:"
indent </tmp/demo-server
if ((status == 0)); then
	echo "RC ping-pong: OK"
else
	echo "RC ping-pong: FAILED"
fi

step "rdma statistic show link rvtsw_0/1"
rdma statistic show link rvtsw_0/1

step "Unloading"
unload_all
echo "demo done"
exit "$status"
