#!/bin/bash
# Traps and M_Key protection, over a managed fabric (rvtsw managed=1)
# whose OpenSM never sweeps on its own (sweep interval 0): whatever it
# learns after the first sweep, it learns from a trap.
#
# The switch's trap 128 (link state change): a switch port disabled, the
# SM hears of it and sweeps (it clears PortStateChange); enabled again,
# it sweeps and brings the port back ACTIVE. An HCA's trap 144 (local
# changes): a new node description, which the SM reads again and its SA
# then answers; a capability mask that changes when an SM opens a port's
# issm device, which the SM reads again too.
#
# M_Key protection, with OpenSM configured to set an M_Key on every port:
# at level 2 a Get with the wrong key goes unanswered, is counted in
# M_KeyViolations and reported by trap 256; with the key it is answered.
# At level 1 a Get without the key is answered with the M_Key read as 0;
# a Set without the key changes nothing. With a lease period and no SM
# left to use the key, a violation starts the lease; when it runs out,
# the port is open again.
#
# Two devices of two ports: HCA ports on switch ports 1-4; OpenSM on
# rvtsw_0 port 1. The M_Key tests ask about rvtsw_0 port 2 from rvtsw_1
# port 2, across the switch.
# shellcheck source-path=SCRIPTDIR source=../lib/suite.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"

plan 8

CA0=rvtsw_0
CA1=rvtsw_1
HCA_PORTS=("$CA0/1" "$CA0/2" "$CA1/1" "$CA1/2")
WORK=$(mktemp -d)
LOG=$WORK/opensm.log
# The M_Key OpenSM sets, and the port its tests ask about, from where.
MKEY=0x7276747377000079
TARGET=$CA0/2
ASKER=(-C "$CA1" -P 2)

cleanup() {
	pkill -x opensm
	rm -rf "$WORK"
}
trap cleanup EXIT

all_active() {
	ports_are ACTIVE "${HCA_PORTS[@]}"
}

# start_opensm [CONFIG LINE...]: OpenSM on rvtsw_0 port 1, with no
# periodic sweep and the given options; every port ACTIVE within two
# minutes. Its log starts afresh.
start_opensm() {
	local conf=$WORK/opensm.conf start=$SECONDS
	: >"$LOG"
	printf '%s\n' "sweep_interval 0" "log_file $LOG" "force_log_flush TRUE" \
		"$@" >"$conf"
	opensm -F "$conf" -g "$(port_guid "$CA0" 1)" >"$WORK/opensm.out" 2>&1 &
	if ! wait_for 1200 all_active || ! within 120 subnet_up; then
		cat "$WORK/opensm.out"
		tail -n 30 "$LOG"
		return 1
	fi
	echo "SUBNET UP, every port ACTIVE, after $((SECONDS - start)) s"
}

# The SM's first sweep is done (with ports already ACTIVE from an SM
# before it, that is later than their being ACTIVE).
subnet_up() {
	grep -q "SUBNET UP" "$LOG"
}

restart_opensm() {
	kill_opensm && start_opensm "$@"
}

# within SECONDS CMD [ARGS...]: true once CMD succeeds, tried about once
# a second; false after SECONDS. For commands that take a while
# themselves (saquery, smpquery), where wait_for's count of tries says
# little about the time it waits.
within() {
	local end=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		((SECONDS < end)) || return 1
		sleep 1
	done
}

# traps NUM LID: how many trap NUMs from LID OpenSM has logged.
traps() {
	grep -c "Received Generic Notice .* num:$1 .* from LID:$2 " "$LOG"
}

# wait_trap NUM LID BEFORE: wait for OpenSM to log one more trap NUM from
# LID than BEFORE.
has_more_traps() {
	(($(traps "$1" "$2") > $3))
}

wait_trap() {
	within 30 has_more_traps "$@" && grep "num:$1 .* from LID:$2 " "$LOG"
}

sw_state_change() {
	smpquery -C "$CA0" -P 1 -D switchinfo 0,1 | field StateChange
}

state_change_cleared() {
	[[ $(sw_state_change) == 0 ]]
}

