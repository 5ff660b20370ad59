#!/bin/bash
# Host test of the test harness itself, no guest needed: the fixture
# suites under tools/testing/fixtures/harness/suites run through the real
# guest.sh and lib/suite.sh on both cores' names, their results go to a
# results channel (a file here, a serial port of its own in the guest)
# and the host's tally (lib/results.py, what make check counts) must
# report each one exactly as recorded in expected.records and
# expected.table: a SKIP inside a KTAP module's results is a SKIP, a
# KNOWN is granted only for the recorded symptom and any other failure of
# that test is a FAIL, a result the suite's plan counts on but never
# came is a FAIL, a failing setup step is a FAIL and so are the tests it
# leaves unrun, a suite that exits non-zero or never declares a plan is
# a FAIL, and a device that cannot be removed after a suite ends the run
# with a FAIL (@unload). A kernel test module that crashes, stops short
# of its plan or leaves no results fails its suite (fixtures/harness/kmod,
# through run_kmod). A second fixture, a channel with a duplicate, a result not asked
# for, a PASS of a harness result and a kernel line on it, checks the
# tally's own rules; its console twin shows the kernel line that broke a
# FAIL there, which the tally never reads. perftest's verdict is checked
# on recorded outputs: a clock calibration failing under TCG spoils the
# figures, never the verdict; a lost iteration or, with a calibrated
# clock, a zero figure is refused (but for the average bandwidth, which
# rounds to 0.00 for slow 8-byte atomics). The runner's boot deadline kills a
# guest that never starts its script and leaves one that did alone.
# pyverbs_suite.py's accounting
# of test_qp's randomly drawn creates is checked on fake tests
# (pyverbs_accounting_test.py).
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
TESTING=$REPO/tools/testing
FIXTURES=$TESTING/fixtures/harness
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
FAILED=0

check() {
	local what=$1 expected=$2
	shift 2
	if diff -u "$expected" <("$@") >"$WORK/diff"; then
		echo "ok: $what"
	else
		echo "FAIL: $what differs from ${expected#"$REPO"/}:"
		cat "$WORK/diff"
		FAILED=1
	fi
}

tally() {
	python3 "$TESTING/lib/results.py" "$@"
}

