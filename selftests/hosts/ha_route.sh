#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Failover of RDS/IB between two of ours with two ports each (issue 27,
# item 1; Documentation/transports.rst, "High availability"): two guests,
# wire0 (10.99.1.N, rxe1) and wire1 (10.99.2.N, rxe2) each,
#
#	scripts/vm/vmN.sh --hosts 2 --nics 2 --rdma -- \
#		RDS_SUITE=hosts selftests/run.sh ha_route
#
# Each host streams SHA-checked messages (rds-wirecheck, paced) to the
# other's wire0 address. Once they flow, host a's wire0 loses its carrier
# (QEMU's set_link): with routes (the default) the streams must go on
# over wire1 within RDS_HA_BOUND seconds while wire0 is still down, on
# both hosts; then wire0 comes back and the connection must return to it
# (fail-back: host a, the lower address, counts ib_route_failback, and
# rds-info -I shows wire0's GIDs again), and host a's drops name both
# (tracepoint rds_conn_drop: reasons 37 and 39). Every message arrives once, in
# order, intact, and the longest time between two arrivals is at most
# RDS_HA_BOUND (each receiver reports it).
#
# Before the outage host a forges two route requests from wire1 (a bare
# RDMA CM peer, rds-cm-spoof -R): one for the real connection with a
# random token, one for a connection that does not exist; host b must
# refuse both.
#
# RDS_HA_MODE=off runs the same with net.rds.ib.ha_routes=0 on both: the
# behaviour without routes (and Linux's), where nothing arrives while
# wire0 is down and everything after it returns. That is what the
# default mode fails on. RDS_HA_MODE="on off" runs both, in that order,
# in one boot.
#
# RDS_HA_MODE=exclude: routes on, but once the streams flow host a puts
# wire1 in net.rds.ib.ha_exclude (after its advert named wire1's
# address): it takes no route from there (ib_route_connect unchanged)
# and refuses host b's requests to it (ib_route_refused, waited for
# with wire0 still down), so the streams stop as with routes off. Its
# streams use a TOS of their own (WC_TOS), so their connection is new,
# with routes, whatever modes ran before in the same boot.
#
# RDS_HA_MODE=rdma: with routes, a verified rds-stress session with RDMA
# reads and writes both ways (-v -D, --rdma-use-notify) runs across the
# same outage and fail-back. An RDMA in flight when the connection moves
# is never done twice: RDS drops its message and reports the operation
# RDS_RDMA_DROPPED to the side that issued it; the requester, whose ack
# never comes, gives the request up after --rerequest-ms and sends a new
# one. Every request given up on one host must be an RDMA failure
# reported on the other (nothing silently lost), no ack may come after
# its request was given up (nothing stalled that long), none may be left
# unanswered, all data verified, and acks must keep coming while wire0
# is down. Regions registered for the peer while the connection is on
# wire1 are registered on wire1's device (a key is valid on one device).
#
# RDS_HA_MSGS (default 1500 per direction), RDS_HA_PACE_MS (20),
# RDS_HA_MAXLEN (16384 bytes), RDS_HA_BOUND (5 s), RDS_HA_FAILBACK (15 s
# after wire0's return, on top of net.rds.ib.ha_failback_ms).
# Outside a two-host guest with two wires, or with Linux's RDS, it skips.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh
. lib/wire.sh
. lib/rds_tools.sh
. lib/wirecheck.sh
. lib/twohost.sh
WC=$PWD/wirecheck/rds-wirecheck
CMSPOOF=$PWD/cmspoof/rds-cm-spoof
read -ra MODES <<< "${RDS_HA_MODE:-on}"
MODE=${MODES[0]}
MSGS=${RDS_HA_MSGS:-1500}
PACE=${RDS_HA_PACE_MS:-20}
MAXLEN=${RDS_HA_MAXLEN:-16384}
BOUND=${RDS_HA_BOUND:-5}
FAILBACK=${RDS_HA_FAILBACK:-15}
HOLD_MS=3000
PORT=5200
twohost_begin ha-route
W=$RDS_TOOLS_WORK

if [ "${RDS_WIRE_NICS:-1}" -lt 2 ]; then
	echo "1..0 # SKIP one wire per guest (scripts/vm/vmN.sh --nics 2)"
	exit 0
