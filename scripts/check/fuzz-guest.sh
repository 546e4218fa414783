#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make fuzz` (scripts/check/fuzz.sh): run Debian's trinity,
# restricted to PF_RDS sockets and the socket calls, and our rds-fuzz side
# by side for SECONDS, both as the unprivileged user nobody from a
# writable directory; then check that no RDS object outlived them, scan
# the kernel log and, on a kmemleak kernel, ask kmemleak. TAP goes to
# stdout and /run/out/fuzz.tap; the syscall counts to /run/out/counts.
#
#	fuzz-guest.sh SECONDS [rds-fuzz options...]
set -uo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-/run/out}
SECS=${1:-600}
shift
TAP=$OUT/fuzz.tap
n=0 failed=0

emit() { echo "$1" | tee -a "$TAP"; }
result() {	# result RC DESC [DIAG-FILE]
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		emit "ok $n - $2"
	else
		failed=$((failed + 1))
		emit "not ok $n - $2"
		[ -n "${3:-}" ] && tail -n 40 "$3" | sed 's/^/    # /' | tee -a "$TAP"
	fi
}

: > "$TAP"
echo "TAP version 13" | tee -a "$TAP"

# trinity and the netns part of rds-fuzz need: a writable cwd, and user
# namespaces for an unprivileged user (on by default in Debian 12).
work=/tmp/fuzz
mkdir -p "$work" && chown nobody:nogroup "$work" && chmod 700 "$work"
sysctl -qw kernel.unprivileged_userns_clone=1 2>/dev/null
# Quieter and faster: no per-packet warnings from the rest of the stack.
sysctl -qw net.core.warnings=0 2>/dev/null
# Reap idle connections every fraction of a second and keep the cap low,
# so the fuzzers race the reaper and meet ENOBUFS (the initial namespace;
# namespaces the fuzzers make keep the defaults).
sysctl -qw net.rds.conn_idle_ms=200 net.rds.max_connections=512 2>/dev/null || true
# siw connects its TCP socket synchronously inside rdma_connect(), so an
# RDMA CM handler toward an address nobody answers blocks for the whole
# SYN timeout (~2 min by default), and so does any rdma_destroy_id() of
# that id (the reaper, rmmod): the fuzzers aim at such addresses all the
# time. Fewer SYN retries keep those waits to seconds.
sysctl -qw net.ipv4.tcp_syn_retries=3
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }
mark=$(dmesg | wc -l)

# A heartbeat on the console: shows a hung guest from a slow one.
(while sleep 30; do
	echo "fuzz: heartbeat $(cut -d' ' -f1 /proc/uptime) s up, load $(cut -d' ' -f1-3 /proc/loadavg)" > /dev/console
done) &
hbpid=$!

# trinity: PF_RDS sockets only (-P), only the socket calls (-c), none of
# its other fd providers (files under /proc, /sys, /dev, pipes, perf...),
# quiet, no log files. It stops on a new kernel taint of the listed
# kinds; our modules already taint the kernel (O, E) at load.
TRINITY_CALLS="socket bind connect sendmsg sendto sendmmsg recvmsg recvfrom
recvmmsg setsockopt getsockopt getsockname getpeername poll ppoll ioctl
close shutdown listen accept4 socketpair"
targs=(-q -l off -P PF_RDS -a64 -C "${TRINITY_CHILDREN:-2}"
       --disable-fds=pipes,perf,epoll,eventfd,pseudo,timerfd,testfile,memfd,drm
       -T WARN,BAD_PAGE,DIE)
for c in $TRINITY_CALLS; do targs+=(-c "$c"); done
[ -n "${TRINITY_SEED:-}" ] && targs+=(-s "$TRINITY_SEED")
# Trinity 1.9 now and then segfaults while it builds its socket cache,
# before its first call (its bug): start it again, at most twice, if it
# dies that way in its first 5 s.
trinity_cache_crash() {
	[ "$1" = 139 ] && tail -n1 "$OUT/trinity.log" | grep -q 'socket cachefile. Regenerating'
}
start_trinity() {
	(cd "$work" && exec setpriv --reuid=nobody --regid=nogroup \
		--clear-groups -- trinity "${targs[@]}") > "$OUT/trinity.log" 2>&1 &
	tpid=$!
}
if [ "${TRINITY:-1}" = 1 ]; then
	start_trinity
	for try in 1 2; do
		for _ in $(seq 25); do
			kill -0 "$tpid" 2>/dev/null || break
			sleep 0.2
		done
		kill -0 "$tpid" 2>/dev/null && break
		wait "$tpid"
		trc_early=$?
		trinity_cache_crash "$trc_early" || break
		trc_early=""
		echo "fuzz: trinity crashed building its socket cache; start $((try + 1))"
		start_trinity
	done
