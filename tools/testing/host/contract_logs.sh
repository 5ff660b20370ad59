#!/bin/bash
# contract_logs.sh CONSOLE_LOG DIR: write the rvt_contract logs that the
# 58-contract suite printed ("RVT-CONTRACT-LOG <name> <xz+base64>") into
# DIR/<name>.log, for example to compare them again on the host:
#   tools/testing/lib/contract_compare.py --list Documentation/contract-differences.txt \
#       qib:DIR/ours-qib.log:DIR/distro-qib.log hfi1:DIR/ours-hfi1.log:DIR/distro-hfi1.log
set -euo pipefail

(($# == 2)) || { echo "usage: ${0##*/} CONSOLE_LOG DIR" >&2; exit 2; }
mkdir -p "$2"
grep -a '^RVT-CONTRACT-LOG ' "$1" | tr -d '\r' |
	while read -r _ name data; do
		base64 -d <<<"$data" | xz -d >"$2/$name.log"
		echo "$2/$name.log"
	done
