# shellcheck shell=bash
# Helpers for the two-guest suites (tools/testing/pair/) and the link
# benchmark: the same suite runs in guests a and b of tools/vm/pair.sh,
# joined by a link (each guest's eth0), and its halves keep in step over
# that link. Sourced after suite.sh.
#
# Role b serves (runs the server side of each program, listens at the
# barriers), role a is the client. Each side reports its own verdict on
# every test, as <core>/<suite>-<role>/<test> (guest.sh adds the role to
# the suite's name): the host counts both guests' results as one run.
#
# Every wait on the peer is bounded: a barrier the peer does not reach in
# time fails, and from then on the pair is out of step for the rest of
# the suite: every later barrier fails at once instead of waiting again.

ROLE=${RVT_ROLE:-}
PEER_ADDR=${RVT_PEER_ADDR:-}
LINK_ADDR=${RVT_LINK_ADDR:-}
LINK_ADDR=${LINK_ADDR%/*}
LINK_DEV=eth0
BARRIER_PORT=18434
# Seconds to wait for the peer at a barrier; the first of a suite waits
# longer: the peer may still be booting or finishing the suite before.
BARRIER_TIMEOUT=${RVT_BARRIER_TIMEOUT:-180}
BARRIER_FIRST_TIMEOUT=${RVT_BARRIER_FIRST_TIMEOUT:-900}
# What the peer brought to the last barrier.
PEER_WORD=
# The suite's barrier count and whether the pair fell out of step live
# in files: tests run in subshells (t), and what they change must last.
PAIR_STATE=${TMPDIR:-/tmp}/rvt-pair.$$
mkdir -p "$PAIR_STATE"
[[ -e $PAIR_STATE/count ]] || echo 0 >"$PAIR_STATE/count"

# in_pair: this guest is one of a pair, with a role and a peer.
in_pair() {
	[[ ($ROLE == a || $ROLE == b) && -n $PEER_ADDR && -n $LINK_ADDR ]]
}

is_server() { [[ $ROLE == b ]]; }

# side: the name of this guest's side of a server/client program.
side() {
	if is_server; then echo server; else echo client; fi
}

# The suite's name as both sides know it (guest.sh adds the role).
pair_suite() {
	local suite=${SUITE:-?}
	echo "${suite%-"$ROLE"}"
}

# next_count: the next number of the suite's barrier sequence.
next_count() {
	local n
	n=$(<"$PAIR_STATE/count")
	echo $((n + 1)) >"$PAIR_STATE/count"
	echo $((n + 1))
}

# barrier NAME WORD [TIMEOUT]: meet the peer at the suite's next barrier,
# named NAME (the name and the number must agree on both sides, or the
# two are out of step), bringing WORD; PEER_WORD gets the peer's.
# Return: 0 if met, 1 if not (timeout, out of step, or the pair already
# out of step).
barrier() {
	local name limit=${3:-$BARRIER_TIMEOUT} n
	n=$(next_count)
	name=$(pair_suite).$n.$1
	PEER_WORD=
	if [[ -e $PAIR_STATE/broken ]]; then
		echo "barrier $name: not tried: $(<"$PAIR_STATE/broken")"
		return 1
	fi
	((n > 1)) || limit=${3:-$BARRIER_FIRST_TIMEOUT}
	if ! PEER_WORD=$("$PY" "$TESTING_DIR/lib/barrier.py" "$ROLE" \
		"$PEER_ADDR" "$BARRIER_PORT" "$limit" "$name" "$2" 2>&1); then
		echo "$PEER_WORD"
		echo "barrier $name failed" >"$PAIR_STATE/broken"
		return 1
	fi
}

# pair_step NAME CMD [ARGS...]: a step (suite.sh) both sides take: it
# fails on this side if it fails on either (the peer's failure as
# @NAME-peer), so that neither goes on alone.
pair_step() {
	local name=$1 word=ok
	shift
	step "$name" "$@" || word=fail
	if ! barrier "step-$name" "$word"; then
		[[ -n $STEP_FAILED ]] && return 1
		fail "@$name-peer" "the peer and this side did not meet after the step"
		STEP_FAILED=$name-peer
		return 1
	fi
	[[ $word == ok ]] || return 1
	if [[ $PEER_WORD != ok ]]; then
		fail "@$name-peer" "the peer's step $name failed"
		STEP_FAILED=$name-peer
		return 1
	fi
}

# pair_start: the suite's first step: this guest is one of a pair, and
# the peer answers at the first barrier.
pair_start() {
	pair_step pair-start in_pair
}

# PAIR_GRACE: seconds the server may outlive the client's end before it
# is killed (a server whose client failed would wait for it for ever).
PAIR_GRACE=30

# pair_run TEST OUT READY SERVER CLIENT: one run of a server/client
# program across the link, named TEST in the barriers: on b the command
# in the array named SERVER, on a the one named CLIENT (names other than
# _pair_server and _pair_client), started once b's
# READY command (a string of words, e.g. "tcp_listening 18600") succeeds.
# This side's output goes to OUT and is shown.
# Return: this side's command's exit status (1 if not run).
pair_run() {
	local test=$1 out=$2 ready=$3 rc=0
	if is_server; then
		pair_serve "$test" "$out" "$ready" "$4" || rc=$?
	else
		pair_client "$test" "$out" "$5" || rc=$?
	fi
	echo "$(side) (status $rc):"
	indent <"$out"
	return "$rc"
}

# The server's side of pair_run: run it, say when it is ready, and then
# wait for its end; the client's end arrives at the "done" barrier,
# met in the background, after which the server has PAIR_GRACE seconds.
pair_serve() {
	local test=$1 out=$2 ready=$3 spid bpid word=ready n rc=0 left
	local -n _pair_server=$4
	timeout 300 "${_pair_server[@]}" >"$out" 2>&1 &
	spid=$!
	# shellcheck disable=SC2086 # READY is a command line
	if ! wait_for 300 $ready; then
		echo "the server was not ready within 30 s"
		word=fail
	fi
	if ! barrier "$test-ready" "$word" || [[ $word != ready ]]; then
		kill "$spid" 2>/dev/null
		wait "$spid"
		return 1
	fi
	n=$(next_count)
	"$PY" "$TESTING_DIR/lib/barrier.py" b "$PEER_ADDR" "$BARRIER_PORT" \
		"$BARRIER_TIMEOUT" "$(pair_suite).$n.$test-done" - \
		>"$out.done" 2>&1 &
	bpid=$!
	left=$PAIR_GRACE
	while kill -0 "$spid" 2>/dev/null; do
		if ! kill -0 "$bpid" 2>/dev/null && ((left-- <= 0)); then
			echo "the server still ran $PAIR_GRACE s after the client's end: killed"
			kill "$spid"
			break
		fi
		sleep 1
	done
	wait "$spid" || rc=$?
	if ! wait "$bpid"; then
		echo "barrier $test-done failed" >"$PAIR_STATE/broken"
		((rc != 0)) || rc=1
	fi
	echo "the client's status: $(<"$out.done")"
	return "$rc"
}

# The client's side of pair_run: run once the server is ready, then say
# so at the "done" barrier.
pair_client() {
	local test=$1 out=$2 rc=0
	local -n _pair_client=$3
	if ! barrier "$test-ready" -; then
		echo "no server" >"$out"
		return 1
	fi
	if [[ $PEER_WORD != ready ]]; then
		# Then neither side meets at "done".
		echo "the server was not ready" >"$out"
		return 1
	fi
	timeout 300 "${_pair_client[@]}" >"$out" 2>&1 || rc=$?
	barrier "$test-done" "$rc" || ((rc != 0)) || rc=1
	return "$rc"
}

# next_port: a TCP port for the next program run, the same on both
# sides (they count their runs alike).
next_port() {
	echo $((18600 + $(next_count)))
}

# ---- verbs programs across the link (pair/10-rxe, pair/20-rvtsw) ----
# Each runs one program between the guests, b the server, a the client,
# and judges this side's output. The device's options are the suite's,
# set once its device is up: PAIR_PP_DEV for libibverbs' ping-pongs
# (e.g. -d rxe0 -g 1), PAIR_PERF_DEV for perftest (-d rxe0 -x 1). The
# outputs stay in PAIR_OUT (the suite's own directory, if it sets one).
PAIR_PP_DEV=()
PAIR_PERF_DEV=()
PAIR_OUT=${PAIR_OUT:-$PAIR_STATE}
# What rping sends and checks (-V) each time, and how many.
RPING_COUNT=5

# link_pingpong NAME PROG [ARGS...]: PROG (an ibv_*_pingpong) between
# the guests, ITERS exchanges with both sides' buffers checked (-c);
# this side finished all.
link_pingpong() {
	local name=$1 prog=$2 port out=$PAIR_OUT/$1
	shift 2
	port=$(next_port)
	# shellcheck disable=SC2034 # passed by name
	local cmd=("$prog" "${PAIR_PP_DEV[@]}" -p "$port" -n "$ITERS" -c "$@")
	# shellcheck disable=SC2034
	local ccmd=("${cmd[@]}" "$PEER_ADDR")
	pair_run "$name" "$out" "tcp_listening $port" cmd ccmd || return
	grep -q "^$ITERS iters in" "$out" ||
		{ echo "no '$ITERS iters in' on this side"; return 1; }
}

# rdma_cm's listener for rping, once it is there.
rping_listening() {
	rdma resource show cm_id | grep -q 'state LISTEN.*comm rping'
}

# link_rping SERVER_ADDR: rping to b's SERVER_ADDR, RPING_COUNT pings,
# each one's data checked (-V) and shown (-v) on this side.
link_rping() {
	local out=$PAIR_OUT/rping got
	# shellcheck disable=SC2034 # passed by name
	local scmd=(rping -s -a "$1" -C "$RPING_COUNT" -V -v)
	# shellcheck disable=SC2034
	local ccmd=(rping -c -a "$1" -C "$RPING_COUNT" -V -v)
	pair_run rping "$out" rping_listening scmd ccmd || return
	got=$(grep -c "ping data: rdma-ping-" "$out")
	((got == RPING_COUNT)) ||
		{ echo "$got pings on this side, $RPING_COUNT sent"; return 1; }
}

# link_perftest NAME ITERS PROG [ARGS...]: a perftest RC program (sourced
# after lib/perftest.sh) between the guests: this side exits 0; the
# client's report counts all ITERS iterations with positive figures
# (unless its clock calibration failed: lib/perftest.sh), and so does the
# server's when it prints one (its figures, on the passive side, are the
# client's: not judged there).
link_perftest() {
	local name=$1 iters=$2 prog=$3 port out=$PAIR_OUT/$1
	shift 3
	port=$(next_port)
	# shellcheck disable=SC2034 # passed by name
	local cmd=("$prog" "${PAIR_PERF_DEV[@]}" -p "$port" -F -n "$iters" "$@")
	# shellcheck disable=SC2034
	local ccmd=("${cmd[@]}" "$PEER_ADDR")
	pair_run "$name" "$out" "tcp_listening $port" cmd ccmd || return
	if ! is_server; then
		perf_side_ok bw "$out" "$iters"
	elif [[ -n $(perf_report_line "$out") ]]; then
		[[ $(perf_iterations "$out") == "$iters" ]] ||
			{ echo "server: $(perf_iterations "$out") iterations reported, $iters run"; return 1; }
	fi
}

# ---- rdma_rxe on the link ----

# mapped_gid ADDR: the RoCE GID of an IPv4 address, as sysfs writes it.
mapped_gid() {
	local IFS=.
	# shellcheck disable=SC2086 # split the address at its dots
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' $1
}

# gid_index DEV ADDR: the index of DEV's RoCE v2 GID of ADDR (port 1).
gid_index() {
	local dev=$1 want gid idx type
	want=$(mapped_gid "$2")
	for gid in "$SYS/$dev/ports/1/gids/"*; do
		idx=${gid##*/}
		[[ $(<"$gid") == "$want" ]] || continue
		type=$(cat "$SYS/$dev/ports/1/gid_attrs/types/$idx" 2>/dev/null)
		[[ $type != "RoCE v2" ]] || { echo "$idx"; return 0; }
	done
	return 1
}

