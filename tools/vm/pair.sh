#!/bin/bash
# Boot two QEMU/TCG guests (tools/vm/run.sh each), "a" and "b", joined by
# a virtio-net link, and run the same SCRIPT in both: it tells its role
# from RVT_ROLE. The link is a QEMU datagram netdev over two Unix sockets
# of the run (no root, tap or bridge on the host); each guest's end is
# its eth0, up with a static IPv4 address (guest-init: RVT_LINK_ADDR),
# and the peer's address is RVT_PEER_ADDR. How the roles keep in step
# over the link is the script's business (tools/testing/lib/pair.sh).
# Each guest has its own rdmavt cores: RVT_CORES_A and RVT_CORES_B, each
# RVT_CORES (then guest.sh's "ours distro") unless set, as many in both:
# the Nth run of a's suites meets the Nth of b's. a on ours and b on the
# distro's (or the other way) is the cross-core run.
#
# The run is one: the two results channels are merged into one file
# (a's lines, then b's), for results.py; a guest that times out or never
# reports an exit status (run.sh's 124, 125) has the other stopped at
# once, not left to wait for a peer that is gone.
#
# Exit status: 0 if both guests' runs are (script status 0, kernel log
# clean, clean power-off), else the first failing status of a, then b
# (run.sh's: 120 kernel complaints, 124 timeout, 125 no exit status).
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"

# The link's subnet and each role's address and MAC (distinct MACs: the
# interface's MAC is what rvtsw's uplink derives its GUIDs from).
declare -A ADDR=([a]=10.0.34.1 [b]=10.0.34.2)
declare -A MAC=([a]=52:54:00:34:00:0a [b]=52:54:00:34:00:0b)
PREFIX=24