# The fixture suites through the real guest runner, on both cores.
RVT_CORES="ours distro" RVT_RESULTS=$WORK/results \
	bash "$TESTING/guest.sh" "$FIXTURES"/suites/*.sh >"$WORK/console" 2>&1
SUITES="fixture dies silent never"	# never: asked for, never run
check "fixture suites, records" "$FIXTURES/expected.records" \
	tally --cores "ours distro" --suites "$SUITES" "$WORK/results"
check "fixture suites, table" "$FIXTURES/expected.table" \
	tally --table --cores "ours distro" --suites "$SUITES" "$WORK/results"

# A device that cannot be removed after a suite (rmmod never returns)
# is @unload's failure, reported with what is stuck, and the run ends
# there: no suite after it, on no core, runs on a dirty slate.
mkdir "$WORK/stuck"
printf '#!/bin/sh\necho "rvtsw 16384 0"\n' >"$WORK/stuck/lsmod"
printf '#!/bin/sh\nexec sleep 20\n' >"$WORK/stuck/rmmod"
chmod +x "$WORK/stuck/lsmod" "$WORK/stuck/rmmod"
PATH=$WORK/stuck:$PATH RVT_UNLOAD_TIMEOUT=2 RVT_HANG_SYSRQ=0 \
	RVT_CORES="ours distro" RVT_RESULTS=$WORK/stuck.results \
	bash "$TESTING/guest.sh" "$FIXTURES"/suites/{20-dies,30-silent}.sh \
	>"$WORK/stuck.console" 2>&1
if [[ $(grep '^RVT-RESULT' "$WORK/stuck.results" | cut -d' ' -f2,3) == "$(printf '%s\n' \
	'PASS ours/dies/before-dying' 'FAIL ours/dies/@exit:' \
	'FAIL ours/dies/@unload:')" ]] &&
   grep -q '^unloading after suite dies still running after 2 s$' \
	"$WORK/stuck.console" &&
   grep -q '^--- kernel stack of' "$WORK/stuck.console"; then
	echo "ok: a device that cannot be removed ends the run with @unload"
else
	echo "FAIL: a stuck unload is not reported as @unload, or the run went on:"
	sed 's/^/    /' "$WORK/stuck.results" "$WORK/stuck.console"
	FAILED=1
fi

# The kernel test module runner (run_kmod) on modules that stop part way:
# rvt_crash's insmod is killed (an oops in its init) and it cannot be
# removed, rvt_stops loads and unloads but stopped early, rvt_gone left
# no results. Each test planned and not reported is a FAIL, and so are
# the failed load and the missing results file: the suite counts as
# failed, never as passed or skipped.
mkdir -p "$WORK/kmod/bin" "$WORK/kmod/debugfs/rvt_crash" \
	"$WORK/kmod/debugfs/rvt_stops"
cp "$FIXTURES/kmod/crash.ktap" "$WORK/kmod/debugfs/rvt_crash/results"
cp "$FIXTURES/kmod/crash.ktap" "$WORK/kmod/debugfs/rvt_stops/results"
cat >"$WORK/kmod/bin/insmod" <<'FAKE'
#!/bin/sh
case ${1##*/} in
rvt_ktest.ko | rvt_stops.ko) exit 0 ;;
esac
echo "Segmentation fault" >&2
exit 139
FAKE
printf '#!/bin/sh\n' >"$WORK/kmod/bin/lsmod"
cat >"$WORK/kmod/bin/rmmod" <<'FAKE'
#!/bin/sh
[ "$1" != rvt_crash ] && exit 0
echo "rmmod: ERROR: Module $1 is in use" >&2
exit 1
FAKE
chmod +x "$WORK"/kmod/bin/*
PATH=$WORK/kmod/bin:$PATH RVT_DEBUGFS=$WORK/kmod/debugfs RVT_CORES=ours \
	RVT_RESULTS=$WORK/kmod.results bash "$TESTING/guest.sh" \
	"$FIXTURES"/kmod/*.sh >"$WORK/kmod.console" 2>&1
# shellcheck disable=SC2317 # called through check
kmod_tally() {
	tally "$@" --cores ours --suites "crash stops gone" \
		"$WORK/kmod.results" | sed "s|$WORK/|WORK/|"
}
check "kmod runner, records" "$FIXTURES/kmod/expected.records" kmod_tally
check "kmod runner, table" "$FIXTURES/kmod/expected.table" kmod_tally --table

# The tally's own rules, on a channel written by hand.
check "channel rules" "$FIXTURES/channel.expected" \
	tally --cores ours --suites demo "$FIXTURES/channel.results"
# On the console a kernel line broke the FAIL: counted from there it
# would be lost. The channel has it whole, and that is what is counted.
counted=$(tally --cores ours --suites demo "$FIXTURES/channel.results")
if grep -q '^RVT-RESULT: FAIL ours/demo/lost' "$FIXTURES/console.log" ||
   ! grep -q '^FAIL ours/demo/lost-on-the-console' <<<"$counted"; then
	echo "FAIL: the FAIL broken on the console is not counted whole from the channel"
	FAILED=1
else
	echo "ok: a FAIL broken on the console by a kernel line counts from the channel"
fi

# printk writes to the console, ttyS0 only; results go to ttyS1.
if grep -q 'console=ttyS0,' "$REPO/tools/vm/run.sh" &&
   ! grep -q 'console=ttyS1' "$REPO/tools/vm/run.sh" &&
   grep -q '^RESULTS_TTY=/dev/ttyS1$' "$REPO/tools/vm/guest-init"; then
	echo "ok: the kernel console (ttyS0) is not the results port (ttyS1)"
else
	echo "FAIL: the kernel console and the results port may be one"
	FAILED=1
fi

# The runner's scan of the kernel log: every report of the checkers is
# flagged, and so is a stack dump, but for the one an allocation failed
# on purpose prints inside a fault-injection sweep's markers.
# shellcheck disable=SC2317 # called through check
scanned_kernel_log() {
	(
		# shellcheck source=tools/vm/run.sh
		source "$REPO/tools/vm/run.sh"
		bad_lines <"$FIXTURES/kernel.log"
	)
}
check "kernel log scan" "$FIXTURES/kernel.expected" scanned_kernel_log

# The runner's recorded upstream complaints (tools/testing/known-
# complaints): 6.1's FORTIFY WARNING in the distro's rdmavt, as the 6.1
# lane logged it (fixtures/harness/known/distro.log), is KNOWN and the
# run passes; the same report with our module loaded (rdmavt(OE)), from
# another line or on another kernel fails (120), and so does an
# unrelated WARNING beside a known one, or a BUG printed inside it; a list
# that does not parse (an entry given twice) knows nothing.
KNOWN_FIXTURES=$FIXTURES/known
KNOWN_CASES=(
	"distro "
	"ours s/ rdmavt crc32_generic/ rdmavt(OE) crc32_generic/;s/(core: distro)/(core: ours)/"
	"line s/qp\.c:2041/qp.c:2042/g"
	"kernel s/6\.1\.0-57-amd64/6.12.118+deb12-amd64/g"
	"unrelated /ok 4 uc_write_data/r $KNOWN_FIXTURES/unrelated.block"
	"inside /WARNING: CPU: 1 PID: 9755/a [ 2587.815500] BUG: sleeping function called from invalid context at kernel/locking/mutex.c:580"
)
# shellcheck disable=SC2317 # called through check
known_complaint_cases() {
	(
		# shellcheck source=tools/vm/run.sh
		source "$REPO/tools/vm/run.sh"
		local name edit rc
		for c in "${KNOWN_CASES[@]}"; do
			name=${c%% *} edit=${c#* }
			LOG=$WORK/known-$name.log
			sed "$edit" "$KNOWN_FIXTURES/distro.log" >"$LOG"
			NONCE=0123456789ab BOOT_FLAG=$WORK/none KNOWN_SUMMARY=
			rc=0
			report 0 2>"$WORK/known.out" || rc=$?
			echo "== $name: exit $rc"
			sed "s|$WORK/|WORK/|;s|^${0##*/}: |run.sh: |" "$WORK/known.out"
		done
		# A list that does not parse knows nothing: an entry given
		# twice (the same id) makes the recorded report fail.
		LOG=$WORK/known-distro.log
		KNOWN_COMPLAINTS=$WORK/known-twice
		{ cat "$TESTING/known-complaints"; echo
		  sed -n '/^id: /,$p' "$TESTING/known-complaints"; } >"$KNOWN_COMPLAINTS"
		rc=0
		report 0 2>"$WORK/known.out" || rc=$?
		echo "== entry given twice: exit $rc"
		sed "s|$WORK/|WORK/|;s|^${0##*/}: |run.sh: |;s|known-twice:[0-9]*:|known-twice:N:|" \
			"$WORK/known.out"
	)
}
check "known upstream complaints" "$KNOWN_FIXTURES/expected" \
	known_complaint_cases

