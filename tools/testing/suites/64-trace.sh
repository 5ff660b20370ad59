#!/bin/bash
# rdmavt's trace events (Documentation/tracing.rst): the 18 events of
# upstream's 6 systems exist (and on our core our own 2 beside them),
# their format files are the same on both cores, field by field and print
# format by print format (the other core is loaded for a moment to copy
# its files), a filter on qpn selects exactly one QP's records, and
# traffic fires the 17 that upstream fires. With every rvt* event enabled
# in a trace instance of its own, each phase (rvtsw's registration, an RC
# and a UD ping-pong, an RC ping-pong traced through qpn filters, the
# kernel steps of tools/testing/kmod/rvt_trace_test.ko: adjacent SGEs,
# kernel polling, fast registration, RNR NAKs, the retry timer; rvtsw's
# unregistration) must fire what it stands for. The set each phase fired
# goes to /tmp/rvt-trace-<core>.txt; on the distro core the sets must
# equal those of ours from the same boot, our own events left out.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

DEV=rvtsw_0
ITERS=20
TRACEFS=/sys/kernel/tracing
INSTANCE=$TRACEFS/instances/rvt-trace-test
FILTER_INSTANCE=$TRACEFS/instances/rvt-trace-filter
TRACE_FORMATS=$REPO/tools/testing/lib/trace_formats.py
KMOD=$REPO/tools/testing/kmod/rvt_trace_test.ko
KMOD_RESULTS=/sys/kernel/debug/rvt_trace_test/results
SETS=/tmp/rvt-trace-$RVT_CORE.txt
WORK=$(mktemp -d)
# The ping-pongs leave their outputs here, for qpns_traced.
PINGPONG_KEEP=$WORK
trap 'rm -rf "$WORK"' EXIT

# Upstream's events, by system; rvt_mr_fmr_seg is defined but never fired.
UPSTREAM_EVENTS=(
	rvt/rvt_dbg
	rvt_cq/rvt_create_cq rvt_cq/rvt_cq_enter rvt_cq/rvt_cq_poll
	rvt_mr/rvt_mr_page_seg rvt_mr/rvt_mr_fmr_seg rvt_mr/rvt_mr_user_seg
	rvt_mr/rvt_sge_adjacent rvt_mr/rvt_sge_new rvt_mr/rvt_map_mr_sg
	rvt_qp/rvt_qpinsert rvt_qp/rvt_qpremove rvt_qp/rvt_rnrnak_add
	rvt_qp/rvt_rnrnak_timeout rvt_qp/rvt_rnrnak_stop
	rvt_rc/rvt_rc_timeout
	rvt_tx/rvt_post_one_wr rvt_tx/rvt_qp_send_completion
)
NEVER_FIRED=rvt_mr/rvt_mr_fmr_seg
# Our own events, which the distro core does not have.
OURS_ONLY=(rvt_rc/rvt_rc_timeout_retries rvt_rc/rvt_rc_rnrnak_retries)
# The events of the core under test.
EVENTS=("${UPSTREAM_EVENTS[@]}")
on_distro_core || EVENTS+=("${OURS_ONLY[@]}")
# The events the qpn filter test filters, and the QP number it filters on.
FILTERED=(rvt_cq/rvt_cq_enter rvt_tx/rvt_post_one_wr rvt_qp/rvt_qpremove)
FILTER_QPN=$WORK/filter.qpn