fi
if [ "${RDS_IMPL:-ours}" != ours ]; then
	echo "1..0 # SKIP routes are ours: host $ROLE runs ${RDS_IMPL}"
	exit 0
fi

# tap_check runs its command in a subshell and shows its output only on
# failure; these steps keep state (the streams' pids, verdicts) and their
# numbers are the point, so: in this shell, output always shown.
check_here() {	# DESC CMD...
	local desc=$1 rc
	shift
	"$@" > "$W/step.out" 2>&1
	rc=$?
	if [ "$rc" = 0 ]; then tap_ok "$desc"; else tap_not_ok "$desc"; fi
	sed 's/^/# /' "$W/step.out"
}

# Do this mode's streams go on over wire1?
routed() { [ "$MODE" = on ]; }
# Their own connection in the exclude mode (see above).
stream_tos() { if [ "$MODE" = exclude ]; then echo 3; else echo 0; fi; }

progress() { cat "$W/progress.$MODE" 2>/dev/null || echo 0; }
mark() { wire_mark "$MODE.$1"; }
await() { wire_wait "$MODE.$1" "${2:-120}"; }
ms() { echo $(($(date +%s%N) / 1000000)); }

# The RDMA device on NETDEV is ACTIVE.
port_active() {	# NETDEV
	rdma link show | grep -q "state ACTIVE.*netdev $1\$\|state ACTIVE.*netdev $1 "
}

setup() {
	rdma link show
	modprobe rds_rdma || return 1
	rds_impl_matches rds_rdma || return 1
	local routes=1
	[ "$MODE" = off ] && routes=0
	sysctl -qw net.rds.ib.ha_routes=$routes || return 1
	sysctl -qw net.rds.ib.ha_exclude= || return 1
	sysctl -qw net.rds.ib.ha_failback_ms=$HOLD_MS || return 1
	ROUTE_CONNECT0=$(rds_counter ib_route_connect)
	FAILOVER0=$(rds_counter ib_route_failover)
	port_active wire0 && port_active wire1
}

# The local GID of the connection to the peer's wire0 address (rds-info
# -I): with RoCE, the address of the route in use.
route_gid() {
	"$RDS_TOOLS/rds-info" -I 2>/dev/null |
		awk -v p="$RDS_WIRE_PEER" '$2 == p { print $5; exit }'
}

start_streams() {
	WC_TOS=$(stream_tos) WC_PROGRESS=$W/progress.$MODE "$WC" recv "$RDS_WIRE_SELF" $PORT 1 \
		"$MSGS" 400 > "$W/recv.$MODE" 2>&1 &
	RPID=$!
	wirecheck_wait_ready "$W/recv.$MODE" $RPID 30 || return 1
	mark rx
	await rx || return 1
	WC_TOS=$(stream_tos) WC_PACE_MS=$PACE WC_MAXLEN=$MAXLEN "$WC" send "$RDS_WIRE_SELF" \
		"$RDS_WIRE_PEER" $PORT 0 "$MSGS" > "$W/send.$MODE" 2>&1 &
	SPID=$!
	# Flowing both ways before anything breaks.
	local i
	for ((i = 0; i < 600; i++)); do
		[ "$(progress)" -ge 50 ] && break
		sleep 0.1
	done
	echo "route before: $(route_gid)"
	[ "$(progress)" -ge 50 ]
}

# Forged route requests from host a's wire1 address: refused by host b.
forged_routes() {
	local rc=0
	"$CMSPOOF" -R "$RDS_WIRE_SELF,$RDS_WIRE_PEER" "$RDS_WIRE1_SELF" \
		"$RDS_WIRE1_PEER" || rc=1
	"$CMSPOOF" -R "$RDS_WIRE_SELF,$RDS_WIRE_PEER" -O 9 "$RDS_WIRE1_SELF" \
		"$RDS_WIRE1_PEER" || rc=1
	mark forged
	return $rc
}

