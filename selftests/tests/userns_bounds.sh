#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A namespace owned by a user namespace may lower the module's bounds but
# never raise them past the initial namespace's (issue 25): its root sets
# net.rds.max_connections far above the initial namespace's 3, and its
# sockets still get no fourth connection. Control: with the initial
# namespace's value back, the same namespace makes all eight.
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh

if ! grep -q O /sys/module/rds/taint 2>/dev/null; then
	tap_plan 1
	tap_skip "user namespace bounds" "in-tree RDS has no max_connections"
	exit 0
fi
if ! unshare -Urn true 2>/dev/null; then
	tap_plan 1
	tap_skip "user namespace bounds" "no unprivileged user namespaces here"
	exit 0
fi

# In a new user and network namespace: raise max_connections to OWN,
# then send from 127.0.0.1 to 127.0.0.2..9 (a loopback connection each);
# prints how many peers took a message and the first error.
peers_in_userns() {
	unshare -Urn sh -c '
ip link set lo up
sysctl -qw net.rds.max_connections='"$1"' || echo "sysctl write refused"
echo "own max_connections: $(sysctl -n net.rds.max_connections)"
python3 -c "
import errno, socket
s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
s.bind((\"127.0.0.1\", 0))
ok, err = 0, \"none\"
for i in range(2, 10):
    try:
        s.sendto(b\"x\", socket.MSG_DONTWAIT, (\"127.0.0.%d\" % i, 4000))
        ok += 1
    except OSError as e:
        err = errno.errorcode[e.errno]
print(\"peers\", ok, \"first error\", err)
"'
}

old=$(sysctl -n net.rds.max_connections)
restore() { sysctl -qw net.rds.max_connections="$old"; }
trap restore EXIT

clamped() {
	local out
	sysctl -qw net.rds.max_connections=3 || return 1
	out=$(peers_in_userns 100000)
	restore
	echo "$out"
	echo "$out" | grep -q "^own max_connections: 100000$" &&
		echo "$out" | grep -qE "^peers [1-3] first error ENOBUFS$"
}

unclamped() {
	local out
	out=$(peers_in_userns 100000)
	echo "$out"
	echo "$out" | grep -q "^peers 8 first error none$"
}

tap_plan 2
tap_check "a user-owned namespace that raises max_connections to 100000 still stops at the initial namespace's 3" clamped
tap_check "with the initial namespace's value back, it makes 8 connections" unclamped
tap_done
