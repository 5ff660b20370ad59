#!/bin/bash
# What userspace sees of rvtsw devices: ibv_devices, ibv_devinfo, rdma link.
# Two devices with two ports each, so that per-port values are told apart.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

plan 9

DEVICES=(rvtsw_0 rvtsw_1)
PORTS=(1 2)

# port_field DEV PORT FIELD: FIELD's value in PORT's section of
# `ibv_devinfo -v -d DEV`.
port_field() {
	ibv_devinfo -v -d "$1" | awk -v port="$2" -v field="$3:" '
		$1 == "port:" { in_port = ($2 == port) }
		in_port && $1 == field { $1 = ""; sub(/^ +/, ""); print; exit }'
}

device_field() {
	ibv_devinfo -v -d "$1" | awk -v field="$2:" '
		$1 == field { $1 = ""; sub(/^ +/, ""); print; exit }'
}

expect() {
	local what=$1 got=$2 want=$3
	[[ $got == "$want" ]] && return
	echo "$what: got '$got', want '$want'"
	return 1
}

listed_by_ibv_devices() {
	local out dev
	out=$(ibv_devices) || return
	echo "$out"
	for dev in "${DEVICES[@]}"; do
		grep -qw "$dev" <<<"$out" || { echo "$dev missing"; return 1; }
	done
}

device_attrs() {
	local dev=$1
	expect "$dev transport" "$(device_field "$dev" transport)" \
	       "InfiniBand (0)" &&
	expect "$dev phys_port_cnt" "$(device_field "$dev" phys_port_cnt)" 2 &&
	expect "$dev max_pd" "$(device_field "$dev" max_pd)" 4096
}

# The LID of DEV's PORT: rvtsw numbers them 1, 2, ... across devices.
expected_lid() {
	local unit=${1#rvtsw_}
	echo $((unit * ${#PORTS[@]} + $2))
}

port_attrs() {
	local dev=$1 port=$2
	expect "$dev/$port state" "$(port_field "$dev" "$port" state)" \
	       "PORT_ACTIVE (4)" &&
	expect "$dev/$port phys_state" \
	       "$(port_field "$dev" "$port" phys_state)" "LINK_UP (5)" &&
	expect "$dev/$port max_mtu" "$(port_field "$dev" "$port" max_mtu)" \
	       "4096 (5)" &&
	expect "$dev/$port active_mtu" \
	       "$(port_field "$dev" "$port" active_mtu)" "4096 (5)" &&
	expect "$dev/$port port_lid" "$(port_field "$dev" "$port" port_lid)" \
	       "$(expected_lid "$dev" "$port")" &&
	expect "$dev/$port link_layer" \
	       "$(port_field "$dev" "$port" link_layer)" InfiniBand
}

rdma_link_lists() {
	local out dev port line
	out=$(rdma link show) || return
	echo "$out"
	for dev in "${DEVICES[@]}"; do
		for port in "${PORTS[@]}"; do
			line=$(grep "^link $dev/$port " <<<"$out") ||
				{ echo "$dev/$port missing"; return 1; }
			grep -q "state ACTIVE physical_state LINK_UP" \
				<<<"$line" || return 1
		done
	done
}

step load load_rvtsw devices=2 ports=2
t ibv-devices listed_by_ibv_devices
for dev in "${DEVICES[@]}"; do
	t "$dev-device-attrs" device_attrs "$dev"
	for port in "${PORTS[@]}"; do
		t "$dev-port$port-attrs" port_attrs "$dev" "$port"
	done
done
t rdma-link rdma_link_lists
t verbs-queries "$PY" "$TESTING_DIR/py/query_test.py" 2 2
step unload unload_all
