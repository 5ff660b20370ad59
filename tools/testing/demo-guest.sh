#!/bin/bash
# The guest half of `make demo`.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

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

step "Unloading"
unload_all
echo "demo done"