# rxe_link_up: rdma_rxe on the link, as rxe0, with its RoCE v2 GID of
# this guest's address in the table.
rxe_link_up() {
	rxe_up "$LINK_DEV" && wait_for 100 gid_index rxe0 "$LINK_ADDR"
}

# rxe_link_down: rxe0's counters shown (retransmissions, RNR and
# sequence errors say what the link did to the traffic), rxe0 gone.
rxe_link_down() {
	link_counters rxe0/1
	rxe_down
}

# ---- rvtsw over its uplink on the link (pair/20-rvtsw, bench rvtsw-link) ----
# Each guest loads rvtsw managed, its switch's uplink port on the link's
# interface (Documentation/wire.rst, "Uplinks"), so that the two
# switches train with each other; one OpenSM, on b (the side that
# serves), then sweeps the fabric of both: two switches and two HCAs.
# pair/20-rvtsw takes these as steps of a suite, make bench's rvtsw-link
# target as one bring-up; both alike, from here.
LINK_CA=rvtsw_0
LINK_UP=rvtsw_up0
# b's OpenSM: its PID, its output and its log, as $LINK_SM.{pid,out,log}.
LINK_SM=$PAIR_STATE/opensm

# rvtsw_link_load: ib_umad (the SM's and the diags' way to the ports) and
# rvtsw managed, its uplink on LINK_DEV; done once both the uplink port
# and the HCA port are in sysfs.
rvtsw_link_load() {
	modprobe ib_umad && load_rvtsw uplink="$LINK_DEV" managed=1 &&
		wait_for 50 test -e "$SYS/$LINK_UP/ports/1/state" &&
		wait_for 50 test -e "$SYS/$LINK_CA/ports/1/lid"
}

