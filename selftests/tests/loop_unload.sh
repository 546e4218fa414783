#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The loopback transport under unload: live sockets pin it (rmmod fails
# cleanly), unread messages and closed sockets leave nothing behind, and
# it unloads and reloads once they are gone.
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh
. lib/rds_tools.sh
OBJS=/sys/kernel/debug/rds/objects

if ! grep -q O /sys/module/rds/taint 2>/dev/null; then
	tap_plan 1
	tap_skip "loop transport unload" "in-tree RDS has no separate rds_loop module"
	exit 0
fi

obj() { awk -v k="$1" '$1 == k { print $2 }' "$OBJS"; }

# A receiver with unread messages and a sender, held open until stdin
# closes; prints "ready" once the messages are queued.
hold_sockets() {
	python3 -u -c '
import socket, sys
A = socket.AF_RDS
r = socket.socket(A, socket.SOCK_SEQPACKET); r.bind(("127.0.0.1", 0))
s = socket.socket(A, socket.SOCK_SEQPACKET); s.bind(("127.0.0.1", 0))
for i in range(10):
    s.sendto(b"x" * 1000, r.getsockname())
print("ready")
sys.stdin.read()
'
}

rmmod_refused_while_bound() {
	local rc=0
	coproc HOLD { hold_sockets; }
	read -r line <&"${HOLD[0]}"
	[ "$line" = ready ] || { echo "helper said: $line"; return 1; }
	[ "$(obj incoming)" -ge 10 ] || { echo "incoming: $(obj incoming)"; rc=1; }
	if rmmod rds_loop 2>/tmp/rmmod.err; then
		echo "rmmod rds_loop succeeded under live sockets"
		rc=1
	fi
	grep -q "in use" /tmp/rmmod.err || { cat /tmp/rmmod.err; rc=1; }
	exec {HOLD[1]}>&-
	wait "$HOLD_PID"
	return $rc
}

nothing_left() {
	local k
	for k in sockets messages incoming; do
		[ "$(obj $k)" = 0 ] || { cat "$OBJS"; return 1; }
	done
}

# rds-info -n: loopback connections left. Those of other transports
# (tests over adapters leave theirs up) are not rds_loop's business.
loop_conns() {
	"$RDS_TOOLS/rds-info" -n | awk '$6 == "loopback" || $5 == "loopback"' | wc -l
}

unload_and_reload() {
	rmmod rds_loop && ! [ -d /sys/module/rds_loop ] || return 1
	[ "$(loop_conns)" = 0 ] || { "$RDS_TOOLS/rds-info" -n; modprobe rds_loop; return 1; }
	modprobe rds_loop
}

tap_plan 3
tap_check "rmmod rds_loop fails cleanly while sockets are bound" rmmod_refused_while_bound
tap_check "closing sockets with unread messages frees everything" nothing_left
tap_check "rds_loop unloads (its connections go) and reloads" unload_and_reload
tap_done
