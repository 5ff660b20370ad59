#!/bin/bash
# rdma-core's own pyverbs test suite, as Debian ships it, on rvtsw_0, and
# for comparison on rdma_rxe (over lo) in the same guest. rvtsw must have
# no failures or errors, and pass every test rxe passes but those that
# the ipathverbs provider's limits make it skip (see PROVIDER_LIMITS).
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

TESTS_SRC=/usr/share/doc/rdma-core/tests
# rxe's counts are measured once per guest boot and kept here for the
# other core's run (the guest's /tmp lives as long as the boot).
RXE_COUNTS=/tmp/pyverbs-rxe-counts
RXE_TESTS=/tmp/pyverbs-rxe-tests
WORK=$(mktemp -d)

# The suite, uncompressed, in a directory of its own.
prepare() {
	cp -r "$TESTS_SRC" "$WORK/tests" && gunzip "$WORK"/tests/*.gz &&
		echo "$(find "$WORK/tests" -name 'test_*.py' | wc -l) test files"
}

# run_pyverbs DEVICE LABEL [OPTION...]: run it, keep the output and the
# counts line.
run_pyverbs() {
	local rc=0
	(cd "$WORK" && timeout 1200 "$PY" "$TESTING_DIR/py/pyverbs_suite.py" \
		"$WORK/tests" "$@") >"$WORK/$2.log" 2>&1 || rc=$?
	cat "$WORK/$2.log"
	grep '^PYVERBS-COUNTS ' "$WORK/$2.log" >"$WORK/$2.counts"
	return "$rc"
}

# count FILE FIELD: a number from a PYVERBS-COUNTS line.
count() {
	awk -v f="$2" '{ for (i = 1; i < NF; i++) if ($i == f) print $(i + 1) }' "$1"
}

rvtsw_suite() {
	run_pyverbs rvtsw_0 "rvtsw-$RVT_CORE"
}

# rxe's run, once per boot. Its failures are rxe's: only its counts
# matter here. GID 1 is lo's ::ffff:127.0.0.1 (RoCE v2); the suite's
# default, the link-local GID 0, is unroutable on lo (ENETUNREACH).
rxe_suite() {
	if [[ -s $RXE_COUNTS && -s $RXE_TESTS ]]; then
		echo "measured earlier in this boot:"
		cat "$RXE_COUNTS"
		return 0
	fi
	rxe_up || return
	run_pyverbs rxe0 rxe --gid 1 >/dev/null
	grep -E '^(  SKIP|  FAIL|  ERROR|FAIL:|ERROR:|AssertionError)' \
		"$WORK/rxe.log"
	grep -E '^  (PASS|SKIP|FAIL|ERROR) ' "$WORK/rxe.log" >"$RXE_TESTS"
	cp "$WORK/rxe.counts" "$RXE_COUNTS"
	cat "$RXE_COUNTS"
	rxe_down
	[[ -s $RXE_COUNTS ]]
}

# What rvtsw does with each test that rxe passes but rvtsw does not.
rxe_only() {
	local ours=$WORK/rvtsw-$RVT_CORE.log test
	sed -n 's/^  PASS //p' "$RXE_TESTS" | while read -r test; do
		grep -q "^  PASS $test\$" "$ours" ||
			grep -E "^  (SKIP|FAIL|ERROR) $test\b" "$ours" ||
			echo "  MISSING $test"
	done
}

# Why rvtsw may skip a test that rxe passes. None is rvtsw's doing:
# - rdma-core's ipathverbs provider (which serves RDMA_DRIVER_QIB devices,
#   rvtsw among them) implements neither ibv_create_qp_ex (so no extended
#   QP, no ibv_wr_* post API, no QP creation with extra attributes) nor
#   ibv_create_cq_ex;
# - neither rdmavt (the distro's or ours) nor the provider has memory
#   windows;
# - rvtsw's ports are InfiniBand, not RoCE, and have exactly one GID.
# The provider imports no ibv_cmd_create_qp_ex, ibv_cmd_create_cq_ex,
# ibv_cmd_alloc_mw or ibv_cmd_rereg_mr: libibverbs answers EOPNOTSUPP
# for those before any command reaches the kernel, whatever rdmavt does.
PROVIDER_LIMITS=(
	'Extended QP is not supported on this device'
	'Create (RC|UC|UD) QP with(out)? extended attrs is not supported'
	'Create Extended CQ is not supported'
	'Create MW is not supported'
	'Create memory window of type [0-9]+ is not supported'
	'Link layer of port=1 is InfiniBand , skip RoCE test'
	'All gid indices populated, cannot check bad flow'
)

# rvtsw passes every test rxe passes, except tests it skips for one of
# the reasons above (never one it fails); the numbers and the exceptions
# are listed.
compare() {
	local ours rxe allowed unexplained
	ours=$(count "$WORK/rvtsw-$RVT_CORE.counts" passed)
	rxe=$(count "$RXE_COUNTS" passed)
	cat "$WORK/rvtsw-$RVT_CORE.counts" "$RXE_COUNTS"
	echo "passed: rvtsw ($RVT_CORE core) $ours, rxe $rxe"
	[[ -n $ours && -n $rxe ]] || return 1
	rxe_only >"$WORK/rxe-only"
	allowed=$(IFS='|'; echo "^  SKIP [^ ]+: (${PROVIDER_LIMITS[*]})\$")
	unexplained=$(grep -Ev "$allowed" "$WORK/rxe-only")
	echo "tests rxe passes and rvtsw does not: $(wc -l <"$WORK/rxe-only")," \
		"all skipped for a provider limit but these:"
	echo "${unexplained:-  (none)}"
	echo "the others:"
	cat "$WORK/rxe-only"
	[[ -z $unexplained ]]
}

t prepare prepare
t load load_rvtsw
t ready wait_for 50 test -e /dev/infiniband/uverbs0
t rvtsw-0-failures-0-errors rvtsw_suite
t unload unload_all
t rxe-measured rxe_suite
t rvtsw-passes-what-rxe-passes-but-provider-limits compare
rm -rf "$WORK"