# link_sm_start: on b, OpenSM on LINK_CA port 1 (by its GUID: the
# guest's only HCA port; a's it reaches through the uplinks), sweeping
# every 5 s, its log flushed at each message (-d2: link_active reads it
# while it runs); on a, nothing: one SM for both, or the two would
# fight over the fabric. It runs on after the caller (a test's
# subshell), so it holds none of the caller's output open. Its log
# starts empty (OpenSM appends): the bench starts one each round.
link_sm_start() {
	is_server || return 0
	: >"$LINK_SM.log"
	opensm -g "$(port_guid "$LINK_CA" 1)" -f "$LINK_SM.log" -s 5 -d2 \
		</dev/null >"$LINK_SM.out" 2>&1 &
	echo $! >"$LINK_SM.pid"
}

# link_sm_stop: the OpenSM that link_sm_start started, if any, ended by
# SIGTERM within 10 s. Safe to call again (a suite's exit trap).
# Return: 1 if it had already ended (it died under the test) or did not end.
link_sm_stop() {
	local pid
	[[ -s $LINK_SM.pid ]] || return 0
	pid=$(<"$LINK_SM.pid")
	: >"$LINK_SM.pid"
	if ! kill "$pid" 2>/dev/null; then
		echo "OpenSM ($pid) had already ended"
		return 1
	fi
	wait_for 100 test ! -e "/proc/$pid" ||
		{ echo "OpenSM ($pid) still runs 10 s after SIGTERM"; return 1; }
}

