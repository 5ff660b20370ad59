#!/bin/bash
# rdmavt and rvtsw load, create their devices, and unload cleanly.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

plan 13

device_count() {
	local n
	n=$(find /sys/class/infiniband -maxdepth 1 -name 'rvtsw_*' | wc -l)
	[[ $n -eq $1 ]] || { echo "expected $1 rvtsw devices, found $n"; return 1; }
}

t load-core load_core
t load-rvtsw load_rvtsw
t one-device device_count 1
t device-name test -e /sys/class/infiniband/rvtsw_0
t uverbs-node wait_for 50 test -e /dev/infiniband/uverbs0
t core-in-use-refused bash -c '! rmmod rdmavt 2>/dev/null'
t unload-rvtsw unload_rvtsw
t no-device-left device_count 0
t unload-core rmmod rdmavt

# Several devices with several ports each, loaded and unloaded repeatedly.
multi_cycle() {
	local _
	for _ in 1 2 3; do
		load_rvtsw devices=3 ports=2 || return
		device_count 3 || return
		unload_rvtsw || return
		device_count 0 || return
	done
}
t multi-device-cycles multi_cycle

RANGES='devices=1-[0-9]+, ports=1-[0-9]+, max_pd>=1'
bad_params() {
	load_refused devices=0 "Invalid parameters" "$RANGES" &&
	load_refused devices=17 "Invalid parameters" "$RANGES" &&
	load_refused ports=0 "Invalid parameters" "$RANGES" &&
	load_refused ports=5 "Invalid parameters" "$RANGES" &&
	load_refused max_pd=0 "Invalid parameters" "$RANGES" &&
	load_refused parent=nonsense "Invalid parameters" \
		"parent=nonsense is not DDDD:BB:DD.F" &&
	load_refused parent=0000:7f:1f.7 "No such device" \
		"no PCI device 0000:7f:1f.7" &&
	device_count 0
}
t bad-parameters-refused bad_params

# A process holding a user context: rvtsw must refuse to unload (module in
# use) or wait, never pull the device from under it; once the process
# exits, unload works.
unload_with_context() {
	local pid rc=0
	load_rvtsw || return
	"$PY" "$TESTING_DIR/py/hold_context.py" rvtsw_0 /tmp/ctx-ready &
	pid=$!
	wait_for 100 test -e /tmp/ctx-ready || { kill "$pid"; return 1; }
	if rmmod rvtsw 2>/dev/null; then
		echo "rvtsw unloaded under an open context"
		rc=1
	fi
	kill "$pid"
	wait "$pid" 2>/dev/null
	rm -f /tmp/ctx-ready
	unload_rvtsw || return
	device_count 0 || return
	return "$rc"
}
t unload-with-open-context unload_with_context
t unload-core-again unload_all
