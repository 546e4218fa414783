#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RDS over iWARP between two guests on one wire: siw1 on each guest's
# wire0 (scripts/vm/vm2.sh --rdma runs this on both; it replaces the rxe1 that
# vm2.sh puts there, one soft device per NIC so the RDMA CM never chooses
# between two). Host b serves, host a is the client. Pings, verified
# rds-stress sessions, RDMA read and write initiated from each host into
# the other's memory, SHA-checked exactly-once delivery of 0 B to 1 MiB
# messages both ways (rds-wirecheck) over IPv4 and IPv6, then host a
# deletes siw1 under that traffic and adds it back: nothing may be lost,
# duplicated or reordered. Proof on both ends that the connection is
# iWARP (rds-info -n, -W). Sixteen new connections, a ping each: every
# one connected at its first attempt (the acceptor sends nothing before
# the requester's first frame, as MPA wants). A key its owner closed
# before naming it is refused on the user's side, not a reset
# (key_target, lib/twohost.sh).
#
# Ours on both hosts: Linux has had no RDS over iWARP since 4.6, so there
# is nothing else to talk to.
#
#	scripts/vm/vm2.sh --rdma -- RDS_SUITE=hosts selftests/run.sh twohost_iw
#
# RDS_WIRE_SECONDS: length of each rds-stress session (default 3);
# RDS_WIRE_SHORT=1: the short variant (IPv4 only, fewer messages; RDMA and
# the relink stay).
# Outside a two-host guest it has nothing to do and skips.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh
. lib/wire.sh
. lib/rds_tools.sh
. lib/wirecheck.sh
. lib/twohost.sh
SECS=${RDS_WIRE_SECONDS:-3}
SHORT=${RDS_WIRE_SHORT:-0}
WC=$PWD/wirecheck/rds-wirecheck
T=$RDS_TOOLS
MSGS=24
[ "$SHORT" = 1 ] && MSGS=12
# Four cycles of sizes even in the short variant: traffic must span the
# relink (which checks it did).
RELINK_MSGS=48
PORT=5900
twohost_begin twohost-iw

siw1_active() {
	local i
	for i in $(seq 50); do
		rdma link show siw1/1 2>/dev/null | grep -q "state ACTIVE.*netdev wire0" && break
		sleep 0.1
	done
	rdma link show siw1/1 | grep "state ACTIVE.*netdev wire0"
}

# wire0 carries siw1 instead of rxe1.
siw_on_wire() {
	if rdma link show rxe1/1 >/dev/null 2>&1; then
		rdma link delete rxe1 || return 1
	fi
	modprobe siw && rdma link add siw1 type siw netdev wire0 || return 1
	siw1_active
}

# rds_iwarp on the engine, and no rds_tcp: iWARP's RDMA CM listens on
# real TCP ports of the host's stack, and rds_tcp's 16385 is one of them.
iw_modules() {
	if loaded rds_tcp; then rmmod rds_tcp || return 1; fi
	modprobe rds_iwarp || return 1
	lsmod | grep '^rds'
	loaded rds_iwarp && loaded rds_rdma && ! loaded rds_tcp && rds_impl_matches rds_rdma
}

# The connection to PEER is iWARP: rds-info -n, and for IPv4 -W with its
# rings (the uapi has no IPv6 iWARP table).
iw_conn() {	# PEER
	rdma_conn iwarp -W "$1"
}

# After the relink: the connection is iWARP again within 10 s (host a's
# re-added device reconnects; host b may still be on an attempt the
# relink cut short when its receiver finished).
iw_conn_back() {	# PEER
	local i
	for i in $(seq 20); do
		iw_conn "$1" > /dev/null 2>&1 && { echo "up after $((i - 1)) x 0.5 s"; return 0; }
		sleep 0.5
	done
	iw_conn "$1"
}

# Messages queued or unacked to the peer (rds-info -s and -t).
in_flight() {
	"$RDS_TOOLS/rds-info" -s -t 2>/dev/null |
		awk -v p="$RDS_WIRE_PEER" '$3 == p' | wc -l
}