# Host b: both refused as routes for no connection we gave (not as a
# race, which would have dropped the real connection first).
forged_refused() {
	local r0 s0 r1 s1
	r0=$(rds_counter ib_route_refused)
	s0=$(rds_counter ib_listen_closed_stale)
	mark forge
	await forged || return 1
	r1=$(rds_counter ib_route_refused)
	s1=$(rds_counter ib_listen_closed_stale)
	echo "ib_route_refused +$((r1 - r0)), ib_listen_closed_stale +$((s1 - s0))"
	[ $((r1 - r0)) -ge 2 ] && [ "$s1" = "$s0" ]
}

# While host a's wire0 is down: do messages still arrive here? Counts
# from 1 s after the carrier went (what was in flight has landed by
# then); at least 10 more within BOUND seconds. Prints the time to the
# first of them and writes the verdict (flowing/stalled) for the peer.
watch_outage() {	# T_DOWN_MS
	local c0 c t i
	while [ $(($(ms) - $1)) -lt 1000 ]; do sleep 0.05; done
	c0=$(progress)
	for ((i = 0; i < BOUND * 20; i++)); do
		c=$(progress)
		if [ "$c" -gt $((c0 + 10)) ]; then
			t=$(($(ms) - $1))
			echo "messages arrive again $t ms after the carrier went ($c0 -> $c); route now $(route_gid)"
			mark flowing
			return 0
		fi
		sleep 0.05
	done
	echo "nothing new within $BOUND s of the carrier going ($c0 -> $(progress)); route $(route_gid)"
	mark stalled
	return 1
}

outage_ok() {	# VERDICT: flowing with routes, stalled without
	if routed; then
		[ "$1" = flowing ]
	else
		[ "$1" = stalled ]
	fi
}

# Host a, with routes: the lane's drops say why (tracepoint
# rds_conn_drop in a trace instance of our own): the port going down
# moves it (RDS_DROP_FAILOVER, 37), the fail-back ends the alternate
# route (RDS_DROP_FAILBACK, 39). rds-info -p keeps only the last reason,
# which a refused attempt may overwrite.
DROPS=/sys/kernel/tracing/instances/rds-ha-route
# The lane's state changes and the CM's events go in too: the timeline
# of the move, printed with the check.
drops_trace_on() {
	{ [ -d "$DROPS" ] || mkdir "$DROPS"; } &&
		echo 1 > "$DROPS/events/rds/rds_conn_drop/enable" &&
		echo 1 > "$DROPS/events/rds/rds_conn_state/enable" &&
		echo 1 > "$DROPS/events/rds_rdma/rds_rdma_cm_event/enable" &&
		echo > "$DROPS/trace" && echo 1 > "$DROPS/tracing_on"
}
drops_named() {
	local t
	echo 0 > "$DROPS/tracing_on"
	grep -v "^#" "$DROPS/trace" | sed 's/^ *//' | head -n 80
	t=$(grep -E -- "rds_conn_drop: (::ffff:)?$RDS_WIRE_SELF -> (::ffff:)?$RDS_WIRE_PEER tos 0 " "$DROPS/trace")
	grep -q "reason=37$" <<< "$t" && grep -q "reason=39$" <<< "$t"
}

# The exclude mode, host a: wire1 excluded now, after the advert.
exclude_wire1() {
	sysctl -qw net.rds.ib.ha_exclude=wire1 || return 1
	REFUSED0=$(rds_counter ib_route_refused)
}

# ... and wire0 stays down until host b asked for a route to wire1 and
# was refused (its queue pair's retries end within about 10 s).
refused_wire1() {
	local i n
	for ((i = 0; i < 300; i++)); do
		n=$(rds_counter ib_route_refused)
		[ "$n" -gt "$REFUSED0" ] && break
		sleep 0.1
	done
	echo "ib_route_refused $REFUSED0 -> $n"
	[ "$n" -gt "$REFUSED0" ]
}
refused_seen() { cat "$W/refused.out"; return "$REFUSED_RC"; }

# The exclude mode: no route was tried here (host a), none came up
# (host b).
no_route_tried() {
	local n
	n=$(rds_counter ib_route_connect)
	echo "ib_route_connect $ROUTE_CONNECT0 -> $n"
	[ "$n" = "$ROUTE_CONNECT0" ]
}
# Host b's requests were refused as routes host a will not take
# (reject word 2, rds_rdma_cm.c), so its next attempts go elsewhere.
no_route_up() {
	local n rej
	n=$(rds_counter ib_route_failover)
	echo 0 > "$DROPS/tracing_on"
	rej=$(grep -c "REJECTED status=28 rej_data=2$" "$DROPS/trace")
	echo "ib_route_failover $FAILOVER0 -> $n; ib_route_connect $ROUTE_CONNECT0 -> $(rds_counter ib_route_connect); $rej refused as routes"
	[ "$n" = "$FAILOVER0" ] && [ "$rej" -gt 0 ]
}

