#!/bin/bash
# `make check`: build, style gates, then every guest suite in one boot.
# Prints one line per result, the failures again at the end, and closes
# with `N passed, N failed`; exits non-zero if anything failed.
#
# `make check-debug` (tools/check.sh --debug-kernel [SUITE...]): the same
# guest suites on our core only, on the debug kernel of
# tools/debug-kernel.sh (built once, cached), with 4 vCPUs; the modules
# are built against that kernel, and kmemleak is scanned after each suite
# (guest.sh). The style gates and the distro core's column are make
# check's.
#
# `make check-rt` (tools/check.sh --rt [SUITE...]): the build and
# abi-check against Debian 12's PREEMPT_RT 6.12 (tools/kernels.sh pick
# 6.12 rt), then the core, data-path and stress suites (RT_SUITES, or the
# SUITEs named) on our core (RVT_CORES) in a boot of that kernel, whose
# log must stay clean: sleeping in atomic context, RT's lock and RCU
# rules.
#
# `make check-wire` (tools/check.sh --wire [SUITE...]): the two-guest
# suites (tools/testing/pair/, or the SUITEs named) in a pair of guests
# joined by a virtio-net link (tools/vm/pair.sh), once for each pairing
# of cores (RVT_PAIRINGS, a's core:b's): ours in both, then ours against
# the distro's both ways; each guest reports as its role, a and b, on
# its core, and each pairing is one run, with logs of its own.
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# compile_insn_profile, shared with run.sh
# shellcheck source-path=SCRIPTDIR source=vm/env.sh
source "$REPO/tools/vm/env.sh"
OUT=$REPO/build/check
PASSED=0
FAILED=0
SKIPPED=0
FAILURES=()
SKIPS=()
# What the debug lane (--debug-kernel) and the RT lane (--rt) change.
DEBUG_KERNEL=
RT_KERNEL=
WIRE=
RUNNER=$REPO/tools/vm/run.sh
SUITE_DIR=$REPO/tools/testing/suites
ROLES=
PAIRINGS=
# What the guest's results are recorded as: guest/..., in the two-guest
# lane wire/<a's core>-<b's core>/...
GUEST=guest
RUN_OPTS=()
# The RT lane's suites: the core, the data path, the stress.
RT_SUITES=(10-modules 20-devinfo 30-pd 40-cq-mr 50-qp-kernel 55-qp
	56-qp-stress 60-dp-kernel 61-dp-user 67-stress)

record() {
	local status=$1 name=$2
	if [[ $status == PASS ]]; then
		((PASSED++))
	elif [[ $status == SKIP || $status == KNOWN ]]; then
		((SKIPPED++))
		SKIPS+=("$status $name")
	else
		((FAILED++))
		FAILURES+=("$name")
	fi
}

# host_step NAME CMD...: run CMD with its output in $OUT/NAME.log, shown
# on failure.
host_step() {
	local name=$1 log=$OUT/$1.log start=$SECONDS
	shift
	if "$@" >"$log" 2>&1; then
		echo "RVT-RESULT: PASS host/$name"
		record PASS "host/$name"
	else
		sed 's/^/    /' "$log"
		echo "RVT-RESULT: FAIL host/$name"
		record FAIL "host/$name"
	fi
	# As guest.sh times each suite: where make check's minutes go.
	echo "=== host step $name took $((SECONDS - start)) s"
}

# The instruction profiler's QEMU plugin (tools/profile.sh) builds
# without a warning.
build_plugin() {
	compile_insn_profile "$OUT/insn_profile.so" -Werror
}

# build_clean [VAR=VALUE...]: make W=1 modules tests, warning-free, on
# every CPU (Kbuild alone compiles one file at a time).
build_clean() {
	local out
	out=$(make -s -j "$(nproc)" -C "$REPO" W=1 "$@" modules tests 2>&1) ||
		{ echo "$out"; return 1; }
	echo "$out"
	! grep -E '(warning|error):' <<<"$out"
}

