#!/bin/bash
# `make man`: section-9 manual pages, one per documented function of
# rdmavt and rvtsw, from their kernel-doc comments, with the kernel's own
# scripts/kernel-doc (from the source of make check's kernel, which
# tools/setup.sh keeps in build/linux-scripts/ beside checkpatch: the
# pages are the same whichever kernel a lane builds for). Pages go to
# build/man/NAME.9; read one with
#	man -l build/man/rvt_query_qp.9
#
# Each page ends with a SEE ALSO naming its source file and the other
# functions of its family: the QP core (qp*.c, qp*.h), rvtsw, or
# the page's own file.
#
# Environment: KERNEL_DOC overrides the kernel-doc script; MAN_OUT the
# output directory.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KERNEL_DOC=${KERNEL_DOC:-$REPO/build/linux-scripts/kernel-doc}
OUT=${MAN_OUT:-$REPO/build/man}
WORK=$OUT/.work

die() {
	echo "mkman.sh: $*" >&2
	exit 1
}

# Sources with kernel-doc: the core's files and rvtsw's.
sources() {
	git -C "$REPO" ls-files --cached --others --exclude-standard \
		'*.c' '*.h' 'rvtsw/*.c' 'rvtsw/*.h' |
		grep -v -e '^tools/' -e '\.mod\.c$' | sort -u |
		(cd "$REPO" && xargs grep -l '^/\*\*')
}

# The functions a file defines as static (or static inline).
static_functions() {
	sed -n 's/^static [^(]*[ *]\([A-Za-z_][A-Za-z0-9_]*\)(.*/\1/p' \
		"$REPO/$1"
}

family() {
	case $1 in
	rvtsw/*) echo rvtsw ;;
	qp*.c | qp*.h) echo qp ;;
	*) basename "$1" | sed 's/\.[ch]$//' ;;
	esac
}

family_title() {
	case $1 in
	qp) echo "the QP core" ;;
	*) echo "$1" ;;
	esac
}

# split_pages FILE: kernel-doc's man output for FILE, one page per
# function, into $WORK/FAMILY/NAME.9; prints the names.
split_pages() {
	local src=$1 dir
	dir=$WORK/$(family "$src")
	mkdir -p "$dir"
	(cd "$REPO" && perl "$KERNEL_DOC" -man -Wall "$src") |
		awk -v dir="$dir" -v src="$src" '
		/^\.TH "/ {
			if (out) close(out)
			split($0, f, "\"")
			# Functions only: structures and DOC sections are
			# titled after the file, not themselves.
			out = (f[2] == f[4] && f[2] !~ / /) ? \
				dir "/" f[2] ".9" : ""
			if (out) {
				print f[2] "\t" src
				print "SRC " src > (out ".src")
				close(out ".src")
			}
		}
		out { print > out }'
}

# see_also PAGE FAMILY: append the SEE ALSO section: the other functions
# of the page's file, then the family's functions that other files call.
see_also() {
	local page=$1 fam=$2 name src
	name=$(basename "$page" .9)
	src=$(sed -n 's/^SRC //p' "$page.src")
	{
		echo '.SH "SEE ALSO"'
		printf 'Source file \\fB%s\\fR. Its other functions, then the interfaces of %s:\n' \
			"$src" "$(family_title "$fam")"
		{
			awk -F'\t' -v s="$src" '$2 == s {print $1}' \
				"$WORK/$fam.index" | sort
			awk -F'\t' -v s="$src" '$2 != s && !$3 {print $1}' \
				"$WORK/$fam.index" | sort
		} | { grep -vxF "$name" || true; } |
			sed 's/.*/.BR & (9),/' | sed '$ s/,$//'
	} >>"$page"
}

# index_pages SRC: "NAME<tab>SRC<tab>static?" for the pages of SRC.
index_pages() {
	local src=$1 statics
	statics=$(static_functions "$src" | tr '\n' ' ')
	split_pages "$src" | awk -F'\t' -v st=" $statics" \
		'{ print $1 "\t" $2 "\t" (index(st, " " $1 " ") ? 1 : "") }' \
		>>"$WORK/$(family "$src").index"
}

main() {
	local src page fam count=0
	[[ -r $KERNEL_DOC ]] || die "no kernel-doc at $KERNEL_DOC"
	rm -rf "$OUT"
	mkdir -p "$WORK"
	# Reproducible dates: the last commit's, not today's.
	KBUILD_BUILD_TIMESTAMP=$(git -C "$REPO" log -1 --format=%ci 2>/dev/null ||
				 date)
	export KBUILD_BUILD_TIMESTAMP
	while read -r src; do
		index_pages "$src"
	done < <(sources)
	for fam in "$WORK"/*/; do
		for page in "$fam"*.9; do
			[[ -e $page ]] || continue
			see_also "$page" "$(basename "$fam")"
			count=$((count + 1))
		done
	done
	mv "$WORK"/*/*.9 "$OUT/"
	rm -rf "$WORK"
	echo "mkman.sh: $count pages in ${OUT#"$REPO"/}"
}

main "$@"
