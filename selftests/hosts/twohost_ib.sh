#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RDS over InfiniBand (RoCE) between two guests on one wire: rxe1 on each
# guest's wire0 (scripts/vm/vm2.sh --rdma runs this on both; selftests/lib/wire.sh
# tells each its role): host b serves, host a is the client. Pings,
# verified rds-stress sessions and SHA-checked exactly-once delivery of
# 0 B to 1 MiB messages both ways (rds-wirecheck), over IPv4 and IPv6,
# RDMA read and write initiated from each host into the other's memory,
# and proof on both ends that the connection is IB (rds-info -n, -I).
# Either host may run either module set: RDS_IMPL (ours or intree) names
# the one that must be loaded there, so the same script checks ours <->
# Linux's rds_rdma both ways.
#
#	scripts/vm/vm2.sh --rdma --impl-a ours --impl-b intree -- \
#		RDS_SUITE=hosts selftests/run.sh twohost_ib
#
# IPv6: RDS/IB listens for IPv6 peers on 16385 through a wildcard RDMA CM
# id; with an iWARP device present (the guests' siw0 on eth1) that listen
# also opens a kernel TCP listener on 16385, which fails (-98, in Linux's
# rds_rdma as in ours) while rds_tcp holds the port. So each host first
# unloads rds_tcp (and rds_iwarp, which sits on rds_rdma's engine) and
# loads rds_rdma alone; nothing here needs TCP.
#
# RDS_WIRE_SECONDS: length of each rds-stress session (default 3);
# RDS_WIRE_SHORT=1: the short variant (IPv4 stress only, fewer messages).
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
AP=$PWD/atomicpeer/rds-atomic-peer
MSGS=24
[ "$SHORT" = 1 ] && MSGS=12
PORT=4900
twohost_begin twohost-ib

has_rxe1() {
	rdma link show rxe1/1
	rdma link show rxe1/1 | grep -q "state ACTIVE.*netdev wire0"
}

# rds_rdma alone, so its IPv6 listener can have port 16385.
ib_alone() {
	local m
	for m in rds_iwarp rds_rdma rds_tcp; do
		if loaded $m; then rmmod $m || return 1; fi
	done
	modprobe rds_rdma || return 1
	lsmod | grep '^rds'
	dmesg | grep -E 'rds.*(listen|16385|18634)' | tail -n 3
	# The taint check again: modprobe found the same set.
	rds_impl_matches rds_rdma
}

# ib_conn PEER: rds-info -n has the connection to PEER over infiniband,
# up, and rds-info -I lists it with its rings and GIDs (and, on ours, the
# fragment size agreed with the peer).
ib_conn() {
	local peer=$1 rings
	rdma_conn infiniband -I "$peer" || return 1
	rings=$("$RDS_TOOLS/rds-info" -I 2>&1)
	# Ours shows the agreed fragment size as SGEs per SEND: 8 KiB (3)
	# between ours (host b offers 8, host a 16: the smaller), 4 KiB (2)
	# with Linux, which offers nothing bigger.
	[ "${RDS_IMPL:-}" = ours ] || return 0
	local sges=2
	peer_is_ours && sges=3
	echo "$rings" | awk -v p="$peer" -v n=$sges '
		($2 == p || $2 == "::ffff:" p) && $9 == n { f = 1 } END { exit !f }' ||
		{ echo "the connection to $peer does not use $sges SGEs per SEND"; return 1; }
}

