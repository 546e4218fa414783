# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Checks built on tools/rds-ping, rds-stress and rds-info (sourced), for
# tests between two RDS hosts: a netns pair in one guest
# (selftests/hosts/netns_tcp.sh) or two guests (selftests/hosts/twohost_tcp.sh).
# Each prints what it saw (the TAP diagnostics on failure) and returns
# non-zero unless the result is real: replies counted, payloads verified,
# the connection found over TCP. A command prefix such as "$NETNS_A_EXEC"
# (see netns_pair.sh: "ip netns exec NAME") runs a tool in a namespace;
# "" runs it here.
RDS_TOOLS=${RDS_TOOLS:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../tools" && pwd)}
RDS_TCP_PORT=16385
# The lossy link of the wire tests: TCP must retransmit (loss, reorder)
# and drop (duplicates, corruption); RDS must deliver everything intact
# and in order regardless. reorder needs a delay to act on.
RDS_NETEM_LOSSY=(loss 5% duplicate 1% delay 2ms reorder 25% 50% corrupt 0.1%)

# rds_counter NAME [PREFIX]: one RDS_INFO_COUNTERS value (0 if not
# listed), read through the command prefix PREFIX if given.
rds_counter() {
	# shellcheck disable=SC2086
	${2:-} "$RDS_TOOLS/rds-info" -c 2>/dev/null |
		awk -v n="$1" '$1 == n { v = $2 } END { print v + 0 }'
}

# rds_impl_matches [MODULE...]: the loaded rds.ko is the set RDS_IMPL names
# (ours is out of tree, so the kernel taints it with O; Linux's is not),
# and each MODULE (default: rds_tcp) is loaded.
rds_impl_matches() {
	local taint m
	taint=$(cat /sys/module/rds/taint 2>/dev/null) || { echo "rds not loaded"; return 1; }
	echo "RDS_IMPL=${RDS_IMPL:-unset}, rds taint '$taint'"
	for m in "${@:-rds_tcp}"; do
		[ -d "/sys/module/$m" ] || { echo "$m not loaded"; return 1; }
	done
	case "${RDS_IMPL:-}" in
	ours) [[ "$taint" == *O* ]] ;;
	intree) [[ "$taint" != *O* ]] ;;
	*) return 1 ;;
	esac
}

# rds_info_has_conn INFO LOCAL PEER TRANSPORT [FLAGS]: rds-info -n's output
# INFO has the connection LOCAL ("" for any) -> PEER over TRANSPORT, its
# flags matching the regex FLAGS (e.g. C: up). IPv6 rows have no Tos.
rds_info_has_conn() {
	local o=0
	[[ "$3" == *:* ]] && o=1
	echo "$1" | awk -v l="$2" -v p="$3" -v t="$4" -v fl="${5:-}" -v o=$o '
		(l == "" || $1 == l) && $2 == p && $(6 - o) == t && $(7 - o) ~ fl { f = 1 }
		END { exit !f }'
}

# rds_ping_all PREFIX N ADDRESS [ARGS...]: N pings, N replies, each with
# its own line, and the tool's summary agrees.
rds_ping_all() {
	local prefix=$1 n=$2 out rc
	shift 2
	# shellcheck disable=SC2086
	out=$(timeout 60 $prefix "$RDS_TOOLS/rds-ping" -c "$n" -i 0.2 -W 5 "$@" 2>&1)
	rc=$?
	echo "exit $rc"
	echo "$out"
	[ "$rc" = 0 ] &&
		[ "$(echo "$out" | grep -c '^ *[0-9]*: [0-9]* usec$')" = "$n" ] &&
		echo "$out" | grep -q "^$n sent, $n received"
}

# rds_wait_listen PREFIX PORT [PID]: a server started in the background
# listens (rds-stress's control port) before the client is let go; if PID
# (the server) dies first, say so at once.
rds_wait_listen() {
	local prefix=$1 port=$2 pid=${3:-} i
	for ((i = 0; i < 300; i++)); do
		# shellcheck disable=SC2086
		[ -n "$($prefix ss -Hltn "sport = :$port")" ] && return 0
		if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
			echo "the server exited before listening on TCP port $port"
			return 1
		fi
		sleep 0.1
	done
	echo "nothing listens on TCP port $port after 30 s"
	return 1
}

