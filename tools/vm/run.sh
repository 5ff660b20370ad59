#!/bin/bash
# Run a script inside a throw-away QEMU (TCG) guest booted from a Debian
# kernel of the kernel cache (tools/kernels.sh), with the host's / mounted
# read-only (tmpfs overlay on top) so the repo and all host tools are at
# the same paths in the guest.
#
# Test results travel on a second serial port (the guest's /dev/ttyS1,
# named by RVT_RESULTS there) into a file of their own: the kernel's
# console is ttyS0 only, so printk can never break a result line.
#
# Exit status: the guest script's status if the guest finished cleanly;
# 120 if the guest kernel log has errors (BUG/WARNING/Oops/...) other than
# the recorded upstream complaints of tools/testing/known-complaints
# (printed as KNOWN), 124 on timeout, 125 if the guest never reported an
# exit status (crash, panic, boot failure, or no start of the script
# within the boot deadline), 2 on usage errors.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"

EXIT_KERNEL_ERRORS=120
EXIT_TIMEOUT=124
EXIT_NO_MARKER=125

# Extended regexps that mark a kernel log line as a failure.
BAD_PATTERNS=(
	'BUG:' 'kernel BUG at' 'WARNING:' 'Oops' 'general protection'
	'KFENCE' 'UBSAN:' 'Call Trace:' 'Kernel panic'
	'INFO: task .* blocked for more than' 'hung_task' 'detected stalls'
	# slub_debug reports
	'BUG [^ ]+ \((Not tainted|Tainted)' 'Redzone' 'Poison overwritten'
	'Object padding' 'Padding overwritten' 'Object already free'
	'Freepointer corrupt' 'Freechain corrupt' 'slab.out.of.bounds'
	'={20,}' 'list_(add|del) corruption'
	# the debug kernel's checkers (make check-debug), where their reports
	# do not start with BUG: or WARNING:
	'ODEBUG:' 'unreferenced object 0x' 'suspected memory leak'
	'lockdep is turned off'
	# rvtsw's report of a QP reset stuck on its send engine
	'send engine still running'
	# an interface whose unregistration waits on a leaked reference
	'unregister_netdevice: waiting for'
)
# Lines never to flag: the command line echo may contain any word.
IGNORE_PATTERN='(Kernel )?[Cc]ommand line:'