# The events under a tracefs events directory whose system is rvt*, one
# system/event a line, sorted.
list_events() {
	local dir
	for dir in "$1"/rvt*/*/; do
		[[ -d $dir ]] || continue
		dir=${dir%/}
		echo "${dir#"$1"/}"
	done | sort
}

expected_events() { printf '%s\n' "${EVENTS[@]}" | sort; }

# Exactly upstream's 18 events (and ours beside them on our core), in the
# global list and in our instance.
events_exist() {
	local dir rc=0
	for dir in "$TRACEFS/events" "$INSTANCE/events"; do
		if ! diff <(expected_events) <(list_events "$dir"); then
			echo "$dir: not the expected events (< expected, > found)"
			rc=1
		fi
	done
	((rc == 0)) && echo "${#EVENTS[@]} events in 6 systems"
	return "$rc"
}

# copy_formats DIR: the format file of every rvt* event, as
# DIR/<system>/<event>/format.
copy_formats() {
	local dir=$1 file rel n=0
	for file in "$TRACEFS"/events/rvt*/*/format; do
		[[ -f $file ]] || continue
		rel=${file#"$TRACEFS"/events/}
		mkdir -p "$dir/${rel%/format}" && cat "$file" >"$dir/$rel" ||
			return
		n=$((n + 1))
	done
	echo "$n format files copied to $dir"
	((n > 0))
}

# The other core's format files, copied with it loaded on its own for
# the purpose: its events exist from module load, no device needed.
other_core_formats() {
	local other=distro rc=0
	on_distro_core && other=ours
	modprobe ib_core && modprobe ib_uverbs || return
	[[ -d $TRACEFS/events ]] || mount -t tracefs tracefs "$TRACEFS" ||
		return
	if [[ $other == ours ]]; then
		insmod "$REPO/rdmavt.ko"
	else
		modprobe rdmavt
	fi || return
	copy_formats "$WORK/formats-$other" || rc=$?
	rmmod rdmavt || return
	return "$rc"
}

# Every rvt* event's format file is the same on this core as on the
# other one, but for the event's ID, and for our own events.
formats_same() {
	copy_formats "$WORK/formats-$RVT_CORE" || return
	"$PY" "$TRACE_FORMATS" "${OURS_ONLY[@]/#/--only-in-ours=}" \
		"$WORK/formats-ours" "$WORK/formats-distro"
}

# An instance of our own, its buffer big enough for a phase, every rvt*
# event on.
tracing_up() {
	local dir
	[[ -d $TRACEFS/events ]] || mount -t tracefs tracefs "$TRACEFS" ||
		return
	[[ -d $INSTANCE ]] || mkdir "$INSTANCE" || return
	echo 4096 >"$INSTANCE/buffer_size_kb" || return
	for dir in "$INSTANCE"/events/rvt*/; do
		echo 1 >"$dir/enable" || return
	done
	echo 1 >"$INSTANCE/tracing_on"
}

tracing_down() {
	[[ -d $INSTANCE ]] || return 0
	echo 0 >"$INSTANCE/tracing_on"
	rmdir "$INSTANCE"
}

# The events a trace text holds, as system/event, sorted and unique.
fired_in() {
	local name
	awk '!/^#/ {
		for (i = 1; i < NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/) {
				sub(/:$/, "", $(i + 1))
				print $(i + 1)
				break
			}
	}' "$1" | sort -u | while read -r name; do
		printf '%s\n' "${EVENTS[@]}" | grep "/$name\$" ||
			echo "unknown/$name"
	done | sort
}

# phase NAME CMD...: run CMD with an empty trace buffer; keep what was
# traced in $WORK/NAME.trace and the events fired in $WORK/NAME.set.
# Return: CMD's status.
phase() {
	local name=$1 rc=0
	shift
	echo >"$INSTANCE/trace"
	"$@" || rc=$?
	cp "$INSTANCE/trace" "$WORK/$name.trace"
	fired_in "$WORK/$name.trace" >"$WORK/$name.set"
	echo "fired: $(tr '\n' ' ' <"$WORK/$name.set")"
	samples "$WORK/$name.trace" "$WORK/$name.set"
	return "$rc"
}