# rds_stress_ok JSON-FILE [SUMMARY-FILE NAME]: rds-stress --json -v says
# ok, verified every payload (the option was on and no byte differed, no
# request or ack was delivered twice, out of order or not at all), and
# messages really went both ways (a count, not just an exit status); with
# -D, RDMA of each kind asked for moved and none failed: judged by the
# run's totals, wind-down included (a short run's rows may show none on
# a slow guest). The counts and rate are appended to SUMMARY-FILE as
# "NAME: ...".
rds_stress_ok() {
	python3 - "$@" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("no JSON from rds-stress:", e)
    print(open(sys.argv[1]).read())
    sys.exit(1)
print("status %s, %s tx, %s rx, verify_errors %s (duplicates %s, out of order %s), average %s" %
      (d["status"], d["messages_tx"], d["messages_rx"], d["verify_errors"],
       d.get("duplicates"), d.get("out_of_order"), d["average"]))
avg = d["average"] or {}
if len(sys.argv) > 2:
    rdma = ""
    if d["options"].get("rdma_bytes"):
        rdma = ", RDMA %.0f KiB/s read, %.0f KiB/s written" % (
            avg.get("rdma_in_kbytes_per_s", 0), avg.get("rdma_out_kbytes_per_s", 0))
    with open(sys.argv[2], "a") as f:
        f.write("%s: %d messages out, %d in, verified, %.0f tx/s%s\n" %
                (sys.argv[3], d["messages_tx"], d["messages_rx"],
                 avg.get("tx_per_s", 0), rdma))
ok = (d["status"] == "ok" and d["options"]["verify"] and d["verify_errors"] == 0 and
      d["messages_tx"] > 0 and d["messages_rx"] > 0 and
      d["average"] is not None and d["average"]["tx_per_s"] > 0)
# With -D, RDMA really moved, this side issuing it (it acks the peer's
# requests with RDMA): reads with -M 0 or 1, writes with -M 0 or 2.
o = d["options"]
if o.get("rdma_bytes"):
    mode = o.get("rdma_mode", 0)
    # Totals from our rds-stress; rates where an older one gave none.
    rin = d.get("rdma_in_bytes", avg.get("rdma_in_kbytes_per_s", 0))
    rout = d.get("rdma_out_bytes", avg.get("rdma_out_kbytes_per_s", 0))
    print("RDMA: %.0f KiB/s read, %.0f KiB/s written (%s and %s bytes in all), %s errors, %s deferred" %
          (avg.get("rdma_in_kbytes_per_s", 0), avg.get("rdma_out_kbytes_per_s", 0),
           d.get("rdma_in_bytes"), d.get("rdma_out_bytes"),
           d["rdma_errors"], d["rdma_deferred"]))
    ok = ok and d["rdma_errors"] == 0
    if mode in (0, 1):
        ok = ok and rin > 0
    if mode in (0, 2):
        ok = ok and rout > 0
if d.get("error"):
    print("error:", d["error"])
sys.exit(0 if ok else 1)
PY
}

# rds_tcp_conn PREFIX LOCAL PEER: rds-info lists the connection between
# the two addresses with transport tcp, and the kernel has an established
# TCP socket between them with RDS/TCP's port on one end (so the messages
# went over TCP, not loopback). IPv6 addresses use the RDS6 table.
rds_tcp_conn() {
	local prefix=$1 l=$2 p=$3 info tcp
	# shellcheck disable=SC2086
	info=$($prefix "$RDS_TOOLS/rds-info" -n 2>&1)
	# shellcheck disable=SC2086
	tcp=$($prefix ss -Htn state established "( sport = :$RDS_TCP_PORT or dport = :$RDS_TCP_PORT )")
	echo "$info"
	echo "TCP sockets on port $RDS_TCP_PORT:"
	echo "$tcp"
	rds_info_has_conn "$info" "$l" "$p" tcp ||
		{ echo "no tcp connection $l -> $p in rds-info -n"; return 1; }
	echo "$tcp" | grep -qF "$p" || { echo "no established TCP socket to $p"; return 1; }
}

# The two halves of an rds-stress session, for tests whose sides run in
# different places. rds_stress_serve PREFIX OUT ADDR PORT starts the
# passive side in the background (its pid in RDS_STRESS_PID) and returns
# once it listens; rds_stress_served waits for it and checks its JSON.
# rds_stress_run PREFIX OUT PEER LOCAL PORT ARGS... runs the active side
# with -v --json and checks its JSON. RDS_STRESS_LIMIT (default 120)
# bounds the passive side's seconds.
rds_stress_serve() {
	local prefix=$1 out=$2 addr=$3 port=$4
	# shellcheck disable=SC2086
	timeout "${RDS_STRESS_LIMIT:-120}" $prefix "$RDS_TOOLS/rds-stress" -r "$addr" -p "$port" --json \
		> "$out" 2> "$out.err" &
	RDS_STRESS_PID=$!
	rds_wait_listen "$prefix" "$port" "$RDS_STRESS_PID" && return 0
	cat "$out" "$out.err"
	return 1
}