# The suites a guest run covers, by the names guest.sh gives them: those
# named on the command line, or all; in a pair, once for each role.
suite_names() {
	local f role
	(($#)) || set -- "$SUITE_DIR"/*.sh
	for f in "$@"; do
		f=$(basename "$f" .sh)
		for role in ${ROLES:--}; do
			echo "${f#[0-9][0-9]-}${ROLES:+-$role}"
		done
	done
}

# tally [--table]: the guest's results as counted from the results
# channel alone (tools/testing/lib/results.py), plans checked; in a pair,
# each guest's on its own cores.
tally() {
	local role
	if [[ -z $WIRE ]]; then
		python3 "$REPO/tools/testing/lib/results.py" "$@" \
			--cores "$CORES" --suites "$SUITES" "$OUT/results.log"
		return
	fi
	for role in a b; do
		python3 "$REPO/tools/testing/lib/results.py" "$@" \
			--cores "$(role_cores "$role")" \
			--suites "$(grep -- "-$role\$" <<<"$SUITES")" \
			"$OUT/results.log.$role"
	done
}

# Count the guest's results; the runner's own verdict (kernel log clean,
# guest finished) is a result of its own. The console (guest.log) is for
# reading only: results are counted from the results channel.
run_guest() {
	local log=$OUT/guest.log rc=0 status name id count doc known
	CORES=${RVT_CORES:-ours distro}
	SUITES=$(suite_names "$@")
	rm -f "$OUT"/serial.known "$OUT"/serial.[ab].known
	# TCG is slow, and slower still when other guests share the host.
	"$RUNNER" --pci-testdev --log "$OUT/serial.log" \
		--results "$OUT/results.log" "${RUN_OPTS[@]}" \
		--timeout "${RVT_VM_TIMEOUT:-3600}" \
		"$REPO/tools/testing/guest.sh" "$@" 2>&1 | tee "$log" ||
		rc=${PIPESTATUS[0]}
	while read -r status name; do
		record "$status" "$GUEST/$name"
	done < <(tally)
	# The recorded upstream complaints the runner let pass, an entry of
	# tools/testing/known-complaints a line (Documentation/testing.rst);
	# a pair's guests each have their own.
	for known in "$OUT"/serial.known "$OUT"/serial.[ab].known; do
		[[ -f $known ]] || continue
		while read -r id count doc; do
			record KNOWN "$GUEST/kernel-log/$id: $count recorded upstream complaint(s) of the distro core (Documentation/$doc)"
		done <"$known"
	done
	case $rc in
	0) record PASS "$GUEST/vm-run-and-kernel-log-clean" ;;
	*) record FAIL "$GUEST/vm-run-and-kernel-log-clean (run.sh status $rc)" ;;
	esac
}

# The debug lane: its kernel (built or found in the cache), our modules
# built against it, and a guest that boots it. KASAN, lockdep and
# kmemleak make TCG several times slower: the timeouts grow to match.
use_debug_kernel() {
	local dir
	dir=$("$REPO/tools/debug-kernel.sh") || return
	OUT=$REPO/build/check-debug
	export KDIR=$dir/src RVT_CORES=ours
	export RVT_VM_TIMEOUT=${RVT_VM_TIMEOUT:-14400}
	export RVT_SUITE_TIMEOUT=${RVT_SUITE_TIMEOUT:-3600}
	RUN_OPTS=(--kernel "$dir" --smp 4 --mem 4096)
	echo "check-debug: kernel $(<"$dir/kernelrelease") from $dir (first build took $(($(<"$dir/build-seconds") / 60)) min)"
}

# The RT lane: the listed PREEMPT_RT 6.12, its headers for the build,
# its boot for the guest (tools/kernels.sh, tools/vm/env.sh read KVER);
# the Makefile's check-rt has had tools/setup.sh fetch it.
use_rt_kernel() {
	local rel
	rel=$("$REPO/tools/kernels.sh" pick 6.12 rt) || return
	export KVER=$rel RVT_CORES=${RVT_CORES:-ours}
	# env.sh's paths were set for make check's kernel when it was sourced.
	kernel_paths "$("$REPO/tools/kernels.sh" dir "$rel")" "$rel"
	OUT=$REPO/build/check-rt
	echo "check-rt: kernel $rel, cores: $RVT_CORES"
}

# The two-guest lane: pair.sh's two guests, the suites of
# tools/testing/pair (guest.sh runs those it is given), once for each
# pairing of RVT_PAIRINGS (a's core:b's). By default ours in both, then
# the cross-core pairings of issue 34: our rdmavt in one guest, the
# distro's in the other, both ways; with RVT_CORES set, each of its
# cores in both guests.
use_wire() {
	local core
	OUT=$REPO/build/check-wire
	RUNNER=$REPO/tools/vm/pair.sh
	SUITE_DIR=$REPO/tools/testing/pair
	ROLES="a b"
	if [[ -z ${RVT_PAIRINGS:-} && -n ${RVT_CORES:-} ]]; then
		for core in $RVT_CORES; do
			RVT_PAIRINGS+=" $core:$core"
		done
	fi
	PAIRINGS=${RVT_PAIRINGS:-ours:ours ours:distro distro:ours}
	echo "check-wire: two guests on a link, pairings (a:b): $PAIRINGS"
}

# The pair suites that load no rdmavt core (rdma_rxe is a driver of its
# own): a pairing of cores has nothing to add to their first run.
WIRE_CORELESS=" 10-rxe "