# Every entry names an anchor that differences.rst has.
while read -r doc; do
	if grep -q "^\.\. _${doc#differences.rst#}:$" \
		"$REPO/Documentation/differences.rst"; then
		echo "ok: known complaint's $doc exists"
	else
		echo "FAIL: known complaint's $doc is no anchor of Documentation/differences.rst"
		FAILED=1
	fi
done < <(sed -n 's/^doc: //p' "$TESTING/known-complaints")

# The runner's boot deadline: a guest whose console never shows the
# start of its script is killed after --boot-timeout, with a flag for
# report(); one that shows it is left to run.
# shellcheck disable=SC2317 # called through check
boot_watchdog_cases() {
	(
		# shellcheck source=tools/vm/run.sh
		source "$REPO/tools/vm/run.sh"
		local guest case
		BOOT_TIMEOUT=2
		for case in wedged booted; do
			LOG=$WORK/$case.log
			echo "[    5.000000] identify_cpu+0x1c/0x80" >"$LOG"
			[[ $case == booted ]] && echo "${SCRIPT_STARTED}x.sh" >>"$LOG"
			sleep 30 &
			guest=$!
			boot_watchdog "$guest" "$WORK/$case.flag"
			sleep 0.5
			# A killed child stays a zombie until waited for.
			if [[ $(ps -o stat= -p "$guest") == [^Z]* ]]; then
				echo "$case: guest running"
				kill "$guest"
			else
				echo "$case: guest killed"
			fi
			wait "$guest" 2>/dev/null
			[[ -e $WORK/$case.flag ]] && echo "$case: flagged"
		done
	)
}
check "boot deadline" <(printf '%s\n' 'wedged: guest killed' \
	'wedged: flagged' 'booted: guest running') boot_watchdog_cases