else
	: > "$OUT/trinity.log"
	tpid=""
fi

# Stop trinity: SIGINT to its main process, which then prints its count.
# Its children can sit in a send to a congested port (that wait has no
# timeout, as in Linux) and never notice: kill those by parent pid, and
# the main process only as a last resort.
stop_trinity() {
	local i kids
	[ -n "$tpid" ] || return 0
	kill -INT "$tpid" 2>/dev/null
	for i in $(seq 100); do
		kill -0 "$tpid" 2>/dev/null || break
		if [ "$i" = 30 ]; then
			kids=$(for d in /proc/[0-9]*; do
				[ "$(cut -d' ' -f4 "$d/stat" 2>/dev/null)" = "$tpid" ] &&
					echo "${d#/proc/}"
			done)
			# shellcheck disable=SC2086
			[ -n "$kids" ] && kill -KILL $kids 2>/dev/null
		fi
		sleep 0.2
	done
	kill -KILL "$tpid" 2>/dev/null
}

# If rds-fuzz outlives its time by far (it kills its workers 20 s after
# the end and gives up 60 s later), something is stuck in the kernel:
# record the blocked tasks and the locks held (sysrq w, d) and every
# fuzzer task's kernel stack, on the console and in hang.txt, while the
# guest still runs. Only files that take no mm lock are read (comm,
# wchan, stack): a task stuck with its mmap_lock held must not stop us.
nobody_pids() {
	local d
	for d in /proc/[0-9]*; do
		[ "$(stat -c %u "$d" 2>/dev/null)" = 65534 ] && echo "${d#/proc/}"
	done
}
hang_dump() {
	local p
	echo w > /proc/sysrq-trigger
	echo d > /proc/sysrq-trigger
	{
		echo "fuzz: rds-fuzz still running $((SECS + 150)) s after its start: stacks"
		for p in $(nobody_pids); do
			echo "--- pid $p $(cat /proc/$p/comm 2>/dev/null) wchan $(cat /proc/$p/wchan 2>/dev/null)"
			cat /proc/$p/stack 2>/dev/null
		done
	} > /tmp/hang.txt 2>&1
	cat /tmp/hang.txt > /dev/console
	cp /tmp/hang.txt "$OUT/hang.txt"
}
(sleep $((SECS + 150)); hang_dump) &
wpid=$!

# The network side, beside the syscall fuzzers: rds-wire-peer sends
# random, structure-aware RDS/TCP frames from one namespace to rds_tcp in
# another (selftests/lib/netns_pair.sh), while the TCP buffer sysctls
# change under the connections (each write drops them).
wire_pid="" churn_pid=""
if [ "${WIRE_FUZZ:-1}" = 1 ] && grep -q '^rds_tcp ' /proc/modules &&
   . "$REPO/selftests/lib/netns_pair.sh" && netns_pair_up; then
	# Namespace A's own RDS/TCP shares the tool's address: one lane,
	# or it keeps lanes up to B and replaces the tool's connections.
	netns_a sysctl -qw net.rds.tcp.rds_tcp_lanes=1 2>/dev/null
	# Every 20 s the tool churns the accept paths (rds_conn_accept*:
	# per-peer cap, the peers' share, eviction, lanes, connect-backs)
	# from 162 addresses below the target's 10.99.2.200 and one above
	# it, and checks through the target's namespace that none of
	# those connections outlives the reaper.
	ip -n "$NETNS_B" addr add 10.99.2.200/24 dev rdsvb
	for i in $(seq 10 171) 250; do
		echo "addr add 10.99.2.$i/24 dev rdsva"
	done | ip -n "$NETNS_A" -batch -
	netns_a "$REPO/selftests/wire/rds-wire-peer" -s 10.99.2.1 -t 10.99.2.200 \
		--target-netns "/run/netns/$NETNS_B" --flood-base 10.99.2.10 \
		--flood-count 162 --high-source 10.99.2.250 \
		--seconds "$SECS" fuzz > "$OUT/wire-fuzz.log" 2>&1 &
	wire_pid=$!
	# rds-fuzz (in this namespace) reaches namespace B at 10.99.4.2
	# over a veth of its own: its zero-copy sends then cross a real
	# RDS/TCP connection, dropped by the sysctl churn below.
	ip link add rdsfz type veth peer name rdsfzb netns "$NETNS_B" &&
		ip addr add 10.99.4.1/24 dev rdsfz && ip link set rdsfz up &&
		ip -n "$NETNS_B" addr add 10.99.4.2/24 dev rdsfzb &&
		ip -n "$NETNS_B" link set rdsfzb up &&
		ip -n "$NETNS_B" route add 10.99.0.0/24 via 10.99.4.1 ||
		echo "fuzz: no veth to namespace B: zero-copy stays local"
	(while :; do
		for v in 0 4096 65536 1048576; do
			netns_b sysctl -qw net.rds.tcp.rds_tcp_sndbuf=$v \
				net.rds.tcp.rds_tcp_rcvbuf=$((v * 2))
			sleep 3
		done
	done) > /dev/null 2>&1 &
	churn_pid=$!
