#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RDS/IB's watch on local addresses (transports/rdma/rds_rdma_addr.c;
# Documentation/transports.rst, "Moving an address") in one guest, over
# rxe0 on eth0, which loops back to itself:
#
#  - no false move: while SHA-checked traffic runs between 10.99.0.1 and
#    10.99.0.2, another address is added and removed 24 times (IPv4)
#    and 8 times (IPv6) on the same interface; every event makes the
#    watch look at every connection, and none may drop (conn_reset and
#    ib_addr_moved stay put, everything arrives once and in order);
#  - a real move: a connection from 10.99.0.7 to 10.99.0.8 is up and
#    quiet, 10.99.0.7 is removed: the connection drops within 2 s for
#    "local address removed" (its lane's history), counted in
#    ib_addr_moved; once the address is back, pings work again;
#  - a send the moment the address leaves fails in the device (rxe)
#    before the watch looks: the drop is still named for the move and
#    counted once, and the message arrives once the address is back;
#  - an IPv6 move: the same with fd99::7 -> fd99::8, fd99::7 moved from
#    eth0 to eth1 (a global IPv6 address is not "on eth0" any more just
#    because eth0 could still reach it).
#
# Skips without rxe0 (vm.sh --rdma) or with Linux's RDS (no such watch).
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh
. lib/rds_tools.sh
. lib/wirecheck.sh
# shellcheck disable=SC2034 # both used by lib/wirecheck.sh
T=$RDS_TOOLS WC=$PWD/wirecheck/rds-wirecheck
PORT=6500
WORK=$(mktemp -d /tmp/rds-ib-addr.XXXXXX)
A4=10.99.0.1 B4=10.99.0.2 E4=10.99.0.7 F4=10.99.0.8 X4=10.99.0.9 X6=fd99::9
E6=fd99::7 F6=fd99::8
R_ADDR_GONE=68
PLAN=7

loaded() { grep -q "^$1 " /proc/modules; }
HAD_IWARP=0
loaded rds_iwarp && HAD_IWARP=1

