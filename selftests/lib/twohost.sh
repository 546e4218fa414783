# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The steps both two-host RDMA scripts (hosts/twohost_ib.sh over rxe1,
# hosts/twohost_iw.sh over siw1) take on their wire: host b serves, host
# a is the client, and each side marks and waits through lib/wire.sh.
# Sourced after lib/tap.sh, lib/wire.sh, lib/rds_tools.sh and
# lib/wirecheck.sh; the caller sets WC (rds-wirecheck) and MSGS (messages
# per wirecheck sender), WC_SENDERS if not 2, and calls twohost_begin.

loaded() { grep -q "^$1 " /proc/modules; }

# twohost_begin NAME: the scratch directory (RDS_TOOLS_WORK, removed at
# exit with any wirecheck sender left), the rds-stress summary, and this
# host's role in ROLE; outside a two-host guest, skip the whole script.
twohost_begin() {
	RDS_TOOLS_WORK=$(mktemp -d "/tmp/rds-$1.XXXXXX")
	RDS_STRESS_SUMMARY=$RDS_TOOLS_WORK/summary
	trap 'pkill -f "rds-wirecheck send" 2>/dev/null; rm -rf "$RDS_TOOLS_WORK"' EXIT
	if ! ROLE=$(wire_role); then
		echo "1..0 # SKIP not a two-host guest (run it through scripts/vm/vm2.sh)"
		exit 0
	fi
}

# Each host marks its module set, so the other knows what it talks to.
peer_is_ours() {
	[ -e "$RDS_WIRE_DIR/$(wire_peer_role).impl-ours" ]
}

# The peer's module set, once it said (wire_mark impl-ours or
# impl-intree): waits up to 120 s.
peer_impl() {
	local i p
	p=$(wire_peer_role) || return 1
	for ((i = 0; i < 1200; i++)); do
		[ -e "$RDS_WIRE_DIR/$p.impl-ours" ] && { echo ours; return 0; }
		[ -e "$RDS_WIRE_DIR/$p.impl-intree" ] && { echo intree; return 0; }
		sleep 0.1
	done
	return 1
}

# Host b: one passive rds-stress, announced once it listens (or failed).
serve() {	# NAME PORT ADDRESS
	local rc=1
	rds_stress_serve "" "$RDS_TOOLS_WORK/$1.passive" "$3" "$2" && rc=0
	wire_mark "$1"
	[ "$rc" = 0 ] && rds_stress_served "$RDS_TOOLS_WORK/$1.passive"
}

# Host a: the active side of the session host b announced as NAME.
client() {	# NAME PORT PEER LOCAL ARGS...
	local name=$1 port=$2 peer=$3 local=$4
	shift 4
	wire_wait "$name" 180 || return 1
	rds_stress_run "" "$RDS_TOOLS_WORK/$name" "$peer" "$local" "$port" "$@"
}

# The receiving end of a wirecheck: listen, announce NAME, check.
wc_recv() {	# NAME PORT ADDRESS [COUNT]
	local out=$RDS_TOOLS_WORK/$1.recv rc
	"$WC" recv "$3" "$2" "${WC_SENDERS:-2}" "${4:-$MSGS}" 240 > "$out" 2>&1 &
	local pid=$!
	# Bound before the peer sends (else its first messages find no
	# socket and are dropped): rds-wirecheck says so.
	wirecheck_wait_ready "$out" $pid 30
	wire_mark "$1"
	wait $pid
	rc=$?
	wire_mark "$1.done"
	cat "$out"
	return $rc
}

