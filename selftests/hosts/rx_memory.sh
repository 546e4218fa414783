#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Receive memory at cluster scale over RDS/IB (rxe1 on wire0): host b owns
# RDS_RXMEM_ADDRS more addresses (default 64) and host a pings each on
# RDS_RXMEM_TOS TOS values (default 4: 0 1 2 3), one connection per
# address and TOS: 256 connections, as a node of a rack holds to its
# peers. Each host reports its MemAvailable before and after (page cache
# not dropped: see mem_kib) per connection, and ours its receive pages
# (ib_rx_pages_held); the time from the first ping to the last pong.
# Asserted for ours (host b's RDS_IMPL): every ping answered; every
# connection up over IB; receive pages within the budget: with an SRQ
# (net.rds.ib.srq, the default) at most the SRQ's srq_max_wr slots of a
# 16 KiB fragment's 4 pages for all connections together, without one
# at most min_recv_wr slots' pages per connection (a quiet connection
# keeps its minimum); at most RX_KIB of MemAvailable per connection on
# host b; all connected within SETUP_S. With Linux's RDS on host b the
# same figures are printed, for the comparison, not judged.
#
#	scripts/vm/vm2.sh --rdma --mem 2048 --impl-a ours --impl-b ours -- \
#		RDS_SUITE=hosts selftests/run.sh =rx_memory
#
# RDS_RXMEM_SRQ=0 makes ours post a ring per connection (net.rds.ib.srq
# 0) instead of sharing the device's receive queue.
#
# Both hosts raise net.rds.peer_max_connections (where there is one) to
# hold that many connections from one peer address. Outside a two-host
# guest it skips.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh
. lib/wire.sh
. lib/rds_tools.sh
. lib/twohost.sh
ADDRS=${RDS_RXMEM_ADDRS:-64}
read -ra TOSES <<< "${RDS_RXMEM_TOS:-0 1 2 3}"
CONNS=$((ADDRS * ${#TOSES[@]}))
# Budgets for ours (Documentation/transports.rst, "Receive memory"):
# 1/16 of the 17.4 MiB a connection cost before 2026-11-28 with an SRQ
# (0.5 MiB measured, most of it rxe's queues), 2 MiB without (1.7).
SRQ=${RDS_RXMEM_SRQ:-1}
RX_KIB=1113
[ "$SRQ" = 1 ] || RX_KIB=2048
SETUP_S=$((CONNS / 2 + 30))
twohost_begin rx-memory

extra_addr() {	# N: host b's Nth extra address on wire0
	echo "10.99.1.$((100 + $1))"
}

# Not after drop_caches: that held a one-CPU guest for over 10 s, and
# its peer's heartbeat took it for dead and dropped every connection.
mem_kib() {	# MemAvailable, in KiB (and slab and vmalloc in a file)
	sync
	sleep 1
	grep -E '^(Slab|VmallocUsed):' /proc/meminfo > "$RDS_TOOLS_WORK/meminfo.$1"
	awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo
}

# Where it went: slab and vmalloc (rxe's queues) between two mem_kib.
mem_split() {
	paste "$RDS_TOOLS_WORK/meminfo.0" "$RDS_TOOLS_WORK/meminfo.1" |
		awk -v n="$CONNS" '{ printf "%s +%d KiB a connection; ", $1, ($5 - $2) / n }'
	echo
}

counter() {	# NAME: its RDS_INFO_COUNTERS value (0 if not listed)
	"$RDS_TOOLS/rds-info" -c 2>/dev/null | awk -v n="$1" '$1 == n { v = $2 } END { print v + 0 }'
}

setup() {
	local m
	wire_mark "impl-${RDS_IMPL:-unset}"
	# rds_rdma loaded again after rds_tcp is gone: Linux's fails its
	# IPv6 listen on 16385 while rds_tcp holds it (rdma_listen -98),
	# and then answered none of host a's pings.
	for m in rds_iwarp rds_rdma rds_tcp; do
		if loaded $m; then rmmod $m || return 1; fi
	done
	modprobe rds_rdma || return 1
	if [ -e /proc/sys/net/rds/ib/srq ]; then
		sysctl -qw net.rds.ib.srq="$SRQ" || return 1
	fi
	[ -e /proc/sys/net/rds/peer_max_connections ] &&
		sysctl -qw net.rds.peer_max_connections=$((CONNS * 2))
	rds_impl_matches rds_rdma
}

# Host b: the addresses, on rxe1's netdev (so RoCE has a GID for each).
add_addrs() {
	local i
	for ((i = 0; i < ADDRS; i++)); do
		ip addr add "$(extra_addr $i)/24" dev wire0 || return 1
	done
	# Two GIDs (RoCE v1 and v2) each, once the device has them.
	for ((i = 0; i < 100; i++)); do
		[ "$(cat /sys/class/infiniband/rxe1/ports/1/gids/* 2>/dev/null |
			grep -c ':ffff:0a63:01')" -gt "$ADDRS" ] && break
		sleep 0.1
	done
	echo "$ADDRS addresses on wire0: $(extra_addr 0) .. $(extra_addr $((ADDRS - 1)))"
}

# Host a: one ping to each address on each TOS, 16 at a time; the time
# from the first to the last pong in $RDS_TOOLS_WORK/setup.
ping_all() {
	local i t n=0 fails=0 t0 pids=() f
	t0=$(date +%s.%N)
	for ((i = 0; i < ADDRS; i++)); do
		for t in "${TOSES[@]}"; do
			"$RDS_TOOLS/rds-ping" -c 1 -W 60 -Q "$t" -I "$RDS_WIRE_SELF" \
				"$(extra_addr $i)" > "$RDS_TOOLS_WORK/ping.$i.$t" 2>&1 &
			pids+=($!)
			n=$((n + 1))
			if [ ${#pids[@]} -ge 16 ]; then
				wait "${pids[0]}" || fails=$((fails + 1))
				pids=("${pids[@]:1}")
			fi
		done
	done
	for f in "${pids[@]}"; do
		wait "$f" || fails=$((fails + 1))
	done
	echo "$t0 $(date +%s.%N)" | awk '{ printf "%.1f\n", $2 - $1 }' > "$RDS_TOOLS_WORK/setup"
	echo "$n pings to $ADDRS addresses x ${#TOSES[@]} TOS, $fails unanswered, $(cat "$RDS_TOOLS_WORK/setup") s"
	if [ "$fails" != 0 ]; then
		grep -L "1 received" "$RDS_TOOLS_WORK"/ping.* | head -n 3 | xargs -r tail -n 3
		# The lanes that tried most, and why they dropped.
		"$RDS_TOOLS/rds-info" -p | sort -k8,8nr | head -n 6
		"$RDS_TOOLS/rds-info" -c | grep -E '^ *(ib_connect|conn_reset|ib_evt)'
		return 1
	fi
	[ "$(cut -d. -f1 "$RDS_TOOLS_WORK/setup")" -le "$SETUP_S" ] ||
		{ echo "more than $SETUP_S s"; return 1; }
}

# This host's connections to or from the extra addresses, up over IB.
ib_up() {
	"$RDS_TOOLS/rds-info" -n 2>/dev/null |
		awk '$1 ~ /^10\.99\.1\.(1[0-9][0-9]|2[0-9][0-9])$/ || $2 ~ /^10\.99\.1\.(1[0-9][0-9]|2[0-9][0-9])$/' |
		awk '$6 == "infiniband" && $7 ~ /C/' | wc -l
}

# MEM0 PAGES0: judge and print this host's cost per connection.
report() {
	local mem0=$1 pages0=$2 mem1 pages1 up per_kib per_pages min
	up=$(ib_up)
	mem1=$(mem_kib 1)
	pages1=$(counter ib_rx_pages_held)
	per_kib=$(((mem0 - mem1) / CONNS))
	per_pages=$(((pages1 - pages0) / CONNS))
	echo "host $ROLE (${RDS_IMPL:-?}): $up of $CONNS connections up over IB; MemAvailable $((mem0 / 1024)) -> $((mem1 / 1024)) MiB: $per_kib KiB a connection; ib_rx_pages_held +$((pages1 - pages0)): $per_pages pages a connection; $(mem_split)" |
		tee "$RDS_TOOLS_WORK/report.$ROLE"
	[ "$up" -ge "$CONNS" ] ||
		{ echo "want $CONNS up"; "$RDS_TOOLS/rds-info" -p | head -n 8; return 1; }
	[ "${RDS_IMPL:-}" = ours ] || return 0
	if [ "$SRQ" = 1 ]; then
		min=$(sysctl -n net.rds.ib.srq_max_wr)
		echo "SRQ: ib_srq_created $(counter ib_srq_created), ib_srq_posted $(counter ib_srq_posted) (srq_max_wr $min)"
		[ $((pages1 - pages0)) -le $((min * 4)) ] ||
			{ echo "more than the SRQ's $((min * 4)) receive pages"; return 1; }
	else
		min=$(sysctl -n net.rds.ib.min_recv_wr)
		[ "$per_pages" -le $((min * 4)) ] ||
			{ echo "more than $((min * 4)) receive pages a connection"; return 1; }
	fi
	[ "$ROLE" = a ] || [ "$per_kib" -le "$RX_KIB" ] ||
		{ echo "more than $RX_KIB KiB a connection"; return 1; }
}

tap_plan 4
tap_check "host $ROLE: rds_rdma loaded alone, peer cap raised, RDS_IMPL=${RDS_IMPL:-unset}" setup
case "$ROLE" in
b)
	tap_check "host b: $ADDRS more addresses on wire0" add_addrs
	pages0=$(counter ib_rx_pages_held)
	mem0=$(mem_kib 0)
	wire_mark addrs
	wire_wait pinged 600
	sleep 2
	tap_check "host b: $CONNS connections from host a over IB, each within its receive memory budget (ours)" \
		report "$mem0" "$pages0"
	sed 's/^/# /' "$RDS_TOOLS_WORK/report.b"
	wire_mark measured
	wire_wait finished 300
	tap_check "host b: rds_rdma unloads with $CONNS connections, and loads again" \
		sh -c 'rmmod rds_rdma && modprobe rds_rdma'
	;;
a)
	wire_wait addrs 300
	pages0=$(counter ib_rx_pages_held)
	mem0=$(mem_kib 0)
	tap_check "host a: a ping to each of host b's $ADDRS addresses on ${#TOSES[@]} TOS values, all answered within $SETUP_S s" \
		ping_all
	echo "# setup $(cat "$RDS_TOOLS_WORK/setup" 2>/dev/null) s for $CONNS connections"
	wire_mark pinged
	tap_check "host a: $CONNS connections to host b over IB, each within its receive page budget (ours)" \
		report "$mem0" "$pages0"
	sed 's/^/# /' "$RDS_TOOLS_WORK/report.a"
	wire_wait measured 300
	wire_mark finished
	tap_check "host a: rds_rdma unloads with $CONNS connections, and loads again" \
		sh -c 'rmmod rds_rdma && modprobe rds_rdma'
	;;
esac
