# shellcheck shell=bash
# Helpers for the guest-side test suites; sourced by tools/testing/guest.sh,
# by each suite, and by the guest halves of make demo, make bench and
# tools/profile.sh (tools/guest/).
#
# A suite first declares how many results it reports (plan N), then
# reports each test as one line
#   RVT-RESULT: PASS|FAIL|SKIP|KNOWN <core>/<suite>/<test>[: reason]
# SKIP: not run here, with the reason. KNOWN: failed on the distro core
# where ours passes, in exactly the way recorded with the reason.
# The lines go to the results channel, $RVT_RESULTS (in the guest, a
# serial port of their own that printk never writes to; see
# tools/vm/run.sh), which is what the host counts; a copy goes to
# stdout for the reader of the console log. Everything else a test
# prints is indented so the log stays readable.
#
# Setup and teardown (loading modules, waiting for a device) are steps,
# not tests: a step that works reports nothing countable; one that fails
# is a FAIL of its own, named @<step>, and every test after it in the
# suite is reported as a FAIL, not run. Results whose name starts with @
# are the harness's own and are never PASS; the host leaves them out of
# the plan count.

TESTING_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPO=$(cd "$TESTING_DIR/../.." && pwd)
# shellcheck disable=SC2034 # for the suites
PY=/usr/bin/python3	# Debian's, which has pyverbs
# Which rdmavt core the suites run on: ours (the repo's rdmavt.ko) or the
# distro's (the pinned kernel's own rdmavt.ko).
RVT_CORE=${RVT_CORE:-ours}
# One rvtsw.ko for both cores: it is linked against our core's exports,
# whose modversions CRCs equal the distro core's (tools/abi-check).
RVTSW_KO=$REPO/rvtsw/rvtsw.ko
# The userspace programs the suites run (tools/testing/progs/, the C
# programs of tools/testing/repro/), built on the host by `make progs`
# (make check builds them before the guest boots): the guest runs them
# from there and compiles nothing.
PROGS=${RVT_PROGS:-$REPO/build/progs}
# The first step of this suite that failed, if one did.
STEP_FAILED=

# emit LINE: put a line on the results channel, and a copy on stdout.
emit() {
	echo "$1"
	if [[ -n ${RVT_RESULTS:-} ]]; then
		echo "$1" >>"$RVT_RESULTS"
	else
		echo "no results channel (RVT_RESULTS unset): the line above is lost" >&2
	fi
}

result() {
	emit "RVT-RESULT: $1 $RVT_CORE/${SUITE:-?}/$2${3:+: $3}"
}

# plan N: this suite reports N results (tests, not steps) on this core.
plan() {
	emit "RVT-PLAN: $RVT_CORE/${SUITE:-?} $1"
}

pass() { result PASS "$1"; }
fail() { result FAIL "$1" "${2:-}"; }

indent() { sed 's/^/    /'; }

# not_run NAME: true (and NAME reported failed) when an earlier step of
# the suite failed.
not_run() {
	[[ -n $STEP_FAILED ]] || return 1
	fail "$1" "not run: step $STEP_FAILED failed"
}

# step NAME CMD [ARGS...]: a setup or teardown step. Its output is shown
# indented; success reports nothing countable, failure is the FAIL
# @NAME and stops the rest of the suite. Not run after a failed step.
# Return: CMD's status (1 when not run).
step() {
	local name=$1 out rc=0
	shift
	if [[ -n $STEP_FAILED ]]; then
		echo "    step $name: not run (step $STEP_FAILED failed)"
		return 1
	fi
	out=$("$@" 2>&1) || rc=$?
	[[ -z $out ]] || printf '%s\n' "$out" | indent
	if ((rc == 0)); then
		echo "    step $name: done"
	else
		fail "@$name" "step failed, exit status $rc"
		STEP_FAILED=$name
	fi
	return "$rc"
}