# No IB connection is left behind (later programs count the core's
# connections): rds_rdma is reloaded, in the guest's order.
cleanup() {
	pkill -f "rds-wirecheck" 2>/dev/null
	ip addr del $E4/24 dev eth0 2>/dev/null
	ip addr del $F4/24 dev eth0 2>/dev/null
	ip addr del $X4/32 dev eth0 2>/dev/null
	ip -6 addr del $X6/128 dev eth0 2>/dev/null
	ip -6 addr del $E6/64 dev eth0 2>/dev/null
	ip -6 addr del $E6/64 dev eth1 2>/dev/null
	ip -6 addr del $F6/64 dev eth0 2>/dev/null
	if loaded rds_rdma; then
		{ if loaded rds_iwarp; then rmmod rds_iwarp; fi
		  rmmod rds_rdma && modprobe rds_rdma &&
			{ [ "$HAD_IWARP" = 0 ] || modprobe rds_iwarp; }; } >/dev/null 2>&1
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

# Another address comes and goes on eth0, over and over.
churn() {
	local i
	for ((i = 0; i < 24; i++)); do
		ip addr add $X4/32 dev eth0 && ip addr del $X4/32 dev eth0 || return 1
	done
	for ((i = 0; i < 8; i++)); do
		ip -6 addr add $X6/128 dev eth0 nodad &&
			ip -6 addr del $X6/128 dev eth0 || return 1
	done
	echo "churn done"
}

no_false_move() {
	local resets moved rc=0
	resets=$(rds_counter conn_reset)
	moved=$(rds_counter ib_addr_moved)
	wirecheck_run - $A4 - $B4 2 4 0 0 churn || rc=1
	echo "conn_reset $resets -> $(rds_counter conn_reset), ib_addr_moved $moved -> $(rds_counter ib_addr_moved)"
	[ "$(rds_counter conn_reset)" = "$resets" ] && [ "$(rds_counter ib_addr_moved)" = "$moved" ] &&
		[ "$rc" = 0 ]
}

quiet_pair() {
	ip addr add $E4/24 dev eth0 && ip addr add $F4/24 dev eth0 || return 1
	rds_ping_all "" 3 -I $E4 $F4
}

lane() {	# LOCAL PEER: its line of lib/rds_paths.py
	python3 lib/rds_paths.py | awk -v l="$1" -v p="$2" '$1 == l && $2 == p && $4 == "infiniband"'
}

# real_move LOCAL PEER CMD...: CMD takes LOCAL away from eth0; the quiet
# connection LOCAL -> PEER must drop within 2 s, for that.
real_move() {
	local local=$1 peer=$2 moved t0 l i
	shift 2
	moved=$(rds_counter ib_addr_moved)
	sleep 1
	t0=$(date +%s%3N)
	"$@" || return 1
	for ((i = 0; i < 40; i++)); do
		[ "$(rds_counter ib_addr_moved)" != "$moved" ] && break
		sleep 0.1
	done
	l=$(lane "$local" "$peer")
	echo "ib_addr_moved $moved -> $(rds_counter ib_addr_moved); lane: $l"
	[ "$(rds_counter ib_addr_moved)" != "$moved" ] || return 1
	echo "$l" | awk -v r=$R_ADDR_GONE -v t0="$t0" '
		{ d = $13 - t0; printf "reset %d ms after the removal, reason %d\n", d, $15
		  if ($15 == r && d >= 0 && d <= 2000) ok = 1 }
		END { exit !ok }'
}

back() {
	ip addr add $E4/24 dev eth0 || return 1
	rds_ping_all "" 3 -I $E4 $F4
}

# A message sent the moment the address leaves: the device fails the
# send (rxe cannot route from an address that is gone) before the
# watch looks, and that drop must still be named for the move. The
# message waits for the address and arrives once it is back.
send_across() {
	local moved t0
	moved=$(rds_counter ib_addr_moved)
	t0=$(date +%s%3N)
	python3 - $E4 $F4 $((PORT + 11)) > "$WORK/across" 2>&1 <<-'PY' || { cat "$WORK/across"; return 1; }
	import socket, subprocess, sys, time
	e, f, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
	r = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
	r.bind((f, port))
	r.settimeout(15)
	s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
	s.bind((e, port + 1))
	s.sendto(b"before", (f, port))
	assert r.recv(64) == b"before", "no first message"
	subprocess.run(["ip", "addr", "del", e + "/24", "dev", "eth0"], check=True)
	s.sendto(b"across", (f, port))
	time.sleep(2)
	# The lane as the drop left it: a later drop (after the reconnect)
	# would overwrite its reason.
	lane = subprocess.run(["python3", "lib/rds_paths.py"], check=True,
	                      capture_output=True, text=True).stdout
	for line in lane.splitlines():
	    w = line.split()
	    if w[:2] == [e, f] and w[3] == "infiniband":
	        print("lane while the address is away: " + line)
	subprocess.run(["ip", "addr", "add", e + "/24", "dev", "eth0"], check=True)
	got = r.recv(64)
	print("received %r after the address came back" % got)
	assert got == b"across", "wrong message"
	r.settimeout(1)
	try:
	    extra = r.recv(64)
	    sys.exit("a duplicate: %r" % extra)
	except socket.timeout:
	    pass
	PY
	cat "$WORK/across"
	echo "ib_addr_moved $moved -> $(rds_counter ib_addr_moved)"
	[ "$(rds_counter ib_addr_moved)" = $((moved + 1)) ] || return 1
	sed -n 's/^lane while the address is away: //p' "$WORK/across" |
		awk -v r=$R_ADDR_GONE -v t0="$t0" '
		{ printf "reset %d ms after the start, reason %d\n", $13 - t0, $15
		  if ($15 == r && $13 >= t0) ok = 1 }
		END { exit !ok }'
}

quiet_pair6() {
	ip -6 addr add $E6/64 dev eth0 nodad && ip -6 addr add $F6/64 dev eth0 nodad ||
		return 1
	rds_ping_all "" 3 -I $E6 $F6
}

move6() {
	ip -6 addr del $E6/64 dev eth0 && ip -6 addr add $E6/64 dev eth1 nodad
}

tap_plan $PLAN
skip_all() {
	local i
	for ((i = 0; i < PLAN; i++)); do tap_skip "ib address watch $((i + 1))" "$1"; done
	exit 0
}
[ "${RDS_IMPL:-ours}" = ours ] || skip_all "Linux's RDS does not watch addresses"
rdma link show rxe0/1 2>/dev/null | grep -q ACTIVE ||
	skip_all "no rxe0 in this guest (vm.sh --rdma)"
loaded rds_rdma || modprobe rds_rdma 2>/dev/null ||
	skip_all "rds_rdma not loadable"

tap_check "another address added and removed 32 times on eth0 under 2 x 4 messages $A4 -> $B4 over IB: all once, in order; no connection dropped" \
	no_false_move
tap_check "a quiet connection $E4 -> $F4 over IB (pings)" quiet_pair
tap_check "$E4 removed: its connection drops within 2 s for \"local address removed\" (ib_addr_moved)" \
	real_move $E4 $F4 ip addr del $E4/24 dev eth0
tap_check "$E4 back: pings $E4 -> $F4 again" back
tap_check "a message sent the moment $E4 leaves: the drop is named for the move (counted once); it arrives once, after $E4 is back" \
	send_across
tap_check "a quiet connection $E6 -> $F6 over IB (pings)" quiet_pair6
tap_check "$E6 moved from eth0 to eth1: its connection drops within 2 s for \"local address removed\"" \
	real_move $E6 $F6 move6
tap_done