fi

# Address moves beside the fuzzers, as a failover daemon makes them:
# 10.99.0.2 and fd99::1 (addresses rds-fuzz binds and sends from) go
# from eth0 (rxe0's) to an interface with no RDMA device and back, each
# way every 1.5 s. Connections on them drop for the move
# (rds_rdma_addr.c) and reconnect while the fuzzers use them; pings
# from each, five a second, keep one up to drop (the reaper here takes
# idle ones within 200 ms, and the fuzzers' connections fill the cap:
# a pinger that stopped might find no room for a new one).
churn_moves=0
addr_move() {	# FROM TO
	ip -force -batch - <<-EOT >/dev/null 2>&1
	addr del 10.99.0.2/24 dev $1
	addr add 10.99.0.2/24 dev $2
	addr del fd99::1/64 dev $1
	addr add fd99::1/64 dev $2 nodad
	EOT
}
addr_pid="" ping_pids=""
if [ "${ADDR_CHURN:-1}" = 1 ] && [ -e /sys/class/infiniband/rxe0 ] &&
   ip link add rdsmv type dummy 2>/dev/null && ip link set rdsmv up; then
	rm -f /tmp/addr.stop
	for a in 10.99.0.2,10.99.0.1 fd99::1,fd99::2; do
		(while [ ! -e /tmp/addr.stop ]; do
			"$REPO/tools/rds-ping" -i 0.2 -W 1 --transport ib \
				-I "${a%,*}" "${a#*,}"
			sleep 0.5
		 done) > /dev/null 2>&1 &
		ping_pids+=" $!"
	done
	(trap 'echo "$churn_moves" > /tmp/addr.moves; exit 0' TERM
	 while :; do
		addr_move eth0 rdsmv
		sleep 1.5
		addr_move rdsmv eth0
		churn_moves=$((churn_moves + 2))
		sleep 1
	 done) > /dev/null 2>&1 &
	addr_pid=$!
fi

# Bursts of 16 pings in flight, then quiet, on a connection of its own
# (TOS 5) whenever RDS/IB runs here, with or without the address moves
# above (the debug kernel has no dummy interfaces): its receive slots'
# goal grows and shrinks (rds_rdma_recv.c, from the smallest
# min_recv_wr) while the fuzzers run and, if they run, the moves drop
# it. Each run of rds-ping sends 64 (four bursts) and prints its counts.
burst_pid=""
if [ "${BURST_PING:-1}" = 1 ] && [ -e /sys/class/infiniband/rxe0 ]; then
	rm -f /tmp/burst.stop
	sysctl -qw net.rds.ib.min_recv_wr=8 2>/dev/null
	# A run takes seconds; timeout (SIGTERM: it still prints its
	# counts) keeps one stuck in the kernel from holding up the end.
	(while [ ! -e /tmp/burst.stop ]; do
		timeout 30 "$REPO/tools/rds-ping" -c 64 -n 16 -i 0.001 -W 1 \
			-Q 5 --transport ib -I 10.99.0.2 10.99.0.1
		sleep 1.5
	 done) > /tmp/burst.log 2>&1 &
	burst_pid=$!
	# New queue pairs take their receives from the device's SRQ or
	# post their own ring, as net.rds.ib.srq says when they are made:
	# flip it, so the connections the fuzzers and moves make use both.
	(while [ ! -e /tmp/burst.stop ]; do
		sysctl -qw net.rds.ib.srq=0
		sleep 3
		sysctl -qw net.rds.ib.srq=1
		sleep 3
	 done) > /dev/null 2>&1 &
	srq_pid=$!
fi