# run_pairings SUITE...: a pair run (run_guest) for each pairing, the
# coreless suites in the first one only; each with its logs and results
# in a directory of its own, its results named after it.
run_pairings() {
	local pairing suites f first=1 top=$OUT start
	for pairing in $PAIRINGS; do
		suites=()
		for f; do
			[[ -n $first || $WIRE_CORELESS != *" $(basename "$f" .sh) "* ]] &&
				suites+=("$f")
		done
		first=
		((${#suites[@]})) || continue
		export RVT_CORES_A=${pairing%%:*} RVT_CORES_B=${pairing#*:}
		OUT=$top/$RVT_CORES_A-$RVT_CORES_B
		GUEST=wire/$RVT_CORES_A-$RVT_CORES_B
		mkdir -p "$OUT"
		echo "=== pairing a:$RVT_CORES_A b:$RVT_CORES_B: ${suites[*]##*/}"
		start=$SECONDS
		run_guest "${suites[@]}"
		echo "a:$RVT_CORES_A b:$RVT_CORES_B"
		tally --table
		echo "=== pairing a:$RVT_CORES_A b:$RVT_CORES_B took $((SECONDS - start)) s"
	done
	OUT=$top
}

# suite_paths SUITE...: each as a path, those given by name under
# SUITE_DIR.
suite_paths() {
	local f
	for f; do
		[[ $f == */* ]] || f=$SUITE_DIR/$f
		echo "$f"
	done
}

# make check's host steps; the debug lane needs only the builds, the RT
# lane the builds and abi-check (the others do not depend on the kernel),
# the two-guest lane (--wire) the builds.
# The suites' userspace programs are built here, before the guest boots:
# it compiles nothing. (make tests builds them too; their step comes
# first to name their failure.)
host_steps() {
	local build_vars=()
	# make check's own lane runs sparse in its W=1 build (the Makefile's
	# SPARSE=1), and its sparse step reads that step's log rather than
	# building it all again: a sparse finding fails both steps.
	[[ -n $DEBUG_KERNEL$RT_KERNEL$WIRE ]] || build_vars=(SPARSE=1)
	host_step progs make -C "$REPO" -j "$(nproc)" progs
	host_step build-W1 build_clean "${build_vars[@]}"
	host_step guest-builds-nothing \
		"$REPO/tools/testing/host/guest_builds_nothing.py"
	[[ -z $DEBUG_KERNEL && -z $WIRE ]] || return 0
	if [[ -n $RT_KERNEL ]]; then
		host_step abi-check "$REPO/tools/abi-check"
		return 0
	fi
	host_step insn-profile-plugin build_plugin
	host_step abi-check "$REPO/tools/abi-check"
	# Every listed kernel's headers: 32/32 CRCs each (the log has the
	# per-kernel lines).
	host_step abi-kernels "$REPO/tools/abi-kernels.sh"
	host_step setup-installs-no-kernel "$REPO/tools/testing/host/setup_kernel_test.sh"
	host_step abi-check-selftest "$REPO/tools/testing/host/abi-check-test.sh"
	host_step harness-selftest "$REPO/tools/testing/host/harness_test.sh"
	host_step checkpatch "$REPO/tools/style.sh" checkpatch
	host_step sparse env RVT_SPARSE_LOG="$OUT/build-W1.log" \
		"$REPO/tools/style.sh" sparse
	host_step shellcheck "$REPO/tools/style.sh" shellcheck
	host_step man-pages "$REPO/tools/testing/host/man_test.sh"
	host_step layout-map "$REPO/tools/testing/host/layout_test.sh"
	host_step layers "$REPO/tools/testing/host/layers_test.py"
	host_step coverage-map "$REPO/tools/testing/host/coverage_map_test.py"
	host_step bench-table "$REPO/tools/testing/host/bench_table_test.sh"
	host_step contract-compare "$REPO/tools/testing/host/contract_compare_test.sh"
	# make deb, lintian on it; make check-dkms installs it in the guest.
	host_step deb-package "$REPO/tools/deb.sh"
	host_step dkms-conf "$REPO/tools/testing/host/dkms_conf_test.sh"
}

main() {
	local start=$SECONDS paths
	if [[ ${1:-} == --debug-kernel ]]; then
		DEBUG_KERNEL=1
		shift
		use_debug_kernel || { echo "check-debug: no debug kernel"; return 1; }
	elif [[ ${1:-} == --rt ]]; then
		RT_KERNEL=1
		shift
		use_rt_kernel || { echo "check-rt: no RT kernel in tools/kernels"; return 1; }
		(($#)) || set -- "${RT_SUITES[@]/%/.sh}"
	elif [[ ${1:-} == --wire ]]; then
		WIRE=1
		shift
		use_wire
		(($#)) || set -- "$SUITE_DIR"/*.sh
		# guest.sh finds a suite given by name in suites/: a path here.
		mapfile -t paths < <(suite_paths "$@")
		set -- "${paths[@]}"
	fi
	mkdir -p "$OUT"
	host_steps
	if [[ -n $WIRE ]]; then
		run_pairings "$@"
	else
		run_guest "$@"
		tally --table
	fi
	if ((SKIPPED)); then
		echo "Skipped, and known differences of the distro core:"
		printf '  %s\n' "${SKIPS[@]}"
	fi
	if ((FAILED)); then
		echo "Failed:"
		printf '  %s\n' "${FAILURES[@]}"
	fi
	echo "took $(((SECONDS - start) / 60)) min"
	echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
	((FAILED == 0))
}

main "$@"