# link_active: this side's LINK_CA port 1 ACTIVE, with a LID other than
# 0, within about 3 minutes (b's SM sweeps both switches through the
# uplinks, slowly under TCG); on b also "SUBNET UP" in the SM's log. If
# not, what says why: the port's state, the uplink's counters (did the
# switches exchange anything), and on b the SM's output and its log's end.
link_active() {
	local start=$SECONDS lid
	if ! wait_for 1800 port_is "$LINK_CA/1" ACTIVE; then
		echo "$LINK_CA/1: $(port_state "$LINK_CA/1") after $((SECONDS - start)) s"
		link_counters "$LINK_UP/1"
		link_sm_log
		return 1
	fi
	lid=$(port_lid "$LINK_CA/1")
	echo "$LINK_CA/1 ACTIVE, LID $lid, after $((SECONDS - start)) s"
	((lid != 0)) || return 1
	is_server || return 0
	if ! wait_for 100 grep -q "SUBNET UP" "$LINK_SM.log"; then
		echo "no SUBNET UP in OpenSM's log"
		link_sm_log
		return 1
	fi
}

# link_sm_log: on b, the SM's output and the end of its log.
link_sm_log() {
	is_server || return 0
	cat "$LINK_SM.out"
	tail -n 30 "$LINK_SM.log"
}

