#!/bin/bash
# Host-side check of the contract comparison (tools/testing/lib/
# contract_compare.py): fixture excerpts of a 58-contract run's qib logs
# compare clean against their list, and each mutation of a log or of the
# list that the comparison must not forgive fails it: a walk that drops
# a QP, visits one twice or shows one in another state, a bucket that
# loses a QP, a changed PSN, return code, lock context or queue size, a
# pattern that matches nothing, a pattern not anchored on the whole line,
# an entry whose step pattern matches every step.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
FIXTURE=$REPO/tools/testing/fixtures/contract
COMPARE=$REPO/tools/testing/lib/contract_compare.py
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failed=0

# reset: fresh copies of the fixture to mutate.
reset() {
	cp "$FIXTURE/ours-qib.log" "$FIXTURE/distro-qib.log" \
		"$FIXTURE/list.txt" "$TMP/"
}

# mutate FILE OLD NEW: replace the one line OLD of FILE by NEW (no line
# when NEW is empty, two lines "OLD\nOLD" to duplicate it); fails if OLD
# is not exactly one line of FILE, so that a mutation cannot miss.
mutate() {
	python3 - "$TMP/$1" "$2" "$3" <<'EOF'
import sys
path, old, new = sys.argv[1:]
lines = open(path).read().split("\n")
if lines.count(old) != 1:
    sys.exit(f"mutation: {old!r} is not one line of {path}")
i = lines.index(old)
lines[i:i + 1] = new.split("\\n") if new else []
open(path, "w").write("\n".join(lines))
EOF
}

compare() {
	"$COMPARE" --list "$TMP/list.txt" \
		"qib:$TMP/ours-qib.log:$TMP/distro-qib.log"
}

# expect NAME STATUS TEXT: the comparison exits with STATUS and its
# output has TEXT.
expect() {
	local out status
	out=$(compare 2>&1)
	status=$?
	if ((status == $2)) && grep -qF -- "$3" <<<"$out"; then
		echo "ok: $1 (exit $status)"
	else
		echo "FAIL: $1: exit $status, want $2 and \"$3\""
		echo "$out" | tail -5
		failed=1
	fi
}

reset
expect "fixture compares clean" 0 "contract: 0 unlisted difference(s), 0 unused"

# ---- walks and buckets: only the order may differ ------------------
reset
mutate ours-qib.log "qpt2.iter.next|iter n=4 t3 state=RTS" ""
expect "a walk drops a QP" 1 "qib qpt2.iter.next ours   [UNLISTED] iter n=4"
reset
mutate distro-qib.log "qpt2.iter.cb|iter cb t5 bucket=1 v=7 state=RTS" ""
expect "the other core's walk drops a QP" 1 "[UNLISTED] iter cb t"
reset
mutate ours-qib.log "qpt2.iter.cb|iter cb t4 bucket=0 v=7 state=RTS" \
	'qpt2.iter.cb|iter cb t4 bucket=0 v=7 state=RTS\nqpt2.iter.cb|iter cb t4 bucket=0 v=7 state=RTS'
expect "a walk visits a QP twice" 1 "[UNLISTED] iter cb t4 bucket=0"
reset
mutate ours-qib.log "qpt2.iter.next|iter n=5 t2 state=RTS" \
	'qpt2.iter.next|iter n=5 t2 state=RTS\nqpt2.iter.next|iter n=5 t2 state=RTS'
mutate distro-qib.log "qpt2.iter.next|iter n=5 t2 state=RTS" \
	'qpt2.iter.next|iter n=5 t2 state=RTS\nqpt2.iter.next|iter n=5 t2 state=RTS'
expect "both walks visit a QP twice" 1 "[UNLISTED] iter n=5"
reset
for log in ours-qib.log distro-qib.log; do
	mutate "$log" "qpt2.iter.next|iter n=5 t2 state=RTS" \
		'qpt2.iter.next|iter n=5 t2 state=RTS\nqpt2.iter.next|iter n=5 t2 state=RTR'
done
expect "both walks visit a QP twice, in two states" 1 "[UNLISTED] iter n=5"
reset
mutate ours-qib.log "qpt2.iter.next|iter n=5 t2 state=RTS" \
	"qpt2.iter.next|iter n=5 t2 state=RTR"
expect "a walk sees a QP in another state" 1 "[UNLISTED] iter n=5 t2 state=RTR"
reset
mutate ours-qib.log "qpt2.iter.cb|iter cb t6 bucket=1 v=7 state=RTS" \
	"qpt2.iter.cb|iter cb t6 bucket=0 v=7 state=RTS"