(cd "$work" && as_nobody "$REPO/selftests/fuzz/rds-fuzz" --seconds "$SECS" "$@") \
	> "$OUT/rds-fuzz.log" 2>&1
frc=$?
kill "$wpid" "$hbpid" 2>/dev/null
# The burst pinger ends after its current run (64 pings, a few seconds
# at most), sooner if the rds-ping below stops it.
touch /tmp/burst.stop
if [ -n "$addr_pid" ]; then
	kill "$addr_pid"
	touch /tmp/addr.stop
	pkill -x rds-ping
	# shellcheck disable=SC2086
	wait "$addr_pid" $ping_pids
	# Both home again, whichever side the last move left them on.
	ip link del rdsmv
	ip addr replace 10.99.0.2/24 dev eth0
	ip -6 addr replace fd99::1/64 dev eth0 nodad
	echo "# address moves beside the fuzzers: $(cat /tmp/addr.moves 2>/dev/null)"
fi
if [ -n "$burst_pid" ]; then
	wait "$burst_pid" "$srq_pid"
	cp /tmp/burst.log "$OUT/burst-ping.log"
	# One statistics line a run: "N sent, M received, ...".
	awk '/ sent, .* received/ { runs++; sent += $1; got += $3; if ($1 == $3) full++ }
	     END { printf "# burst pinger (TOS 5, 16 in flight): %d runs of 64, %d fully answered; %d pings sent, %d answered\n",
			  runs, full, sent, got }' /tmp/burst.log
fi
wrc=0
if [ -n "$wire_pid" ]; then
	wait "$wire_pid"
	wrc=$?
	kill "$churn_pid" 2>/dev/null
	wait "$churn_pid" 2>/dev/null
	# rds-fuzz's messages to 10.99.4.2 drain while B still answers, then
	# its idle connections there are reaped: one left to a vanished peer
	# would hold its messages, their sockets and rds_tcp until its SYNs
	# time out (minutes).
	idle=$(sysctl -n net.rds.conn_idle_ms)
	sysctl -qw net.rds.conn_idle_ms=100
	for _ in $(seq 150); do
		"$REPO/tools/rds-info" -n 2>/dev/null | grep -q ' 10\.99\.4\.2 ' || break
		sleep 0.1
	done
	sysctl -qw net.rds.conn_idle_ms="$idle"
	netns_pair_down
fi
stop_trinity
trc=0
if [ -n "${trc_early:-}" ]; then
	trc=$trc_early	# it died early and was reaped above
elif [ -n "$tpid" ]; then
	wait "$tpid"
	trc=$?
fi

grep -E '^\[main\] (Initial random seed|Ran )' "$OUT/trinity.log" | sed 's/^/# trinity: /'
sed 's/^/# /' "$OUT/rds-fuzz.log" | grep -E '^# rds-fuzz' | head -40
tcalls=$(sed -n 's/^\[main\] Ran \([0-9]*\) syscalls.*/\1/p' "$OUT/trinity.log" | tail -n1)
fcalls=$(sed -n 's/^rds-fuzz: seed [0-9]*, \([0-9]*\) syscalls.*/\1/p' "$OUT/rds-fuzz.log")
echo "trinity=${tcalls:-0} rds_fuzz=${fcalls:-0} seconds=$SECS" > "$OUT/counts"

# SIGINT ends trinity with status 0 (130 if the signal ends it); a
# kernel taint it saw is a failure (the log scan says which).
if [ -n "$tpid" ] && [ -z "$tcalls" ] && trinity_cache_crash "$trc"; then
	# Three starts crashed (see start_trinity): no RDS call was tested
	# by trinity (rds-fuzz and the log scan still were).
	emit "ok $((n += 1)) - trinity # SKIP trinity crashed while starting up (exit 139) three times, before any call"
elif [ -n "$tpid" ]; then
	[ -n "$tcalls" ] && [ "$tcalls" -gt 0 ] && { [ "$trc" = 0 ] || [ "$trc" = 130 ]; } &&
		! grep -qi 'became tainted' "$OUT/trinity.log"
	result $? "trinity on PF_RDS ran ${tcalls:-0} syscalls and stopped cleanly (exit $trc)" "$OUT/trinity.log"
else
	emit "ok $((n += 1)) - trinity # SKIP TRINITY=0"
fi
[ "$frc" = 0 ] && [ -n "$fcalls" ] && [ "$fcalls" -gt 0 ]
result $? "rds-fuzz ran ${fcalls:-0} syscalls, every worker stopped (exit $frc)" "$OUT/rds-fuzz.log"