# link_sm_up: b's OpenSM started, and this side's HCA port ACTIVE by it
# (link_active).
link_sm_up() {
	link_sm_start && link_active
}

# rvtsw_link_up: the fabric of both guests up, as one call (the bench's).
rvtsw_link_up() {
	rvtsw_link_load && link_sm_up
}

# link_mtu: the uplink's IB MTU in bytes, for perftest's -m: the
# NeighborMTU of the switch's uplink port (port 2; LINK_CA port 1 is on
# port 1), as the SM set it. perftest otherwise takes the HCA port's
# active MTU, 4096 on its link to its own switch, whose packets do not
# fit the uplink (1024 for a 1500-byte link): dropped there, every RC
# test would end in retry errors.
link_mtu() {
	local mtu
	mtu=$(smpquery -C "$LINK_CA" -P 1 -D portinfo 0,1 2 | field NeighborMTU)
	[[ -n $mtu ]] || { echo "no NeighborMTU on the uplink port" >&2; return 1; }
	echo "$mtu"
}

# link_counters DEVICE/PORT...: each port's counters, one a line.
link_counters() {
	local dev
	for dev; do
		echo "$dev's counters:"
		rdma statistic show link "$dev" | tr ' ' '\n' | paste - - | indent
	done
}

# rvtsw_link_down: the uplink's and LINK_CA's counters shown (what the
# link and the packet engine did to the traffic), b's SM stopped, rvtsw
# and the core unloaded (even when the SM would not stop).
rvtsw_link_down() {
	local rc=0
	link_counters "$LINK_UP/1" "$LINK_CA/1"
	link_sm_stop || rc=1
	unload_all || rc=1
	return "$rc"
}

# ---- perftest across the link (make bench's link rows) ----

# pair_perf KIND PROG [ARGS...]: perf()'s twin across the link (sourced
# after lib/perftest.sh): PROG served on b, run as client on a with
# $PERF_DEV and $PERF_OPTS on both sides; on a PERF_REPORT gets the
# client's report line. Run again while only perftest's clock
# calibration spoils the client's figures: a judges them and tells b.
# Return: 0 if both sides ran and the figures are good, else 1.
pair_perf() {
	local kind=$1 out attempt rc port
	shift
	out=$(mktemp)
	PERF_REPORT=
	for ((attempt = 1; attempt <= PERF_ATTEMPTS; attempt++)); do
		port=$(next_port)
		# shellcheck disable=SC2206,SC2034 # PERF_OPTS is a list of options
		local scmd=("$1" -d "$PERF_DEV" -p "$port" -F $PERF_OPTS "${@:2}")
		# shellcheck disable=SC2034 # passed by name
		local ccmd=("${scmd[@]}" "$PEER_ADDR")
		rc=0
		pair_run "perf-$port" "$out" "tcp_listening $port" scmd ccmd ||
			rc=1
		if ((rc == 0)) && ! is_server && ! perf_figures_ok "$kind" "$out"; then
			rc=1
			! grep -q "$PERF_CALIBRATION_FAILED" "$out" || rc=2
		fi
		# Both sides take the worse verdict of the two.
		barrier "perf-$port-verdict" "$rc" || { rc=1; break; }
		if [[ $rc == 1 || $PEER_WORD != [02] ]]; then
			rc=1
		elif [[ $PEER_WORD == 2 ]]; then
			rc=2
		fi
		((rc == 2)) || break
		echo "attempt $attempt: perftest's clock calibration failed (figures 0); again"
	done
	# shellcheck disable=SC2034 # for the caller
	((rc != 0)) || is_server || PERF_REPORT=$(perf_report_line "$out")
	rm -f "$out" "$out.done"
	((rc == 0))
}
