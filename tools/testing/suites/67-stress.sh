#!/bin/bash
# Concurrency under traffic. rvt_stress.ko (tools/testing/kmod/stress_*.c)
# runs its cases from kthreads: several posting to one QP and several
# polling one CQ (RC and UD); a sender moved to ERR, a receiver, an MR,
# an SRQ destroyed or deregistered, the CQ resized, a multicast member
# detached while traffic flows; rdmavt's QP iterator walking while QPs
# churn, one walk's callback resetting the QP it stands on and destroying
# the QPs behind it. Each case accounts for every completion (none lost,
# none twice, only the statuses it allows) and checks every payload by
# CRC32. While it runs, qp_stats (rvtsw's debugfs, a walk of rdmavt's QP
# table) is read in a loop. Then the same traffic from userspace
# (progs/stress_user.c, pthreads on libibverbs); a process killed by
# SIGKILL mid-traffic, after which only the MAD QPs are left and the
# device still works; rmmod of rvtsw while a process holds a context,
# which must be refused.
#
# RVT_STRESS_SECONDS (default 2) is the run time of each timed case (the
# module's and 2 user ones); the kill tests run half of it. The module's
# results are counted against its own plan (run_kmod).
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

DEV=rvtsw_0
KMOD=$TESTING_DIR/kmod/rvt_stress.ko
QP_STATS=/sys/kernel/debug/rvtsw/$DEV/qp_stats
SECS=${RVT_STRESS_SECONDS:-2}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# The resuming walk relies on QPs sorted by QPN within a bucket, which
# ours guarantees; upstream puts new QPs first, so the walk skips the
# older QPs behind the one it stopped at (and rvtsw's qp_stats, which
# resumes differently, may show one twice or miss one: see qp-stress).
KNOWN_DIFF=(
	[qp_iter_resume_walk]="upstream keeps no order in a hash bucket (newest first): a walk resuming after the last QPN it saw in a bucket misses the older QPs behind it"
)
KNOWN_MATCH=(
	[qp_iter_resume_walk]='^walks [0-9]+, [0-9]+ stable QPs: [1-9][0-9]* missed, [0-9]+ twice; [0-9]+ QPs churned; walk [0-9]+: stable QPN 0x[0-9a-f]+ seen 0 times$'
)
LOOPBACK_DEADLOCK="deadlocks the distro core: uverbs' cleanup destroys the RC QP while rvt_ruc_loopback() may still run it (s_lock then r_lock against destroy's r_lock then s_lock; Documentation/differences.rst)"

# Run directly, never through a function: $! must be its PID.
STRESS_USER=$PROGS/stress_user

# Only the MAD layer's QPs of $DEV are left: QP0 and QP1 of each port.
only_mad_qps() {
	local qps
	qps=$(rdma resource show qp | grep "link $DEV/")
	(($(wc -l <<<"$qps") == 4)) && ! grep -qv ' lqpn [01] ' <<<"$qps"
}

mad_qps_up() {
	(($(grep -c ' SMI RTS \| GSI RTS ' "$QP_STATS") == 4))
}

# qp_stats_reader OUT: read qp_stats until $WORK/stop appears; every read
# must end, every line be a QP line, the 4 MAD QPs be in each. The
# verdict ("reads N bad M") goes to OUT.
qp_stats_reader() {
	local out=$1 reads=0 bad=0 text
	while [[ ! -e $WORK/stop ]]; do
		if ! text=$(timeout 60 cat "$QP_STATS"); then
			bad=$((bad + 1))
			echo "read $reads: failed" >>"$out.log"
		elif grep -qv '^N [0-9]\+ QPN 0x[0-9a-f]\{6\} ' <<<"$text" ||
			(($(grep -c ' SMI RTS \| GSI RTS ' <<<"$text") != 4)); then
			bad=$((bad + 1))
			printf 'read %d:\n%s\n' "$reads" "$text" >>"$out.log"
		fi
		reads=$((reads + 1))
	done
	echo "reads $reads bad $bad" >"$out"
}

