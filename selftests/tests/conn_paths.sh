#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Per-lane history and drop reasons (UEK's RDS_INFO_CONN_PATHS 10020 /
# RDS6_INFO_CONN_PATHS 10021, <linux/rds_uek.h>): the record size, then
# RDS/TCP between two namespaces joined by veth, each lane's record after
# it came up and after each way it was dropped: a user reset (a
# net.rds.tcp buffer sysctl), the peer killing its TCP socket (ss -K),
# and attempts toward an address nobody answers (the peer's transport
# unloaded and its link down are selftests/hosts/drop_reasons.sh). Each time the reason, the reset count, the
# attempts and the times must say what happened. Over RDS/IB (rxe0,
# loopback between 10.99.0.1 and .2) the record names the transport and
# the lane is up; removing the RDMA device drops it for "CM: device
# removal". rds-info -p prints the same.
# Linux's in-tree RDS has no such table: the file skips there.
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh
. lib/netns_pair.sh
REPO=$(cd .. && pwd)
T=$REPO/tools
P=$PWD/lib/rds_paths.py
A=$NETNS_A B=$NETNS_B
A4=$NETNS_A_IP B4=$NETNS_B_IP
DEAD=10.99.2.77
# <linux/rds_uek.h>
R_NONE=0 R_USER_RESET=1 R_CONNECT_FAIL=5 R_CONNECT_TIMEOUT=7
R_PEER_CLOSED=40 R_PEER_RESET=67 R_DEVICE_REMOVAL=64

cleanup() {
	netns_pair_down 2>/dev/null
}
trap cleanup EXIT

if [ "${RDS_IMPL:-ours}" != ours ]; then
	echo "1..0 # SKIP RDS_INFO_CONN_PATHS is ours (UEK's numbers; not in Linux's RDS)"
	exit 0
fi
modprobe rds_tcp || { echo "1..0 # SKIP no rds_tcp"; exit 0; }

# lane NS LADDR FADDR [LANE]: that lane's line from rds_paths.py
lane() {
	ip netns exec "$1" "$P" | awk -v l="$2" -v f="$3" -v n="${4:-0}" \
		'$1 == l && $2 == f && $4 == "tcp" && $5 == n { print; exit }'
}

# field LINE N: the Nth field of a lane line (6 state, 8 attempts, 9
# attempts_total, 10 resets, 11 drops, 12 connect_ms, 13 reset_ms,
# 14 reason, 15 reset_reason)
field() { echo "$1" | awk -v n="$2" '{ print $n }'; }

record_size() {
	local s4 s6
	s4=$("$P" -4 --each) && s6=$("$P" --each) || return 1
	echo "RDS_INFO_CONN_PATHS: $s4 bytes, RDS6_INFO_CONN_PATHS: $s6 bytes"
	[ "$s4" = 666 ] && [ "$s6" = 666 ]
}

ping_ab() {
	ip netns exec "$A" timeout 30 "$T/rds-ping" -c 2 -i 0.2 -W 5 \
		--transport tcp -I "$A4" "$B4"
}

# wait_up NS LADDR FADDR: lane 0 up again within 20 s
wait_up() {
	local i l
	for ((i = 0; i < 100; i++)); do
		l=$(lane "$@")
		[ "$(field "$l" 6)" = up ] && { echo "$l"; return 0; }
		sleep 0.2
	done
	echo "not up: $l"
	return 1
}

T0=0
fresh_up() {
	local l now
	ping_ab || return 1
	l=$(wait_up "$A" "$A4" "$B4") || { echo "$l"; return 1; }
	echo "$l"
	now=$(date +%s%3N)
	T0=$now
	# Up, connected flag, at least one attempt (A, the lower address,
	# connects), never dropped, connected within the last minute.
	[ $(($(field "$l" 7) & 4)) = 4 ] && [ "$(field "$l" 8)" -ge 1 ] &&
		[ "$(field "$l" 10)" = 0 ] && [ "$(field "$l" 14)" = $R_NONE ] &&
		[ "$(field "$l" 12)" -gt $((now - 60000)) ] &&
		[ "$(field "$l" 12)" -le "$now" ] && [ "$(field "$l" 13)" = 0 ]
}