if [ -n "$wire_pid" ]; then
	grep -E 'rds-wire-peer fuzz: (seed .* frames|[0-9]+ accept churns)' \
		"$OUT/wire-fuzz.log" | sed 's/^/# /'
	[ "$wrc" = 0 ] && grep -q 'target alive' "$OUT/wire-fuzz.log"
	result $? "rds-wire-peer fuzzed rds_tcp from the wire, target alive, accept churns left nothing (exit $wrc)" \
		"$OUT/wire-fuzz.log"
else
	emit "ok $((n += 1)) - rds-wire-peer wire fuzz # SKIP no rds_tcp or no namespaces (WIRE_FUZZ=${WIRE_FUZZ:-1})"
fi

# Every socket, message and MR the fuzzers made must be gone. Messages of
# closed sockets to a peer that does not answer stay on their connection
# until its attempt fails (minutes, for TCP): unloading rds_tcp destroys
# those connections, and must free everything they held.
objs=/sys/kernel/debug/rds/objects
# The same for the RDMA transports, whose connections to peers that are
# not there also keep their messages until an attempt fails.
# A module still in use says who holds it: the object counts, the
# modules' reference counts, the connections and any fuzzer still alive.
rds_holders() {
	local p
	echo "objects: $(tr '\n' ' ' < "$objs" 2>/dev/null)"
	for p in /sys/module/rds*/refcnt; do
		echo "${p#/sys/module/}: $(cat "$p")"
	done
	"$REPO/tools/rds-info" -n 2>&1 | head -n 20
	# The fuzzers run as nobody: any such process left holds sockets.
	for p in $(nobody_pids); do
		echo "pid $p $(cat "/proc/$p/comm" 2>/dev/null) still runs: $(cat "/proc/$p/wchan" 2>/dev/null)"
	done
}
# What the fuzzers reached on the transports (their counters go with the
# modules below): connections made and reset, IB rings and SRQs grown
# and shrunk, SRQ slots found lost with a queue pair, CM events; and invalidations that timed out, whose regions stay
# allocated for good by design (rds_rdma_mr.c): kmemleak reports them.
"$REPO/tools/rds-info" -c 2>/dev/null |
	awk '$1 ~ /^(conn_reset|ib_evt_handler_call|ib_rx_ring_grown|ib_rx_ring_shrunk|ib_srq_(created|grown|shrunk|lost|unordered)|ib_rdma_mr_timeout|ib_tx_cq_event|ib_addr_moved|tcp_accept_local)$/ { printf "%s %s ", $1, $2 }
	     END { print "" }' | sed 's/^/# fuzz reach: /'
for m in rds_tcp rds_iwarp rds_rdma; do
	[ -r "$objs" ] && grep -q "^$m " /proc/modules || continue
	# A connection being created or reaped holds its module for a
	# moment; an MR that a message to an unreachable peer holds, until
	# that attempt fails (seconds, with the SYN retries above).
	for i in $(seq 150); do
		modprobe -r "$m" 2>/dev/null && break
		sleep 0.2
	done
	if grep -q "^$m " /proc/modules; then
		echo "# rmmod $m after the fuzzers failed"
		rds_holders | sed 's/^/# /'
	fi
done
if [ -r "$objs" ]; then
	left=""
	for i in $(seq 50); do
		left=$(awk '($1 == "sockets" || $1 == "messages" ||
			     $1 == "incoming" || $1 == "mrs") && $2 != 0' "$objs")
		[ -z "$left" ] && break
		sleep 0.2
	done
	echo "$left" > /tmp/objs.left
	[ -z "$left" ]
	result $? "no rds objects left after the fuzzers exited" /tmp/objs.left
else
	emit "ok $((n += 1)) - no rds objects left # SKIP $objs missing (not our rds.ko?)"
fi

dmesg | tail -n +"$((mark + 1))" | "$REPO/scripts/check/logscan.sh" > /tmp/splats
result $? "kernel log clean (no BUG/WARNING/KASAN/lockdep/...)" /tmp/splats

if [ -e /sys/kernel/debug/kmemleak ]; then
	"$REPO/scripts/check/kmemleak-check.sh" "$OUT/kmemleak.txt" > /tmp/kmemleak.log 2>&1
	result $? "kmemleak: nothing involving our modules" /tmp/kmemleak.log
else
	emit "ok $((n += 1)) - kmemleak # SKIP kernel without kmemleak"
fi
emit "1..$n"
[ "$failed" = 0 ]
