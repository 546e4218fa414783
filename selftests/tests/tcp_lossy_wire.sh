#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RDS over TCP between two network namespaces joined by veth, inside one
# guest: the wire protocol end to end (both ends run the loaded RDS, ours
# or Linux's), and delivery that stays exactly-once, in order and intact
# while the wire misbehaves: TCP connections reset under traffic, the link
# taken down and up, netem loss, duplication, reordering and corruption.
# rds-wirecheck (selftests/wirecheck) does the sending and the checking.
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh
REPO=$(cd .. && pwd)
T=$REPO/tools
WC=$PWD/wirecheck/rds-wirecheck
PORT=5200
WORK=$(mktemp -d /tmp/rds-tcp-wire.XXXXXX)
. lib/netns_pair.sh
. lib/wirecheck.sh
A=$NETNS_A B=$NETNS_B
A4=$NETNS_A_IP B4=$NETNS_B_IP A6=$NETNS_A_IP6 B6=$NETNS_B_IP6

cleanup() {
	pkill -f "rds-wirecheck send" 2>/dev/null
	netns_pair_down 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

in_a() { netns_a "$@"; }
in_b() { netns_b "$@"; }

counter() {	# counter NETNS NAME: the RDS_INFO_COUNTERS value
	ip netns exec "$1" "$T/rds-info" -c 2>/dev/null |
		awk -v n="$2" '$1 == n { print $2 }'
}

# wirecheck FROM_NS FROM TO_NS TO SENDERS COUNT [DISTURB...]: SENDERS
# sockets in FROM_NS send COUNT messages each to TO; DISTURB runs (in the
# background) while they do (lib/wirecheck.sh).
wirecheck() {
	wirecheck_run "${@:1:6}" 0 0 "${@:7}"
}

reset_tcp() {	# kill the RDS/TCP connections of namespace $1 N times
	local i info
	# RDS_INFO_TCP_SOCKETS reads each connection's socket while the
	# resets take it away: a race test of that lockless reader.
	(while :; do ip netns exec "$1" "$T/rds-info" -T > /dev/null; done) &
	info=$!
	for ((i = 0; i < $2; i++)); do
		sleep 1.5
		ip netns exec "$1" ss -K state established \
			'( sport = :16385 or dport = :16385 )' >/dev/null
	done
	kill $info
	wait $info 2>/dev/null
	echo "reset $2 times"
}

flap_link() {
	sleep 1.5
	ip -n $A link set rdsva down
	sleep 2
	ip -n $A link set rdsva up
	echo "link flapped"
}

netem_on() {	# netem on both ends of the wire
	netns_pair_netem loss 5% duplicate 1% reorder 25% 50% corrupt 0.1% delay 1ms
}

ping_both() {	# rds-ping each way, IPv4 then IPv6
	in_a "$T/rds-ping" -c 2 -I $A4 $B4 && in_b "$T/rds-ping" -c 2 -I $B4 $A4 &&
	in_a "$T/rds-ping" -c 2 -I $A6 $B6 && in_b "$T/rds-ping" -c 2 -I $B6 $A6
}

stress_v() {	# rds-stress -v from A to B over $1/$2
	in_b "$T/rds-stress" -r "$2" -p $PORT > "$WORK/passive" 2>&1 &
	local p=$! rc
	sleep 0.5
	in_a "$T/rds-stress" -s "$2" -r "$1" -p $PORT -t 2 -d 4 -q 65536 -T 3 -v -z
	rc=$?
	wait $p
	PORT=$((PORT + 100))
	return $rc
}

tcp_info_lists() {	# rds-info -T in A shows the TCP socket to B
	in_a "$T/rds-info" -n -T | tee /dev/stderr | grep -q "$B4"
}

tap_plan 11
if ! netns_pair_up; then
	for i in $(seq 11); do tap_skip "tcp wire $i" "no veth/netns in this guest"; done
	exit 0
fi
if ! modprobe rds_tcp 2>/dev/null && ! grep -q '^rds_tcp ' /proc/modules; then
	for i in $(seq 11); do tap_skip "tcp wire $i" "rds_tcp not loadable"; done
	exit 0
fi

tap_check "rds-ping both ways over TCP, IPv4 and IPv6" ping_both
tap_check "rds-stress -v over TCP, IPv4 (2 tasks, 64 KiB)" stress_v $A4 $B4
tap_check "rds-stress -v over TCP, IPv6 (2 tasks, 64 KiB)" stress_v $A6 $B6
tap_check "rds-info -T lists the TCP socket" tcp_info_lists
tap_check "4 senders x 48 messages, 0 B to 1 MiB, IPv4: exactly once, in order" \
	wirecheck $A $A4 $B $B4 4 48
tap_check "the same from the higher address, IPv6" \
	wirecheck $B $B6 $A $A6 4 48
r0=$(counter $A conn_reset)
tap_check "TCP connections reset 3 times under traffic: nothing lost or duplicated" \
	wirecheck $A $A4 $B $B4 4 240 reset_tcp $A 3
r1=$(counter $A conn_reset)
tap_check "... and the resets really happened (conn_reset $r0 -> $r1)" \
	test "${r1:-0}" -gt "${r0:-0}"
tap_check "link down and up under traffic: nothing lost or duplicated" \
	wirecheck $A $A6 $B $B6 4 240 flap_link
if netem_on; then
	tap_check "netem 5% loss, 1% dup, reorder, 0.1% corrupt: exactly once, in order" \
		wirecheck $A $A4 $B $B4 4 48
	tap_check "netem, the other direction, IPv6" \
		wirecheck $B $B6 $A $A6 2 48
else
	tap_skip "netem 5% loss, 1% dup, reorder, 0.1% corrupt" "no netem (sch_netem)"
	tap_skip "netem, the other direction, IPv6" "no netem (sch_netem)"
fi
tap_done
