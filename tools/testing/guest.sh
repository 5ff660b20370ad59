#!/bin/bash
# Runs inside the guest: every suite under tools/testing/suites, in order,
# or the ones named on the command line, once on each rdmavt core named in
# RVT_CORES ("ours distro" by default; the distro core needs the guest's
# pci-testdev). A suite that dies without reporting is a failure of its own.
set -uo pipefail

# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

run_suite() {
	local file=$1 name rc=0
	name=$(basename "$file" .sh)
	name=${name#[0-9][0-9]-}
	echo "=== suite $name (core: $RVT_CORE)"
	SUITE=$name bash "$file" || rc=$?
	if ((rc != 0)); then
		SUITE=$name fail suite-exit "suite exited with status $rc"
	fi
	# Leave the next suite a clean slate whatever this one did.
	unload_all >/dev/null 2>&1
}

run_core() {
	local suite
	export RVT_CORE=$1
	shift
	for suite in "$@"; do
		[[ -f $suite ]] || suite=$TESTING_DIR/suites/$suite
		run_suite "$suite"
	done
}

main() {
	local core
	if (($# == 0)); then
		set -- "$TESTING_DIR"/suites/*.sh
	fi
	for core in ${RVT_CORES:-ours distro}; do
		run_core "$core" "$@"
	done
}

main "$@"
