#!/bin/bash
# Host-side check of README's layout map: every source file of rdmavt and
# rvtsw (the tracked .c and .h files outside tools/) is named in the
# "## Layout" section, so a newcomer finds each file's concern there.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$REPO" || exit 1

map=$(sed -n '/^## Layout$/,/^## /p' README.md)
[[ -n $map ]] || { echo "FAIL: README.md has no '## Layout' section"; exit 1; }

missing=0 checked=0
while read -r file; do
	((checked++))
	# rvtsw's files are listed by their base name in the rvtsw/ row.
	grep -qF "\`$(basename "$file")\`" <<<"$map" && continue
	echo "FAIL: README's layout map does not name $file"
	missing=1
done < <(git ls-files '*.c' '*.h' | grep -v '^tools/')
echo "$checked source files checked"
exit $missing
