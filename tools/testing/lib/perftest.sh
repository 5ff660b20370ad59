# shellcheck shell=bash
# Running perftest between two processes on one device, for the perftest
# suite (perf_test: judged by what ran) and the benchmark (perf: judged
# by the figures). Sourced after suite.sh.
#
# PERF_DEV: the device; PERF_OPTS: options every run gets (e.g. "-x 1",
# the GID index RoCE needs). After perf() PERF_REPORT holds the client's
# figures.

PERF_DEV=${PERF_DEV:-rvtsw_0}
PERF_OPTS=${PERF_OPTS:-}
PERF_TCP_PORT=19515
# shellcheck disable=SC2034 # read by the scripts that source this
PERF_REPORT=

# The benchmark's perftest rows (make bench, and tools/profile.sh by
# name): name kind field unit iterations program [options...]; field is the
# report column: 4 average bandwidth, 5 message rate (bandwidth tests)
# or typical latency (latency tests). All RC unless -c says otherwise.
PERF_BENCHMARKS=(
	"send_bw_64k bw 4 MB/s 400 ib_send_bw -s 65536"
	"write_bw_64k bw 4 MB/s 400 ib_write_bw -s 65536"
	"read_bw_64k bw 4 MB/s 400 ib_read_bw -s 65536"
	"send_rate_64 bw 5 Mpps 4000 ib_send_bw -s 64"
	"ud_send_rate_64 bw 5 Mpps 4000 ib_send_bw -c UD -s 64"
	"atomic_rate bw 5 Mpps 2000 ib_atomic_bw"
	"send_lat_8 lat 5 usec 2000 ib_send_lat -s 8"
	"write_lat_8 lat 5 usec 2000 ib_write_lat -s 8"
	"read_lat_8 lat 5 usec 2000 ib_read_lat -s 8"
	# Several QPs at once (aggregate over the QPs; q1 is send_bw_64k).
	"send_bw_64k_q2 bw 4 MB/s 400 ib_send_bw -s 65536 -q 2"
	"send_bw_64k_q4 bw 4 MB/s 400 ib_send_bw -s 65536 -q 4"
	"send_bw_64k_q8 bw 4 MB/s 400 ib_send_bw -s 65536 -q 8"
)

# perf_benchmark NAME: the words of PERF_BENCHMARKS' row NAME.
# Return: 1 if there is none.
perf_benchmark() {
	local entry
	for entry in "${PERF_BENCHMARKS[@]}"; do
		[[ ${entry%% *} == "$1" ]] && { echo "$entry"; return 0; }
	done
	return 1
}

# The figures of a perftest report: the line after the column headings
# (which start with "#bytes"), e.g. "65536 100 310.25 305.51 0.004888".
# Bandwidth: #bytes #iterations BW-peak BW-average[MB/s] MsgRate[Mpps];
# latency: #bytes #iterations t_min t_max t_typical t_avg ... [usec].
perf_report_line() {
	awk '/^ *#bytes/ { getline; print; exit }' "$1"
}

# perf_figures_ok KIND FILE: the report is there and its bandwidth (bw:
# average BW, MsgRate) or latency (lat: t_min, t_avg) figures are
# positive.
perf_figures_ok() {
	local kind=$1 line
	line=$(perf_report_line "$2")
	[[ -n $line ]] || { echo "no report in $2"; return 1; }
	# shellcheck disable=SC2086 # split the line into fields
	set -- $line
	case $kind in
	# The message rate, printed to a millionth of a million: the
	# average bandwidth has two decimals of MB/s, and 8-byte atomics
	# at under 625 a second (the debug kernel) print it as 0.00.
	bw) awk -v bw="$4" -v rate="$5" 'BEGIN { exit !(bw >= 0 && rate > 0) }' ;;
	lat) awk -v min="$3" -v avg="$6" 'BEGIN { exit !(min > 0 && avg > 0) }' ;;
	esac
}

# perftest calibrates its CPU clock at start-up (src/get_clock.c: a
# linear regression of the cycle counter against gettimeofday() whose
# correlation must reach r^2 0.9). Under TCG it sometimes does not
# ("Correlation coefficient r^2: 0.64 < 0.9"): the clock rate is then
# 0, and perftest, which -F keeps from giving up ("Can't produce a
# report", exit 1), reports every figure as 0 or inf. The figures are
# then worthless, but the run itself (every iteration posted, completed
# without error, on both sides) is as good as any.
PERF_CALIBRATION_FAILED='Correlation coefficient r^2'
PERF_ATTEMPTS=5