# Switch port 4 (rvtsw_1 port 2) disabled: its HCA port goes DOWN, the
# switch sends trap 128, and the SM, which sweeps for nothing else,
# sweeps and clears PortStateChange. The SM's TrapRepress to the switch
# is taken by the switch's SMA, not counted as a drop at the SM's port.
trap128_down() {
	local sw before p=$CA1/2 drops
	sw=$(switch_lid)
	before=$(traps 128 "$sw")
	drops=$(hw_counter "$CA0" 1 drop_no_dest_qp)
	ibportstate -C "$CA0" -P 1 "$sw" 4 disable >/dev/null || return
	port_is "$p" DOWN || { echo "$p: $(port_state "$p")"; return 1; }
	wait_trap 128 "$sw" "$before" || { echo "no trap 128 from $sw"; return 1; }
	within 60 state_change_cleared ||
		{ echo "PortStateChange still $(sw_state_change)"; return 1; }
	drops=$(($(hw_counter "$CA0" 1 drop_no_dest_qp) - drops))
	((drops == 0)) || { echo "$CA0/1 drop_no_dest_qp grew by $drops"; return 1; }
}

# Enabled again: the link trains to INIT, trap 128 again, and the SM's
# sweep brings the port back ACTIVE.
trap128_up() {
	local sw before p=$CA1/2
	sw=$(switch_lid)
	before=$(traps 128 "$sw")
	ibportstate -C "$CA0" -P 1 "$sw" 4 enable >/dev/null || return
	wait_trap 128 "$sw" "$before" || { echo "no trap 128 from $sw"; return 1; }
	within 60 port_is "$p" ACTIVE || { echo "$p: $(port_state "$p")"; return 1; }
	echo "$p: ACTIVE, LID $(port_lid "$p")"
}

node_desc_is() {
	saquery "${ASKER[@]}" NR "$1" | grep -q "NodeDescription\.*$2\$"
}

# rvtsw_1's node description changes: each of its ports sends trap 144
# (NodeDescription changed); the SM reads it again, and the SA's
# NodeRecord has it.
trap144_node_desc() {
	local l before desc="rvt79 renamed $$"
	l=$(port_lid "$CA1/1")
	before=$(traps 144 "$l")
	printf '%s' "$desc" >"$SYS/$CA1/node_desc" || return
	wait_trap 144 "$l" "$before" || { echo "no trap 144 from $l"; return 1; }
	grep -q "Trap 144 Node description update" "$LOG" || return
	within 60 node_desc_is "$l" "$desc" || {
		saquery "${ASKER[@]}" NR "$l"
		return 1
	}
	echo "NodeRecord of LID $l: $desc"
}

# issm DEVICE/PORT: the issm device of the port.
issm() {
	local d
	for d in /sys/class/infiniband_mad/issm*; do
		[[ $(<"$d/ibdev") == "${1%/*}" && $(<"$d/port") == "${1#*/}" ]] &&
			{ echo "/dev/infiniband/${d##*/}"; return; }
	done
	return 1
}

# pir_cap_mask LID: the capability mask in the SA's PortInfoRecord (hex).
pir_cap_mask() {
	saquery "${ASKER[@]}" PIR "$1" | sed -n 's/^[[:space:]]*CapMask:\.*//p' |
		head -n 1
}

# IsSM, bit 1 of the capability mask.
sa_has_is_sm() {
	local mask
	mask=$(pir_cap_mask "$1")
	[[ -n $mask ]] && ((mask & 0x2))
}

# An SM opens rvtsw_0 port 2's issm device (here a sleep holds it open):
# the port's capability mask gains IsSM (ib_modify_port), the port sends
# trap 144, and the SM reads its PortInfo again: the SA's PortInfoRecord
# has IsSM.
trap144_cap_mask() {
	local p=$CA0/2 l before dev holder rc=0
	l=$(port_lid "$p")
	dev=$(issm "$p") || { echo "no issm device for $p"; return 1; }
	! sa_has_is_sm "$l" || { echo "IsSM before"; return 1; }
	before=$(traps 144 "$l")
	sleep 300 <>"$dev" &
	holder=$!
	wait_trap 144 "$l" "$before" || { echo "no trap 144 from $l"; rc=1; }
	within 60 sa_has_is_sm "$l" ||
		{ echo "SA's CapMask: $(pir_cap_mask "$l")"; rc=1; }
	echo "SA's CapMask of LID $l: $(pir_cap_mask "$l")"
	kill "$holder"
	wait "$holder" 2>/dev/null
	return "$rc"
}