qp_stats_verdict() {
	local verdict
	verdict=$(<"$WORK/reader")
	echo "qp_stats: $verdict"
	[[ -e $WORK/reader.log ]] && head -n 40 "$WORK/reader.log"
	[[ $verdict =~ ^reads\ [1-9][0-9]*\ bad\ 0$ ]]
}

# The module, with qp_stats read all along; then its KTAP results.
run_stress_kmod() {
	local params=("dev=$DEV" "seconds=$SECS" threads=4 pollers=2) reader
	on_distro_core && params+=(skip_hazards=1)
	qp_stats_reader "$WORK/reader" &
	reader=$!
	kmod_load kmod "$KMOD" "${params[@]}"
	touch "$WORK/stop"
	wait "$reader"
	t qp-stats-during-traffic qp_stats_verdict
	kmod_report kmod "$KMOD"
}

# kill_mid_traffic TYPE: stress_user's traffic, killed by SIGKILL once it
# flows; the kernel must clean up to the MAD QPs and the device work on.
kill_mid_traffic() {
	local type=$1 ready=$WORK/ready-$1 pid rc=0
	"$STRESS_USER" kill "$DEV" "$type" "$ready" &
	pid=$!
	if ! wait_for 600 test -e "$ready"; then
		echo "traffic never flowed"
		kill -KILL "$pid"
		wait "$pid"
		return 1
	fi
	sleep "$(((SECS + 1) / 2))"
	kill -KILL "$pid"
	wait "$pid" || rc=$?
	echo "stress_user: exit status $rc"
	((rc == 128 + 9)) || return 1
	if ! wait_for 200 only_mad_qps; then
		echo "QPs left after the kill:"
		rdma resource show qp
		return 1
	fi
	pingpong ibv_rc_pingpong "$DEV:1" "$DEV:1" -c
}

# rmmod rvtsw under a process holding a context: refused as in use, the
# device still carries traffic (a short stress_user run, quicker than a
# ping-pong under TCG); once the process is gone, rmmod works.
rmmod_in_use() {
	local ready=$WORK/ready-hold pid out
	"$STRESS_USER" hold "$DEV" "$ready" &
	pid=$!
	wait_for 300 test -e "$ready" || { kill "$pid"; return 1; }
	if out=$(rmmod rvtsw 2>&1); then
		echo "rvtsw unloaded under an open context"
		kill "$pid"
		return 1
	fi
	echo "rmmod: $out"
	if ! grep -q "in use" <<<"$out" || ! kill -0 "$pid" ||
		! "$STRESS_USER" traffic "$DEV" rc "$SECS" 2 1; then
		kill "$pid"
		return 1
	fi
	kill "$pid"
	wait "$pid"
	wait_for 100 rmmod rvtsw || { echo "rmmod still refused"; return 1; }
	! lsmod | grep -q '^rvtsw '
}

step load load_rvtsw ports=2 qp_table_size=4
step mad-qps-up wait_for 100 mad_qps_up
step progs have_progs stress_user
if [[ -z $STEP_FAILED ]]; then
	run_stress_kmod
else
	fail qp-stats-during-traffic "not run: step $STEP_FAILED failed"
fi
t user-rc-traffic "$STRESS_USER" traffic "$DEV" rc "$SECS" 4 2
t user-ud-traffic "$STRESS_USER" traffic "$DEV" ud "$SECS" 4 2
skip_on_distro "$LOOPBACK_DEADLOCK" kill-rc-mid-traffic kill_mid_traffic rc
t kill-ud-mid-traffic kill_mid_traffic ud
t rmmod-refused-in-use rmmod_in_use
step unload unload_all

# 6 of its own: qp-stats-during-traffic, the user traffic, the kills, rmmod.
plan_kmods 6
