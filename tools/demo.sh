#!/bin/bash
# `make demo`: build, boot the guest's kernel in QEMU, bring up rvtsw on
# our rdmavt and show what userspace sees of it. `make demo-fabric`
# (demo.sh fabric): the same boot, rvtsw's managed fabric brought up by
# OpenSM, the diags' view of it, IPoIB and rping across it.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The fabric demo waits for the SM's sweeps and for IPoIB's joins: under
# TCG on a busy machine, more than run.sh's default ten minutes.
case ${1:-} in
"") guest=demo.sh log=demo-serial.log timeout=600 ;;
fabric) guest=demo-fabric.sh log=demo-fabric-serial.log timeout=1200 ;;
*)
	echo "usage: ${0##*/} [fabric]" >&2
	exit 2
	;;
esac

make -C "$REPO" modules
exec "$REPO/tools/vm/run.sh" --timeout "$timeout" --log "$REPO/build/$log" \
	"$REPO/tools/guest/$guest"
