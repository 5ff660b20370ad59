#!/bin/bash
# Host-side check of `make bench`'s table: a fixture guest log of three
# rounds gives the medians per target, "failed" for a target that failed
# a round, the ours/distro ratio (inverted for latencies), and ignores
# indented perftest output.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
FIXTURE=$REPO/tools/testing/fixtures/bench

if diff -u "$FIXTURE/expected" \
	<("$REPO/tools/bench.sh" --table "$FIXTURE/guest.log"); then
	echo "bench table: as expected"
else
	echo "FAIL: bench table differs from $FIXTURE/expected"
	exit 1
fi
