#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Per-lane history between two hosts (RDS6_INFO_CONN_PATHS, read by
# lib/rds_paths.py): host a connects to host b over wire0, then b unloads
# its transport (rds_tcp, then rds_rdma) and loads it again, and a's
# link goes down and up. Host a's lane must say each time why it went
# down ("peer closed/reset" for TCP, "CM: disconnected" for IB, a
# completion error or QP error when the wire dies under an IB lane),
# count the reset and come back up with a newer connect time; b's IB lane
# must show a reset too after a reconnected over the dead wire. A short
# link flap under an idle TCP lane drops nothing (TCP rides it out).
#
#	scripts/vm/vmN.sh --hosts 2 [--rdma] -- \
#		RDS_SUITE=hosts selftests/run.sh =drop_reasons
#
# Both hosts run ours (the table is ours); IB parts need --rdma.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh
. lib/wire.sh
. lib/rds_tools.sh
P=$PWD/lib/rds_paths.py
# <linux/rds_uek.h>
R_QP_ERROR=11 R_CM_DISCONNECTED=26 R_RECV_COMP_ERR=33 R_SEND_COMP_ERR=34
R_CM_UNREACHABLE=22 R_HB_TIMEOUT=6 R_PEER_CLOSED=40 R_PEER_RESET=67 R_REQ_WHILE_UP=12

if ! ROLE=$(wire_role); then
	echo "1..0 # SKIP not a two-host guest (scripts/vm/vmN.sh)"
	exit 0
fi
if [ "${RDS_IMPL:-}" != ours ]; then
	echo "1..0 # SKIP RDS_INFO_CONN_PATHS is ours"
	exit 0
fi
IB=0
rdma link show rxe1/1 > /dev/null 2>&1 && IB=1

field() { echo "$1" | awk -v n="$2" '{ print $n }'; }

lane() {	# TRANSPORT (tcp, ib): lane 0 of this host's connection to the peer
	local t=$1
	[ "$t" = ib ] && t=infiniband
	"$P" | awk -v l="$RDS_WIRE_SELF" -v f="$RDS_WIRE_PEER" -v t="$t" \
		'$1 == l && $2 == f && $4 == t && $5 == 0 { print; exit }'
}

ping_peer() {	# TRANSPORT
	timeout 60 "$RDS_TOOLS/rds-ping" -c 2 -i 0.2 -W 5 --transport "$1" \
		-I "$RDS_WIRE_SELF" "$RDS_WIRE_PEER"
}

# wait_lane TRANSPORT SECONDS AWK-CONDITION: poll the lane until the
# condition holds on its line; print it.
wait_lane() {
	local t=$1 secs=$2 cond=$3 i l
	for ((i = 0; i < secs * 5; i++)); do
		l=$(lane "$t")
		if [ -n "$l" ] && echo "$l" | awk "{ exit !($cond) }"; then
			echo "$l"
			return 0
		fi
		sleep 0.2
	done
	echo "timed out waiting for ($cond): $l"
	return 1
}

RESETS=0 T0=0
up_fresh() {	# TRANSPORT
	local l
	ping_peer "$1" || return 1
	l=$(wait_lane "$1" 20 '$6 == "up"') || { echo "$l"; return 1; }
	echo "$l"
	RESETS=$(field "$l" 10)
	T0=$(date +%s%3N)
}

# dropped TRANSPORT SECONDS REASON...: one more reset since up_fresh,
# after T0, for one of REASONs (reset_reason, field 15)
dropped() {
	local t=$1 secs=$2 l r want
	shift 2
	l=$(wait_lane "$t" "$secs" "\$10 > $RESETS") || { echo "$l"; return 1; }
	echo "$l"
	r=$(field "$l" 15)
	[ "$(field "$l" 13)" -ge "$T0" ] || { echo "reset time before the event"; return 1; }
	for want in "$@"; do
		[ "$r" = "$want" ] && return 0
	done
	echo "reset reason $r, want one of $*"
	return 1
}

back_up() {	# TRANSPORT
	local l
	ping_peer "$1" || return 1
	l=$(wait_lane "$1" 20 '$6 == "up" && $12 >= $13') || { echo "$l"; return 1; }
	echo "$l"
}