# have_progs PROG...: each program (a path under $PROGS) is built; for a
# suite's step. Sources newer than the last `make progs` (its stamp) are
# named, and the programs run as built.
have_progs() {
	local prog rc=0 newer
	for prog; do
		[[ -x $PROGS/$prog ]] && continue
		echo "$PROGS/$prog missing: build it on the host with make progs"
		rc=1
	done
	((rc == 0)) || return 1
	[[ -e $PROGS/.built ]] || return 0
	newer=$(find "$TESTING_DIR/progs" "$TESTING_DIR/repro" \
		-name '*.[ch]' -newer "$PROGS/.built" | tr '\n' ' ')
	[[ -z $newer ]] ||
		echo "note: changed since make progs built $PROGS: $newer"
}

# t NAME CMD [ARGS...]: run CMD, show its output indented, report by status.
t() {
	local name=$1 out rc=0
	shift
	not_run "$name" && return 0
	out=$("$@" 2>&1) || rc=$?
	[[ -z $out ]] || printf '%s\n' "$out" | indent
	if ((rc == 0)); then
		pass "$name"
	else
		fail "$name" "exit status $rc$(last_words "$out")"
	fi
	return 0
}

# last_words OUTPUT: ": " and the last line OUTPUT has, up to 160
# characters, for a failure's reason: the summary (the run's logs hold
# the rest) says why, not just that it failed. Nothing for no output.
last_words() {
	local line
	line=$(sed '/^[[:space:]]*$/d' <<<"$1" | tail -n 1 | tr -d '\r')
	line=${line#"${line%%[![:space:]]*}"}
	[[ -z $line ]] || printf ': %.160s' "$line"
}

# on_distro_core CMD...: true when the suites run on the distro core.
on_distro_core() { [[ $RVT_CORE == distro ]]; }

# skip_on_distro REASON NAME CMD...: run the test on our core only; on the
# distro core report it skipped, with REASON (for example, it crashes
# the distro core).
skip_on_distro() {
	local reason=$1
	shift
	if on_distro_core; then
		result SKIP "$1" "$reason"
	else
		t "$@"
	fi
}

# known_on_distro REASON PATTERN NAME CMD...: run the test everywhere. On
# the distro core a failure whose output matches the extended regexp
# PATTERN (the recorded symptom of the difference) is reported KNOWN, with
# REASON; any other failure there is a FAIL like on our core.
known_on_distro() {
	local reason=$1 pattern=$2 name=$3 out rc=0
	shift 3
	if ! on_distro_core; then
		t "$name" "$@"
		return 0
	fi
	not_run "$name" && return 0
	out=$("$@" 2>&1) || rc=$?
	[[ -z $out ]] || printf '%s\n' "$out" | indent
	if ((rc == 0)); then
		pass "$name"
	elif grep -qE -- "$pattern" <<<"$out"; then
		result KNOWN "$name" "$reason"
	else
		fail "$name" "exit status $rc, and not the known difference (no match for /$pattern/)"
	fi
}

# KTAP from a kernel test module (tools/testing/kmod), for the suites
# that load one. A suite fills these for the tests of its module that
# fail on the distro core as upstream rdmavt does: KNOWN_DIFF[test] is
# the reason, KNOWN_MATCH[test] the extended regexp the test's "not ok"
# diagnostic must match to be that difference. SKIP_WHY[test] may say
# better than the module why a test is skipped.
declare -A KNOWN_DIFF=() KNOWN_MATCH=() SKIP_WHY=()
KTAP_LINE_RE='^(not )?ok ([0-9]+) ([^ #]+)( +# *(.*))?$'

# known_ktap_failure TEST DIAG: DIAG is TEST's recorded difference.
known_ktap_failure() {
	[[ -n ${KNOWN_DIFF[$1]:-} && -n ${KNOWN_MATCH[$1]:-} ]] &&
		grep -qE -- "${KNOWN_MATCH[$1]}" <<<"$2"
}

# ktap_result PREFIX LINE: the result of one KTAP test line, as
# PREFIX-<test>: "ok" PASS, a "# SKIP" directive SKIP, "not ok" FAIL,
# or KNOWN on the distro core when the diagnostic is the recorded one.
ktap_result() {
	local prefix=$1 line=$2 ok name diag
	if ! [[ $line =~ $KTAP_LINE_RE ]]; then
		fail "@$prefix-ktap-line" "not a KTAP test line: $line"
		return
	fi
	ok=${BASH_REMATCH[1]:-yes}
	name=${BASH_REMATCH[3]}
	diag=${BASH_REMATCH[5]}
	if [[ ${diag^^} == SKIP* ]]; then
		diag=${diag:4}
		result SKIP "$prefix-$name" "${SKIP_WHY[$name]:-${diag# }}"
	elif [[ $ok == yes ]]; then
		pass "$prefix-$name"
	elif on_distro_core && known_ktap_failure "$name" "$diag"; then
		result KNOWN "$prefix-$name" "${KNOWN_DIFF[$name]}"
	else
		fail "$prefix-$name" "$diag"
	fi
}

# report_ktap FILE PREFIX: one result per KTAP test line of FILE,
# counted against the plan FILE gives ("1..N", which a module of
# tools/testing/kmod writes before its first test): each planned test not
# reported (the module stopped or crashed first) is a FAIL; no plan, or
# more tests than planned, is a FAIL of the harness (@PREFIX-ktap-plan).
# N goes to KMOD_PLANNED, for plan_kmods.
KMOD_PLANNED=0
report_ktap() {
	local file=$1 prefix=$2 line plan='' n=0 i
	while IFS= read -r line; do
		case $line in
		"ok "* | "not ok "*)
			n=$((n + 1))
			ktap_result "$prefix" "$line"
			;;
		"1.."*) plan=${plan:-${line#1..}} ;;
		esac
	done <"$file"
	if ! [[ $plan =~ ^[0-9]+$ ]]; then
		fail "@$prefix-ktap-plan" "no plan in the module's results, $n tests reported"
		return
	fi
	KMOD_PLANNED=$((KMOD_PLANNED + plan))
	for ((i = n + 1; i <= plan; i++)); do
		fail "$prefix-missing-$i" "the module reported $n of the $plan tests it planned"
	done
	((n <= plan)) ||
		fail "@$prefix-ktap-plan" "plan $plan, $n tests reported"
}

# ktap_passed FILE: FILE has a plan and every planned test passed.
ktap_passed() {
	local plan ok
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$1" | head -n 1)
	ok=$(grep -c '^ok ' "$1")
	[[ -n $plan ]] && ((plan > 0 && ok == plan)) && ! grep -q '^not ok ' "$1"
}

# plan_kmods N: the suite's plan, once its modules ran: N results of its
# own and every test its modules planned (report_ktap).
plan_kmods() {
	plan $(($1 + KMOD_PLANNED))
}

# kmod_load PREFIX KO [PARAM=VALUE...]: load a kernel test module of
# tools/testing/kmod, after rvt_ktest.ko, the library it runs on; the
# module runs its tests as it loads. Steps PREFIX-lib and PREFIX-load.
kmod_load() {
	local prefix=$1 ko=$2 start=$SECONDS
	shift 2
	step "$prefix-lib" load_ktest || return
	step "$prefix-load" insmod "$ko" "$@"
	echo "    module ran for $((SECONDS - start)) s"
}

# kmod_report PREFIX KO: report the results of KO (loaded by kmod_load)
# as PREFIX-<test>, read even when loading it failed part way (a crash
# leaves what came before it, and the plan to count it against); then
# unload it and the library (steps PREFIX-unload, PREFIX-unload-lib).
# The results are in debugfs (RVT_DEBUGFS: elsewhere for the host's
# harness_test.sh).
kmod_report() {
	local prefix=$1 name results out
	name=$(basename "$2" .ko)
	results=${RVT_DEBUGFS:-/sys/kernel/debug}/$name/results
	out=$(mktemp)
	if cp "$results" "$out" 2>/dev/null; then
		indent <"$out"
		report_ktap "$out" "$prefix"
	else
		fail "@$prefix-results" "no results in $results"
	fi
	rm -f "$out"
	step "$prefix-unload" rmmod "$name" &&
		step "$prefix-unload-lib" rmmod rvt_ktest
}

# run_kmod PREFIX KO [PARAM=VALUE...]: load the kernel test module KO,
# report its results, unload it. Every step's status counts.
run_kmod() {
	kmod_load "$@"
	kmod_report "$1" "$2"
}

load_ktest() {
	lsmod | grep -q '^rvt_ktest ' || insmod "$TESTING_DIR/kmod/rvt_ktest.ko"
}

# Load the IB core and the selected rdmavt core.
load_core() {
	modprobe ib_core && modprobe ib_uverbs || return
	if [[ $RVT_CORE == ours ]]; then
		insmod "$REPO/rdmavt.ko"
	else
		modprobe rdmavt
	fi
}

# The address of QEMU's pci-testdev (1b36:0005), if the guest has one.
pci_testdev() {
	local dev
	for dev in /sys/bus/pci/devices/*; do
		if [[ $(<"$dev/vendor") == 0x1b36 &&
		      $(<"$dev/device") == 0x0005 ]]; then
			basename "$dev"
			return 0
		fi
	done
	return 1
}

# load_rvtsw [PARAM=VALUE...]: load rvtsw on the core, with parameters.
# The distro core logs through the HCA's PCI device, so there rvtsw gets
# the pci-testdev as its parent.
# RVT_RVTSW_PARAMS (e.g. wire_all=1) goes to every load, so that any suite
# can run over rvtsw's packet engine.
load_rvtsw() {
	local parent extra
	lsmod | grep -q '^rdmavt ' || load_core || return
	if [[ $RVT_CORE != ours ]]; then
		parent=$(pci_testdev) ||
			{ echo "no pci-testdev for the distro core" >&2; return 1; }
		set -- "parent=$parent" "$@"
	fi
	read -ra extra <<<"${RVT_RVTSW_PARAMS:-}"
	insmod "$RVTSW_KO" "$@" "${extra[@]}"
}

# load_refused PARAM ERROR REASON: loading rvtsw with PARAM fails with
# the errno whose message is ERROR (insmod's words, e.g. "Invalid
# parameters" for EINVAL), and the kernel log of the attempt says REASON
# (rvtsw's own words, an extended regexp): refused for that parameter,
# not for some other cause. rvtsw is not left loaded.
load_refused() {
	local param=$1 error=$2 reason=$3 before out log
	before=$(dmesg | wc -l)
	if out=$(load_rvtsw "$param" 2>&1); then
		echo "rvtsw loaded with $param"
		unload_rvtsw
		return 1
	fi
	log=$(dmesg | tail -n +"$((before + 1))")
	echo "$param: $out"
	if ! grep -q -- "$error" <<<"$out"; then
		echo "$param: refused, but not with '$error'"
		return 1
	fi
	if ! grep -qE -- "rvtsw: $reason" <<<"$log"; then
		echo "$param: no 'rvtsw: $reason' in the kernel log of the attempt:"
		echo "$log"
		return 1
	fi
	! lsmod | grep -q '^rvtsw '
}

unload_rvtsw() {
	! lsmod | grep -q '^rvtsw ' || rmmod rvtsw
}

unload_all() {
	unload_rvtsw && { ! lsmod | grep -q '^rdmavt ' || rmmod rdmavt; } &&
		{ ! lsmod | grep -q '^rvt_ktest ' || rmmod rvt_ktest; }
}

# pingpong PROG SERVER_DEV:PORT CLIENT_DEV:PORT [ARGS...]: run PROG (one
# of libibverbs' ibv_*_pingpong) as a server and as its client, with ARGS
# on both sides; both must finish, exit 0 and report their ITERS
# exchanges. Each run takes the next TCP port from TCP_PORT. With
# PINGPONG_KEEP naming a directory, the two outputs stay there as
# PROG.server and PROG.client.
ITERS=20
TCP_PORT=18515

pingpong() {
	local prog=$1 server=$2 client=$3 out rc
	shift 3
	out=$(mktemp -d)
	((TCP_PORT++))
	# shellcheck disable=SC2034 # both passed by name to server_client
	local scmd=("$prog" -d "${server%:*}" -i "${server#*:}" -p "$TCP_PORT"
		    -n "$ITERS" "$@")
	# shellcheck disable=SC2034
	local ccmd=("$prog" -d "${client%:*}" -i "${client#*:}" -p "$TCP_PORT"
		    -n "$ITERS" "$@" localhost)
	server_client "$out" "$TCP_PORT" scmd ccmd &&
		grep -q "^$ITERS iters in" "$out/server" &&
		grep -q "^$ITERS iters in" "$out/client"
	rc=$?
	if [[ -n ${PINGPONG_KEEP:-} ]]; then
		cp "$out/server" "$PINGPONG_KEEP/$prog.server"
		cp "$out/client" "$PINGPONG_KEEP/$prog.client"
	fi
	rm -rf "$out"
	return "$rc"
}

# rxe_up NETDEV: rdma_rxe as rxe0 over NETDEV, for comparisons with
# rvtsw. Over lo its GID 1 is ::ffff:127.0.0.1 (RoCE v2); the link-local
# GID 0 is unroutable on lo (ENETUNREACH), so tools must be told to use
# GID 1. (Between two guests, lib/pair.sh's rxe_link_up.)
rxe_up() {
	modprobe rdma_rxe && rdma link add rxe0 type rxe netdev "$1" &&
		wait_for 50 test -e /sys/class/infiniband/rxe0
}

rxe_down() {
	rdma link delete rxe0 2>/dev/null
	modprobe -r rdma_rxe
}

# Is something listening on TCP port $1?
tcp_listening() {
	ss -Hltn "sport = :$1" | grep -q .
}

# server_client OUT PORT SERVER CLIENT: run the command in the array named
# SERVER in the background, then, once something listens on TCP PORT,
# the command in the array named CLIENT. Their outputs go to OUT/server
# and OUT/client and are shown with their exit statuses.
# Return: 0 if both exited 0.
server_client() {
	local out=$1 port=$2 spid rc=0 src=0
	local -n server_cmd=$3 client_cmd=$4
	timeout 300 "${server_cmd[@]}" >"$out/server" 2>&1 &
	spid=$!
	if ! wait_for 100 tcp_listening "$port"; then
		echo "server never listened"
		kill "$spid" 2>/dev/null
		rc=1
	else
		timeout 300 "${client_cmd[@]}" >"$out/client" 2>&1 || rc=$?
	fi
	wait "$spid" || src=$?
	echo "server (status $src):"
	indent <"$out/server"
	echo "client (status $rc):"
	indent <"$out/client" 2>/dev/null
	((rc == 0 && src == 0))
}

# wait_for COUNT CMD...: retry CMD up to COUNT times, 0.1 s apart.
wait_for() {
	local n=$1
	shift
	while ! "$@" >/dev/null 2>&1; do
		((--n > 0)) || return 1
		sleep 0.1
	done
}

# ---- what infiniband-diags print (76-sma, 77-switch) ----
# SYS is the sysfs class directory of the IB devices.
SYS=/sys/class/infiniband

# field NAME: the value smpquery or perfquery prints for NAME, from stdin.
field() {
	sed -n "s/^$1:\.*//p" | head -n 1
}

# expect WHAT GOT WANT: say what differs, and fail, if GOT is not WANT.
expect() {
	if [[ $2 != "$3" ]]; then
		echo "$1: got '$2', want '$3'"
		return 1
	fi
}

# expect_fields OUTPUT NAME=VALUE...: each field of OUTPUT as given.
expect_fields() {
	local out=$1 pair rc=0
	shift
	for pair in "$@"; do
		expect "${pair%%=*}" "$(field "${pair%%=*}" <<<"$out")" \
			"${pair#*=}" || rc=1
	done
	return "$rc"
}

# sysfs_guid FILE: a GUID as sysfs writes it, as the diags print it.
sysfs_guid() {
	echo "0x$(tr -d ':' <"$1")"
}

# port_guid CA PORT: the port's GUID, the interface ID of its GID 0.
port_guid() {
	local gid
	gid=$(<"$SYS/$1/ports/$2/gids/0")
	echo "0x$(cut -d: -f5- <<<"$gid" | tr -d ':')"
}

# hw_counter CA PORT NAME: one of rvtsw's hw_counters, in decimal.
hw_counter() {
	echo $(($(<"$SYS/$1/ports/$2/hw_counters/$3")))
}

# sysfs_lid CA PORT: the port's LID, in decimal.
sysfs_lid() {
	echo $(($(<"$SYS/$1/ports/$2/lid")))
}

# ---- a managed fabric (78-opensm, 79-traps, make demo-fabric) ----

# port_state DEVICE/PORT: the port's state as sysfs says it (ACTIVE,
# INIT...).
port_state() {
	local s
	s=$(<"$SYS/${1%/*}/ports/${1#*/}/state")
	echo "${s#*: }"
}

# port_is DEVICE/PORT STATE: the port is in STATE.
port_is() {
	[[ $(port_state "$1") == "$2" ]]
}

# ports_are STATE DEVICE/PORT...: every port given is in STATE.
ports_are() {
	local p
	for p in "${@:2}"; do
		port_is "$p" "$1" || return
	done
}

# port_lid DEVICE/PORT: the port's LID, in decimal.
port_lid() {
	sysfs_lid "${1%/*}" "${1#*/}"
}

# switch_lid: the switch's LID as the SM set it (port 0's PortInfo, one
# hop from rvtsw_0 port 1).
switch_lid() {
	smpquery -C rvtsw_0 -P 1 -D portinfo 0,1 0 | field Lid
}

no_opensm() {
	! pgrep -x opensm
}

# kill_opensm: every OpenSM gone (they run in tests' subshells, so are
# found by name).
kill_opensm() {
	pkill -x opensm
	wait_for 100 no_opensm
}

# load_managed: rdmavt and rvtsw as a managed fabric of two devices of
# two ports (HCA ports on switch ports 1-4), and ib_umad for the SM and
# the diags.
load_managed() {
	modprobe ib_umad &&
		load_rvtsw devices=2 ports=2 managed=1 &&
		wait_for 50 test -e "$SYS/rvtsw_1/ports/2/lid"
}

# ---- IPoIB in network namespaces (78-opensm, make demo-fabric) ----

# netdev_of DEVICE/PORT: the IPoIB interface of the port: its hardware
# address ends with the port's GUID.
netdev_of() {
	local guid n
	guid=$(port_guid "${1%/*}" "${1#*/}")
	guid=$(sed 's/../&:/g; s/:$//' <<<"${guid#0x}")
	for n in /sys/class/net/*; do
		[[ $(<"$n/address") != *"$guid" ]] || { basename "$n"; return; }
	done
	return 1
}

# netns_with_port NS DEVICE/PORT ADDR: a new network namespace NS that
# holds the port's IPoIB interface, up, with ADDR/24. Two ports of one
# host reach each other over the fabric only from namespaces of their
# own: in one, the kernel would answer from its local table.
netns_with_port() {
	local ns=$1 dev
	dev=$(netdev_of "$2") || { echo "$2: no IPoIB interface"; return 1; }
	echo "$2: $dev in $ns, $3"
	ip netns add "$ns" && ip link set "$dev" netns "$ns" &&
		ip -n "$ns" addr add "$3/24" dev "$dev" &&
		ip -n "$ns" link set "$dev" up
}

# netns_release NS: NS's IPoIB interfaces back to the first namespace,
# NS deleted. They are all that came from there: the devices a kernel
# makes in every new namespace (lo, and with tunnels built in, as the
# debug kernel has them, sit0, tunl0 and the like) cannot leave it.
netns_release() {
	local n
	for n in $(ip -n "$1" -o link show |
		awk '/link\/infiniband/ {sub(/:$/, "", $2); sub(/@.*/, "", $2); print $2}'); do
		ip -n "$1" link set "$n" netns 1 || return
	done
	ip netns del "$1"
}