# Host a, under the traffic of wc_send: siw1 goes away with messages
# still queued or unacked, then comes back; the reconnect must carry
# what was left. The deletion waits for the first messages in flight
# (up to 10 s), not for a fixed time: on a fast machine all of them were
# sent and acked within a second.
relink() {
	local left=0 r0 i
	r0=$(wirecheck_resets -)
	for i in $(seq 200); do
		[ "$(in_flight)" -gt 0 ] && break
		sleep 0.05
	done
	rdma link delete siw1 || return 1
	echo "siw1 deleted after $((i * 50)) ms"
	sleep 1
	left=$(in_flight)
	echo "$left messages queued or unacked to $RDS_WIRE_PEER without the device"
	sleep 2
	rdma link add siw1 type siw netdev wire0 || return 1
	siw1_active || return 1
	echo "siw1 back; conn_reset $r0 -> $(wirecheck_resets -)"
	[ "$left" -gt 0 ] || { echo "nothing was in flight: not under load"; return 1; }
}

common() {
	wire_mark "impl-${RDS_IMPL:-unset}"
	echo "# host $ROLE: $RDS_WIRE_SELF $RDS_WIRE_SELF6 -> $RDS_WIRE_PEER $RDS_WIRE_PEER6 over siw1; sessions of $SECS s, $MSGS messages per wirecheck sender"
	tap_check "host $ROLE: our modules (Linux has no RDS over iWARP)" rds_impl_matches rds_rdma
	tap_check "host $ROLE: siw1 replaces rxe1 on wire0, ACTIVE" siw_on_wire
	tap_check "host $ROLE: rds_iwarp loaded, rds_tcp not (its port is a TCP port of iWARP's)" \
		iw_modules
}

# The lanes to PEER on TOS 11-26 (rds-info -p): 16, none dropped; with
# "req" (the requester's side) each connected at its first attempt. Siw
# fails a requester's connect when a frame of the acceptor's arrives
# behind the MPA reply: the acceptor's end then drops too.
first_lanes() {	# PEER [req]
	"$T/rds-info" -p 2>&1 | awk -v p="$1" -v req="${2:-}" '
		$2 != p || $4 != "iwarp" || $3 < 11 || $3 > 26 { next }
		{ n++; print }
		$11 != 0 || (req && $9 != 1) { bad++ }
		END { print n + 0 " lanes, " bad + 0 " retried or dropped"
		      exit !(n == 16 && !bad) }'
}
first_pings() {
	local t
	for t in $(seq 11 26); do
		# 20 s, not rds_ping_all's 5: the check is the attempts and
		# drops below; on a loaded host a new connection and its ping
		# took longer than 5 s (CI replica, 2026-11-28).
		rds_ping_all "" 1 -W 20 -Q "$t" "$RDS_WIRE_PEER" > /dev/null ||
			{ echo "TOS $t: no answer"; "$T/rds-info" -p; return 1; }
	done
	first_lanes "$RDS_WIRE_PEER" req
}

stress_args=(-t 2 -d 4 -q 4096 -a 64 -T "$SECS")
big_args=(-t 1 -d 4 -q 65536 -a 256 -T "$SECS")
# Each side acks the other's requests with an RDMA read or write of
# 64 KiB into memory the requester registered: RDMA from both hosts.
rdma_args=(-t 1 -d 4 -q 1024 -a 256 -D 65536 -M 0 -T "$SECS")
full() { [ "$SHORT" != 1 ]; }
case "$ROLE" in
b)
	if full; then tap_plan 16; else tap_plan 12; fi
	common
	wire_mark ready
	tap_check "host b: served rds-stress over iWARP, IPv4: verified" \
		serve stress4 "$PORT" "$RDS_WIRE_SELF"
	if full; then
		tap_check "host b: served rds-stress over iWARP, IPv6: verified" \
			serve stress6 $((PORT + 10)) "$RDS_WIRE_SELF6"
		tap_check "host b: served rds-stress over iWARP, 64 KiB requests: verified" \
			serve big $((PORT + 20)) "$RDS_WIRE_SELF"
	fi
	tap_check "host b: served rds-stress -D 65536 over iWARP: RDMA read and write into host a's memory, verified" \
		serve rdma $((PORT + 50)) "$RDS_WIRE_SELF"
	tap_check "host b: 2 x $MSGS messages 0 B..1 MiB from host a, IPv4: exactly once, in order, intact" \
		wc_recv wc4 $((PORT + 30)) "$RDS_WIRE_SELF"
	if full; then
		tap_check "host b: 2 x $MSGS messages 0 B..1 MiB to host a, IPv6: sent" \
			wc_send wc6 $((PORT + 40)) "$RDS_WIRE_SELF6" "$RDS_WIRE_PEER6"
		tap_check "host b: the connection from host a is iWARP (rds-info -n), IPv6" \
			iw_conn "$RDS_WIRE_PEER6"
	fi
	tap_check "host b: the connection from host a is iWARP (rds-info -n, -W), IPv4" \
		iw_conn "$RDS_WIRE_PEER"
	wire_wait first 120
	tap_check "host b: host a's 16 new connections (TOS 11-26): none dropped" \
		first_lanes "$RDS_WIRE_PEER"
	tap_check "host b: a write to a key whose socket closed is refused here (dropped), not a reset; a live key works" \
		key_target $((PORT + 70))
	tap_check "host b: 2 x $RELINK_MSGS messages from host a across its siw1 deleted and re-added: exactly once, in order, intact" \
		wc_recv relink $((PORT + 60)) "$RDS_WIRE_SELF" $RELINK_MSGS
	tap_check "host b: after the relink, the connection from host a is iWARP again within 10 s (rds-info -n, -W)" \
		iw_conn_back "$RDS_WIRE_PEER"
	wire_mark checked
	wire_wait finished 300
	tap_check "host b: a last rds-ping each way (acks for the tail)" \
		tail_ping
	wire_mark done
	;;