usage() {
	cat <<EOF
Usage: ${0##*/} [OPTIONS] [--] SCRIPT [ARGS...]

Run SCRIPT ARGS... in two guests, a (${ADDR[a]}) and b (${ADDR[b]}), joined
by a virtio-net link (their eth0), each as tools/vm/run.sh runs a script,
with RVT_ROLE (a or b), RVT_LINK_ADDR (its own ADDR/$PREFIX) and
RVT_PEER_ADDR (the other's) in its environment. Each guest gets one vCPU
unless --smp says otherwise, and the rdmavt cores of RVT_CORES_A or
RVT_CORES_B (default RVT_CORES, else "ours distro"), as many for both.

Options:
  --log FILE       console logs: FILE with .a.log and .b.log for .log
                   (default build/vm/pair.log)
  --results FILE   both guests' results channels, merged (default the
                   log's name with .results for .log); each guest's own
                   is FILE.a and FILE.b
  -h, --help       this help
Any other option of tools/vm/run.sh (--timeout, --pci-testdev, --mem,
--smp, --append, --kernel, --no-slab-debug...) goes to both guests;
--link, --mac and --monitor are the pair's own business and refused.

Exit status: 0 if both guests ran cleanly and SCRIPT exited 0 in both;
else the first failing run.sh status of a, then b (120 kernel log
errors, 124 timeout, 125 no exit status, 130 stopped because the other
guest timed out or died).
EOF
}

LOG=$BUILD_VM/pair.log
RESULTS=
RUN_OPTS=(--smp 1)
SCRIPT_ARGS=()

usage_error() {
	echo "${0##*/}: $*" >&2
	echo "Try '${0##*/} --help'." >&2
	exit 2
}

# run.sh's options that take a value.
VALUE_OPTS=" --kernel --timeout --boot-timeout --append --mem --smp --icount --insn-profile "

parse_args() {
	while (($#)); do
		case $1 in
		--log) (($# >= 2)) || usage_error "$1 needs a value"
			LOG=$2 && shift ;;
		--results) (($# >= 2)) || usage_error "$1 needs a value"
			RESULTS=$2 && shift ;;
		--link | --mac | --monitor) usage_error "$1 is not for a pair" ;;
		-h | --help) usage && exit 0 ;;
		--) shift && break ;;
		-*)
			if [[ $VALUE_OPTS == *" $1 "* ]]; then
				(($# >= 2)) || usage_error "$1 needs a value"
				RUN_OPTS+=("$1" "$2")
				shift
			else
				RUN_OPTS+=("$1")
			fi
			;;
		*) break ;;
		esac
		shift
	done
	(($#)) || usage_error "missing SCRIPT"
	SCRIPT_ARGS=("$@")
	[[ $LOG == *.log ]] || usage_error "--log FILE must end in .log"
	[[ -n $RESULTS ]] || RESULTS=${LOG%.log}.results
	local a b
	read -ra a <<<"$(role_cores a)"
	read -ra b <<<"$(role_cores b)"
	((${#a[@]} == ${#b[@]})) ||
		usage_error "a's cores (${a[*]}) and b's (${b[*]}) differ in number: the guests would run out of step"
}

# start_guest ROLE PEER: run.sh for ROLE in the background, its console
# lines prefixed with the role; its PID into PIDS[ROLE].
declare -A PIDS=() STATUS=()
start_guest() {
	local role=$1 peer=$2
	RVT_ROLE=$role RVT_LINK_ADDR=${ADDR[$role]}/$PREFIX \
		RVT_PEER_ADDR=${ADDR[$peer]} RVT_CORES=$(role_cores "$role") \
		"$VM_DIR/run.sh" "${RUN_OPTS[@]}" \
		--link "$SOCK_DIR/$role.sock:$SOCK_DIR/$peer.sock" \
		--mac "${MAC[$role]}" --log "${LOG%.log}.$role.log" \
		--results "$RESULTS.$role" "${SCRIPT_ARGS[@]}" \
		> >(sed -u "s/^/[$role] /") 2>&1 </dev/null &
	PIDS[$role]=$!
}

role_of() {
	local role
	for role in "${!PIDS[@]}"; do
		[[ ${PIDS[$role]} != "$1" ]] || { echo "$role"; return; }
	done
}

# The status of each guest not yet accounted for, by its pid.
collect_statuses() {
	local role rc
	for role in a b; do
		[[ -z ${STATUS[$role]:-} ]] || continue
		rc=0
		wait "${PIDS[$role]}" || rc=$?
		STATUS[$role]=$rc
		log "guest $role: run.sh exit status $rc"
	done
}

# Wait for both guests. One whose run ended without a verdict of its
# script (timeout, crash, no exit status) has the other stopped: its
# peer is gone, and every step with it would only run into a timeout.
wait_guests() {
	local pid rc role other running
	while ((${#STATUS[@]} < 2)); do
		running=()
		for role in a b; do
			[[ -n ${STATUS[$role]:-} ]] || running+=("${PIDS[$role]}")
		done
		rc=0 pid=
		wait -n -p pid "${running[@]}" || rc=$?
		if [[ -z ${pid:-} ]]; then
			# wait -n had no job left to report (bash had collected
			# a guest killed below before it asked): its status
			# is still there to wait for by its pid.
			collect_statuses
			continue
		fi
		role=$(role_of "$pid")
		STATUS[$role]=$rc
		log "guest $role: run.sh exit status $rc"
		other=a
		[[ $role != a ]] || other=b
		if ((rc == 124 || rc == 125)) && [[ -z ${STATUS[$other]:-} ]]; then
			log "guest $role ended without a verdict: stopping guest $other"
			kill -TERM "${PIDS[$other]}" 2>/dev/null || true
		fi
	done
}

cleanup() {
	local pid
	for pid in "${PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	[[ -z ${SOCK_DIR:-} ]] || rm -rf "$SOCK_DIR"
	return 0
}

main() {
	local role rc=0
	parse_args "$@"
	mkdir -p "$(dirname "$LOG")" "$(dirname "$RESULTS")"
	# Unix socket paths are short (108 bytes): not under the repo.
	SOCK_DIR=$(mktemp -d "${TMPDIR:-/tmp}/rvt-pair.XXXXXX")
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	log "two guests, a ${ADDR[a]} (cores: $(role_cores a)) and b ${ADDR[b]} (cores: $(role_cores b)), on a link; logs ${LOG%.log}.{a,b}.log"
	start_guest a b
	start_guest b a
	wait_guests
	cat "$RESULTS.a" "$RESULTS.b" >"$RESULTS" 2>/dev/null || true
	for role in a b; do
		((rc != 0)) || rc=${STATUS[$role]}
	done
	log "guests a and b: status ${STATUS[a]} and ${STATUS[b]}; results in $RESULTS"
	return "$rc"
}

# Sourced (by the harness's own test), it only defines the functions.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	main "$@"
fi
