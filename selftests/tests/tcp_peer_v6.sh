#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The per-peer connection cap over IPv6 (issue 25, item 7): a peer is an
# IPv6 /64 (net.rds.peer_ipv6_prefix), since a host picks the rest of its
# address itself. Two namespaces joined by veth (one /48 on the link):
# the target (rds_tcp in pv6-tgt, fd77:0:0:9::1) with
# net.rds.peer_max_connections 2, and a peer namespace (pv6-peer) with
# three addresses in fd77::/64 and one in fd77:0:0:1::/64, all below the
# target's. Plain TCP connections to 16385 (an RDS/TCP peer's lane 0,
# from a lower address, so the target keeps the ones it takes): the
# first two addresses of the /64 are kept, the third is refused (the
# target resets it) and counted in conn_per_peer_over_cap, and the other
# /64 is kept. With peer_ipv6_prefix 128 the third is kept too. On the
# old code the third was kept.
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh
. lib/rds_tools.sh
NT=pv6-tgt NP=pv6-peer
T=$RDS_TOOLS

cleanup() {
	ip netns del $NT 2>/dev/null
	ip netns del $NP 2>/dev/null
}
trap cleanup EXIT
cleanup
tap_plan 3
skip_all() {
	local i
	for i in 1 2 3; do tap_skip "tcp_peer_v6 $i" "$1"; done
	exit 0
}
modprobe rds_tcp 2>/dev/null
grep -q '^rds_tcp ' /proc/modules || skip_all "no rds_tcp"
grep -q O /sys/module/rds/taint 2>/dev/null ||
	skip_all "ours only (Linux has no per-peer cap)"
command -v python3 > /dev/null || skip_all "no python3"
ip netns add $NT && ip netns add $NP &&
	ip link add pv6a netns $NP type veth peer name pv6b netns $NT ||
	skip_all "cannot build the veth topology"
for ns in $NT:pv6b $NP:pv6a; do
	dev=${ns#*:} ns=${ns%%:*}
	ip -n "$ns" link set lo up
	ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$dev.accept_dad=0"
	ip -n "$ns" link set "$dev" up
done
ip -n $NT -6 addr add fd77:0:0:9::1/48 dev pv6b nodad
for a in fd77::1:1 fd77::1:2 fd77::1:3 fd77:0:0:1::5; do
	ip -n $NP -6 addr add $a/48 dev pv6a nodad
done
# On a module without the cap this fails, and so do the checks.
ip netns exec $NT sysctl -qw net.rds.peer_max_connections=2

counter() {	# NAME in the target's namespace
	ip netns exec $NT "$T/rds-info" -c 2>/dev/null |
		awk -v n="$1" '$1 == n { v = $2 } END { print v + 0 }'
}

# try SRC...: one connection from each source, in turn, held open; prints
# "SRC kept" or "SRC refused" for each: refused when the target closes it
# within 1 s, or before connect() returned (it sends its congestion
# map on the ones it keeps).
try() {
	ip netns exec $NP python3 - "$@" <<'PY'
import socket, sys, time
socks = []
for src in sys.argv[1:]:
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s.bind((src, 0))
    s.settimeout(3)
    socks.append(s)
    end = time.time() + 1.0
    state = "kept"
    try:
        s.connect(("fd77:0:0:9::1", 16385))
    except OSError:
        # The target's reset may come before connect() returns.
        state = "refused"
        end = 0
    while time.time() < end:
        s.settimeout(max(end - time.time(), 0.01))
        try:
            if not s.recv(65536):
                state = "refused"
                break
        except socket.timeout:
            break
        except OSError:
            state = "refused"
            break
    print(src, state, flush=True)
for s in socks:
    s.close()
PY
}

same64() {
	local c0 c1 out
	c0=$(counter conn_per_peer_over_cap)
	out=$(try fd77::1:1 fd77::1:2 fd77::1:3 fd77:0:0:1::5)
	c1=$(counter conn_per_peer_over_cap)
	echo "$out"
	echo "conn_per_peer_over_cap +$((c1 - c0))"
	echo "$out" | grep -qx "fd77::1:1 kept" &&
		echo "$out" | grep -qx "fd77::1:2 kept" &&
		echo "$out" | grep -qx "fd77::1:3 refused" &&
		echo "$out" | grep -qx "fd77:0:0:1::5 kept" &&
		[ $((c1 - c0)) -ge 1 ]
}

# The connections kept above are reaped (conn_idle_ms 100) before the
# next check, so each starts from none.
reap_all() {
	local i old
	old=$(ip netns exec $NT sysctl -n net.rds.conn_idle_ms)
	ip netns exec $NT sysctl -qw net.rds.conn_idle_ms=100
	for i in $(seq 50); do
		ip netns exec $NT "$T/rds-info" -n 2>/dev/null | grep -q fd77 || break
		sleep 0.2
	done
	ip netns exec $NT sysctl -qw net.rds.conn_idle_ms="$old"
	! ip netns exec $NT "$T/rds-info" -n 2>/dev/null | grep -q fd77
}

prefix128() {
	local out
	ip netns exec $NT sysctl -qw net.rds.peer_ipv6_prefix=128 || return 1
	out=$(try fd77::1:1 fd77::1:2 fd77::1:3)
	echo "$out"
	! echo "$out" | grep -q refused
}

tap_check "peer cap 2, IPv6: 2 addresses of one /64 kept, the third refused and counted, another /64 kept" \
	same64
tap_check "... and every connection from them reaped afterwards" reap_all
tap_check "peer_ipv6_prefix 128: three addresses of one /64 are three peers, all kept" \
	prefix128
tap_done
