#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rds_tcp against a hostile network peer (wire/rds-wire-peer test): two
# network namespaces joined by veth, the target's rds_tcp listening in
# rwp-tgt (10.77.200.1), the attacker in rwp-peer with lower addresses
# (10.77.0.1, 200 flood addresses from 10.77.1.1) and one higher one
# (10.77.250.1, for the case where the target must connect to us).
# Every case SKIPs when no RDS/TCP listener answers a ping on 16385.
#
# Environment: WIRE_IMPL=intree|ours|auto (default auto: from the rds
# module's taint), WIRE_ONLY="case,case", WIRE_FLOOD=N (default 200).
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh

PEER=$PWD/wire/rds-wire-peer
[ -x wire/rds-wire-peer ] || { tap_plan 1; tap_skip "tcp_hostile_peer" "wire/rds-wire-peer not built"; exit 0; }
FLOOD=${WIRE_FLOOD:-200}
NT=rwp-tgt NP=rwp-peer

cleanup() {
	ip netns del $NT 2>/dev/null
	ip netns del $NP 2>/dev/null
}
trap cleanup EXIT
cleanup
modprobe rds_tcp 2>/dev/null
if ! ip netns add $NT || ! ip netns add $NP ||
   ! ip link add rwp0 netns $NP type veth peer name rwp1 netns $NT; then
	tap_plan 1
	tap_skip "tcp_hostile_peer" "cannot build the veth topology"
	exit 0
fi
ip -n $NT link set lo up
ip -n $NP link set lo up
# The peer namespace has an RDS/TCP of its own on the addresses the tool
# impersonates. Ours would keep multipath lanes to the target up (the
# lower address does) and so replace the tool's connections: one lane.
ip netns exec $NP sysctl -qw net.rds.tcp.rds_tcp_lanes=1 2>/dev/null
ip -n $NT addr add 10.77.200.1/16 dev rwp1
ip -n $NP addr add 10.77.0.1/16 dev rwp0
ip -n $NP addr add 10.77.250.1/16 dev rwp0
{
	for i in $(seq 0 $((FLOOD - 1))); do
		echo "addr add 10.77.$((1 + i / 250)).$((1 + i % 250))/16 dev rwp0"
	done
} | ip -n $NP -batch -
ip -n $NT link set rwp1 up
ip -n $NP link set rwp0 up
# wait for the link (DAD does not apply to IPv4; a short settle suffices)
for _ in $(seq 20); do
	ip netns exec $NP ping -c1 -W1 10.77.200.1 > /dev/null 2>&1 && break
	sleep 0.2
done

# The attacker's own netns runs rds_tcp too (Linux's listens in every
# namespace), so 16385 is taken there: the case in which the target must
# connect to us listens on 26385 behind a DNAT from 10.77.250.1:16385.
# The impersonated addresses' own rds_tcp must stay out of it: when the
# target connects to one of them (it has a pong queued on a lane the tool
# closed), that kernel, being the lower address, connected back and the
# target took its socket for the tool's (tcp_hostile_peer: lanes failed now and
# then, its lane 0 session reset mid-case). Refused with a reset, the
# target's attempts fail as toward a peer without RDS.
lport=16385
if command -v nft > /dev/null &&
   ip netns exec $NP nft -f - <<'NFT' 2>/dev/null; then
table ip rwp {
	chain pre {
		type nat hook prerouting priority dstnat;
		ip daddr 10.77.250.1 tcp dport 16385 dnat to 10.77.250.1:26385
	}
	chain in {
		type filter hook input priority filter;
		ip saddr 10.77.200.1 tcp dport 16385 reject with tcp reset
	}
}
NFT
	lport=26385
fi

args=(-s 10.77.0.1 -t 10.77.200.1 --target-netns /run/netns/$NT
      --high-source 10.77.250.1 --listen-port $lport --impl "${WIRE_IMPL:-auto}")
[ "$FLOOD" -gt 0 ] && args+=(--flood-base 10.77.1.1 --flood-count "$FLOOD")
[ -n "${WIRE_ONLY:-}" ] && args+=(--only "$WIRE_ONLY")
ip netns exec $NP "$PEER" "${args[@]}" test