verdict() { if outage_ok "$1"; then return 0; fi; return 1; }

# Host a: take wire0 down, judge both directions, bring it back, and
# see the connection return to wire0.
host_a_outage() {
	local t_down rc_here=0 peer=none i
	wire_ctl self set_link wire off || return 1
	t_down=$(ms)
	echo "carrier down at message $(progress) here"
	mark down
	if watch_outage "$t_down"; then HERE=flowing; else HERE=stalled; fi
	for ((i = 0; i < (BOUND + 10) * 10; i++)); do
		[ -e "$RDS_WIRE_DIR/b.$MODE.flowing" ] && { peer=flowing; break; }
		[ -e "$RDS_WIRE_DIR/b.$MODE.stalled" ] && { peer=stalled; break; }
		sleep 0.1
	done
	PEER_VERDICT=$peer
	echo "host a receives: $HERE; host b receives: $peer (wire0 still down)"
	echo "counters here: failover $(rds_counter ib_route_failover) port_error $(rds_counter ib_route_port_error) connect $(rds_counter ib_route_connect)"
	if [ "$MODE" = exclude ]; then
		refused_wire1 > "$W/refused.out" 2>&1
		REFUSED_RC=$?
	fi
	wire_ctl self set_link wire on || rc_here=1
	T_UP=$(ms)
	echo "carrier back at message $(progress) here"
	mark up
	return $rc_here
}

failback_seen() {
	local fb0=$1 i gid
	for ((i = 0; i < (HOLD_MS / 1000 + FAILBACK) * 10; i++)); do
		gid=$(route_gid)
		if [ "$(rds_counter ib_route_failback)" -gt "$fb0" ] &&
		   [ "$gid" = "::ffff:$RDS_WIRE_SELF" ]; then
			echo "fail-back $(($(ms) - T_UP)) ms after wire0 came back (hold ${HOLD_MS} ms); route $gid"
			return 0
		fi
		sleep 0.1
	done
	echo "no fail-back within $((HOLD_MS / 1000 + FAILBACK)) s: ib_route_failback $(rds_counter ib_route_failback) (was $fb0), route $(route_gid)"
	return 1
}

# Our sender handed everything to RDS, our receiver judged, and the
# peer's receiver is done too before our sender goes (its socket's
# messages would be delivered all the same, but that is not the test).
finish_streams() {
	local rc
	wait_for_line "$W/send.$MODE" "$SPID" "sent $MSGS" 400
	wait "$RPID"
	rc=$?
	mark rxdone
	await rxdone 400
	kill "$SPID" 2>/dev/null
	wait "$SPID" 2>/dev/null
	RPID="" SPID=""
	cat "$W/recv.$MODE"
	return $rc
}

gap_ok() {
	local g
	g=$(awk '/longest gap/ { print $4 }' "$W/recv.$MODE")
	echo "longest gap between arrivals: ${g:-?} s (bound $BOUND s)"
	[ -n "$g" ] && awk -v g="$g" -v b="$BOUND" 'BEGIN { exit !(g <= b) }'
}

report() {
	local n
	for n in ib_route_advert_sent ib_route_advert_received ib_route_connect \
		 ib_route_accepted ib_route_refused ib_route_failover \
		 ib_route_failback ib_route_port_error ib_key_away_sent \
		 ib_key_refused conn_reset; do
		echo "# host $ROLE: $n $(rds_counter $n)"
	done
}

