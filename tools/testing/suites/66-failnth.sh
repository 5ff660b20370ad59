#!/bin/bash
# Allocation-failure sweeps (make check-debug's kernel has fault
# injection; Debian's has none, and the suite skips there): the 1st, 2nd,
# ... kernel allocation of each call fails in turn (tools/testing/progs/
# failnth.c) until the call makes no more: loading rvtsw (device
# registration), every user verb that allocates (ucontext, PD, CQ and its
# resize, QPs and their modifies, SRQ and its resize, MR, AH, multicast
# attach; the ring mmaps are part of the CQ, QP and SRQ calls) and the
# kernel verbs (rvt_failnth.ko; also DMA and fast-registration MRs). A
# failed call must return an errno; guest.sh's kmemleak scan after the
# suite finds what a failure leaked; traffic afterwards shows the device
# still works. Each result names how many injection points it reached.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

DEV=rvtsw_0
KMOD=$TESTING_DIR/kmod/rvt_failnth.ko
USER_OPS=(ucontext pd cq cq-resize qp-rc qp-uc qp-ud qp-init qp-rtr qp-rts
	srq srq-resize mr ah mcast-attach)
KERNEL_OPS=(pd pd-dma-mr cq cq-resize qp-rc qp-uc qp-ud qp-init qp-rtr
	qp-rts qp-err srq srq-resize mr-fast-reg ah mcast-attach)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

if [[ ! -e /proc/self/fail-nth ]]; then
	plan 1
	result SKIP sweeps "this kernel has no fault injection (make check-debug's has)"
	exit 0