# The sending end: once the peer listens, WC_SENDERS (2) sockets; they stay (so
# nothing is dropped at close) until the peer has checked. DISTURB, if
# given, runs meanwhile and must succeed too.
wc_send() {	# NAME PORT LOCAL PEER [COUNT [DISTURB...]]
	local name=$1 port=$2 self=$3 peer=$4 count=${5:-$MSGS} i pids=() rc=0
	shift $(($# < 5 ? $# : 5))
	wire_wait "$name" 180 || return 1
	for ((i = 0; i < ${WC_SENDERS:-2}; i++)); do
		"$WC" send "$self" "$peer" "$port" "$i" "$count" \
			> "$RDS_TOOLS_WORK/$name.send$i" 2>&1 &
		pids+=($!)
	done
	if [ $# -gt 0 ]; then
		"$@" || { echo "disturbance '$*' failed"; rc=1; }
	fi
	wire_wait "$name.done" 300 || rc=1
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	cat "$RDS_TOOLS_WORK/$name".send*
	return $rc
}

# The first ping waits for a new connection: 20 s, not 5 (a loaded CI
# host took longer over siw, 2026-11-28).
ping_when_ready() {	# ADDRESS: after host b is up
	wire_wait ready 180 && rds_ping_all "" 5 -W 20 "$1"
}

# The last messages a host sends are acked only if the peer is asked to
# or answers with traffic of its own: Linux's rds_rdma acks only when
# asked (every 8 messages), so what our side sent last would sit on its
# retransmit queue (and fail run.sh's live-object check) until more
# traffic came. Our receiver acks such a tail by itself. So a host that
# runs ours pings its peer once more on each connection when the peer
# has nothing more to send: the pongs carry the acks. The short variants
# send nothing over IPv6: there is no IPv6 tail, and a ping would be that
# family's first contact, not an ack.
tail_ping() {
	[ "${RDS_IMPL:-}" = ours ] || { echo "not ours: nothing to do"; return 0; }
	rds_ping_all "" 1 "$RDS_WIRE_PEER" || return 1
	[ "${RDS_WIRE_SHORT:-0}" = 1 ] && return 0
	rds_ping_all "" 1 "$RDS_WIRE_PEER6"
}

# rdma_conn TRANSPORT OPTION PEER: rds-info -n has the connection to PEER
# over TRANSPORT (infiniband, iwarp), up (flag C); for IB, rds-info -I
# lists it with its rings and the RoCE GIDs of both addresses (IPv4's
# v4-mapped); for iWARP, whose uapi table (-W) has no IPv6 twin, an IPv4
# connection is listed there with its rings and a local GID (iWARP's come
# from the MAC, and the passive side's RDMA CM knows no remote one).
rdma_conn() {
	local trans=$1 opt=$2 peer=$3 info rings
	info=$("$RDS_TOOLS/rds-info" -n 2>&1)
	rings=$("$RDS_TOOLS/rds-info" "$opt" 2>&1)
	echo "$info"
	echo "$rings"
	rds_info_has_conn "$info" "" "$peer" "$trans" C || {
		echo "no $trans connection to $peer in rds-info -n; its lanes' history:"
		"$RDS_TOOLS/rds-info" -p 2>&1
		return 1
	}
	if [ "$trans" = iwarp ]; then
		[[ "$peer" == *:* ]] && return 0
		echo "$rings" | awk -v p="$peer" '
			$2 == p && $5 != "::" && $7 > 0 && $8 > 0 { f = 1 } END { exit !f }'
	else
		echo "$rings" | awk -v p="$peer" '
			$2 == p && $7 > 0 && $8 > 0 &&
			($5 == $1 || $5 == "::ffff:" $1) &&
			($6 == p || $6 == "::ffff:" p) { f = 1 }
			END { exit !f }'
	fi || { echo "no $trans connection to $peer with its rings in rds-info $opt"; return 1; }
}

# key_target PORT / key_owner PORT (RDS/IB and RDS/iWARP, two of ours):
# a key named by a socket that closed before its message left, used by
# the peer (selftests/keypeer/rds-key-peer, TOS 9, a connection of its
# own). The owner (host a) says the key is valid nowhere, and host b's
# write to it is refused on host b (RDS_RDMA_DROPPED) instead of
# breaking the queue pair (REMOTE_ERROR and a reset of the connection
# for all its users, what Linux does). A live key on the same
# connection still works.
KP=$PWD/keypeer/rds-key-peer
key_target() {	# PORT
	local out=$RDS_TOOLS_WORK/key.target pid rc refused
	refused=$(rds_counter ib_key_refused)
	"$KP" target "$RDS_WIRE_SELF" "$1" 9 > "$out" 2>&1 &
	pid=$!
	wait_for_line "$out" $pid "target ready" 10
	wire_mark keys
	wait $pid
	rc=$?
	cat "$out"
	refused=$(($(rds_counter ib_key_refused) - refused))
	echo "ib_key_refused +$refused (want 1)"
	[ "$rc" = 0 ] && [ "$refused" = 1 ] && return 0
	echo "the lanes' history, and the kernel's last words:"
	"$RDS_TOOLS/rds-info" -p 2>&1
	dmesg | tail -n 20
	return 1
}
# key_restart_peer MODULE / key_restart_seen BASE (two of ours): a peer
# that restarts registers its regions anew, and one of its new keys may
# equal one it named before: refused here for the old key's route. So a
# connection forgets the peer's keys when the peer's route token (one
# per connection object) changes. Host a reloads MODULE and pings host
# b: host b's connection from it hears a new token and counts the
# forgetting in ib_key_forgotten (BASE: its value before).
key_restart_peer() {	# MODULE
	local rc=1
	# Host b waits for the mark: it goes whatever happened here.
	if ! rmmod "$1"; then
		lsmod | grep '^rds'
	elif modprobe "$1"; then
		rds_ping_all "" 5 -W 20 "$RDS_WIRE_PEER"
		rc=$?
	fi
	wire_mark restarted
	return $rc
}
key_restart_seen() {	# BASE
	local n i
	wire_wait restarted 180 || return 1
	# The advert goes when the connection is up, beside the pings.
	for i in $(seq 20); do
		n=$(($(rds_counter ib_key_forgotten) - $1))
		[ "$n" -ge 1 ] && break
		sleep 0.5
	done
	echo "ib_key_forgotten +$n (want at least 1)"
	[ "$n" -ge 1 ] && return 0
	"$RDS_TOOLS/rds-info" -p 2>&1
	return 1
}
key_owner() {	# PORT
	local away rc
	away=$(rds_counter ib_key_away_sent)
	wire_wait keys 180 || return 1
	"$KP" owner "$RDS_WIRE_SELF" "$RDS_WIRE_PEER" "$1" 9
	rc=$?
	away=$(($(rds_counter ib_key_away_sent) - away))
	echo "ib_key_away_sent +$away (want 1)"
	[ "$rc" = 0 ] && [ "$away" = 1 ] && return 0
	echo "the lanes' history, the key counters and the kernel's last words:"
	"$RDS_TOOLS/rds-info" -p 2>&1
	"$RDS_TOOLS/rds-info" -c 2>&1 | grep -E 'key|reset|drop'
	dmesg | tail -n 20
	return 1
}
