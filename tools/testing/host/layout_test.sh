#!/bin/bash
# Host-side check of the layout map, Documentation/layout.rst: every
# source file of rdmavt and rvtsw (the tracked .c and .h files outside
# tools/) is named in its table, so a newcomer finds each file's concern
# there.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cd "$REPO" || exit 1

PAGE=Documentation/layout.rst
map=$(sed -n '/^\.\. list-table::/,$p' "$PAGE" 2>/dev/null)
[[ -n $map ]] || { echo "FAIL: $PAGE has no list-table"; exit 1; }

missing=0 checked=0
while read -r file; do
	((checked++))
	# rvtsw's files are listed by their base name in the rvtsw/ row; the
	# page's ``name`` literals contain `name`.
	grep -qF "\`$(basename "$file")\`" <<<"$map" && continue
	echo "FAIL: $PAGE does not name $file"
	missing=1
done < <(git ls-files '*.c' '*.h' | grep -v '^tools/')
echo "$checked source files checked"
exit $missing
