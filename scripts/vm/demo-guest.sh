#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest for `make demo`: what is loaded, which RDMA
# devices back the transports, and RDS traffic over each transport.
cd "$(dirname "$0")/../.." || exit 1
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

# Can a socket of the loaded RDS be bound at all? (Our core gets its data
# path in its own issue; until then there is no traffic to show.)
bind_error=$(python3 - <<'PY'
import socket
s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
try:
    s.bind(("127.0.0.1", 0))
except OSError as e:
    print(e.strerror)
PY
)

# Each transport: name, local address, peer address, rds-stress/rds-ping
# options (see README: eth0 carries rxe0, eth1 carries siw0; TCP and IB
# can both serve eth0's addresses, so the transport is chosen explicitly).
# Can a socket with this transport bind LADDR? Prints why not.
transport_binds() {
	local laddr=$1 t=none
	[ "${2:-}" = --transport ] && t=$3
	python3 - "$laddr" "$t" <<'PY'
import errno, socket, sys
types = {"ib": 0, "iwarp": 1, "tcp": 2}
s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
try:
    if sys.argv[2] in types:
        s.setsockopt(276, 8, types[sys.argv[2]])
    s.bind((sys.argv[1], 0))
except OSError as e:
    mod = {"ib": "rds_rdma", "iwarp": "rds_iwarp"}.get(sys.argv[2], "the transport")
    print(f"{mod} cannot serve {sys.argv[1]} ({errno.errorcode.get(e.errno)}): "
          "no such device or address here")
    sys.exit(1)
PY
}

demo_transport() {
	local name=$1 laddr=$2 faddr=$3
	shift 3
	section "transport $name: $laddr -> $faddr"
	if [ ! -x tools/rds-ping ] || [ ! -x tools/rds-stress ]; then
		echo "  rds-ping/rds-stress are not built: run make"
		status=1
		return 0
	fi
	if [ -n "$bind_error" ]; then
		echo "  skipped: this rds.ko cannot bind a socket yet ($bind_error): no data path"
		return 0
	fi
	# A transport module that is still a skeleton refuses every address.
	local why
	why=$(transport_binds "$laddr" "$@") || {
		echo "  skipped: $why"
		return 0
	}
	tools/rds-ping -c 3 -I "$laddr" "$@" "$faddr" || status=1
	tools/rds-stress -r "$faddr" -p 4000 > /tmp/stress-passive.log 2>&1 &
	tools/rds-stress -r "$laddr" -s "$faddr" -p 4000 -t 2 -d 4 -T 3 "$@" || status=1
	wait
}

demo_transport loopback 127.0.0.1 127.0.0.1
section "RDMA over loopback: rds-stress -D 65536 -M 0 -v (write + read, verified)"
tools/rds-stress -r 127.0.0.1 -p 4100 > /tmp/stress-rdma-passive.log 2>&1 &
tools/rds-stress -r 127.0.0.1 -s 127.0.0.1 -p 4100 -t 1 -d 2 -T 3 -D 65536 -M 0 -v || status=1
wait
demo_transport "tcp (peer is local: carried by rds_loop, as in Linux)" 10.99.0.1 10.99.0.2 --transport tcp
# A real TCP wire: two network namespaces joined by veth, each its own
# RDS host with its own rds_tcp listener.
section "tcp between two hosts (network namespaces over veth): rds-ping, rds-stress -v"
. selftests/lib/netns_pair.sh
if netns_pair_up; then
	netns_a tools/rds-ping -c 3 -I 10.99.2.1 10.99.2.2 || status=1
	netns_b tools/rds-stress -r 10.99.2.2 -p 4200 > /tmp/stress-tcp-passive.log 2>&1 &
	sleep 0.5
	netns_a tools/rds-stress -r 10.99.2.1 -s 10.99.2.2 -p 4200 -t 2 -d 4 -T 3 -v || status=1
	wait
	netns_a tools/rds-info -n -T
	netns_pair_down
else
	echo "no network namespaces here"; status=1
fi
demo_transport "infiniband (rxe0)" 10.99.0.1 10.99.0.2 --transport ib
section "RDMA over infiniband (rxe0): rds-stress -D 65536 -M 0 -v (write + read, verified)"
tools/rds-stress -r 10.99.0.2 -p 4300 > /tmp/stress-ib-rdma-passive.log 2>&1 &
tools/rds-stress -r 10.99.0.1 -s 10.99.0.2 -p 4300 -q 1024 -D 65536 -M 0 -T 3 -v \
	--transport ib || status=1
wait
tools/rds-info -I
demo_transport "iwarp (siw0)" 10.98.0.1 10.98.0.2 --transport iwarp

section "done"
exit $status