a)
	if full; then tap_plan 18; else tap_plan 14; fi
	common
	tap_check "host a: rds-ping host b over iWARP, IPv4: 5 of 5" \
		ping_when_ready "$RDS_WIRE_PEER"
	tap_check "host a: rds-stress to host b over iWARP, IPv4: verified, messages both ways" \
		client stress4 "$PORT" "$RDS_WIRE_PEER" "$RDS_WIRE_SELF" "${stress_args[@]}"
	# The short variant's only IPv6: the wire capture's check wants
	# RDS over iWARP in both families.
	tap_check "host a: rds-ping host b over iWARP, IPv6: 5 of 5" \
		rds_ping_all "" 5 "$RDS_WIRE_PEER6"
	if full; then
		tap_check "host a: rds-stress to host b over iWARP, IPv6: verified, messages both ways" \
			client stress6 $((PORT + 10)) "$RDS_WIRE_PEER6" "$RDS_WIRE_SELF6" "${stress_args[@]}"
		tap_check "host a: rds-stress to host b over iWARP, 64 KiB requests: verified" \
			client big $((PORT + 20)) "$RDS_WIRE_PEER" "$RDS_WIRE_SELF" "${big_args[@]}"
	fi
	tap_check "host a: rds-stress -D 65536 to host b over iWARP: RDMA read and write into host b's memory, verified" \
		client rdma $((PORT + 50)) "$RDS_WIRE_PEER" "$RDS_WIRE_SELF" "${rdma_args[@]}"
	tap_check "host a: 2 x $MSGS messages 0 B..1 MiB to host b, IPv4: sent" \
		wc_send wc4 $((PORT + 30)) "$RDS_WIRE_SELF" "$RDS_WIRE_PEER"
	if full; then
		tap_check "host a: 2 x $MSGS messages 0 B..1 MiB from host b, IPv6: exactly once, in order, intact" \
			wc_recv wc6 $((PORT + 40)) "$RDS_WIRE_SELF6"
		tap_check "host a: the connection to host b is iWARP (rds-info -n), IPv6" \
			iw_conn "$RDS_WIRE_PEER6"
	fi
	tap_check "host a: the connection to host b is iWARP (rds-info -n, -W), IPv4" \
		iw_conn "$RDS_WIRE_PEER"
	tap_check "host a: 16 new connections to host b (TOS 11-26), a ping each: each up at its first attempt, none dropped" \
		first_pings
	wire_mark first
	tap_check "host a: a key named by a socket that closed before it left goes marked valid nowhere" \
		key_owner $((PORT + 70))
	tap_check "host a: 2 x $RELINK_MSGS messages to host b while siw1 is deleted and re-added: sent" \
		wc_send relink $((PORT + 60)) "$RDS_WIRE_SELF" "$RDS_WIRE_PEER" $RELINK_MSGS relink
	tap_check "host a: after the relink, the connection to host b is iWARP again within 10 s (rds-info -n, -W)" \
		iw_conn_back "$RDS_WIRE_PEER"
	wire_wait checked 300
	tap_check "host a: a last rds-ping each way (acks for the tail)" \
		tail_ping
	wire_mark finished
	wire_wait done 300
	;;
esac
sed 's/^/# /' "$RDS_STRESS_SUMMARY" 2>/dev/null
tap_done
