#!/bin/bash
# `make demo`: build, boot the pinned kernel in QEMU, bring up rvtsw on
# our rdmavt and show what userspace sees of it.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

make -C "$REPO" modules
exec "$REPO/tools/vm/run.sh" --log "$REPO/build/demo-serial.log" \
	"$REPO/tools/testing/demo-guest.sh"