# Atomics from host a into memory host b registered (rds-atomic-peer).
# Only our initiator: Linux 6.1 posts every atomic as a masked one, which
# rxe lacks. peer_is_ours tells the target which one it serves.
# Linux 6.1 registers memory without remote atomic access: atomics into
# it fail (RDS_RDMA_REMOTE_ERROR) and nothing moves (rds-atomic-peer's
# "refused" mode); the checks after this one show the connection back.
atomic_target() {	# PORT
	local out=$RDS_TOOLS_WORK/atomic.target pid rc mode=()
	[ "${RDS_IMPL:-}" = intree ] && mode=(refused)
	"$AP" target "$RDS_WIRE_SELF" "$1" "${mode[@]}" > "$out" 2>&1 &
	pid=$!
	wait_for_line "$out" $pid "target ready" 10
	wire_mark atomics
	# Refused: no verdict over RDS (see rds-atomic-peer.c); host a says
	# when its initiator is gone, and the words are checked then.
	if [ ${#mode[@]} -gt 0 ]; then
		wire_wait atomics.done 180
		kill -USR1 $pid
	fi
	wait $pid
	rc=$?
	cat "$out"
	return $rc
}

atomic_init() {		# PORT
	local mode=() rc
	peer_is_ours || mode=(refused)
	wire_wait atomics 180 || return 1
	"$AP" init "$RDS_WIRE_SELF" "$RDS_WIRE_PEER" "$1" "${mode[@]}"
	rc=$?
	wire_mark atomics.done
	return $rc
}

# The TOS fan-out (issue 25, item 6): the TOS byte is part of an RDS/IB
# connection's key, so one address could ask for 256 connections, each
# with a full receive ring. With host b's net.rds.peer_max_connections
# at 4, host a asks from its own address with TOS 1..16 (rds-cm-spoof
# -T, a bare RDMA CM peer): host b holds at most 4 connections to host
# a with those TOS, and counts at least 12 refusals in
# conn_per_peer_over_cap (the old code took all 16).
CMSPOOF=$PWD/cmspoof/rds-cm-spoof
counter() {	# NAME: its RDS_INFO_COUNTERS value (0 if not listed)
	"$RDS_TOOLS/rds-info" -c 2>/dev/null |
		awk -v n="$1" '$1 == n { v = $2 } END { print v + 0 }'
}
tos_fanout_b() {
	local old c0 c1 n rc=0
	old=$(sysctl -n net.rds.peer_max_connections) || return 1
	sysctl -qw net.rds.peer_max_connections=4
	c0=$(counter conn_per_peer_over_cap)
	wire_mark tos.ready
	wire_wait tos.asked 120 || rc=1
	n=$("$RDS_TOOLS/rds-info" -n 2>/dev/null | awk -v p="$RDS_WIRE_PEER" '
		$2 == p && $6 == "infiniband" && $3 >= 1 && $3 <= 16' | wc -l)
	c1=$(counter conn_per_peer_over_cap)
	wire_mark tos.checked
	sysctl -qw net.rds.peer_max_connections="$old"
	echo "peer cap 4: host a asked with TOS 1..16; connections to it with those TOS: $n, conn_per_peer_over_cap +$((c1 - c0))" |
		tee "$RDS_TOOLS_WORK/tos.txt"
	[ "$rc" = 0 ] && [ "$n" -ge 1 ] && [ "$n" -le 4 ] && [ $((c1 - c0)) -ge 12 ]
}
tos_fanout_a() {
	local out=$RDS_TOOLS_WORK/cmspoof pid rc=0
	wire_wait tos.ready 120 || return 1
	"$CMSPOOF" -T 1-16 -H 60 "$RDS_WIRE_SELF" "$RDS_WIRE_PEER" > "$out" 2>&1 &
	pid=$!
	wait_for_line "$out" $pid "established" 60 || rc=1
	wire_mark tos.asked
	wire_wait tos.checked 120 || rc=1
	kill $pid 2>/dev/null
	wait $pid
	cp "$out" "$RDS_TOOLS_WORK/tos.txt"
	cat "$out"
	[ "$rc" = 0 ] && grep -q "established" "$out"
}

common() {
	wire_mark "impl-${RDS_IMPL:-unset}"
	echo "# host $ROLE: RDS_IMPL=${RDS_IMPL:-unset}, $RDS_WIRE_SELF $RDS_WIRE_SELF6 -> $RDS_WIRE_PEER $RDS_WIRE_PEER6 over rxe1; sessions of $SECS s, $MSGS messages per wirecheck sender"
	tap_check "host $ROLE: loaded module set is RDS_IMPL=${RDS_IMPL:-unset}" rds_impl_matches rds_rdma
	tap_check "host $ROLE: rxe1 is ACTIVE on wire0" has_rxe1
	tap_check "host $ROLE: rds_tcp unloaded, rds_rdma loaded alone (IPv6 listener)" ib_alone
	# Two different offers, so the agreement is really the smaller one
	# (ib_conn checks it): host b offers 8 KiB, host a 16 KiB.
	if [ "${RDS_IMPL:-}" = ours ] && [ "$ROLE" = b ]; then
		sysctl -qw net.rds.ib.max_frag_size=8192
	fi
}

stress_args=(-t 2 -d 4 -q 4096 -a 64 -T "$SECS")
big_args=(-t 1 -d 4 -q 65536 -a 256 -T "$SECS")
# Each side acks the other's requests with an RDMA read or write of
# 64 KiB into memory the requester registered (RDS_CMSG_RDMA_MAP, the
# path Linux's rds_rdma supports): RDMA initiated from both hosts.
rdma_args=(-t 1 -d 4 -q 1024 -a 256 -D 65536 -M 0 -T "$SECS")
case "$ROLE" in
b)
	if [ "$SHORT" = 1 ]; then tap_plan 11; else tap_plan 17; fi
	common
	wire_mark ready
	tap_check "host b: served rds-stress over IB, IPv4: verified" \
		serve stress4 "$PORT" "$RDS_WIRE_SELF"
	if [ "$SHORT" != 1 ]; then
		tap_check "host b: served rds-stress over IB, IPv6: verified" \
			serve stress6 $((PORT + 10)) "$RDS_WIRE_SELF6"
		tap_check "host b: served rds-stress over IB, 64 KiB requests: verified" \
			serve big $((PORT + 20)) "$RDS_WIRE_SELF"
		tap_check "host b: served rds-stress -D 65536 over IB: RDMA read and write into host a's memory, verified" \
			serve rdma $((PORT + 50)) "$RDS_WIRE_SELF"
		if peer_is_ours; then
			tap_check "host b: atomics from host a into memory this host registered (Linux's: refused, untouched)" \
				atomic_target $((PORT + 60))
		else
			tap_skip "host b: atomics from host a" "host a runs Linux's RDS: its atomics are masked, rxe has none"
		fi
	fi
	tap_check "host b: 2 x $MSGS messages 0 B..1 MiB from host a, IPv4: exactly once, in order, intact" \
		wc_recv wc4 $((PORT + 30)) "$RDS_WIRE_SELF"
	tap_check "host b: 2 x $MSGS messages 0 B..1 MiB to host a, IPv6: sent" \
		wc_send wc6 $((PORT + 40)) "$RDS_WIRE_SELF6" "$RDS_WIRE_PEER6"
	tap_check "host b: the connection from host a is IB (rds-info -n, -I), IPv4" \
		ib_conn "$RDS_WIRE_PEER"
	if [ "${RDS_IMPL:-}" = ours ] && peer_is_ours; then
		tap_check "host b: a write to a key whose socket closed is refused here (dropped), not a reset; a live key works" \
			key_target $((PORT + 70))
	else
		tap_skip "host b: a key whose socket closed" "keys say where they are valid between two of ours only"
	fi
	if [ "$SHORT" != 1 ]; then
		tap_check "host b: the connection from host a is IB (rds-info -n, -I), IPv6" \
			ib_conn "$RDS_WIRE_PEER6"
		tap_check "host b: rds-ping back to host a over IPv6: 5 of 5" \
			rds_ping_all "" 5 "$RDS_WIRE_PEER6"
	fi
	forgotten=$(rds_counter ib_key_forgotten)
	wire_mark checked
	if [ "${RDS_IMPL:-}" = ours ] && peer_is_ours; then
		tap_check "host b: host a restarted rds_rdma: its keys from before are forgotten here" \
			key_restart_seen "$forgotten"
	else
		tap_skip "host b: a peer's keys after its restart" "keys say where they are valid between two of ours only"
	fi
	if [ "${RDS_IMPL:-}" = ours ]; then
		tap_check "host b: TOS 1..16 from one address, peer cap 4: at most 4 taken, the rest refused and counted" \
			tos_fanout_b
		sed 's/^/# /' "$RDS_TOOLS_WORK/tos.txt" 2>/dev/null
	else
		tap_skip "host b: TOS fan-out held to the peer cap" "Linux has no per-peer cap"
	fi
	# Host a is through (it needed this host for its last checks).
	wire_wait finished 300
	tap_check "host b: a last rds-ping each way if ours (acks for a Linux peer)" \
		tail_ping
	wire_mark done
	;;
a)
	if [ "$SHORT" = 1 ]; then tap_plan 14; else tap_plan 18; fi
	common
	tap_check "host a: rds-ping host b over IB, IPv4: 5 of 5" \
		ping_when_ready "$RDS_WIRE_PEER"
	tap_check "host a: rds-ping host b over IB, IPv6: 5 of 5" \
		rds_ping_all "" 5 "$RDS_WIRE_PEER6"
	tap_check "host a: rds-stress to host b over IB, IPv4: verified, messages both ways" \
		client stress4 "$PORT" "$RDS_WIRE_PEER" "$RDS_WIRE_SELF" "${stress_args[@]}"
	if [ "$SHORT" != 1 ]; then
		tap_check "host a: rds-stress to host b over IB, IPv6: verified, messages both ways" \
			client stress6 $((PORT + 10)) "$RDS_WIRE_PEER6" "$RDS_WIRE_SELF6" "${stress_args[@]}"
		tap_check "host a: rds-stress to host b over IB, 64 KiB requests: verified" \
			client big $((PORT + 20)) "$RDS_WIRE_PEER" "$RDS_WIRE_SELF" "${big_args[@]}"
		tap_check "host a: rds-stress -D 65536 to host b over IB: RDMA read and write into host b's memory, verified" \
			client rdma $((PORT + 50)) "$RDS_WIRE_PEER" "$RDS_WIRE_SELF" "${rdma_args[@]}"
		if [ "${RDS_IMPL:-}" = ours ]; then
			tap_check "host a: atomics into memory host b registered: FADD, CSWP right (Linux's: refused, recovers)" \
				atomic_init $((PORT + 60))
		else
			tap_skip "host a: atomics into host b's memory" "Linux's RDS posts masked atomics, rxe has none"
		fi
	fi
	tap_check "host a: 2 x $MSGS messages 0 B..1 MiB to host b, IPv4: sent" \
		wc_send wc4 $((PORT + 30)) "$RDS_WIRE_SELF" "$RDS_WIRE_PEER"
	tap_check "host a: 2 x $MSGS messages 0 B..1 MiB from host b, IPv6: exactly once, in order, intact" \
		wc_recv wc6 $((PORT + 40)) "$RDS_WIRE_SELF6"
	tap_check "host a: the connection to host b is IB (rds-info -n, -I), IPv4" \
		ib_conn "$RDS_WIRE_PEER"
	tap_check "host a: the connection to host b is IB (rds-info -n, -I), IPv6" \
		ib_conn "$RDS_WIRE_PEER6"
	if [ "${RDS_IMPL:-}" = ours ] && peer_is_ours; then
		tap_check "host a: a key named by a socket that closed before it left goes marked valid nowhere" \
			key_owner $((PORT + 70))
	else
		tap_skip "host a: a key whose socket closed" "keys say where they are valid between two of ours only"
	fi
	wire_wait checked 300
	if [ "${RDS_IMPL:-}" = ours ] && peer_is_ours; then
		tap_check "host a: rds_rdma reloaded, host b answers pings on a new connection" \
			key_restart_peer rds_rdma
	else
		tap_skip "host a: a restart of rds_rdma" "keys say where they are valid between two of ours only"
	fi
	if peer_is_ours; then
		tap_check "host a: a bare RDMA CM peer asks host b for TOS 1..16 from this address" \
			tos_fanout_a
		sed 's/^/# /' "$RDS_TOOLS_WORK/tos.txt" 2>/dev/null
	else
		tap_skip "host a: TOS fan-out to host b" "host b runs Linux's RDS (no per-peer cap)"
	fi
	tap_check "host a: a last rds-ping each way if ours (acks for a Linux peer)" \
		tail_ping
	wire_mark finished
	# Host b's last pings need this host.
	wire_wait done 300
	;;
esac
sed 's/^/# /' "$RDS_STRESS_SUMMARY" 2>/dev/null
tap_done
