#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Messages sent while the peer is unreachable arrive once it is back, even
# though their sockets closed meanwhile (RDS's delivery promise across an
# outage, Documentation/rds.rst). Two guests on one wire (scripts/vm/vm2.sh
# runs this on both), ours on both ends, over each transport in turn:
#
#	RDS_FC_TRANSPORTS="tcp ib iw"   RDS/TCP, RDS/IB over rxe1, RDS/iWARP
#	                                over siw1 (default: tcp, and ib and
#	                                iw too under vm2.sh --rdma)
#
# Each scenario has a receiver and a sender. The receiver's wire loses its
# carrier (QEMU's set_link, through wire_ctl), it binds, and the sender's
# RDS_FC_SENDERS sockets send RDS_FC_MSGS messages each (0 B to 1 MiB,
# SHA-checked by rds-wirecheck) and close at once. After RDS_FC_OUTAGE
# seconds the link comes back: every message must arrive exactly once, in
# order, intact, within RDS_FC_BOUND seconds of the link's return, and
# neither host may count a message given up (send_drop_*).
#
#   first    first contact: fresh modules on both hosts, the receiver (host
#            a, the lower address, which alone connects RDS/TCP) unreachable
#            before either host ever reached the other
#   reverse  the same with the higher address receiving, after both
#            hosts reloaded their modules (the receiver's while its link is
#            down: a peer whose RDS comes up late)
#   midway   an established connection (pings went both ways) loses its
#            link with the receiver bound, the sender's messages queue
#            and their sockets close, then the link returns
#   frozen   an established connection's receiver freezes (QEMU's stop,
#            asked for by the sender: a hung node) while the sender's
#            sockets queue their messages and close; after the outage it
#            thaws (cont) and must have everything within the bound
#   restart  the same as midway, but the sender's RDS restarts (its modules are
#            reloaded) while the receiver's link is down: a peer that
#            rebooted, whose sequence numbers start again from 1 while the
#            receiver still has the old connection and its sequences
#
# Against Linux's in-tree RDS (vm2.sh --intree-a or --intree-b) ours
# sends and Linux receives: the scenarios whose receiver is the in-tree
# host run, over TCP and IB (Linux drops a closed socket's messages, and
# has no RDS over iWARP, so the others are skipped, said so in TAP).
#
# RDS_WIRE_SHORT=1 (make check): the first scenario only, a 5 s outage.
# Outside a two-host guest it has nothing to do and skips.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh
. lib/wire.sh
. lib/rds_tools.sh
. lib/wirecheck.sh
. lib/twohost.sh
SHORT=${RDS_WIRE_SHORT:-0}
OUTAGE=${RDS_FC_OUTAGE:-$([ "$SHORT" = 1 ] && echo 5 || echo 20)}
BOUND=${RDS_FC_BOUND:-30}
SENDERS=${RDS_FC_SENDERS:-3}
MSGS=${RDS_FC_MSGS:-$([ "$SHORT" = 1 ] && echo 6 || echo 12)}
WC=$PWD/wirecheck/rds-wirecheck
T=$RDS_TOOLS
PORT=6100
twohost_begin first-contact
HAD_RXE1=0
rdma link show rxe1/1 >/dev/null 2>&1 && HAD_RXE1=1
TRANSPORTS=${RDS_FC_TRANSPORTS:-tcp}
[ -z "${RDS_FC_TRANSPORTS:-}" ] && [ "$HAD_RXE1" = 1 ] && TRANSPORTS="tcp ib iw"

# One soft device on wire0 (the RDMA CM never chooses between two): siw1
# for iWARP, rxe1 otherwise.
wire_device() {	# rxe|siw
	local want=$1 other=siw
	[ "$want" = siw ] && other=rxe
	if rdma link show "${other}1/1" >/dev/null 2>&1; then
		rdma link delete "${other}1" || return 1
	fi
	rdma link show "${want}1/1" >/dev/null 2>&1 ||
		{ modprobe "$( [ "$want" = siw ] && echo siw || echo rdma_rxe )" &&
		  rdma link add "${want}1" type "$want" netdev wire0; } || return 1
	rdma link show "${want}1/1"
}

