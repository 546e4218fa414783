# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# rds-wirecheck helpers (sourced). A message to a port that nobody has
# bound is dropped (recv_drop_no_sock), as in Linux's RDS, so senders may
# start only once the receiver is bound: it says "receiver ready" then.
# A fixed sleep is not enough on a loaded host under TCG (seen: a
# receiver not bound 0.5 s after its start lost a sender's first 8
# messages, counted as lost and reordered).

# wait_for_line FILE PID TEXT [SECONDS]: wait (default 60 s) until the
# process PID, whose output goes to FILE, has printed TEXT; false if it
# exits first or takes longer.
wait_for_line() {
	local i
	for ((i = 0; i < ${4:-60} * 10; i++)); do
		grep -q "$3" "$1" 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	echo "no '$3' from pid $2" >&2
	return 1
}

# wirecheck_wait_ready FILE PID [SECONDS]: the receiver PID, whose output
# goes to FILE, is bound.
wirecheck_wait_ready() {
	wait_for_line "$1" "$2" "receiver ready" "${3:-60}"
}

# wirecheck_ns NS: the command prefix that runs in network namespace NS
# ("-": none, this one), in the array WC_NS. A prefix, not a function:
# a function run in the background is a subshell, and killing that would
# leave its rds-wirecheck behind, still bound.
wirecheck_ns() {
	WC_NS=()
	[ "$1" = - ] || WC_NS=(ip netns exec "$1")
}

# wirecheck_counters NS WHO: what a failed check needs to tell loss in
# the kernel (drops, resets, stuck messages) from loss in the test.
wirecheck_counters() {
	wirecheck_ns "$1"
	echo "$2 (${1/#-/this namespace}):"
	"${WC_NS[@]}" "$T/rds-info" -c 2>&1 |
		awk '/drop|stuck|reset|retransmit|delivered|queued/ && $2 != 0' |
		sed 's/^/  /'
	"${WC_NS[@]}" "$T/rds-info" -n 2>&1 | sed 's/^/  /'
}

# wirecheck_resets NS: its conn_reset counter (0 if not listed).
wirecheck_resets() {
	wirecheck_ns "$1"
	"${WC_NS[@]}" "$T/rds-info" -c 2>/dev/null |
		awk '$1 == "conn_reset" { n = $2 } END { print n + 0 }'
}

# wirecheck_run FROM_NS FROM TO_NS TO SENDERS COUNT STALL RCVBUF
#               [DISTURB...]
# SENDERS sockets on FROM (in FROM_NS, "-" for this namespace) send COUNT
# messages each to TO (in TO_NS), starting once the receiver is bound;
# the receiver stalls STALL seconds with SO_RCVBUF RCVBUF (0 0: neither);
# DISTURB runs in the background meanwhile. Passes when everything
# arrived once, in order, intact, and, with no DISTURB, no connection of
# either end was reset meanwhile (retransmission hides a reset from the
# receiver's checks: the counter does not). Uses $WC, $T, $WORK; bumps
# $PORT.
wirecheck_run() {
	local fns=$1 from=$2 tns=$3 to=$4 senders=$5 count=$6 stall=$7
	local rcvbuf=$8 i rc rpid dpid="" spids=() r0 r1

	shift 8
	r0="$(wirecheck_resets "$fns") $(wirecheck_resets "$tns")"
	rm -f "$WORK"/recv "$WORK"/send* "$WORK"/disturb
	wirecheck_ns "$tns"
	"${WC_NS[@]}" "$WC" recv "$to" "$PORT" "$senders" "$count" 240 \
		"$stall" "$rcvbuf" > "$WORK/recv" 2>&1 &
	rpid=$!
	if ! wirecheck_wait_ready "$WORK/recv" $rpid; then
		kill $rpid 2>/dev/null
		wait $rpid
		cat "$WORK/recv"
		PORT=$((PORT + 100))
		return 1
	fi
	wirecheck_ns "$fns"
	for ((i = 0; i < senders; i++)); do
		"${WC_NS[@]}" "$WC" send "$from" "$to" "$PORT" "$i" \
			"$count" > "$WORK/send$i" 2>&1 &
		spids+=($!)
	done
	if [ $# -gt 0 ]; then
		"$@" > "$WORK/disturb" 2>&1 &
		dpid=$!
	fi
	wait $rpid
	rc=$?
	[ -n "$dpid" ] && wait "$dpid"
	# Senders stay until killed (closing would drop what is unacked).
	kill "${spids[@]}" 2>/dev/null
	wait "${spids[@]}" 2>/dev/null
	cat "$WORK/recv" "$WORK"/send* 2>/dev/null
	[ -n "$dpid" ] && sed 's/^/disturb: /' "$WORK/disturb"
	r1="$(wirecheck_resets "$fns") $(wirecheck_resets "$tns")"
	if [ $# -eq 0 ] && [ "$r0" != "$r1" ]; then
		echo "conn_reset (sender, receiver) went from $r0 to $r1 with nothing disturbing the wire"
		rc=1
	fi
	if [ $rc -ne 0 ]; then
		wirecheck_counters "$tns" receiver
		wirecheck_counters "$fns" sender
	fi
	rm -f "$WORK"/send*
	PORT=$((PORT + 100))
	return $rc
}