# perftest's verdict (lib/perftest.sh) on recorded outputs: every
# iteration reported, figures judged only with a calibrated clock.
# shellcheck disable=SC2317 # called through check
perftest_verdicts() {
	local f name peer
	# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
	source "$TESTING/lib/suite.sh"
	# shellcheck source-path=SCRIPTDIR source=../lib/perftest.sh
	source "$TESTING/lib/perftest.sh"
	for f in "$FIXTURES"/../perftest/*.out; do
		name=${f##*/}
		if perf_side_ok "${name%%-*}" "$f" 100 >/dev/null; then
			echo "ok ${f##*/}"
		else
			echo "refused ${f##*/}"
		fi
	done
	# The passive side prints what the active side measured: its zeros
	# stand when the active side's clock failed, not when it worked.
	f=$FIXTURES/../perftest/bw-passive-server.out
	for peer in bw-uncalibrated.out bw-calibrated.out; do
		if perf_side_ok bw "$f" 100 "$FIXTURES/../perftest/$peer" >/dev/null; then
			echo "ok ${f##*/} with $peer"
		else
			echo "refused ${f##*/} with $peer"
		fi
	done
}
check "perftest verdicts" "$FIXTURES/../perftest/expected" perftest_verdicts

# A pair of guests (tools/vm/pair.sh): one that ends without a verdict
# (timeout 124, no exit status 125) has the other stopped at once; one
# whose script merely failed leaves the other to finish.
# shellcheck disable=SC2317 # called through check
pair_stop_cases() {
	(
		# shellcheck source=tools/vm/pair.sh
		source "$REPO/tools/vm/pair.sh"
		local end
		for end in 124 1; do
			PIDS=() STATUS=()
			bash -c "sleep 0.5; exit $end" &
			PIDS[a]=$!
			bash -c 'sleep 3; exit 0' &
			PIDS[b]=$!
			wait_guests 2>/dev/null
			echo "a ended $end: b ${STATUS[b]}"
		done
	)
}
check "pair: a guest without a verdict stops the other" \
	<(printf '%s\n' 'a ended 124: b 143' 'a ended 1: b 0') pair_stop_cases

# Each guest of a pair has its own cores (pair.sh): RVT_CORES_A and
# RVT_CORES_B, else RVT_CORES, else guest.sh's "ours distro"; lists of
# different lengths would put the guests out of step, and are refused.
# shellcheck disable=SC2317,SC2034 # called through check; read by role_cores
pair_core_cases() {
	(
		# shellcheck source=tools/vm/pair.sh
		source "$REPO/tools/vm/pair.sh"
		unset RVT_CORES RVT_CORES_A RVT_CORES_B
		echo "unset: $(role_cores a) / $(role_cores b)"
		RVT_CORES=ours
		echo "RVT_CORES: $(role_cores a) / $(role_cores b)"
		RVT_CORES_A=ours RVT_CORES_B=distro
		echo "per role: $(role_cores a) / $(role_cores b)"
		(parse_args x.sh)
		echo "one each: status $?"
		RVT_CORES_B="distro ours"
		(parse_args x.sh 2>/dev/null)
		echo "one and two: status $?"
	)
}
check "pair: each guest's cores" <(printf '%s\n' \
	'unset: ours distro / ours distro' 'RVT_CORES: ours / ours' \
	'per role: ours / distro' 'one each: status 0' \
	'one and two: status 2') pair_core_cases

# The barrier the two halves of a pair suite keep in step with
# (lib/barrier.py), here over lo: met, each learning the other's word;
# out of step (another barrier's name) fails both sides; no peer fails
# at the timeout.
# shellcheck disable=SC2317 # called through check
barrier_cases() {
	local port=$((20000 + RANDOM % 10000)) b rc
	barrier() {
		/usr/bin/python3 "$TESTING/lib/barrier.py" "$1" 127.0.0.1 \
			"$port" "$2" "$3" "$4" 2>/dev/null
	}
	barrier b 10 x.1 from-b >"$WORK/barrier.b" &
	b=$!
	echo "a got $(barrier a 10 x.1 from-a), status $?"
	wait "$b"
	rc=$?
	echo "b got $(<"$WORK/barrier.b"), status $rc"
	barrier b 10 x.2 - &
	b=$!
	barrier a 10 x.3 -
	echo "out of step: a status $?"
	wait "$b"
	echo "out of step: b status $?"
	barrier a 1 x.4 -
	echo "no peer: status $?"
}
check "pair barrier" <(printf '%s\n' 'a got from-b, status 0' \
	'b got from-a, status 0' 'out of step: a status 3' \
	'out of step: b status 3' 'no peer: status 1') barrier_cases

# pyverbs_suite.py's accounting of the random extended creates.
/usr/bin/python3 "$TESTING/host/pyverbs_accounting_test.py" || FAILED=1

if ((FAILED)); then
	echo "console of the fixture run:"
	sed 's/^/    /' "$WORK/console"
fi
exit "$FAILED"