# Our RDS, only the transport under test (iWARP's RDMA CM listens on TCP
# port 16385 too, so rds_tcp must not be there).
load() {
	local m
	for m in rds_tcp rds_iwarp rds_rdma rds_loop rds; do
		if loaded "$m"; then rmmod "$m" || return 1; fi
	done
	# shellcheck disable=SC2086
	modprobe -a $MODS || return 1
	lsmod | grep '^rds'
	rds_impl_matches rds
}

# The counters of messages a sender gave up on: none may move here.
LOSS_RE='send_drop_orphan|send_drop_conn_killed|send_drop_rdma'
losses() {
	"$T/rds-info" -c 2>/dev/null | awk -v re="$LOSS_RE" '$1 ~ re && $2 != 0'
}

link() {	# on|off
	wire_ctl self set_link wire "$1"
}

# The receiving side of scenario NAME: link down, bound, announced; the
# sender's messages queued and their sockets closed; OUTAGE more seconds
# down, then up; everything must arrive within BOUND seconds.
fc_recv() {	# NAME RELOAD (0: none, 1: both hosts, 2: the sender's)
	local name=$1 reload=$2 out=$RDS_TOOLS_WORK/$1.recv pid rc t_up
	link off || return 1
	if [ "$reload" = 1 ]; then
		wire_wait "$name.reloaded" 120 || return 1
		load > /dev/null || return 1
	fi
	"$WC" recv "$RDS_WIRE_SELF" "$PORT" "$SENDERS" "$MSGS" \
		$((OUTAGE + BOUND + 120)) > "$out" 2>&1 &
	pid=$!
	wirecheck_wait_ready "$out" $pid 30 || { kill $pid; return 1; }
	wire_mark "$name.ready"
	wire_wait "$name.sent" 120 || { kill $pid; return 1; }
	sleep "$OUTAGE"
	link on || { kill $pid; return 1; }
	t_up=$SECONDS
	wait $pid
	rc=$?
	cat "$out"
	echo "all in $((SECONDS - t_up)) s after the link came back (bound $BOUND s)" |
		tee "$RDS_TOOLS_WORK/$name.time"
	wire_mark "$name.done"
	[ "$rc" = 0 ] && [ $((SECONDS - t_up)) -le "$BOUND" ] && return 0
	wirecheck_counters - receiver
	return 1
}

# SENDERS sockets that close as soon as sendmsg() took their messages;
# true if every one queued all of them.
send_closing() {	# NAME
	local name=$1 i pids=() rc=0
	for ((i = 0; i < SENDERS; i++)); do
		WC_EXIT=1 "$WC" send "$RDS_WIRE_SELF" "$RDS_WIRE_PEER" "$PORT" "$i" \
			"$MSGS" > "$RDS_TOOLS_WORK/$name.send$i" 2>&1 &
		pids+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i" || rc=1
	done
	cat "$RDS_TOOLS_WORK/$name".send*
	return $rc
}

# The sending side: SENDERS sockets that close as soon as their messages
# are queued, while the peer is unreachable.
fc_send() {	# NAME RELOAD
	local name=$1 reload=$2 rc=0
	if [ "$reload" = 2 ]; then
		# After the receiver's link is down: nothing of the old
		# incarnation's end reaches it.
		wire_wait "$name.ready" 180 || return 1
	fi
	if [ "$reload" != 0 ]; then
		load > /dev/null || return 1
		wire_mark "$name.reloaded"
	fi
	wire_wait "$name.ready" 180 || return 1
	send_closing "$name" || rc=1
	"$T/rds-info" -s 2>/dev/null | awk -v p="$RDS_WIRE_PEER" '$3 == p' | wc -l |
		sed 's/^/messages queued to the peer after every sender closed: /'
	wire_mark "$name.sent"
	wire_wait "$name.done" $((OUTAGE + BOUND + 180)) || rc=1
	wirecheck_counters - sender
	return $rc
}