# A short flap under an idle TCP lane: TCP retransmits nothing (idle) or
# rides it out; the lane must not be reset.
tcp_flap() {
	local l before
	l=$(lane tcp)
	before=$(field "$l" 10)
	wire_ctl self set_link wire off || return 1
	sleep 3
	wire_ctl self set_link wire on || return 1
	ping_peer tcp || return 1
	l=$(lane tcp)
	echo "$l"
	[ "$(field "$l" 10)" = "$before" ] && [ "$(field "$l" 6)" = up ]
}

# The wire dies under a busy IB lane: pings keep work on it until the
# queue pair gives up (retries exhausted) and the lane is dropped.
ib_link_dead() {
	local pid rc=0
	up_fresh ib || return 1
	wire_ctl self set_link wire off || return 1
	timeout 90 "$RDS_TOOLS/rds-ping" -c 60 -i 1 -W 2 --transport ib \
		-I "$RDS_WIRE_SELF" "$RDS_WIRE_PEER" > /dev/null 2>&1 &
	pid=$!
	# Whichever notices first: a completion, the queue pair, or the CM
	# (its unreachable or disconnected event for the dead path).
	dropped ib 90 $R_SEND_COMP_ERR $R_RECV_COMP_ERR $R_QP_ERROR $R_HB_TIMEOUT \
		$R_CM_UNREACHABLE $R_CM_DISCONNECTED || rc=1
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	wire_ctl self set_link wire on || rc=1
	return $rc
}

b_ib_reset() {
	local l
	l=$(wait_lane ib 60 '$10 >= 1 && $15 != 0 && $6 == "up"') || { echo "$l"; return 1; }
	echo "$l"
}

unload() {	# MODULE...
	local m
	for m in "$@"; do
		if grep -q "^$m " /proc/modules; then rmmod "$m" || return 1; fi
	done
}

plan_b=4 plan_a=6
[ "$IB" = 1 ] && plan_b=$((plan_b + 3)) plan_a=$((plan_a + 5))
case "$ROLE" in
b)
	tap_plan $plan_b
	wire_mark dr-ready
	tap_check "host b: host a's TCP lane is up" wire_wait dr-tcp-up 300
	tap_check "host b: rmmod rds_tcp" unload rds_tcp
	wire_mark dr-tcp-unloaded
	wire_wait dr-tcp-checked 120
	tap_check "host b: modprobe rds_tcp" modprobe rds_tcp
	wire_mark dr-tcp-back
	if [ "$IB" = 1 ]; then
		wire_wait dr-ib-up 120
		tap_check "host b: rmmod rds_iwarp rds_rdma" unload rds_iwarp rds_rdma
		wire_mark dr-ib-unloaded
		wire_wait dr-ib-checked 120
		tap_check "host b: modprobe rds_rdma rds_iwarp" modprobe -a rds_rdma rds_iwarp
		wire_mark dr-ib-back
		wire_wait dr-ib-link-checked 300
		tap_check "host b: its IB lane was reset (a came back over the dead wire) and is up" b_ib_reset
	fi
	tap_check "host b: host a finished" wire_wait dr-finished 600
	;;
a)
	tap_plan $plan_a
	tap_check "host a: host b is up" wire_wait dr-ready 300
	tap_check "host a: TCP lane up" up_fresh tcp
	wire_mark dr-tcp-up
	wire_wait dr-tcp-unloaded 120
	tap_check "host a: b unloaded rds_tcp: reset for peer closed/reset" \
		dropped tcp 30 $R_PEER_CLOSED $R_PEER_RESET
	wire_mark dr-tcp-checked
	wire_wait dr-tcp-back 120
	tap_check "host a: TCP lane up again, connected after the reset" back_up tcp
	tap_check "host a: 3 s link flap under an idle TCP lane: no reset" tcp_flap
	if [ "$IB" = 1 ]; then
		tap_check "host a: IB lane up" up_fresh ib
		wire_mark dr-ib-up
		wire_wait dr-ib-unloaded 120
		tap_check "host a: b unloaded rds_rdma: reset for CM: disconnected" \
			dropped ib 30 $R_CM_DISCONNECTED $R_REQ_WHILE_UP
		wire_mark dr-ib-checked
		wire_wait dr-ib-back 120
		tap_check "host a: IB lane up again" back_up ib
		tap_check "host a: wire0 dead under a busy IB lane: reset for a completion/QP error" ib_link_dead
		tap_check "host a: IB lane up again after the link returned" back_up ib
		wire_mark dr-ib-link-checked
	fi
	tap_check "host a: rds-info -p lists both lanes' history" "$RDS_TOOLS/rds-info" -p
	wire_mark dr-finished
	;;
esac
tap_done