# The rdma mode. RR_SECS of rds-stress; wire0 goes at RR_DOWN s for
# RR_OUT s; a request is given up after RR_GIVE_UP ms. Requests in flight
# at the move hold their slots until given up, so acks are looked for
# from then on; the fail-back (HOLD_MS after the return) and the
# give-ups it causes end well before the run does, so nothing is left
# unanswered.
RR_SECS=64 RR_DOWN=6 RR_OUT=16 RR_GIVE_UP=6000
# On the debug kernel (KASAN: a round trip takes up to a second) one
# ack in a run came after 6 s, late rather than lost (2026-11-28).
[ -e /sys/kernel/debug/kmemleak ] && RR_GIVE_UP=12000
# The session's seconds, its start (18 s there) and the waits for the
# last acks after it (up to RR_GIVE_UP, each side).
RR_LIMIT=180
rr_args=(-t 2 -d 8 -q 1024 -a 256 -D 65536 -M 0 --rdma-use-notify
	 --rerequest-ms "$RR_GIVE_UP" -T "$RR_SECS")

# judge_rdma OWN [PEER T_DOWN T_UP]: OWN (this side's JSON) is verified
# and explained; with PEER (the other side's), each request one side
# gave up is an RDMA failure the other side was told of, and acks kept
# coming while wire0 was down (T_DOWN and T_UP: seconds into the run)
# once the requests caught in the move were given up.
judge_rdma() {
	python3 - "$@" <<'PY'
import json, sys
def load(f):
    try:
        return json.load(open(f))
    except Exception as e:
        print("no JSON in %s: %s" % (f, e))
        print(open(f).read())
        sys.exit(1)
d = load(sys.argv[1])
r = d.get("rerequests") or {}
print("status %s, %s tx, %s rx, verify_errors %s; given up %s, late acks %s, "
      "unanswered %s; RDMA failures reported %s (dropped %s, other %s)" %
      (d["status"], d["messages_tx"], d["messages_rx"], d["verify_errors"],
       r.get("given_up"), r.get("late_acks"), r.get("unanswered"), d["rdma_errors"],
       r.get("rdma_dropped"), d["rdma_errors"] - r.get("rdma_dropped", 0)))
ok = (d["status"] == "ok" and d["options"]["verify"] and d["verify_errors"] == 0
      and d["messages_tx"] > 0 and d["messages_rx"] > 0 and bool(r)
      and r["late_acks"] == 0 and r["unanswered"] == 0)
if len(sys.argv) > 2:
    p = load(sys.argv[2])
    pr = p.get("rerequests") or {}
    down, up = float(sys.argv[3]), float(sys.argv[4])
    # Each ack that never came: its RDMA failed, and the side that
    # issued it was told (a status). The reverse need not hold: an
    # operation whose completion the move cut off is reported failed
    # even if it reached the peer, and so may its ack.
    print("host a gave up %s, host b was told of %s failed RDMA; host b gave up %s, "
          "host a was told of %s" % (r.get("given_up"), p["rdma_errors"],
                                     pr.get("given_up"), d["rdma_errors"]))
    ok = ok and bool(pr) and r["given_up"] <= p["rdma_errors"] \
        and pr.get("given_up") <= d["rdma_errors"]
    # Rows are seconds from the start of the sending, which comes up to
    # two seconds after T_DOWN's and T_UP's origin (the handshake): from
    # the give-up after the move (and a second) to two seconds before
    # the return. A second with a round trip had an ack (requests alone
    # count in rx_per_s, not in rtt_usec).
    first = int(down + float(sys.argv[5]) / 1000) + 1
    rows = d["intervals"][first:int(up) - 2]
    acked = [round(x["rx_per_s"]) if x["rtt_usec"] > 0 else 0 for x in rows]
    print("messages received per second with acks among them while wire0 was down, "
          "from %d s: %s" % (first, acked))
    ok = ok and len(rows) >= 3 and sum(1 for x in acked if x > 0) * 2 >= len(rows)
sys.exit(0 if ok else 1)
PY
}

rdma_serve() {
	RDS_STRESS_LIMIT=$RR_LIMIT rds_stress_serve "" "$W/rdma.passive" \
		"$RDS_WIRE_SELF" $PORT || return 1
	mark serving
}

rdma_served() {
	local rc
	wait "$RDS_STRESS_PID"
	rc=$?
	echo "passive exit $rc"
	cat "$W/rdma.passive.err"
	cp "$W/rdma.passive" "$RDS_WIRE_DIR/b.rdma.json"
	mark judged
	judge_rdma "$W/rdma.passive" && [ "$rc" = 0 ]
}