rds_stress_served() {
	local out=$1 rc
	wait "$RDS_STRESS_PID"
	rc=$?
	echo "passive exit $rc"
	cat "$out.err"
	rds_stress_ok "$out" && [ "$rc" = 0 ]
}

rds_stress_run() {
	local prefix=$1 out=$2 peer=$3 local=$4 port=$5 rc
	shift 5
	# shellcheck disable=SC2086
	timeout 120 $prefix "$RDS_TOOLS/rds-stress" -s "$peer" -r "$local" -p "$port" \
		-v --json "$@" > "$out" 2> "$out.err"
	rc=$?
	echo "active exit $rc"
	cat "$out.err"
	rds_stress_ok "$out" ${RDS_STRESS_SUMMARY:+"$RDS_STRESS_SUMMARY" "$(basename "$out")"} &&
		[ "$rc" = 0 ]
}

# RDS_STRESS_SUMMARY, if set, is a file collecting the active sides'
# counts (rds_stress_ok), for the tests to print as TAP comments.

# rds_session_port: a port no earlier session of the test took, from
# $PORT up in steps of 100 (remembered in $RDS_TOOLS_WORK). tap_check
# runs its command in a subshell, which forgets PORT=$((PORT + 100)): a
# session on the last one's ports receives what that one left unacked,
# retransmitted after a reset (RDMA cookies of a process gone included),
# and takes it for its own stream out of order.
rds_session_port() {
	local f=$RDS_TOOLS_WORK/.session_port p
	p=$(cat "$f" 2>/dev/null) || p=$PORT
	echo $((p + 100)) > "$f"
	echo "$p"
}

# rds_stress_pair PREFIX-P PREFIX-A NAME PORT PASSIVE-ADDR ACTIVE-ADDR ARGS...:
# a whole session in one machine (the netns pair); both sides must pass.
rds_stress_pair() {
	local pp=$1 pa=$2 out=$RDS_TOOLS_WORK/$3 port=$4 paddr=$5 aaddr=$6 arc
	shift 6
	rds_stress_serve "$pp" "$out.passive" "$paddr" "$port" || return 1
	echo "--- active:"
	rds_stress_run "$pa" "$out.active" "$paddr" "$aaddr" "$port" "$@"
	arc=$?
	echo "--- passive:"
	rds_stress_served "$out.passive" && [ "$arc" = 0 ]
}

# rds_stuck_report: what a host's RDS is doing when it should have
# reconnected and did not: its connections (rds-info -n) and the kernel
# stack of every task whose stack is in RDS or the RDMA CM (a shutdown
# that waits for completions a downed port never gives, a worker on a
# lock). For either implementation; prints, never fails.
rds_stuck_report() {
	local d comm
	echo "# rds-info -n:"
	timeout 10 "$RDS_TOOLS/rds-info" -n 2>&1 | sed 's/^/#   /'
	for d in /proc/[0-9]*/task/[0-9]*; do
		grep -qE '(^|[^a-z])(rds|rdma|ib|rxe|siw|cma|iw_cm)_' "$d/stack" 2>/dev/null ||
			continue
		comm=$(cat "$d/comm" 2>/dev/null) || continue
		echo "# task ${d##*/} ($comm), state $(awk '/^State:/ { print $2 }' "$d/status" 2>/dev/null):"
		sed 's/^/#   /' "$d/stack" 2>/dev/null
	done
	# Where the RDMA CM's ids and queue pairs are, on which device and
	# port, and the neighbours their routes took.
	if command -v rdma > /dev/null; then
		echo "# rdma res show cm_id:"
		timeout 10 rdma res show cm_id 2>&1 | sed 's/^/#   /'
		echo "# rdma res show qp:"
		timeout 10 rdma res show qp 2>&1 | sed 's/^/#   /'
		echo "# rdma link:"
		timeout 10 rdma link 2>&1 | sed 's/^/#   /'
	fi
	echo "# addresses, routes and neighbours:"
	{ ip -br addr; ip route; ip neigh; } 2>&1 | sed 's/^/#   /'
	return 0
}
