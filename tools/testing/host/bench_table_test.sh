#!/bin/bash
# Host-side check of `make bench`'s table: a fixture guest log of three
# rounds gives the medians per target, "failed" for a target that failed
# a round, the ours/distro ratio (inverted for latencies), and ignores
# indented perftest output; a fixture of `bench.sh --link`'s log (two
# rounds of rxe-link and rvtsw-link) gives the rvtsw-link/rxe-link ratio
# (inverted for latencies, "-" where rvtsw-link failed), no ours/distro
# column, and ignores guest b's lines.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
FIXTURE=$REPO/tools/testing/fixtures/bench
rc=0

# check LOG EXPECTED: the table of LOG is EXPECTED.
check() {
	if diff -u "$FIXTURE/$2" <("$REPO/tools/bench.sh" --table "$FIXTURE/$1"); then
		echo "bench table of $1: as expected"
	else
		echo "FAIL: bench table of $1 differs from $FIXTURE/$2"
		rc=1
	fi
}

check guest.log expected
check link.log link.expected
exit "$rc"