# The frozen receiver: bound, announced, then it knows nothing until it
# is thawed; everything must be there by the time it checks.
fz_recv() {	# NAME
	local name=$1 out=$RDS_TOOLS_WORK/$1.recv pid rc
	"$WC" recv "$RDS_WIRE_SELF" "$PORT" "$SENDERS" "$MSGS" \
		$((OUTAGE + BOUND + 120)) > "$out" 2>&1 &
	pid=$!
	wirecheck_wait_ready "$out" $pid 30 || { kill $pid; return 1; }
	wire_mark "$name.ready"
	wait $pid
	rc=$?
	wire_mark "$name.done"
	cat "$out"
	[ "$rc" = 0 ] && return 0
	wirecheck_counters - receiver
	return 1
}

# The sender freezes the receiver, queues and closes, thaws it after the
# outage, and times how long the receiver takes to have everything.
fz_send() {	# NAME
	local name=$1 rc=0 t_up
	wire_wait "$name.ready" 180 || return 1
	wire_ctl peer stop || return 1
	send_closing "$name" || rc=1
	sleep "$OUTAGE"
	wire_ctl peer cont || return 1
	t_up=$SECONDS
	wire_wait "$name.done" $((BOUND + 60)) || rc=1
	echo "the receiver had all in $((SECONDS - t_up)) s after it was thawed (bound $BOUND s)" |
		tee "$RDS_TOOLS_WORK/$name.time"
	wirecheck_counters - sender
	[ "$rc" = 0 ] && [ $((SECONDS - t_up)) -le "$BOUND" ]
}

no_loss_counted() {
	local l
	l=$(losses)
	"$T/rds-info" -c 2>/dev/null | awk '/drop|reset|retrans|queued|orphan/ && $2 != 0'
	[ -z "$l" ] || { echo "counted as lost: $l"; return 1; }
}

# Both hosts have RDS up and a connection to the other (pings answered).
established() {
	wire_mark "$1.up"
	wire_wait "$1.up" 120 && rds_ping_all "" 3 "$RDS_WIRE_PEER"
}

# Host a receives and is frozen; host b (ours) sends.
frozen() {	# NAME
	local name=$1
	PORT=$((PORT + 100))
	if ! sender_is_ours a; then
		tap_skip "host $ROLE: a hung receiver" "the sender runs Linux's RDS, which drops a closed socket's messages"
		return 0
	fi
	if [ "$ROLE" = a ]; then
		tap_check "host a receives, frozen for ${OUTAGE} s (a hung node) while $SENDERS closed sockets x $MSGS messages wait over $NAME: all delivered once, in order, intact" \
			fz_recv "$name"
	else
		tap_check "host b freezes host a, sends, closes, thaws it: a has everything within $BOUND s" \
			fz_send "$name"
		sed 's/^/# /' "$RDS_TOOLS_WORK/$name.time" 2>/dev/null
	fi
	if [ "${RDS_IMPL:-}" = ours ]; then
		tap_check "host $ROLE: no message counted as lost ($LOSS_RE)" no_loss_counted
	fi
}

# scenario NAME RECEIVER(a|b) RELOAD DESCRIPTION
scenario() {
	local name=$TRANS-$1 recv=$2 reload=$3 what=$4
	PORT=$((PORT + 100))
	if ! sender_is_ours "$recv"; then
		tap_skip "host $ROLE: $what" "the sender runs Linux's RDS, which drops a closed socket's messages"
		return 0
	fi
	if [ "$ROLE" = "$recv" ]; then
		tap_check "host $ROLE receives: $what, $SENDERS closed sockets x $MSGS messages over $NAME, ${OUTAGE} s outage: all delivered once, in order, intact within $BOUND s" \
			fc_recv "$name" "$reload"
		sed 's/^/# /' "$RDS_TOOLS_WORK/$name.time" 2>/dev/null
	else
		tap_check "host $ROLE sends: $what, $SENDERS sockets close at once after queuing" \
			fc_send "$name" "$reload"
	fi
	if [ "${RDS_IMPL:-}" = ours ]; then
		tap_check "host $ROLE: no message counted as lost ($LOSS_RE)" no_loss_counted
	else
		tap_skip "host $ROLE: no message counted as lost" "Linux's RDS has no such counters"
	fi
}