fi
plan $((1 + ${#USER_OPS[@]} + ${#KERNEL_OPS[@]} + 2 + 1))

FAILSLAB=/sys/kernel/debug/failslab
FAIL_PAGE=/sys/kernel/debug/fail_page_alloc

# Fail any allocation fail-nth names, sleeping or not, silently (the
# fault injector's own stack dumps would drown the log). The markers tell
# the runner that the allocation-failure reports in between (warn_alloc's
# stack dumps) are expected; anything else there still fails the run.
injection_on() {
	local f
	for f in "$FAILSLAB/ignore-gfp-wait" "$FAIL_PAGE/ignore-gfp-wait" \
		"$FAIL_PAGE/ignore-gfp-highmem"; do
		echo N >"$f" || return
	done
	echo 0 >"$FAIL_PAGE/min-order" &&
		echo 0 >"$FAILSLAB/verbose" && echo 0 >"$FAIL_PAGE/verbose" &&
		echo "rvt-test: fault injection begins" >/dev/kmsg
}

injection_off() {
	echo "rvt-test: fault injection ends" >/dev/kmsg
}

# failnth's verdicts go to $WORK/out (report reads them), its progress
# straight to the console: a sweep of a module load on the debug kernel
# runs for long.
run_failnth() {
	"$PROGS/failnth" "$@" >"$WORK/out" 2> >(indent >&2)
	indent <"$WORK/out"
}

# report PREFIX OP...: a result for each OP from failnth's line for it
# ("OP name points P failed F absorbed A errnos E verdict"), with the
# injection points it reached; no line is a failure.
report() {
	local prefix=$1 op _op _n _p points _f failed _a absorbed _e errnos verdict
	shift
	for op in "$@"; do
		if ! read -r _op _n _p points _f failed _a absorbed _e errnos verdict \
			< <(grep "^OP $op " "$WORK/out"); then
			fail "$prefix$op" "failnth reported nothing for it"
			continue
		fi
		result "$verdict" "$prefix$op" \
			"$points injection points, $failed failed with an errno ($errnos), $absorbed absorbed"
	done
}

# The load sweep's filter (failslab's and fail_page_alloc's stack-trace
# filter): an allocation counts as an injection point only if a frame of
# module text is on its stack (above the kernel image's end) and none of
# ib_core's. That leaves out the module loader (no module frame) and all
# that ib_core does in registration (its sysfs, its clients' devices and
# the MAD buffers: thousands per load, seconds each on this kernel), and
# keeps what rvtsw's init and rdmavt's registration code allocate
# themselves. What ours allocate below ib_core's frames (the MAD QPs and
# CQs that ib_mad creates through the verbs) is the verb sweeps' above.
# Bounds: ib_core's first text symbol, and a page past the page that
# holds its last (its text is one vmalloc area, whose guard page keeps
# any other module's text further up).
ib_core_text_bounds() {
	local first last
	read -r first last < <(awk '$4 == "[ib_core]" && $2 ~ /^[tT]$/ { print $1 }' \
		/proc/kallsyms | sort | sed -n '1p;$p' | paste -sd' ')
	[[ -n $first && -n $last ]] || return
	printf '0x%s 0x%x\n' "$first" $(((16#$last + 4096 * 2) & ~4095))
}

# stack_filter REQUIRE_START REQUIRE_END REJECT_START REJECT_END
stack_filter() {
	local attr
	for attr in "$FAILSLAB" "$FAIL_PAGE"; do
		echo "$1" >"$attr/require-start" && echo "$2" >"$attr/require-end" &&
			echo "$3" >"$attr/reject-start" &&
			echo "$4" >"$attr/reject-end" || return
	done
}

filter_to_our_modules() {
	local image_end reject
	if [[ ! -e $FAILSLAB/require-start ]]; then
		echo "this kernel has no CONFIG_FAULT_INJECTION_STACKTRACE_FILTER"
		return 1
	fi
	image_end=0x$(awk '$3 == "_end" { print $1 }' /proc/kallsyms)
	reject=$(ib_core_text_bounds) || { echo "no ib_core text symbols"; return 1; }
	echo "counting allocations under module text above $image_end," \
		"none under ib_core's text ($reject)"
	# shellcheck disable=SC2086 # two words: start and end
	stack_filter "$image_end" 0xffffffffffffffff $reject
}

load_sweep() {
	local said
	if ! lsmod | grep -q '^rdmavt ' && ! load_core; then
		fail load "rdmavt did not load"
		return
	fi
	if ! said=$(filter_to_our_modules); then
		stack_filter 0 0xffffffffffffffff 0 0
		fail load "$said"
		return
	fi
	indent <<<"$said"
	run_failnth load "$RVTSW_KO"
	stack_filter 0 0xffffffffffffffff 0 0
	report "" load
}

# What the IB core allocates while rvtsw loads: ib_alloc_device() in
# rvt_alloc_device(), ib_register_device() (its sysfs and its clients':
# ib_mad's QPs and CQs, made through our verbs, uverbs' char device)
# and the MAD agents rvt_register_device() creates afterwards. The
# filter above leaves them out; failing each of these thousands on this
# kernel would take hours, and what is tested here is not the IB core's
# unwind but rdmavt's and rvtsw's after the IB core fails them: any one
# failure reaches that. So the 1st, 2nd, 4th, ... of them fail, and
# rdmavt must have said, at least once, that ib_register_device() failed
# ("IB core registration failed").
register_unwind_sweep() {
	local bounds before after
	if ! bounds=$(ib_core_text_bounds); then
		fail register-unwind "no ib_core text symbols"
		return
	fi
	indent <<<"counting allocations under ib_core's text ($bounds)"
	before=$(registration_failures)
	# shellcheck disable=SC2086 # two words: start and end
	if ! stack_filter $bounds 0 0; then
		stack_filter 0 0xffffffffffffffff 0 0
		fail register-unwind "setting the filter failed"
		return
	fi
	run_failnth load-sampled register-unwind "$RVTSW_KO"
	stack_filter 0 0xffffffffffffffff 0 0
	after=$(registration_failures)
	report "" register-unwind
	if ((after > before)); then
		pass register-unwind-reached \
			"ib_register_device() failed $((after - before)) time(s), rdmavt unwound"
	else
		fail register-unwind-reached "no injected failure reached ib_register_device()"
	fi
}

registration_failures() {
	dmesg | grep -c 'IB core registration failed'
}

step progs have_progs failnth
step injection injection_on
# The verbs first, the module load last: on the debug kernel a failed
# registration costs seconds, and the load sweep's filter must not stay.
step load load_rvtsw
step ready wait_for 50 test -e /dev/infiniband/uverbs0
if [[ -z $STEP_FAILED ]]; then
	run_failnth user "$DEV" "${USER_OPS[@]}"
	report user/ "${USER_OPS[@]}"
fi
step kmod-load insmod "$KMOD" "dev=$DEV"
if [[ -z $STEP_FAILED ]]; then
	run_failnth kernel "${KERNEL_OPS[@]}"
	report kernel/ "${KERNEL_OPS[@]}"
fi
step kmod-unload rmmod rvt_failnth
step unload-rvtsw rmmod rvtsw
if [[ -z $STEP_FAILED ]]; then
	load_sweep
	register_unwind_sweep
fi
step reload load_rvtsw
step ready-again wait_for 50 test -e /dev/infiniband/uverbs0
injection_off
t traffic-after pingpong ibv_rc_pingpong "$DEV:1" "$DEV:1" -c
step unload unload_all