# after_drop NS LADDR FADDR RESETS REASON...: the lane was reset RESETS
# times so far, for one of REASONs, recently, and came back up.
after_drop() {
	local ns=$1 la=$2 fa=$3 resets=$4 l r ok=1 i
	shift 4
	# The peer's reset reaches the lane when its RST is processed,
	# which on a slow (debug) kernel can come after the pings: wait for
	# the count, up to 20 s, before checking the rest.
	for ((i = 0; i < 20; i++)); do
		l=$(wait_up "$ns" "$la" "$fa") || { ok=0; break; }
		[ "$(field "$l" 10)" -ge "$resets" ] && break
		sleep 1
	done
	echo "$l"
	[ "$ok" = 1 ] || return 1
	r=$(field "$l" 15)
	[ "$(field "$l" 10)" = "$resets" ] || { echo "resets: want $resets"; return 1; }
	[ "$(field "$l" 13)" -ge "$T0" ] || { echo "reset time before the drop"; return 1; }
	[ "$(field "$l" 12)" -ge "$(field "$l" 13)" ] || { echo "not reconnected after the reset"; return 1; }
	for want in "$@"; do
		[ "$r" = "$want" ] && return 0
	done
	echo "reset reason $r, want one of $*"
	return 1
}

user_reset() {
	T0=$(date +%s%3N)
	ip netns exec "$A" sysctl -w net.rds.tcp.rds_tcp_sndbuf=262144 || return 1
	ping_ab || return 1
	after_drop "$A" "$A4" "$B4" 1 $R_USER_RESET
}

peer_kill() {
	local out
	T0=$(date +%s%3N)
	out=$(ip netns exec "$B" ss -tnK dst "$A4") || return 1
	echo "$out"
	# ss -K lists what it closed; a kernel without
	# CONFIG_INET_DIAG_DESTROY closes nothing and says nothing.
	echo "$out" | grep -q ESTAB || { echo "ss -K closed no socket"; return 1; }
	sleep 0.5
	ping_ab || return 1
	after_drop "$A" "$A4" "$B4" 2 $R_PEER_RESET $R_PEER_CLOSED
}

# Readers race the writers: the table read in a loop while A's lane is
# reset over and over (its history written locklessly, read with
# READ_ONCE); every read must succeed and parse (the kernel log check
# after the program, KASAN on the debug kernel, does the rest).
race() {
	local i pid rc=0 n
	(
		for ((i = 0; i < 16; i++)); do
			ip netns exec "$A" "$P" > /dev/null || exit 1
		done
	) &
	pid=$!
	for ((i = 0; i < 8; i++)); do
		ip netns exec "$A" sysctl -qw net.rds.tcp.rds_tcp_sndbuf=$((262144 + i * 4096))
		ip netns exec "$A" timeout 10 "$T/rds-ping" -c 1 -W 2 --transport tcp \
			-I "$A4" "$B4" > /dev/null 2>&1
	done
	wait "$pid" || rc=1
	n=$(field "$(lane "$A" "$A4" "$B4")" 10)
	echo "resets after the race: $n"
	[ "$rc" = 0 ] && [ "$n" -gt 2 ]
}

