#!/bin/bash
# Host-side check of `make bench`'s table and chart: a fixture guest log
# of three rounds gives the medians per target, "failed" for a target
# that failed a round, the ours/distro and ours/rxe ratios (inverted for
# latencies, "-" where rxe failed a round), and ignores indented perftest
# output; a fixture of `bench.sh --link`'s log (two rounds of rxe-link
# and rvtsw-link) gives the rvtsw-link/rxe-link ratio (inverted for
# latencies, "-" where rvtsw-link failed), no ours/distro column, and
# ignores guest b's lines. The chart of each (`bench.sh --chart-data`:
# the bars it is drawn from, without matplotlib) has a bar for each
# ratio column of its table, the link's included, none where the table
# has "-" (a failed round), its median and spread over the rounds.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
FIXTURE=$REPO/tools/testing/fixtures/bench
rc=0

# check WHAT LOG EXPECTED: `bench.sh --WHAT LOG` prints EXPECTED.
check() {
	if diff -u "$FIXTURE/$3" <("$REPO/tools/bench.sh" "--$1" "$FIXTURE/$2"); then
		echo "bench $1 of $2: as expected"
	else
		echo "FAIL: bench $1 of $2 differs from $FIXTURE/$3"
		rc=1
	fi
}

check table guest.log expected
check table link.log link.expected
check chart-data guest.log guest.chart
check chart-data link.log link.chart
exit "$rc"
