#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tearing RDS/TCP down under load, the patterns of CVE-2019-11815 (a
# namespace deleted while its RDS/TCP connections still run: their
# kernel sockets must not outlive it) and CVE-2024-26865 (half-open
# connections to the listener of a namespace being deleted: their request
# sockets' timers must not find it gone): namespaces deleted with traffic
# and with SYNs in flight, and rds_tcp unloaded with connections busy.
# The kernel log scan after this program is the real check (KASAN on the
# debug kernel); each round also checks that everything came back.
# RDS_TEARDOWN_ROUNDS (default 3) sets the rounds; the soak uses 100.
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh
. lib/wirecheck.sh
REPO=$(cd .. && pwd)
WC=$PWD/wirecheck/rds-wirecheck
ROUNDS=${RDS_TEARDOWN_ROUNDS:-3}
A=rdst-a B=rdst-b

pair() {	# two namespaces joined by veth, 10.78.0.1 and 10.78.0.2
	ip netns del $A 2>/dev/null
	ip netns del $B 2>/dev/null
	ip netns add $A && ip netns add $B &&
	ip link add ta netns $A type veth peer name tb netns $B &&
	ip -n $A link set lo up && ip -n $B link set lo up &&
	ip -n $A addr add 10.78.0.1/24 dev ta &&
	ip -n $B addr add 10.78.0.2/24 dev tb &&
	ip -n $A link set ta up && ip -n $B link set tb up
}

traffic() {	# senders A -> B, a receiver in B; all in the background
	ip netns exec $B "$WC" recv 10.78.0.2 5900 2 100000 600 >/dev/null 2>&1 &
	sleep 0.3
	ip netns exec $A "$WC" send 10.78.0.1 10.78.0.2 5900 0 100000 >/dev/null 2>&1 &
	ip netns exec $A "$WC" send 10.78.0.1 10.78.0.2 5900 1 100000 >/dev/null 2>&1 &
	sleep 1.5
}

conns() {	# RDS connections the core still has (debugfs object count)
	cat /sys/kernel/debug/rds/objects 2>/dev/null |
		awk '$1 == "connections" { print $2 }'
}

netns_delete_under_load() {
	local i
	for ((i = 0; i < ROUNDS; i++)); do
		pair || return 1
		traffic
		# Kill the users, then delete both namespaces at once while
		# their connections still carry queued messages.
		pkill -9 -f "rds-wirecheck" 2>/dev/null
		ip netns del $A
		ip netns del $B
	done
	sleep 2
	echo "$ROUNDS rounds"
}

syn_flood_netns_delete() {
	local i j
	for ((i = 0; i < ROUNDS; i++)); do
		pair || return 1
		# SYNs to B's listener that are never completed: B's SYN-ACKs
		# are lost on the way back (netem, which the debug kernel has),
		# leaving request sockets whose timers outlive the namespace.
		tc -n $B qdisc add dev tb root netem loss 100% || return 1
		for ((j = 0; j < 20; j++)); do
			ip netns exec $A timeout 0.2 bash -c \
				'exec 3<>/dev/tcp/10.78.0.2/16385' 2>/dev/null &
		done
		sleep 0.5
		ip netns del $B
		ip netns del $A
		wait
	done
	# The request sockets' SYN-ACK timers fire after 1 s, 3 s, ...
	sleep 4
	echo "$ROUNDS rounds"
}

# SIGKILL every rds-wirecheck and wait until they are gone: their
# sockets hold rds_tcp until the processes have exited, which on a
# loaded host is not at once (seen: rmmod "in use" right after pkill).
kill_wirecheck() {
	local i
	pkill -9 -f "rds-wirecheck" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		pgrep -f "rds-wirecheck" > /dev/null || return 0
		sleep 0.1
	done
	echo "rds-wirecheck still running 10 s after SIGKILL"
	return 1
}

rmmod_under_load() {
	local i
	for ((i = 0; i < ROUNDS; i++)); do
		pair || return 1
		traffic
		kill_wirecheck || return 1
		# Sockets are gone; connections are busy with what they had.
		if ! rmmod rds_tcp; then
			echo "rmmod failed; $(grep '^rds_tcp ' /proc/modules)"
			pgrep -af 'rds-' | sed 's/^/running: /'
			return 1
		fi
		modprobe rds_tcp || return 1
		ip netns del $A
		ip netns del $B
	done
	echo "$ROUNDS rounds"
}

works_after() {	# a fresh pair still carries RDS/TCP
	local out r s rc
	pair || return 1
	out=$(mktemp /tmp/rds-teardown.XXXXXX)
	ip netns exec $B "$WC" recv 10.78.0.2 6900 1 20 60 > "$out" 2>&1 &
	r=$!
	wirecheck_wait_ready "$out" $r || kill $r
	ip netns exec $A "$WC" send 10.78.0.1 10.78.0.2 6900 0 20 >/dev/null &
	s=$!
	wait $r
	rc=$?
	cat "$out"
	rm -f "$out"
	kill $s 2>/dev/null
	wait $s 2>/dev/null
	ip netns del $A
	ip netns del $B
	return $rc
}

no_conns_left() {	# every connection made here is gone again
	local i c
	for ((i = 0; i < 50; i++)); do
		c=$(conns)
		[ "${c:-0}" -le "${C0:-0}" ] && return 0
		sleep 0.2
	done
	echo "connections: $C0 before, $c after"
	return 1
}

tap_plan 5
C0=$(conns)
if ! modprobe rds_tcp 2>/dev/null || ! pair; then
	for i in 1 2 3 4 5; do tap_skip "tcp teardown $i" "no rds_tcp or netns"; done
	exit 0
fi
tap_check "namespaces deleted under RDS/TCP load, $ROUNDS rounds (CVE-2019-11815 pattern)" \
	netns_delete_under_load
tap_check "namespace deleted with half-open connections to its listener, $ROUNDS rounds (CVE-2024-26865 pattern)" \
	syn_flood_netns_delete
if grep -q O /sys/module/rds/taint 2>/dev/null; then
	tap_check "rmmod rds_tcp with busy connections, $ROUNDS rounds" rmmod_under_load
else
	# Linux's rds_tcp is a dependency of nothing, but modprobe -r of
	# the in-tree stack is not ours to test.
	tap_skip "rmmod rds_tcp with busy connections" "ours only"
fi
tap_check "RDS/TCP works after all that" works_after
tap_check "no RDS connection left behind" no_conns_left
tap_done
