#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RDMA through the guest's soft RoCE device rxe0 (rds_rdma), between two
# of its addresses, 10.99.0.1 and 10.99.0.2 (the device loops back to
# itself, so each side has a real queue pair): the RDMA suite that runs
# over loopback as its own program (bin/rdma: registration, read, write,
# notifications, bad and freed cookies, use-once, FREE_MR racing the
# operations, plain atomics; rxe has no masked atomics, so those must be
# refused at sendmsg) and rds-stress's verified RDMA sessions
# (-D 65536 -M 0/1/2 -v with the get-mr, use-once and notify variants).
# What an adapter decides differently is the suite's business (rdma.c:
# on_adapter()).
#
# Over iWARP (siw0) RDMA is not enabled yet: there the check is that it
# is refused cleanly (EOPNOTSUPP at sendmsg), not carried half-way.
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh
. lib/rds_tools.sh
T=$RDS_TOOLS
PORT=6800
WORK=$(mktemp -d /tmp/rds-rdma-adapters.XXXXXX)
RDS_TOOLS_WORK=$WORK
trap 'rm -rf "$WORK"' EXIT
PLAN=6

loaded() { grep -q "^$1 " /proc/modules; }

# suite T S ENV...: bin/rdma with its regions on T and its operations
# from S; every test passes, and at least one ran.
suite() {
	local out rc
	out=$(env RDS_RDMA_T_ADDR="$1" RDS_RDMA_S_ADDR="$2" "${@:3}" \
		timeout 300 bin/rdma 2>&1)
	rc=$?
	echo "$out"
	[ "$rc" = 0 ] && ! grep -q '^not ok' <<< "$out" &&
		grep -q '^ok ' <<< "$out"
}

# conn LOCAL PEER TRANSPORT: rds-info lists that connection, up, on it
# (so the RDMA above went through the device, not loopback).
conn() {
	local info
	info=$("$T/rds-info" -n 2>&1)
	echo "$info"
	echo "$info" | awk -v l="$1" -v p="$2" -v t="$3" \
		'$1 == l && $2 == p && $6 == t && $7 ~ /C/ { f = 1 } END { exit !f }'
}

# stress LOCAL PEER MODE OPTS...: a verified rds-stress session with
# 64 KiB of RDMA per request, on a port of its own.
stress() {
	local rc
	rds_stress_pair "" "" "rdma$PORT" "$PORT" "$2" "$1" \
		-t 2 -d 4 -q 1024 -D 65536 -M "$3" -T 2 -z "${@:4}"
	rc=$?
	PORT=$((PORT + 100))
	return $rc
}

# iwarp_refused: an RDMA request over siw0 gets EOPNOTSUPP at sendmsg,
# and RDS_GET_MR on an iWARP-bound socket too.
iwarp_refused() {
	python3 - <<'PY'
import ctypes, errno, socket, struct, sys
SOL_RDS, RDS_GET_MR, RDS_CMSG_RDMA_ARGS = 276, 2, 1
t = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
t.bind(("10.98.0.2", 0))
s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
s.bind(("10.98.0.1", 0))
buf = ctypes.create_string_buffer(4096)
addr = ctypes.addressof(buf)
cookie = ctypes.c_uint64(0)
bad = []
try:
    # struct rds_get_mr_args { struct rds_iovec vec; u64 cookie_addr; u64 flags; }
    t.setsockopt(SOL_RDS, RDS_GET_MR,
                 struct.pack("=QQQQ", addr, 4096, ctypes.addressof(cookie), 0))
    bad.append("RDS_GET_MR succeeded")
except OSError as e:
    if e.errno != errno.EOPNOTSUPP:
        bad.append("RDS_GET_MR: %s" % e)
# struct rds_rdma_args { cookie; {addr, bytes} remote; local_vec_addr;
#   nr_local; flags; user_token }
iov = struct.pack("=QQ", addr, 64)
iovb = ctypes.create_string_buffer(iov)
args = struct.pack("=QQQQQQQ", 1, 0, 64, ctypes.addressof(iovb), 1, 1, 0)
try:
    s.sendmsg([b"x"], [(SOL_RDS, RDS_CMSG_RDMA_ARGS, args)], 0,
              (t.getsockname()[0], t.getsockname()[1]))
    bad.append("an RDMA write over iWARP was accepted")
except OSError as e:
    if e.errno != errno.EOPNOTSUPP:
        bad.append("sendmsg: %s" % e)
print("; ".join(bad) or "both refused with EOPNOTSUPP")
sys.exit(1 if bad else 0)
PY
}

tap_plan $PLAN
if [ "${RDS_IMPL:-ours}" != ours ]; then
	for _ in $(seq $PLAN); do
		tap_skip "RDMA over rxe and siw" \
			"Linux's rds_rdma registers only on a connection, and has no iWARP"
	done
	exit 0
fi
loaded rds_rdma || modprobe rds_rdma 2>/dev/null
A=10.99.0.1 B=10.99.0.2
if rdma link show rxe0/1 2>/dev/null | grep -q ACTIVE; then
	tap_check "IB (rxe0): the RDMA suite (rdma.c), regions on $B, operations from $A" \
		suite "$B" "$A" RDS_RDMA_NO_MASKED_ATOMICS=1
	tap_check "IB (rxe0): the connection is infiniband" conn "$A" "$B" infiniband
	tap_check "IB (rxe0): rds-stress -D 65536 -M 0 -v (read and write)" \
		stress "$A" "$B" 0
	tap_check "IB (rxe0): rds-stress -M 1 -v --rdma-use-get-mr (reads)" \
		stress "$A" "$B" 1 --rdma-use-get-mr
	tap_check "IB (rxe0): rds-stress -M 2 -v --rdma-use-once --rdma-use-notify (writes)" \
		stress "$A" "$B" 2 --rdma-use-once --rdma-use-notify
else
	for _ in 1 2 3 4 5; do
		tap_skip "RDMA over IB (rxe0)" "no rxe0 in this guest (vm.sh --rdma)"
	done
fi
if rdma link show siw0/1 2>/dev/null | grep -q ACTIVE &&
	{ loaded rds_iwarp || modprobe rds_iwarp 2>/dev/null; }; then
	tap_check "iWARP (siw0): RDMA not enabled yet, refused cleanly (RDS_GET_MR, RDMA_ARGS: EOPNOTSUPP)" \
		iwarp_refused
else
	tap_skip "iWARP (siw0): RDMA refused cleanly" "no siw0 or no rds_iwarp"
fi
tap_done