# Host a: the active side, with wire0 down RR_DOWN s into the run for
# RR_OUT s; judged with host b's counts.
rdma_run() {
	local t0 t_down t_up rc
	await serving || return 1
	t0=$(ms)
	timeout $RR_LIMIT "$RDS_TOOLS/rds-stress" -s "$RDS_WIRE_PEER" -r "$RDS_WIRE_SELF" \
		-p $PORT -v --json "${rr_args[@]}" > "$W/rdma.active" 2> "$W/rdma.active.err" &
	RPID=$!
	sleep $RR_DOWN
	wire_ctl self set_link wire off || return 1
	t_down=$(ms)
	sleep $RR_OUT
	wire_ctl self set_link wire on || return 1
	t_up=$(ms)
	echo "wire0 down from $(((t_down - t0) / 1000)) s to $(((t_up - t0) / 1000)) s of the run"
	wait "$RPID"
	rc=$?
	RPID=""
	echo "active exit $rc"
	cat "$W/rdma.active.err"
	echo "counters here: failover $(rds_counter ib_route_failover) failback $(rds_counter ib_route_failback) send_drop_rdma $(rds_counter send_drop_rdma)"
	await judged 120 || return 1
	judge_rdma "$W/rdma.active" "$RDS_WIRE_DIR/b.rdma.json" \
		$(((t_down - t0) / 1000)) $(((t_up - t0) / 1000)) "$RR_GIVE_UP" && [ "$rc" = 0 ]
}

# mode_trace: once a second, the lanes, their routes and the route and
# reset counters, to the shared directory (ROLE.MODE.trace): what a
# failure of a mode is diagnosed from. A lane disconnecting for three
# samples in a row has the blocked tasks' stacks put in the kernel log,
# once (where its shutdown waits).
mode_trace() {
	local f=$RDS_WIRE_DIR/$ROLE.$MODE.trace
	(
		stuck=0
		while :; do
			echo "== $(date +%s.%N)"
			lanes=$("$RDS_TOOLS/rds-info" -p -I -n 2>&1)
			echo "$lanes"
			"$RDS_TOOLS/rds-info" -c 2>/dev/null |
				grep -E "route|conn_reset|rdma_err|drop_rdma|_error|ib_key_"
			if grep -q ' disconnecting ' <<< "$lanes"; then
				stuck=$((stuck + 1))
			else
				[ $stuck -ge 0 ] && stuck=0
			fi
			if [ $stuck -ge 3 ]; then
				echo "== a lane stays disconnecting: blocked tasks to the kernel log"
				echo w > /proc/sysrq-trigger
				stuck=-1000000
			fi
			sleep 1
		done
	) > "$f" 2>&1 &
	TRACE_PID=$!
}

scenario_a_rdma() {
	echo "# host a: routes on, rds-stress ${rr_args[*]} -v across wire0's outage"
	check_here "host a (rdma): rxe on wire0 and wire1 ACTIVE, rds_rdma loaded, ha_routes on" setup
	mode_trace
	check_here "host a (rdma): verified RDMA both ways across wire0's outage and fail-back: every request given up was an RDMA failure reported to host b, none late or unanswered, acks while wire0 was down" rdma_run
	mark finished
	kill "$TRACE_PID"
	await finished 300
	report
}

scenario_b_rdma() {
	check_here "host b (rdma): rxe on wire0 and wire1 ACTIVE, rds_rdma loaded, ha_routes on" setup
	mode_trace
	check_here "host b (rdma): passive rds-stress listening on wire0's address" rdma_serve
	check_here "host b (rdma): its session verified, none late or unanswered" rdma_served
	mark finished
	kill "$TRACE_PID"
	await finished 300
	report
}

RPID="" SPID="" TRACE_PID=""
trap 'wire_ctl self set_link wire on >/dev/null 2>&1; kill $RPID $SPID $TRACE_PID 2>/dev/null; rm -rf "$RDS_TOOLS_WORK"; [ -d "$DROPS" ] && echo 0 > "$DROPS/tracing_on" && rmdir "$DROPS"' EXIT
wire_mark "impl-${RDS_IMPL:-unset}"