usage() {
	cat <<EOF
Usage: ${0##*/} [OPTIONS] [--] SCRIPT [ARGS...]

Boot the Debian kernel $KVER from the kernel cache (KVER=<release>
picks another of tools/kernels; tools/setup.sh fetches it), or the one of
--kernel, in QEMU/TCG and run SCRIPT ARGS... in the guest as root; the
guest's /lib/modules/<release> is the kernel's own, from its directory.  The guest's / is the host's / (read-only 9p) under a
tmpfs overlay: every host path, the repo included, is the same in the
guest, and guest writes are discarded at power-off.  The guest mounts its
own /run, /dev, /proc, /sys (so SCRIPT must not live there) and a fresh
/tmp (unless the repo or SCRIPT is under /tmp).  SCRIPT runs with cwd = the
current directory (or the repo root if hidden), stdin = /dev/null, and
RVT_GUEST=1, RVT_REPO, RVT_KVER, RVT_RESULTS, RVT_KERNEL_DIR in its
environment, and
every RVT_* variable of the caller's; it need not be executable (then it
is run with bash). RVT_RESULTS is a serial port of its own (ttyS1):
what SCRIPT writes there lands in the results file, untouched by the
kernel's console messages.

Options:
  --pci-testdev    add '-device pci-testdev' (a PCI parent for drivers)
  --kernel DIR     boot the kernel built in DIR (tools/debug-kernel.sh's
                   output) instead of a Debian one; the guest finds its
                   modules under DIR/modules, as for a cached kernel
  --monitor SOCKET QEMU's human monitor on a Unix socket, for debugging a
                   stuck guest from the host (e.g. 'nmi', 'info registers')
  --timeout SECS   kill the guest after SECS seconds (default 600)
  --boot-timeout SECS
                   kill the guest if SCRIPT has not started SECS seconds
                   after QEMU did (default 900): a boot that wedges fails
                   in minutes, not after the whole --timeout
  --log FILE       serial console log (default build/vm/serial.log; if
                   another run holds it, build/vm/serial.PID.log)
  --results FILE   what the guest writes to RVT_RESULTS (default: the
                   console log's name with .results for .log)
  --append ARGS    extra kernel command line arguments
                   (rvt.trace=1 traces the guest's init script)
  --link LOCAL:REMOTE
                   a virtio-net NIC (the guest's eth0) joined to another
                   QEMU's by a datagram link over two Unix sockets: this
                   guest's (LOCAL, made here) and the peer's (REMOTE);
                   no root, tap or bridge on the host (tools/vm/pair.sh
                   boots two guests so)
  --mac MAC        the NIC's MAC address (default 52:54:00:12:34:56)
  --mem MB         guest memory (default 2048)
  --smp N          guest CPUs (default 2)
  --icount SHIFT   QEMU's instruction counting: the guest's clock moves
                   2^SHIFT ns per instruction it runs, so its timings
                   count instructions and do not depend on the host's
                   load (one host thread runs all vCPUs in turn)
  --insn-profile FILE
                   count the instructions the guest runs by block address
                   into FILE (the QEMU plugin tools/vm/insn_profile.c,
                   built on first use; exact with --icount); see
                   tools/vm/insn_profile.py for turning it into functions.
                   Each run of build/vm/insn_mark in the guest cuts it:
                   the counts since the last mark go to FILE.1, FILE.2...
  --no-slab-debug  boot without slub_debug and KFENCE, for measuring: the
                   tests' slub_debug=FZPU records a stack trace at every
                   allocation and free, which costs more than an RDMA
                   work request and would dilute every comparison
  --show-dmesg     also stream the kernel log dump at the end
  --known FILE     the recorded upstream complaints (default
                   tools/testing/known-complaints): a kernel report
                   matching an entry exactly is printed as KNOWN, counted
                   (in the console log's name with .known for .log) and
                   no error
  --check-log FILE no guest: give the verdict on the console log FILE a
                   run left, as that run did (no SCRIPT)
  -h, --help       this help

Exit status: SCRIPT's, if the guest kernel log is clean (but for KNOWN
complaints); otherwise $EXIT_KERNEL_ERRORS if the kernel log has errors (BUG,
WARNING, Oops, slab corruption, hung task, ...: the lines are listed),
$EXIT_TIMEOUT on timeout, $EXIT_NO_MARKER if the guest crashed or never finished;
2 on usage errors.
EOF
}

PCI_TESTDEV=0
KERNEL_DIR=
MONITOR=none
TIMEOUT=600
BOOT_TIMEOUT=900
LOG=$BUILD_VM/serial.log
LOG_IS_DEFAULT=1
RESULTS=
APPEND=
LINK=
MAC=52:54:00:12:34:56
MEM=2048
SMP=2
ICOUNT=
INSN_PROFILE=
SLAB_DEBUG=1
SHOW_DMESG=0
CHECK_LOG=
KNOWN_SUMMARY=
SCRIPT=
ARGS=()

usage_error() {
	echo "${0##*/}: $*" >&2
	echo "Try '${0##*/} --help'." >&2
	exit 2
}

need_value() {
	(($2 >= 2)) || usage_error "option $1 needs a value"
}

parse_args() {
	while (($#)); do
		case $1 in
		--pci-testdev) PCI_TESTDEV=1 ;;
		--kernel) need_value "$1" $# && KERNEL_DIR=$2 && shift ;;
		--monitor) need_value "$1" $# && MONITOR="unix:$2,server,nowait" && shift ;;
		--timeout) need_value "$1" $# && TIMEOUT=$2 && shift ;;
		--boot-timeout) need_value "$1" $# && BOOT_TIMEOUT=$2 && shift ;;
		--log) need_value "$1" $# && LOG=$2 && LOG_IS_DEFAULT=0 && shift ;;
		--results) need_value "$1" $# && RESULTS=$2 && shift ;;
		--append) need_value "$1" $# && APPEND=$2 && shift ;;
		--link) need_value "$1" $# && LINK=$2 && shift ;;
		--mac) need_value "$1" $# && MAC=$2 && shift ;;
		--mem) need_value "$1" $# && MEM=$2 && shift ;;
		--smp) need_value "$1" $# && SMP=$2 && shift ;;
		--icount) need_value "$1" $# && ICOUNT=$2 && shift ;;
		--insn-profile) need_value "$1" $# && INSN_PROFILE=$2 && shift ;;
		--no-slab-debug) SLAB_DEBUG=0 ;;
		--show-dmesg) SHOW_DMESG=1 ;;
		--known) need_value "$1" $# && KNOWN_COMPLAINTS=$2 && shift ;;
		--check-log) need_value "$1" $# && CHECK_LOG=$2 && shift ;;
		-h | --help) usage && exit 0 ;;
		--) shift && break ;;
		-*) usage_error "unknown option $1" ;;
		*) break ;;
		esac
		shift
	done
	[[ -r $KNOWN_COMPLAINTS ]] || usage_error "cannot read --known $KNOWN_COMPLAINTS"
	if [[ -n $CHECK_LOG ]]; then
		(($# == 0)) || usage_error "--check-log takes no SCRIPT"
		[[ -r $CHECK_LOG ]] || usage_error "cannot read --check-log $CHECK_LOG"
		return 0
	fi
	(($#)) || usage_error "missing SCRIPT"
	SCRIPT=$1
	ARGS=("${@:2}")
	[[ $TIMEOUT =~ ^[1-9][0-9]*$ ]] || usage_error "bad --timeout $TIMEOUT"
	[[ $BOOT_TIMEOUT =~ ^[1-9][0-9]*$ ]] ||
		usage_error "bad --boot-timeout $BOOT_TIMEOUT"
	[[ $MEM =~ ^[1-9][0-9]*$ ]] || usage_error "bad --mem $MEM"
	[[ $SMP =~ ^[1-9][0-9]*$ ]] || usage_error "bad --smp $SMP"
	[[ -z $LINK || $LINK =~ ^[^:,]+:[^:,]+$ ]] ||
		usage_error "bad --link $LINK (LOCAL:REMOTE, paths without : or ,)"
	[[ $MAC =~ ^([0-9a-f]{2}:){5}[0-9a-f]{2}$ ]] || usage_error "bad --mac $MAC"
	if [[ -n $KERNEL_DIR ]]; then
		use_kernel_dir "$(realpath "$KERNEL_DIR")"
	fi
}

# The guest sees the host's / except for the filesystems it mounts itself.
# (/tmp is kept when the repo or script is under it; see guest-init.)
check_visible_in_guest() {
	case $1 in
	/run/* | /dev/* | /proc/* | /sys/*)
		die "$1 is not visible in the guest (it mounts its own /run, /dev, /proc, /sys); put it in the repo"
		;;
	esac
}

check_host() {
	[[ -r $VMLINUZ ]] ||
		die "$VMLINUZ not readable (run tools/setup.sh as root: it fetches $KVER)"
	check_visible_in_guest "$RVT_KERNEL_DIR/"
	command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (run tools/setup.sh)"
	# Paths go on the kernel command line, which splits on whitespace.
	[[ $REPO_ROOT != *[[:space:]]* ]] || die "repo path must not contain whitespace: $REPO_ROOT"
	[[ -f $SCRIPT ]] || die "no such script: $SCRIPT"
	SCRIPT=$(realpath "$SCRIPT")
	check_visible_in_guest "$SCRIPT"
	check_visible_in_guest "$REPO_ROOT/"
}

# The job file tells guest-init what to run; it is read over 9p and sourced
# by bash there, so everything is %q-quoted. The caller's RVT_* variables
# (RVT_CORES, RVT_SUITE_TIMEOUT, ...) go along.
write_job() {
	local job=$1 a v
	{
		while read -r v; do
			case $v in
			RVT_REPO | RVT_NONCE | RVT_SCRIPT | RVT_CWD | RVT_ARGS | \
			RVT_RESULTS | RVT_GUEST | RVT_KVER) ;;
			*) printf 'export %s=%q\n' "$v" "${!v}" ;;
			esac
		done < <(compgen -e | grep '^RVT_')
		printf 'export RVT_REPO=%q\n' "$REPO_ROOT"
		printf 'RVT_NONCE=%q\n' "$NONCE"
		printf 'RVT_SCRIPT=%q\n' "$SCRIPT"
		printf 'RVT_CWD=%q\n' "$PWD"
		printf 'RVT_ARGS=('
		for a in "${ARGS[@]}"; do
			printf ' %q' "$a"
		done
		printf ' )\n'
	} >"$job"
}

# The instruction profiler plugin, built into build/vm with its mark
# (build/vm/insn_mark, which the guest runs) when a source is newer;
# prints its path.
insn_profile_plugin() {
	local so=$BUILD_VM/insn_profile.so
	if [[ ! -e $so || $VM_DIR/insn_profile.c -nt $so ||
		$VM_DIR/insn_mark.c -nt $BUILD_VM/insn_mark ]]; then
		compile_insn_profile "$so" || die "cannot build $so"
	fi
	echo "$so"
}

qemu_command() {
	local initrd=$1 job=$2
	# shellcheck disable=SC2054 # commas are part of the arguments
	local cmdline=(
		console=ttyS0,115200
		# Without it multi-threaded TCG boots sometimes die with
		# "Oops: int3" in sched_clock_cpu.
		tsc=unstable
		# A panic reboots, and -no-reboot turns that into a QEMU exit.
		panic=-1
		# Room for the whole run's log: the runner scans the dmesg dump.
		log_buf_len=8M
		"rvt.stage2=$VM_DIR/guest-init"
		"rvt.job=$job"
	)
	# Tests catch slab corruption themselves (see BAD_PATTERNS).
	((SLAB_DEBUG == 0)) ||
		cmdline+=(slub_debug=FZPU kfence.sample_interval=100)
	# A kernel of our own is the debug lane's: KASAN reports only its
	# first finding unless told otherwise, and one must not hide the next.
	# And 4-level paging: with -cpu max the guest has LA57, and while
	# identify_cpu() clears the boot CPU's feature bits KASAN takes the
	# 5-level direct map for wild addresses, so an interrupt landing in
	# that window floods the boot with false reports and wedges it.
	# (no5lvl is read by the early boot code; the kernel then still lists
	# it among its "unknown" parameters, harmlessly.)
	[[ -z $KERNEL_DIR ]] || cmdline+=(kasan_multi_shot no5lvl)
	# shellcheck disable=SC2054
	QEMU=(
		qemu-system-x86_64
		-accel tcg -cpu max -smp "$SMP" -m "$MEM"
		-nodefaults -no-reboot -display none -monitor "$MONITOR"
		-chardev "file,id=ser0,path=$LOG" -serial chardev:ser0
		-chardev "file,id=ser1,path=$RESULTS" -serial chardev:ser1
		-kernel "$VMLINUZ" -initrd "$initrd"
		-append "${cmdline[*]} $APPEND"
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
	)
	if ((PCI_TESTDEV)); then
		QEMU+=(-device pci-testdev)
	fi
	if [[ -n $LINK ]]; then
		QEMU+=(-netdev "dgram,id=link,local.type=unix,local.path=${LINK%%:*},remote.type=unix,remote.path=${LINK#*:}"
			-device "virtio-net-pci,netdev=link,mac=$MAC")
	fi
	if [[ -n $ICOUNT ]]; then
		QEMU+=(-icount "shift=$ICOUNT,align=off,sleep=on")
	fi
	if [[ -n $INSN_PROFILE ]]; then
		QEMU+=(-plugin "$(insn_profile_plugin),out=$INSN_PROFILE")
	fi
}

# Copy the console to stdout while QEMU runs, minus the final kernel log
# dump (it is in the log file and gets scanned) unless --show-dmesg.
stream_console() {
	local pid=$1
	tail -s 0.2 -n +1 -f --pid="$pid" "$LOG" |
		awk -v nonce="$NONCE" -v show="$SHOW_DMESG" -v logfile="$LOG" '
		{ sub(/\r$/, "") }
		$0 == "RVT-DMESG-BEGIN " nonce { indump = 1; n = 0 }
		indump && !show { n++ }
		!indump || show { print; fflush() }
		$0 == "RVT-DMESG-END " nonce {
			if (!show)
				printf("[kernel log dump: %d lines, see %s]\n", n - 2, logfile)
			indump = 0; fflush()
		}'
}

# The line guest-init prints as it starts SCRIPT: the guest has booted.
SCRIPT_STARTED='rvt-guest: running: '

# Kill the guest (QEMU's process PID, the timeout wrapper) if the console
# shows no start of SCRIPT within BOOT_TIMEOUT seconds, and leave FLAG
# behind so that report() can say why. A boot can wedge before any test
# runs (the debug kernel once did, in a flood of false KASAN reports), and
# the whole-run --timeout is hours long in the debug lane.
boot_watchdog() {
	local pid=$1 flag=$2 deadline=$((SECONDS + BOOT_TIMEOUT))
	while kill -0 "$pid" 2>/dev/null; do
		grep -aqF -- "$SCRIPT_STARTED" "$LOG" && return 0
		if ((SECONDS >= deadline)); then
			: >"$flag"
			kill "$pid" 2>/dev/null
			return 0
		fi
		sleep 1
	done
}

indent() {
	sed 's/^/    /'
}

# The console log as text: no CRs from the serial line, no NULs.
clean_log() {
	tr -d '\r\000' <"$LOG"
}

bad_regex() {
	local IFS='|'
	echo "${BAD_PATTERNS[*]}"
}

# Print the lines of stdin that match a bad pattern. Between the markers
# of a fault-injection sweep (suite 66-failnth), an allocation that fails
# on purpose may print its stack (warn_alloc): a bare "Call Trace:" there
# is expected; every other pattern still counts.
bad_lines() {
	awk '/rvt-test: fault injection begins/ { inj = 1 }
	     /rvt-test: fault injection ends/ { inj = 0 }
	     !(inj && /Call Trace:/)' |
		grep -aE -- "$(bad_regex)" | grep -avE -- "$IGNORE_PATTERN" || true
}

# The scanned part of the log: the dmesg dump plus anything the kernel
# printed after the exit marker (during power-off).
kernel_log_part() {
	clean_log | awk -v nonce="$NONCE" '
		$0 == "RVT-DMESG-BEGIN " nonce { on = 1; next }
		$0 == "RVT-DMESG-END " nonce { on = 0; next }
		$0 ~ "^RVT-GUEST-EXIT: [0-9]+ " nonce "$" { on = 1; next }
		on'
}

# The recorded upstream complaints (the file's header says what an entry
# holds); --known picks another file.
KNOWN_COMPLAINTS=$REPO_ROOT/tools/testing/known-complaints

# known_filter OUT < LOG: the scanned part of a console log (as
# kernel_log_part) minus the reports that match an entry of
# KNOWN_COMPLAINTS exactly; each of those is a line in OUT: id, the
# WARNING line's timestamp, the release, site and module, the console's
# context (the suite and core guest.sh announced last before the console
# showed that WARNING line: 58-contract loads the distro's module under
# either core) and the entry's doc, tab-separated. Of a matched report
# only its WARNING line and its first "Call Trace:" line are dropped: any
# other line of it that bad_lines flags (another CPU's BUG printed in the
# middle, a second trace) is flagged as ever. A report that matches no
# entry passes through whole.
known_filter() {
	awk -v nonce="$NONCE" -v known="$KNOWN_COMPLAINTS" -v out="$1" '
	function data_error(msg) {
		printf("%s: %s:%d: %s: no complaint is known\n", prog, known,
		    lineno, msg) > "/dev/stderr"
		broken = 1
	}
	function end_entry(k) {
		if (!(cur in entry_of))
			return
		for (k in keys)
			if (!((cur, k) in field))
				data_error("entry " field[cur, "id"] " has no " k)
		if (field[cur, "id"] in ids)
			data_error("id " field[cur, "id"] " given twice")
		ids[field[cur, "id"]] = 1
		if (field[cur, "core"] != "distro")
			data_error("core must be distro (nothing of ours is recorded)")
		if (field[cur, "site"] !~ /^[^ :]+:[0-9]+ [A-Za-z0-9_.]+$/)
			data_error("site must be FILE:LINE FUNCTION")
		if (field[cur, "doc"] !~ /^differences\.rst#[a-z0-9.-]+$/)
			data_error("doc must be differences.rst#NAME")
		n++
		cur = n + 1
	}
	function load(line, key, k, i, r) {
		split("id release module core site message doc", k, " ")
		for (i in k)
			keys[k[i]] = 1
		n = 0
		cur = 1
		while ((r = (getline line < known)) > 0) {
			lineno++
			if (line ~ /^#/)
				continue
			if (line == "") {
				end_entry()
				continue
			}
			key = line
			sub(/: .*/, "", key)
			if (!(key in keys) || index(line, key ": ") != 1) {
				data_error("not a key: value line")
				continue
			}
			if ((cur, key) in field)
				data_error(key " given twice")
			field[cur, key] = substr(line, length(key) + 3)
			entry_of[cur] = 1
		}
		if (r < 0)
			data_error("cannot read it")
		end_entry()
		if (broken)
			n = 0
	}
	# A shell glob (* and ?) as an anchored regular expression.
	function glob_re(g, i, c, re) {
		re = "^"
		for (i = 1; i <= length(g); i++) {
			c = substr(g, i, 1)
			if (c == "*")
				re = re ".*"
			else if (c == "?")
				re = re "."
			else if (index("\\^$.[]|()+{}", c))
				re = re "[" (c == "\\" || c == "^" || c == "]" ? "\\" : "") c "]"
			else
				re = re c
		}
		return re "$"
	}
	# The message s equals pattern p, each <n> of p a decimal number.
	function msg_match(s, p, np, parts, i, d) {
		np = split(p, parts, "<n>")
		if (substr(s, 1, length(parts[1])) != parts[1])
			return 0
		s = substr(s, length(parts[1]) + 1)
		for (i = 2; i <= np; i++) {
			if (!match(s, /^[0-9]+/))
				return 0
			s = substr(s, RLENGTH + 1)
			if (substr(s, 1, length(parts[i])) != parts[i])
				return 0
			s = substr(s, length(parts[i]) + 1)
		}
		return s == ""
	}
	function text(line) {
		sub(/^\[ *[0-9]+\.[0-9]+\] /, "", line)
		sub(/^\[ *[TC][0-9]+\] /, "", line)
		return line
	}
	function stamp(line) {
		return match(line, /^\[ *[0-9]+\.[0-9]+\]/) ? \
		    substr(line, 1, RLENGTH) : ""
	}
	# The flags a "Modules linked in:" line gives module m ("-" if it
	# is not there, "" if it has none).
	function mod_flags(s, m, nt, t, i) {
		s = substr(s, length("Modules linked in: ") + 1)
		sub(/ \[last unloaded:.*$/, "", s)
		nt = split(s, t, " ")
		for (i = 1; i <= nt; i++) {
			if (t[i] == m)
				return ""
			if (index(t[i], m "(") == 1 && substr(t[i], length(t[i])) == ")")
				return substr(t[i], length(m) + 2, length(t[i]) - length(m) - 2)
		}
		return "-"
	}
	# The release a "CPU: ... Comm: ..." line names, or "".
	function release_of(s, i, nt, t) {
		if ((i = index(s, " Not tainted ")))
			s = substr(s, i + 13)
		else if ((i = index(s, " Tainted: ")))
			s = substr(s, i + 10)
		else
			return ""
		nt = split(s, t, " ")
		for (i = 1; i < nt; i++) {
			if (t[i] ~ /^[0-9]/)
				return t[i + 1] ~ /^#/ ? t[i] : ""
			if (t[i] !~ /^[A-Z]+$/)
				return ""
		}
		return ""
	}
	# The entry (its number) that report b[1..nb] matches, or 0.
	function match_entry(w, warn, msg, nmsg, mods, rel, rip, i, s, e, f,
	    site, fn) {
		for (i = 2; i < nb; i++) {
			s = text(b[i])
			if (index(s, "WARNING: ") == 1) {
				if (w)
					return 0
				w = i
				warn = s
			} else if (!w) {
				msg = s
				nmsg++
			} else if (index(s, "Modules linked in: ") == 1 && mods == "")
				mods = s
			else if (index(s, "CPU: ") == 1 && rel == "")
				rel = release_of(s)
			else if (index(s, "RIP: ") == 1 && rip == "")
				rip = s
		}
		if (!w || nmsg != 1 || rel == "")
			return 0
		if (!sub(/^WARNING: CPU: [0-9]+ PID: [0-9]+ at /, "", warn))
			return 0
		for (e = 1; e <= n; e++) {
			f = mod_flags(mods, field[e, "module"])
			if (f != "" && f !~ /^[+-]$/)
				continue
			split(field[e, "site"], site, " ")
			fn = site[2]
			gsub(/[.]/, "[.]", fn)
			s = fn "\\+0x[0-9a-f]+/0x[0-9a-f]+ \\[" field[e, "module"] "\\]$"
			if (index(warn, site[1] " ") != 1 ||
			    substr(warn, length(site[1]) + 2) !~ "^" s ||
			    rip !~ "^RIP: [0-9a-f]+:" s)
				continue
			if (rel !~ glob_re(field[e, "release"]))
				continue
			if (!msg_match(msg, field[e, "message"]))
				continue
			warn_at = stamp(b[w])
			warn_rel = rel
			return e
		}
		return 0
	}
	# End of report b[1..nb]: known (a line in out, its WARNING and one
	# Call Trace line dropped) or not (passed through whole).
	function flush(closed, e, i, ct, s) {
		if (!nb)
			return
		e = closed ? match_entry() : 0
		for (i = 1; i <= nb; i++) {
			s = text(b[i])
			if (e && (index(s, "WARNING: ") == 1 ||
			    (s == "Call Trace:" && !ct++)))
				continue
			print b[i]
		}
		if (e)
			printf("%s\t%s\t%s\t%s [%s]\t%s\t%s\n", field[e, "id"],
			    warn_at, warn_rel, field[e, "site"], field[e, "module"],
			    warn_at in where ? where[warn_at] : "no console context",
			    field[e, "doc"]) > out
		nb = 0
	}
	BEGIN {
		prog = "run.sh"
		load()
		printf("") > out
		ctx = "before any suite"
	}
	$0 == "RVT-DMESG-BEGIN " nonce { on = 1; dumped = 1; next }
	$0 == "RVT-DMESG-END " nonce { flush(0); on = 0; next }
	$0 ~ "^RVT-GUEST-EXIT: [0-9]+ " nonce "$" { on = 1; next }
	!on && !dumped {
		if ($0 ~ /^=== suite .* \(core: [a-z]+\)$/) {
			ctx = $0
			sub(/^=== /, "", ctx)
		}
		s = text($0)
		if (index(s, "WARNING: ") == 1 && !(stamp($0) in where))
			where[stamp($0)] = ctx
		next
	}
	!on { next }
	text($0) == "------------[ cut here ]------------" {
		flush(0)
		b[nb = 1] = $0
		next
	}
	nb {
		b[++nb] = $0
		if (index(text($0), "---[ end trace ") == 1)
			flush(1)
		next
	}
	{ print }
	END { flush(0) }'
}

guest_status() {
	clean_log |
		sed -n "s/^RVT-GUEST-EXIT: \([0-9]*\) $NONCE\$/\1/p" | tail -n 1
}

report() {
	local qemu_rc=$1 status bad known clean
	status=$(guest_status)
	if [[ -z $status ]]; then
		echo "${0##*/}: FAIL: guest did not report an exit status" >&2
		if [[ -e $BOOT_FLAG ]]; then
			echo "${0##*/}: SCRIPT had not started ${BOOT_TIMEOUT}s after boot began (QEMU killed)" >&2
		elif ((qemu_rc == 124)); then
			echo "${0##*/}: timed out after ${TIMEOUT}s (QEMU killed)" >&2
		fi
		bad=$(clean_log | grep -aE "^RVT-INIT-ERROR|$(bad_regex)" |
			grep -avE -- "$IGNORE_PATTERN" || true)
		if [[ -n $bad ]]; then
			echo "${0##*/}: suspicious console lines:" >&2
			indent <<<"$bad" | head -n 60 >&2
		fi
		echo "${0##*/}: full console log: $LOG" >&2
		[[ ! -e $BOOT_FLAG ]] && ((qemu_rc == 124)) &&
			return $EXIT_TIMEOUT
		return $EXIT_NO_MARKER
	fi
	known=$(mktemp)
	bad=$(clean_log | known_filter "$known" | bad_lines)
	clean="kernel log clean"
	if [[ -s $known ]]; then
		report_known "$known"
		clean+=" but for $(wc -l <"$known") known upstream complaint(s)"
	fi
	rm -f "$known"
	if [[ -n $bad ]]; then
		echo "${0##*/}: FAIL: guest kernel log has $(wc -l <<<"$bad") error line(s) (script status $status):" >&2
		indent <<<"$bad" | head -n 100 >&2
		echo "${0##*/}: full console log: $LOG" >&2
		return $EXIT_KERNEL_ERRORS
	fi
	echo "${0##*/}: guest script exited with status $status ($clean)" >&2
	return "$status"
}

# report_known FILE: print known_filter's records, one a complaint, and
# the count of each entry, which also goes to KNOWN_SUMMARY (if set:
# "ID COUNT DOC" a line, for tools/check.sh).
report_known() {
	local file=$1 id n doc
	echo "${0##*/}: KNOWN: $(wc -l <"$file") recorded upstream complaint(s) in the guest kernel log (${KNOWN_COMPLAINTS#"$REPO_ROOT"/}), not failures:" >&2
	awk -F '\t' '{ printf("%s %s %s: %s, the distro'"'"'s module loaded; during %s\n",
		$1, $2, $3, $4, $5) }' \
		"$file" | indent >&2
	while read -r id n doc; do
		echo "${0##*/}: KNOWN: $id: $n complaint(s) (Documentation/$doc)" >&2
		[[ -z $KNOWN_SUMMARY ]] || echo "$id $n $doc" >>"$KNOWN_SUMMARY"
	done < <(awk -F '\t' '{ n[$1]++; doc[$1] = $6 }
		END { for (id in n) print id, n[id], doc[id] }' "$file" | sort)
}