expect "a walk finds a QP in another bucket" 1 "[UNLISTED] iter cb t6 bucket=0"
reset
line=$(grep '^qpt2.table.fill|snap dev ' "$FIXTURE/ours-qib.log")
mutate ours-qib.log "$line" "${line/ b0:t0,t3,/ b0:t0,}"
expect "a bucket loses a QP" 1 "qpt2.table.fill ours   [UNLISTED] snap dev b0=t0,t4"
reset
line=$(grep '^qpt2.table.drain|snap dev ' "$FIXTURE/ours-qib.log")
mutate ours-qib.log "$line" "${line/ b1:t1,t5,/ b1:t1,t5,t5,}"
expect "a bucket holds a QP twice" 1 "[UNLISTED] snap dev b1=t1,t5,t5,"
reset
line=$(grep '^qpt2.table.drain|snap dev ' "$FIXTURE/ours-qib.log")
mutate ours-qib.log "$line" "${line/ b1:t1,t5,/ b1:t1,t5,t5,}"
line=$(grep '^qpt2.table.drain|snap dev ' "$FIXTURE/distro-qib.log")
mutate distro-qib.log "$line" "${line/ b1:t5,t1,/ b1:t5,t5,t1,}"
expect "both buckets hold a QP twice" 1 "[UNLISTED] snap dev b1=t1,t5,t5,"

# ---- listed lines: nothing but what the entry names may differ -----
reset
mutate ours-qib.log "main.post.two|cb setup_wqe qp=p_a op=2 len=64 ssn=2 psn=0x102-0x102 sge=1 call_send=0->0 -> 0 [script atomic irqsoff locks=-h-]" \
	"main.post.two|cb setup_wqe qp=p_a op=2 len=64 ssn=2 psn=0x102-0x103 sge=1 call_send=0->0 -> 0 [script atomic irqsoff locks=-h-]"
expect "a changed PSN" 1 "[UNLISTED] cb setup_wqe qp=p_a op=2 len=64 ssn=2 psn=0x102-0x103"
reset
mutate ours-qib.log "main.post.long|cb setup_wqe qp=p_a op=2 len=2000 ssn=1 psn=0x100-0x101 sge=1 call_send=1->0 -> 0 [script atomic irqsoff locks=-h-]" \
	"main.post.long|cb setup_wqe qp=p_a op=2 len=2000 ssn=1 psn=0x100-0x101 sge=1 call_send=1->0 -> -22 [script atomic irqsoff locks=-h-]"
expect "a changed return code (callback)" 1 "[UNLISTED] cb setup_wqe qp=p_a op=2 len=2000"
reset
mutate ours-qib.log "main.post.reset|post p_rst op=2 wr_id=0x1 -> -22 bad=first" \
	"main.post.reset|post p_rst op=2 wr_id=0x1 -> -12 bad=first"
expect "a changed return code (post)" 1 "[UNLISTED] post p_rst op=2 wr_id=0x1 -> -12"
reset
mutate ours-qib.log "main.post.veto_2g|cb setup_wqe qp=p_a op=2 len=2147483649 ssn=1 psn=0x100-0x200100 sge=1 call_send=1->1 -> -22 [script atomic irqsoff locks=-h-]" \
	"main.post.veto_2g|cb setup_wqe qp=p_a op=2 len=2147483649 ssn=1 psn=0x100-0x200100 sge=1 call_send=1->1 -> -22 [script atomic irqsoff locks=rhs]"
expect "a changed lock context" 1 "[UNLISTED] cb setup_wqe qp=p_a op=2 len=2147483649"
reset
line=$(grep '^main.post.reset_again|snap qp p_rst ' "$FIXTURE/ours-qib.log")
mutate ours-qib.log "$line" "${line/ rq=0\/5\/2 / rq=0/4/2 }"
expect "a changed queue size" 1 "[UNLISTED] snap qp p_rst rq=0/4/2"

# ---- the list itself ------------------------------------------------
reset
mutate list.txt 'distro: ^post p_rst op=2 wr_id=0x3 -> -22 bad=none$' \
	'distro: ^post p_rst op=2 wr_id=0x3 -> -22 bad=none$\ndistro: ^post p_rst op=2 wr_id=0x9 -> -22 bad=none$'
expect "a pattern that matches nothing" 1 "unused pattern of post-send-bad-wr"
reset
mutate list.txt 'ours: ^post p_rst op=2 wr_id=0x1 -> -22 bad=first$' \
	'ours: ^post p_rst op=2 wr_id=0x1 -> -22 bad=first$\nours: ^post p_rst op=2 wr_id=0x\d -> -22 bad=first$'
expect "a pattern shadowed by an earlier one" 1 "unused pattern of post-send-bad-wr"
reset
mutate list.txt 'unordered-snap: ^dev b\d+$' \
	'unordered-snap: ^dev b\d+$\nunordered-snap: ^port1 mcast$'
expect "an order allowance that reorders nothing" 1 "unused pattern of sorted-hash-chains"
reset
mutate list.txt 'ours: ^post p_rst op=2 wr_id=0x1 -> -22 bad=first$' \
	'ours: ^post p_rst op=2 wr_id=0x1 -> -22 bad=first'
expect "a pattern not anchored at its end" 2 "not anchored on the whole line"
reset
mutate list.txt 'step: ^main\.post\.reset_again$' 'step: .'
expect "step: ." 2 "step pattern not anchored"
reset
mutate list.txt 'step: ^main\.post\.reset_again$' 'step: ^.*$'
expect "a step pattern that matches every step" 2 "matches every step"

exit $failed
