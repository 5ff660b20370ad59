#!/bin/bash
# rdmavt and rvtsw load, create their devices, and unload cleanly.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

plan 18

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

# qp_table_size: rdmavt takes any size but 0, as upstream does (hfi1 and
# qib pass theirs on from a module parameter). RC traffic finds its QPs
# through the table. 1 would hash QPNs to 0 bits: ours gives it two
# buckets, upstream reads past its table.
table_size_works() {
	local out rc=0
	load_rvtsw "qp_table_size=$1" || return
	out=$(mktemp -d)
	# shellcheck disable=SC2034 # both passed by name to server_client
	local scmd=(ibv_rc_pingpong -d rvtsw_0 -n 50 -c)
	# shellcheck disable=SC2034
	local ccmd=(ibv_rc_pingpong -d rvtsw_0 -n 50 -c localhost)
	server_client "$out" 18515 scmd ccmd &&
		grep -q '^50 iters in' "$out/client" || rc=1
	rm -rf "$out"
	unload_rvtsw || return
	return "$rc"
}
t qp-table-size-1000 table_size_works 1000
t qp-table-size-3 table_size_works 3
skip_on_distro "upstream hashes QPNs to 0 bits and reads past its table" \
	qp-table-size-1 table_size_works 1
# rdmavt refuses the registration, rvtsw says so for its device 0.
t qp-table-size-0-refused load_refused qp_table_size=0 "Invalid parameters" \
	"device 0: -22"

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

# Loaded as a user would, with no parent=: the distro core logs through
# the HCA's PCI device (get_pci_dev()) and oopsed on rvtsw's NULL one.
# rvtsw now reports the system's first PCI device to the log lines, and
# none as the HCA's parent in sysfs; RC traffic runs.
load_without_parent() {
	local rc=0
	unload_rvtsw && { lsmod | grep -q '^rdmavt ' || load_core; } || return
	insmod "$RVTSW_KO" || return
	if ! wait_for 50 test -e /sys/class/infiniband/rvtsw_0; then
		echo "no rvtsw_0"
		rc=1
	elif [[ -e /sys/class/infiniband/rvtsw_0/device ]]; then
		echo "rvtsw_0's parent: $(readlink -f /sys/class/infiniband/rvtsw_0/device)"
		rc=1
	else
		pingpong ibv_rc_pingpong rvtsw_0:1 rvtsw_0:1 || rc=1
	fi
	unload_rvtsw || return
	return "$rc"
}
t load-without-parent load_without_parent
t unload-core-again unload_all