# Lock the log file so that concurrent runs cannot truncate each other's
# log: a second run with the default log gets its own serial.PID.log.  The
# lock fd is inherited by QEMU, so the lock lasts as long as the guest.
lock_log() {
	mkdir -p "$(dirname "$LOG")"
	exec {LOG_FD}>>"$LOG"
	if ! flock -n "$LOG_FD"; then
		((LOG_IS_DEFAULT)) || die "$LOG is in use by another run"
		exec {LOG_FD}>&-
		LOG=$BUILD_VM/serial.$$.log
		log "build/vm/serial.log is in use by another run; using $LOG"
		exec {LOG_FD}>>"$LOG"
		flock -n "$LOG_FD" || die "cannot lock $LOG"
	fi
	LOG=$(realpath "$LOG")
	: >"$LOG"
	[[ -n $RESULTS ]] || RESULTS=${LOG%.log}.results
	RESULTS=$(realpath -m "$RESULTS")
	: >"$RESULTS"
	KNOWN_SUMMARY=${LOG%.log}.known
	: >"$KNOWN_SUMMARY"
}

# --check-log: the verdict on a console log a run left, as that run gave
# it (its nonce is the one of its markers), and no guest booted.
check_log() {
	LOG=$CHECK_LOG
	NONCE=$(tr -d '\r\000' <"$LOG" | sed -n \
		's/^RVT-\(GUEST-EXIT: [0-9]*\|DMESG-BEGIN\) \([0-9a-f]*\)$/\2/p' |
		tail -n 1)
	[[ -n $NONCE ]] || NONCE=none
	BOOT_FLAG=/nonexistent
	report 0
}

