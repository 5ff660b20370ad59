# shellcheck shell=bash
# Running perftest between two processes on one device, for the perftest
# suite and the benchmark. Sourced after lib.sh.
#
# PERF_DEV: the device; PERF_OPTS: options every run gets (e.g. "-x 1",
# the GID index RoCE needs). After perf() PERF_REPORT holds the client's
# figures.

PERF_DEV=${PERF_DEV:-rvtsw_0}
PERF_OPTS=${PERF_OPTS:-}
PERF_TCP_PORT=19515
# shellcheck disable=SC2034 # read by the scripts that source this
PERF_REPORT=

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
	bw) awk -v bw="$4" -v rate="$5" 'BEGIN { exit !(bw > 0 && rate > 0) }' ;;
	lat) awk -v min="$3" -v avg="$6" 'BEGIN { exit !(min > 0 && avg > 0) }' ;;
	esac
}

# perftest calibrates its clock at start-up; under TCG the calibration
# sometimes fails ("Correlation coefficient r^2: ... < 0.9") and that
# side then reports all figures as 0. Such a run is repeated.
PERF_CALIBRATION_FAILED='Correlation coefficient r^2'
PERF_ATTEMPTS=5

# perf_run_once KIND OUT PROG [ARGS...]: one server/client run, the
# outputs in OUT/server and OUT/client. Return: 0 if both sides finished
# and their figures are positive (the passive side of ib_read_lat prints
# no report), 2 if only a failed calibration spoiled the figures, else 1.
perf_run_once() {
	local kind=$1 out=$2 prog=$3 side server client
	shift 3
	((PERF_TCP_PORT++))
	# shellcheck disable=SC2206 # PERF_OPTS is a list of options
	server=("$prog" -d "$PERF_DEV" -p "$PERF_TCP_PORT" -F $PERF_OPTS "$@")
	# shellcheck disable=SC2034 # passed by name to server_client
	client=("${server[@]}" localhost)
	server_client "$out" "$PERF_TCP_PORT" server client || return 1
	for side in server client; do
		[[ $side == client || -n $(perf_report_line "$out/$side") ]] ||
			continue
		perf_figures_ok "$kind" "$out/$side" && continue
		grep -q "$PERF_CALIBRATION_FAILED" "$out/$side" && return 2
		return 1
	done
	return 0
}

# perf KIND PROG [ARGS...]: run PROG as server and client on $PERF_DEV,
# again while only perftest's clock calibration spoils the figures.
perf() {
	local out attempt rc
	out=$(mktemp -d)
	PERF_REPORT=
	for ((attempt = 1; attempt <= PERF_ATTEMPTS; attempt++)); do
		rc=0
		perf_run_once "$1" "$out" "${@:2}" || rc=$?
		((rc == 2)) || break
		echo "attempt $attempt: perftest's clock calibration failed" \
			"(figures 0); again"
	done
	# shellcheck disable=SC2034
	((rc != 0)) || PERF_REPORT=$(perf_report_line "$out/client")
	rm -rf "$out"
	return "$rc"
}