scenario_a() {
	echo "# host a: routes $MODE, $MSGS messages each way, every $PACE ms, up to $MAXLEN bytes"
	check_here "host a ($MODE): rxe on wire0 and wire1 ACTIVE, rds_rdma loaded, ha_routes $MODE" setup
	mode_trace
	check_here "host a ($MODE): streams both ways over wire0's addresses" start_streams
	await forge
	check_here "host a ($MODE): forged route requests (wrong token, no such connection) refused" forged_routes
	[ "$MODE" = exclude ] &&
		check_here "host a ($MODE): wire1 excluded (ha_exclude), after its advert" exclude_wire1
	FB0=$(rds_counter ib_route_failback)
	routed && drops_trace_on
	check_here "host a ($MODE): wire0's carrier down and back" host_a_outage
	if ! routed; then
		check_here "host a ($MODE): nothing arrives while wire0 is down (no routes)" verdict "$HERE"
		check_here "host a ($MODE): host b got nothing either" verdict "$PEER_VERDICT"
		[ "$MODE" = exclude ] &&
			check_here "host a ($MODE): host b's request for a route to wire1 refused here, wire0 still down" refused_seen
		tap_skip "host a ($MODE): fail-back" "no routes"
	else
		check_here "host a ($MODE): messages from host b arrive over wire1 within $BOUND s, wire0 still down" verdict "$HERE"
		check_here "host a ($MODE): host b's arrive over wire1 within $BOUND s too" verdict "$PEER_VERDICT"
		check_here "host a ($MODE): the connection returns to wire0 (fail-back)" failback_seen "$FB0"
		check_here "host a ($MODE): its drops name the move and the return (reasons 37 and 39, tracepoint rds_conn_drop)" drops_named
	fi
	check_here "host a ($MODE): $MSGS messages from host b: exactly once, in order, intact" finish_streams
	if ! routed; then
		tap_skip "host a ($MODE): longest gap" "no routes: the gap is the outage"
	else
		check_here "host a ($MODE): longest gap between arrivals at most $BOUND s" gap_ok
	fi
	[ "$MODE" = exclude ] &&
		check_here "host a ($MODE): no route tried here (wire1 excluded)" no_route_tried
	mark finished
	kill "$TRACE_PID"
	await finished 300
	report
}

scenario_b() {
	check_here "host b ($MODE): rxe on wire0 and wire1 ACTIVE, rds_rdma loaded, ha_routes $MODE" setup
	[ "$MODE" = exclude ] && drops_trace_on
	mode_trace
	check_here "host b ($MODE): streams both ways over wire0's addresses" start_streams
	check_here "host b ($MODE): host a's forged route requests refused as such, the connection untouched" forged_refused
	await down 300
	echo "# carrier of host a down at message $(progress) here"
	watch_outage "$(ms)" | sed "s/^/# /"
	await up 300
	echo "# carrier of host a back at message $(progress) here"
	check_here "host b ($MODE): $MSGS messages from host a: exactly once, in order, intact" finish_streams
	if ! routed; then
		tap_skip "host b ($MODE): longest gap" "no routes: the gap is the outage"
	else
		check_here "host b ($MODE): longest gap between arrivals at most $BOUND s" gap_ok
	fi
	[ "$MODE" = exclude ] &&
		check_here "host b ($MODE): no connection came up on a route (host a refused them as routes it will not take)" no_route_up
	mark finished
	kill "$TRACE_PID"
	await finished 300
	report
}

plan=0
for MODE in "${MODES[@]}"; do
	case "$ROLE:$MODE" in
	a:rdma) plan=$((plan + 2)) ;;
	b:rdma) plan=$((plan + 3)) ;;
	a:exclude) plan=$((plan + 12)) ;;
	a:on) plan=$((plan + 10)) ;;
	b:exclude) plan=$((plan + 6)) ;;
	a:*) plan=$((plan + 9)) ;;
	b:*) plan=$((plan + 5)) ;;
	esac
done
tap_plan $plan
for MODE in "${MODES[@]}"; do
	case "$ROLE:$MODE" in
	a:rdma) scenario_a_rdma ;;
	b:rdma) scenario_b_rdma ;;
	a:*) scenario_a ;;
	b:*) scenario_b ;;
	esac
	PORT=$((PORT + 10))
done
tap_done