# perf_run_once OUT PROG [ARGS...]: one server/client run, the outputs
# in OUT/server and OUT/client. Return: 0 if both sides exited 0.
perf_run_once() {
	local out=$1 prog=$2 server client
	shift 2
	((PERF_TCP_PORT++))
	# shellcheck disable=SC2206 # PERF_OPTS is a list of options
	server=("$prog" -d "$PERF_DEV" -p "$PERF_TCP_PORT" -F $PERF_OPTS "$@")
	# shellcheck disable=SC2034 # passed by name to server_client
	client=("${server[@]}" localhost)
	server_client "$out" "$PERF_TCP_PORT" server client
}

# perf_iterations FILE: the #iterations column of a side's report.
perf_iterations() {
	perf_report_line "$1" | awk '{ print $2 }'
}

# perf_side_ok KIND FILE ITERS [PEER]: one side's report says all ITERS
# iterations completed; its figures are positive unless the clock
# calibration failed on that side or on its PEER (then they are not
# judged: the passive side of the read and atomic tests prints the
# figures the active side measured, 0 when that side's clock failed).
perf_side_ok() {
	local kind=$1 file=$2 iters=$3 peer=${4:-} done_iters
	done_iters=$(perf_iterations "$file")
	if [[ $done_iters != "$iters" ]]; then
		echo "${file##*/}: ${done_iters:-no} iterations reported, $iters run"
		return 1
	fi
	if grep -q "$PERF_CALIBRATION_FAILED" "$file" ${peer:+"$peer"}; then
		echo "${file##*/}: perftest's clock calibration failed: figures not judged"
		return 0
	fi
	perf_figures_ok "$kind" "$file" ||
		{ echo "${file##*/}: figures not positive with a calibrated clock"; return 1; }
}

# perf_test KIND ITERS PROG [ARGS...]: the perftest suite's verdict on
# one program: both sides exit 0 (perftest exits 1 on a completion
# error, a failed post or a lost connection) and the client's report, and
# the server's if it prints one (the passive side of the latency tests
# but send prints none), counts all ITERS iterations. Run once: the
# verdict does not depend on the clock.
perf_test() {
	local kind=$1 iters=$2 out rc=0 side peer
	shift 2
	out=$(mktemp -d)
	perf_run_once "$out" "$@" -n "$iters" || rc=1
	if ((rc == 0)); then
		for side in client server; do
			[[ $side == client || -n $(perf_report_line "$out/$side") ]] ||
				continue
			peer=$out/client
			[[ $side == server ]] || peer=$out/server
			perf_side_ok "$kind" "$out/$side" "$iters" "$peer" || rc=1
		done
	fi
	rm -rf "$out"
	return "$rc"
}

# perf_measured KIND OUT: both sides' figures are there and positive
# (the passive side of some tests prints no report). Return: 0 if so, 2
# if only a failed clock calibration (on either side: see perf_side_ok)
# spoiled them, else 1.
perf_measured() {
	local kind=$1 out=$2 side
	for side in server client; do
		[[ $side == client || -n $(perf_report_line "$out/$side") ]] ||
			continue
		perf_figures_ok "$kind" "$out/$side" && continue
		grep -q "$PERF_CALIBRATION_FAILED" "$out/server" "$out/client" &&
			return 2
		return 1
	done
	return 0
}

# perf KIND PROG [ARGS...]: for the benchmark, whose figures are the
# result: run PROG as server and client on $PERF_DEV, again while only
# perftest's clock calibration spoils the figures. PERF_REPORT gets the
# client's report line.
perf() {
	local out attempt rc
	out=$(mktemp -d)
	PERF_REPORT=
	for ((attempt = 1; attempt <= PERF_ATTEMPTS; attempt++)); do
		rc=0
		perf_run_once "$out" "${@:2}" || rc=1
		((rc != 0)) || perf_measured "$1" "$out" || rc=$?
		((rc == 2)) || break
		echo "attempt $attempt: perftest's clock calibration failed" \
			"(figures 0); again"
	done
	# shellcheck disable=SC2034
	((rc != 0)) || PERF_REPORT=$(perf_report_line "$out/client")
	rm -rf "$out"
	return "$rc"
}