# samples TRACE SET: for each event in SET, how often TRACE holds it and
# its first line there.
samples() {
	local ev n
	while read -r ev; do
		n=$(grep -c " ${ev#*/}: " "$1")
		printf '%4d x %s\n' "$n" \
			"$(grep -m1 " ${ev#*/}: " "$1" | sed 's/^ *//')"
	done <"$2" | indent
}

# fired PHASE EVENT...: the phase fired each EVENT (system/event).
fired() {
	local name=$1 ev rc=0
	shift
	for ev in "$@"; do
		grep -qx "$ev" "$WORK/$name.set" ||
			{ echo "$name did not fire $ev"; rc=1; }
	done
	return "$rc"
}

# The QP number (0x...) an ibv_*_pingpong output FILE reports ("local
# address: ... QPN 0x...").
pingpong_qpn() {
	local hex
	hex=$(sed -n 's/^ *local address:.*QPN \(0x[0-9a-fA-F]*\).*/\1/p' "$1")
	[[ -n $hex ]] && printf '0x%x\n' "$hex"
}

# qpns_traced PHASE PROG: both QPs PROG reported entered and left the QP
# table, by number, in PHASE's trace.
qpns_traced() {
	local name=$1 prog=$2 side qpn ev rc=0
	for side in server client; do
		qpn=$(pingpong_qpn "$WORK/$prog.$side") ||
			{ echo "$prog $side: no QPN"; rc=1; continue; }
		for ev in rvt_qpinsert rvt_qpremove; do
			if grep -q "$ev: \[$DEV\] qpn $qpn " "$WORK/$name.trace"; then
				echo "$ev: $prog $side's QP $qpn"
			else
				echo "no $ev for $prog $side's QP $qpn"
				rc=1
			fi
		done
	done
	return "$rc"
}

# filter_on QPN: FILTER_INSTANCE records FILTERED through "qpn == QPN".
# The filter file must take the filter and read it back.
filter_on() {
	local ev file
	for ev in "${FILTERED[@]}"; do
		file=$FILTER_INSTANCE/events/$ev/filter
		echo "qpn == $1" >"$file" ||
			{ echo "$ev: filter 'qpn == $1' refused"; return 1; }
		grep -qx "qpn == $1" "$file" ||
			{ echo "$ev: filter reads '$(<"$file")'"; return 1; }
		echo 1 >"$FILTER_INSTANCE/events/$ev/enable" || return
	done
	echo "filters on: qpn == $1 (${FILTERED[*]})"
	echo 1 >"$FILTER_INSTANCE/tracing_on"
}

# An RC ping-pong whose server QP's records FILTER_INSTANCE takes through
# qpn filters, set once the server has its QP and before the client
# connects; that instance's trace goes to $WORK/filter.ftrace.
filtered_pingpong() {
	local out=$WORK/filtered spid qpn rc=0 src=0
	mkdir -p "$out" "$FILTER_INSTANCE" || return
	# stdbuf: the server's QPN line must reach the file before it exits.
	timeout 300 stdbuf -oL ibv_rc_pingpong -d "$DEV" -n "$ITERS" -c \
		>"$out/server" 2>&1 &
	spid=$!
	if wait_for 100 grep -q 'local address:.*QPN' "$out/server"; then
		qpn=$(pingpong_qpn "$out/server") && echo "$qpn" >"$FILTER_QPN" &&
			filter_on "$qpn" && wait_for 100 tcp_listening 18515 &&
			timeout 300 ibv_rc_pingpong -d "$DEV" -n "$ITERS" -c \
				localhost >"$out/client" 2>&1 || rc=1
	else
		echo "the server printed no QPN"
		rc=1
	fi
	((rc == 0)) || kill "$spid" 2>/dev/null
	wait "$spid" || src=$?
	cp "$FILTER_INSTANCE/trace" "$WORK/filter.ftrace"
	rmdir "$FILTER_INSTANCE"
	echo "server (status $src):"
	indent <"$out/server"
	echo "client:"
	indent <"$out/client" 2>/dev/null
	((rc == 0 && src == 0)) && grep -q "^$ITERS iters in" "$out/client"
}

# records TRACE EVENT: EVENT's records in TRACE, from the event's name on
# (what both instances print alike).
records() { sed -n "s/^.* $2: /$2: /p" "$1"; }

# selected_as EVENT TOTAL [PATTERN COUNT]...: the filtered instance
# holds TOTAL records of EVENT, COUNT of them with PATTERN: what the
# server's QP does in the ping-pong, known without reading its qpn field.
selected_as() {
	local ev=$1 total=$2 n rc=0
	shift 2
	n=$(records "$WORK/filter.ftrace" "$ev" | grep -c .)
	((n == total)) ||
		{ echo "$ev: $n records selected, the server's QP has $total"; rc=1; }
	while (($# >= 2)); do
		n=$(records "$WORK/filter.ftrace" "$ev" | grep -cF -- "$1")
		((n == $2)) ||
			{ echo "$ev: $n records selected with '$1', the server's QP has $2"; rc=1; }
		shift 2
	done
	return "$rc"
}

# The filtered instance holds exactly the records of the server's QP
# that the unfiltered one holds, for each event of FILTERED, and as many
# as that QP has: per exchange a receive and a send completion and a
# posted send, then its removal from the QP table. The unfiltered one
# also holds records of the client's QP, left out.
filter_selects() {
	local qpn match ev want got others rc=0
	qpn=$(<"$FILTER_QPN") || return
	# cq_enter and post_one_wr print the QPN as %x, qpremove as 0x%x.
	match=" qpn (0x)?$(printf '%x' "$qpn")( |\$)"
	for ev in "${FILTERED[@]}"; do
		ev=${ev#*/}
		want=$(records "$WORK/filter.trace" "$ev" | grep -E -- "$match")
		got=$(records "$WORK/filter.ftrace" "$ev")
		others=$(records "$WORK/filter.trace" "$ev" |
			grep -cvE -- "$match")
		if [[ -z $want ]]; then
			echo "$ev: no record of QP $qpn to select"
			rc=1
		elif ((others == 0)); then
			echo "$ev: no record of another QP for the filter to leave out"
			rc=1
		elif [[ $got != "$want" ]]; then
			diff <(echo "$want") <(echo "$got")
			echo "$ev: the filter's records are not QP $qpn's (< unfiltered, > filtered)"
			rc=1
		else
			echo "$ev: the $(wc -l <<<"$want") records of QP $qpn, $others of another QP left out"
		fi
	done
	selected_as rvt_cq_enter $((2 * ITERS)) 'opcode 128,RECV ' "$ITERS" \
		'opcode 0,SEND ' "$ITERS" || rc=1
	selected_as rvt_post_one_wr "$ITERS" 'opcode 0x02,SEND ' "$ITERS" || rc=1
	selected_as rvt_qpremove 1 || rc=1
	return "$rc"
}

# The kernel steps: every step rvt_trace_test.ko planned passed.
kernel_steps() {
	local out=$WORK/kmod.ktap rc=0
	[[ -f $KMOD ]] || { echo "$KMOD missing: make tests"; return 1; }
	load_ktest && insmod "$KMOD" "dev=$DEV" || rc=$?
	cp "$KMOD_RESULTS" "$out" || rc=1
	rmmod rvt_trace_test && rmmod rvt_ktest || rc=1
	indent <"$out"
	ktap_passed "$out" && ((rc == 0))
}

# Every event upstream fires (and ours, on our core) was fired by some
# phase, and no other.
all_fired() {
	local fired
	fired=$(cat "$WORK"/*.set | sort -u)
	diff <(expected_events | grep -vx "$NEVER_FIRED") - <<<"$fired" ||
		{ echo "fired (>) or not (<) against those expected"; return 1; }
	echo "all $(wc -l <<<"$fired") events expected were fired"
}

# Save each phase's set as "PHASE system/event" lines.
save_sets() {
	local set
	for set in "$WORK"/*.set; do
		sed "s|^|$(basename "$set" .set) |" "$set"
	done >"$SETS"
	indent <"$SETS"
}

# On the distro core: the same events, phase by phase, as on ours, our
# own events left out.
same_as_ours() {
	local ours=/tmp/rvt-trace-ours.txt
	diff <(grep -vxE "[^ ]+ ($(IFS='|'; echo "${OURS_ONLY[*]}"))" "$ours") \
		"$SETS" || {
		echo "phase sets differ: < ours, > distro"
		return 1
	}
}

RNR=(rvt_qp/rvt_rnrnak_add rvt_qp/rvt_rnrnak_stop rvt_qp/rvt_rnrnak_timeout)
TRAFFIC=(rvt_qp/rvt_qpinsert rvt_tx/rvt_post_one_wr
	 rvt_tx/rvt_qp_send_completion rvt_cq/rvt_cq_enter
	 rvt_qp/rvt_qpremove)

# Fifteen tests, and on the distro core the comparison with ours.
if on_distro_core; then plan 16; else plan 15; fi
step other-core-formats other_core_formats
step load-core load_core
step tracing-on tracing_up
t events-exist events_exist
t formats-same formats_same
step register phase register load_rvtsw
t register-events fired register rvt/rvt_dbg rvt_cq/rvt_create_cq
t rc-pingpong phase rc-pingpong pingpong ibv_rc_pingpong "$DEV:1" "$DEV:1" -c
t rc-pingpong-events fired rc-pingpong "${TRAFFIC[@]}" \
	rvt_cq/rvt_create_cq rvt_mr/rvt_mr_user_seg rvt_mr/rvt_sge_new
t rc-pingpong-qpns qpns_traced rc-pingpong ibv_rc_pingpong
t ud-pingpong phase ud-pingpong pingpong ibv_ud_pingpong "$DEV:1" "$DEV:1" -c
t ud-pingpong-events fired ud-pingpong "${TRAFFIC[@]}"
t ud-pingpong-qpns qpns_traced ud-pingpong ibv_ud_pingpong
t qpn-filter phase filter filtered_pingpong
t qpn-filter-selects filter_selects
t kernel phase kernel kernel_steps
KERNEL=(rvt_cq/rvt_cq_poll rvt_mr/rvt_sge_new rvt_mr/rvt_sge_adjacent
	rvt_mr/rvt_map_mr_sg rvt_mr/rvt_mr_page_seg rvt_rc/rvt_rc_timeout)
on_distro_core || KERNEL+=("${OURS_ONLY[@]}")
t kernel-events fired kernel "${TRAFFIC[@]}" "${RNR[@]}" "${KERNEL[@]}"
step unregister phase unregister unload_rvtsw
t unregister-events fired unregister rvt/rvt_dbg
t all-fired all_fired
step sets-saved save_sets
if on_distro_core; then
	if [[ -f /tmp/rvt-trace-ours.txt ]]; then
		t same-as-ours same_as_ours
	else
		result SKIP same-as-ours "our core's suite did not run in this boot"
	fi
fi
step tracing-off tracing_down
step unload unload_all