cleanup() {
	[[ -n ${QEMU_PID:-} ]] && kill "$QEMU_PID" 2>/dev/null
	[[ -n ${JOB_DIR:-} ]] && rm -rf "$JOB_DIR"
	return 0
}

main() {
	local initrd job start qemu_rc=0 rc=0
	parse_args "$@"
	if [[ -n $CHECK_LOG ]]; then
		check_log
		return
	fi
	check_host
	mkdir -p "$BUILD_VM"
	lock_log
	"$VM_DIR/mkinitramfs.sh"
	initrd=$BUILD_VM/initramfs-$KVER.cpio.gz

	NONCE=$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
	JOB_DIR=$(mktemp -d "$BUILD_VM/job.XXXXXX")
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	job=$JOB_DIR/job
	# Left by boot_watchdog when it killed a guest that never booted.
	BOOT_FLAG=$JOB_DIR/boot-timeout
	write_job "$job"
	qemu_command "$initrd" "$job"

	log "booting $KVER (timeout ${TIMEOUT}s, log $LOG)"
	start=$SECONDS
	timeout -k 10 "$TIMEOUT" "${QEMU[@]}" </dev/null &
	QEMU_PID=$!
	stream_console "$QEMU_PID" &
	boot_watchdog "$QEMU_PID" "$BOOT_FLAG" &
	wait "$QEMU_PID" || qemu_rc=$?
	QEMU_PID=
	wait || true
	log "guest ran for $((SECONDS - start))s (qemu exit $qemu_rc)"
	report "$qemu_rc" || rc=$?
	return "$rc"
}

# Sourced (by the harness's own test), it only defines the functions.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	main "$@"
fi
