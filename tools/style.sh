#!/bin/bash
# Style gates: checkpatch --strict on every C file of ours, sparse over
# the whole build, shellcheck on every shell script. Usage:
# style.sh [checkpatch|sparse|shellcheck]... (all by default). Exits non-zero if any gate reports anything.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCRIPTS=$REPO/build/linux-scripts	# where tools/setup.sh puts them

our_sources() {
	git -C "$REPO" ls-files --cached --others --exclude-standard \
		'*.c' '*.h' | grep -v '\.mod\.c$'
}

run_checkpatch() {
	local f out bad=0
	[[ -x $SCRIPTS/checkpatch.pl ]] ||
		{ echo "checkpatch.pl missing: run tools/setup.sh" >&2; return 1; }
	local ignore
	while read -r f; do
		# Telling kernel versions apart is compat.h's one job.
		ignore=()
		[[ $f != compat.h ]] || ignore=(--ignore LINUX_VERSION_CODE)
		out=$(cd "$REPO" && "$SCRIPTS/checkpatch.pl" --strict --no-tree \
			--terse --show-types --no-summary "${ignore[@]}" \
			-f "$f") || true
		if [[ -n $out ]]; then
			printf '%s\n' "$out"
			bad=1
		fi
	done < <(our_sources)
	((bad == 0)) && echo "checkpatch --strict: clean"
	return "$bad"
}

# make's output of a build that ran sparse on every file (the Makefile's
# SPARSE=1, C=2): that of RVT_SPARSE_LOG when set (make check's W=1 build
# ran it: tools/check.sh), else of a build here.
sparse_output() {
	if [[ -n ${RVT_SPARSE_LOG:-} ]]; then
		cat "$RVT_SPARSE_LOG" 2>&1
	else
		make -s -j "$(nproc)" -C "$REPO" SPARSE=1 tests 2>&1
	fi
}

# Kernel sparse output is one line per finding, so anything in a silent
# (make -s) build's output beyond its progress lines is a finding.
run_sparse() {
	local out
	out=$(sparse_output |
	      grep -v -e '^make\(\[[0-9]*\]\)\?: \(Entering\|Leaving\)' \
		      -e '^ *\(CC\|LD\|CHECK\|MODPOST\|BTF\)\b' \
		      -e '^Skipping BTF generation' || true)
	if [[ -n $out ]]; then
		printf '%s\n' "$out"
		return 1
	fi
	echo "sparse: clean"
}

# The shell scripts: *.sh, and the files whose #! names a shell.
our_scripts() {
	git -C "$REPO" ls-files --cached --others --exclude-standard |
		while read -r f; do
			[[ $f == *.sh ]] ||
				head -n1 "$REPO/$f" | grep -q '^#!.*\(bash\|/sh\)$' ||
				continue
			echo "$f"
		done
}

run_shellcheck() {
	local out
	out=$(cd "$REPO" && our_scripts | xargs shellcheck -x 2>&1) || {
		printf '%s\n' "$out"
		return 1
	}
	echo "shellcheck: clean"
}

main() {
	local gate rc=0
	(($#)) || set -- checkpatch sparse shellcheck
	for gate in "$@"; do
		"run_$gate" || rc=1
	done
	return "$rc"
}

main "$@"
