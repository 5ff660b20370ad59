#!/bin/bash
# Host-side check of the documentation: kernel-doc finds nothing to
# complain about, every exported function and ib_device_ops entry has its
# Context: and Return: sections (doc_audit.py), `make man` builds the pages, every page renders with
# `man -l` without a groff warning, and rvt_query_qp(9) and rvt_qp_iter(9)
# say what the project's seed pages say (attr_mask ignored and always 0;
# cb gets v for its own filtering, built on the iterator that serves
# seq_file users).
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
KERNEL_DOC=${KERNEL_DOC:-$REPO/build/linux-scripts/kernel-doc}
MAN_OUT=$(mktemp -d)
export MAN_OUT
trap 'rm -rf "$MAN_OUT"' EXIT
failed=0

fail() {
	echo "FAIL: $*"
	failed=1
}

render() {
	MANWIDTH=100 man -l "$MAN_OUT/$1.9" 2>/dev/null | col -b |
		tr -s ' \n' ' '
}

# expect PAGE TEXT...: the rendered page contains each TEXT.
expect() {
	local page=$1 text body
	shift
	body=$(render "$page")
	for text in "$@"; do
		grep -qF -- "$text" <<<"$body" ||
			fail "$page(9) does not say: $text"
	done
}

cd "$REPO" || exit 1
warnings=$(git ls-files '*.c' '*.h' | grep -v '^tools/' |
	   xargs perl "$KERNEL_DOC" -none -Wall 2>&1)
[[ -z $warnings ]] || fail "kernel-doc warnings:"$'\n'"$warnings"
python3 "$REPO/tools/testing/host/doc_audit.py" || fail "kernel-doc sections missing"

"$REPO/tools/mkman.sh" || fail "mkman.sh failed"
pages=$(find "$MAN_OUT" -name '*.9' | wc -l)
echo "$pages pages"
((pages >= 100)) || fail "only $pages pages"
for page in "$MAN_OUT"/*.9; do
	out=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
	[[ -z $out ]] || fail "$(basename "$page"): $out"
	man -l "$page" >/dev/null 2>&1 || fail "man -l $(basename "$page")"
done

expect rvt_query_qp \
	"int rvt_query_qp (struct ib_qp *ibqp , struct ib_qp_attr *attr , int attr_mask , struct ib_qp_init_attr *init_attr );" \
	"attr_mask ignored" "Fills in both attr and init_attr" \
	"RETURN always 0." "SEE ALSO" "rvt_modify_qp(9)"
expect rvt_qp_iter \
	"void rvt_qp_iter (struct rvt_dev_info *rdi , u64 v , void (*cb)(struct rvt_qp *qp, u64 v) );" \
	"passed to every call of cb, for the callback's own filtering" \
	"called as cb(qp, v) once for every QP" \
	"Built on the iterator that rvt_qp_iter_init and rvt_qp_iter_next give seq_file users" \
	"rvt_qp_iter_init(9)" "rvt_qp_iter_next(9)"
expect rvt_qp_iter_next "seq_file" "RETURN 0 with iter->qp"
expect rvt_qp_iter_init "kfree" "RETURN"

if ((failed)); then
	exit 1
fi
echo "man pages: kernel-doc clean, $pages pages render, seed facts present"