# target_portinfo [-y KEY]: rvtsw_0 port 2's PortInfo, LID-routed from
# rvtsw_1 port 2; fails if no answer comes.
target_portinfo() {
	smpquery "${ASKER[@]}" -K -t 300 "$@" portinfo "$(port_lid "$TARGET")" 2>&1
}

# Level 2: without the key, no answer; with it, the PortInfo with the
# key; the refused Get counted and reported by trap 256.
mkey_level2() {
	local out l before viol
	l=$(port_lid "$TARGET")
	out=$(target_portinfo -y "$MKEY") || { echo "$out"; return 1; }
	expect_fields "$out" "Mkey=$MKEY" ProtectBits=2 || return
	viol=$(field MkeyViolations <<<"$out")
	before=$(traps 256 "$l")
	if out=$(target_portinfo); then
		echo "$out"
		echo "answered without the M_Key"
		return 1
	fi
	wait_trap 256 "$l" "$before" || { echo "no trap 256 from $l"; return 1; }
	out=$(target_portinfo -y "$MKEY") || { echo "$out"; return 1; }
	echo "MkeyViolations: $viol, then $(field MkeyViolations <<<"$out")"
	(($(field MkeyViolations <<<"$out") > viol))
}

# Level 1: a Get without the key is answered, its M_Key read as 0.
mkey_level1() {
	local out
	out=$(target_portinfo) || { echo "$out"; return 1; }
	expect_fields "$out" Mkey=0x0000000000000000 ProtectBits=1 || return
	out=$(target_portinfo -y "$MKEY") || { echo "$out"; return 1; }
	expect_fields "$out" "Mkey=$MKEY"
}

target_sm_lid() {
	target_portinfo -y "$MKEY" | field SMLid
}

# set_sm_lid LID [-y KEY]: ibportstate's Set of the target's SM LID.
set_sm_lid() {
	ibportstate "${ASKER[@]}" -t 300 "${@:2}" "$(port_lid "$TARGET")" \
		"${TARGET#*/}" smlid "$1" 2>&1
}

# Still level 1: a Set without the key (ibportstate reads the PortInfo,
# then sets a new SM LID) goes unanswered and changes nothing; with the
# key it takes (and is undone).
mkey_set_refused() {
	local sm out
	sm=$(target_sm_lid)
	[[ -n $sm ]] || return
	if out=$(set_sm_lid 0x77); then
		echo "$out"
		echo "Set answered without the M_Key"
		return 1
	fi
	expect "SM LID after a refused Set" "$(target_sm_lid)" "$sm" || return
	set_sm_lid 0x77 -y "$MKEY" >/dev/null || return
	expect "SM LID after a Set with the key" "$(target_sm_lid)" 119 ||
		return
	set_sm_lid "$sm" -y "$MKEY" >/dev/null
}

target_open() {
	target_portinfo >/dev/null
}

# Level 2 with a lease of 2 s, and no SM any more: the first Get without
# the key goes unanswered and starts the lease; once it has run out, the
# protect bits are 0 and the port answers with its M_Key.
mkey_lease() {
	local out
	kill_opensm || return
	if out=$(target_portinfo); then
		echo "$out"
		echo "answered without the M_Key before the lease ran"
		return 1
	fi
	sleep 2
	within 10 target_open || { echo "still closed"; return 1; }
	out=$(target_portinfo) || { echo "$out"; return 1; }
	expect_fields "$out" "Mkey=$MKEY" ProtectBits=0
}

step setup load_managed
step opensm start_opensm
t trap128-link-down trap128_down
t trap128-resweep trap128_up
t trap144-node-desc trap144_node_desc
t trap144-cap-mask trap144_cap_mask
step opensm-mkey2 restart_opensm "m_key $MKEY" "m_key_protection_level 2"
t mkey-get-refused mkey_level2
step opensm-mkey1 restart_opensm "m_key $MKEY" "m_key_protection_level 1"
t mkey-get-hidden mkey_level1
t mkey-set-refused mkey_set_refused
step opensm-lease restart_opensm "m_key $MKEY" "m_key_protection_level 2" \
	"m_key_lease_period 2"
t mkey-lease-expires mkey_lease
step teardown unload_all