# What the boot had, for the next program (make check-debug runs
# twohost_iw after this): rxe1 on wire0 and vm.sh's modules.
restore() {
	local m
	for m in rds_tcp rds_iwarp rds_rdma rds_loop rds; do
		if loaded "$m"; then rmmod "$m" || return 1; fi
	done
	if [ "$HAD_RXE1" = 1 ]; then
		wire_device rxe || return 1
	fi
	# shellcheck disable=SC2046
	if [ "${RDS_IMPL:-}" = ours ]; then
		modprobe -a rds rds_loop rds_tcp $([ "$HAD_RXE1" = 1 ] && echo rds_rdma rds_iwarp)
	else
		modprobe -a rds rds_tcp $([ "$HAD_RXE1" = 1 ] && echo rds_rdma)
	fi
}
wire_mark "impl-${RDS_IMPL:-unset}"
PEER_IMPL=$(peer_impl) || { echo "1..0 # SKIP the peer never said its module set"; exit 0; }
if [ "${RDS_IMPL:-}" != ours ] && [ "$PEER_IMPL" != ours ]; then
	echo "1..0 # SKIP Linux on both ends (Linux 6.1 drops a closed socket's messages)"
	exit 0
fi
# Which host sends in a scenario must run ours.
sender_is_ours() {	# RECEIVER(a|b)
	if [ "$ROLE" = "$1" ]; then
		[ "$PEER_IMPL" = ours ]
	else
		[ "${RDS_IMPL:-}" = ours ]
	fi
}
if [ "${RDS_IMPL:-}" != ours ] || [ "$PEER_IMPL" != ours ]; then
	TRANSPORTS=${TRANSPORTS/iw/}
fi
for TRANS in $TRANSPORTS; do
	case "$TRANS" in
	tcp) MODS="rds_tcp" NAME="RDS/TCP" DEV="" ;;
	ib) MODS="rds_rdma" NAME="RDS/IB over rxe1" DEV=rxe ;;
	iw) MODS="rds_iwarp" NAME="RDS/iWARP over siw1" DEV=siw ;;
	*) tap_not_ok "transport '$TRANS' is tcp, ib or iw"; continue ;;
	esac
	echo "# host $ROLE: $RDS_WIRE_SELF -> $RDS_WIRE_PEER over $NAME; outage $OUTAGE s, bound $BOUND s"
	[ -n "$DEV" ] && tap_check "host $ROLE: ${DEV}1 alone on wire0" wire_device "$DEV"
	tap_check "host $ROLE: our $MODS loaded alone" load
	scenario first a 0 "first contact, the lower address unreachable from the start"
	[ "$SHORT" = 1 ] && continue
	scenario reverse b 1 "first contact after a reload, the higher address unreachable and its RDS loaded late"
	tap_check "host $ROLE: the connection is up again (pings both ways)" established "$TRANS-midway"
	scenario midway a 0 "an established connection's link goes down"
	tap_check "host $ROLE: the connection is up again (pings both ways)" established "$TRANS-frozen"
	frozen "$TRANS-frozen"
	tap_check "host $ROLE: the connection is up again (pings both ways)" established "$TRANS-restart"
	scenario restart a 2 "the sender's RDS restarts while the receiver, which keeps its connection, is unreachable"
done
tap_check "host $ROLE: the boot's devices and modules back" restore
tap_done