# Nobody at DEAD: attempts that never succeed, no reset, no connect time.
never_up() {
	local l i pid r
	ip netns exec "$A" sysctl -w net.rds.connect_timeout_ms=1000 \
		net.rds.reconnect_max_delay_ms=500 >/dev/null
	# The ping waits unanswered: its message keeps A trying.
	ip netns exec "$A" timeout 20 "$T/rds-ping" -c 1 -W 15 --transport tcp \
		-I "$A4" "$DEAD" > /dev/null 2>&1 &
	pid=$!
	for ((i = 0; i < 60; i++)); do
		l=$(lane "$A" "$A4" "$DEAD")
		[ -n "$l" ] && [ "$(field "$l" 9)" -ge 2 ] && break
		sleep 0.25
	done
	kill "$pid" 2>/dev/null
	wait "$pid"
	echo "$l"
	r=$(field "$l" 14)
	[ "$(field "$l" 9)" -ge 2 ] && [ "$(field "$l" 10)" = 0 ] &&
		[ "$(field "$l" 12)" = 0 ] && [ "$(field "$l" 11)" -ge 1 ] &&
		{ [ "$r" = $R_CONNECT_TIMEOUT ] || [ "$r" = $R_CONNECT_FAIL ]; }
}

rds_info_p() {
	local out
	out=$(ip netns exec "$A" "$T/rds-info" -p) || return 1
	echo "$out"
	echo "$out" | grep "$A4 *$DEAD .*tcp" | grep -q "connect \(timeout\|failed\)$" &&
		echo "$out" | grep "$A4 *$B4 .*tcp" | grep -q " up "
}

# RDS/IB over rxe0, loopback between two local addresses.
IB_L=10.99.0.1 IB_F=10.99.0.2
ib_lane() {
	"$P" | awk -v l="$IB_L" -v f="$IB_F" '$1 == l && $2 == f && $4 == "infiniband" && $5 == 0'
}

ib_up() {
	local l
	modprobe rds_rdma || return 1
	timeout 30 "$T/rds-ping" -c 2 -i 0.2 -W 5 --transport ib -I "$IB_L" "$IB_F" || return 1
	l=$(ib_lane)
	echo "$l"
	[ "$(field "$l" 6)" = up ] && [ "$(field "$l" 12)" -gt 0 ]
}

ib_device_removal() {
	local l i ok=1
	rdma link delete rxe0 || return 1
	for ((i = 0; i < 50; i++)); do
		l=$(ib_lane)
		[ -z "$l" ] || [ "$(field "$l" 10)" -ge 1 ] && break
		sleep 0.2
	done
	echo "$l"
	# The device's connections may be gone already (killed with it);
	# if the lane is still there it must say why it went down.
	[ -z "$l" ] || [ "$(field "$l" 15)" = $R_DEVICE_REMOVAL ] || ok=0
	rdma link add rxe0 type rxe netdev eth0 || ok=0
	[ "$ok" = 1 ]
}

tap_plan 9
tap_check "RDS_INFO_CONN_PATHS and RDS6_INFO_CONN_PATHS records are 666 bytes (UEK's 346 + ours)" record_size
netns_pair_up || { echo "Bail out! no netns pair"; exit 1; }
tap_check "TCP lane up: flags C, attempts, connect time, no reset, reason none" fresh_up
tap_check "user reset (rds_tcp_sndbuf): reason user reset, 1 reset, up again" user_reset
tap_check "peer kills its TCP socket (ss -K): reason peer reset/closed, 2 resets, up again" peer_kill
tap_check "table read in a loop while the lane is reset 8 times" race
tap_check "unanswered peer: attempts counted, no reset, never connected, connect timeout/failure" never_up
tap_check "rds-info -p shows the lanes and their last drop reasons" rds_info_p
if rdma link show rxe0/1 >/dev/null 2>&1; then
	tap_check "RDS/IB over rxe0: the lane's record says infiniband, up" ib_up
	tap_check "RDS/IB: rdma link delete rxe0: reason CM device removal (rxe0 re-added)" ib_device_removal
else
	tap_skip "RDS/IB over rxe0" "no rxe0 (vm.sh --rdma)"
	tap_skip "RDS/IB device removal" "no rxe0 (vm.sh --rdma)"
fi
tap_done
