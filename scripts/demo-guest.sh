#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest for `make demo`: what is loaded, which RDMA
# devices back the transports, and RDS traffic over each transport.
cd "$(dirname "$0")/.." || exit 1
status=0

section() { printf '\n==== %s\n' "$*"; }

section "kernel $(uname -r); our modules (taint O = out-of-tree, i.e. ours)"
for m in rds rds_loop rds_tcp rds_rdma rds_iwarp; do
	printf '  %-10s taint=%-3s %s\n' "$m" "$(cat /sys/module/$m/taint 2>/dev/null)" \
		"$(modinfo -F description "$m" 2>/dev/null)"
done
dmesg | grep 'rds: registered transport' | sed 's/^\[[^]]*\] /  /'

section "soft RDMA devices"
rdma link show | sed 's/^/  /'
ip -br -4 addr show | sed 's/^/  /'

section "an AF_RDS socket from Python's standard socket module"
python3 - <<'PY' || status=1
import socket
s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
print("  socket(AF_RDS, SOCK_SEQPACKET) ->", s)
s.close()
PY

# Each transport: name, local address, peer address (see README: eth0
# carries rxe0, eth1 carries siw0).
demo_transport() {
	local name=$1 laddr=$2 faddr=$3
	section "transport $name: $laddr -> $faddr"
	if [ ! -x tools/rds-ping ] || [ ! -x tools/rds-stress ]; then
		echo "  rds-ping/rds-stress are not built yet (tools issue): nothing to show"
		return 0
	fi
	tools/rds-ping -c 3 -I "$laddr" "$faddr" || status=1
	tools/rds-stress -r "$faddr" -p 4000 > /tmp/stress-passive.log 2>&1 &
	sleep 1
	tools/rds-stress -r "$laddr" -s "$faddr" -p 4000 -t 2 -d 4 -T 3 || status=1
	wait
}

demo_transport loopback 127.0.0.1 127.0.0.1
demo_transport tcp 10.99.0.1 10.99.0.2
demo_transport "infiniband (rxe0)" 10.99.0.1 10.99.0.2
demo_transport "iwarp (siw0)" 10.98.0.1 10.98.0.2

section "done"
exit $status
