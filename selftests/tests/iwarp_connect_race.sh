#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Both ends of an iWARP connection connect at once (siw0, 10.98.0.1 and
# 10.98.0.2, each sending to the other with no connection up), once per
# TOS so each round is a new connection. IB resolves such a race by
# having the higher address give its attempt up inside the CM handler;
# on iWARP that deadlocked the CM's workqueue (its CM holds the attempt's
# queue pair until the answer, which that workqueue delivers). iWARP now
# refuses on both sides and the higher address leaves the next attempt to
# the peer (rds_rdma_cm.c). Every message must arrive, both ways.
#
# It used to fail in its 4th round (one direction got 1 of 8 messages in
# 15 s, 15 message objects left). Since the send ring no longer holds
# messages behind an unsignaled last SEND (rds_rdma_xmit_complete) it
# passed 6 of 6 boots; that this was the cause is likely, not shown.
cd "$(dirname "$0")/.." || exit 1
. lib/tap.sh
. lib/rds_tools.sh
PLAN=2

loaded() { grep -q "^$1 " /proc/modules; }

race() {
	timeout 120 python3 - <<'PY'
import fcntl, socket, struct, sys, threading, time
SIOCRDSSETTOS = 0x89E0
A, B = "10.98.0.1", "10.98.0.2"
bad = []

def pair(tos):
    socks = []
    for addr in (A, B):
        s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
        s.bind((addr, 0))
        fcntl.ioctl(s, SIOCRDSSETTOS, struct.pack("B", tos))
        s.settimeout(15)
        socks.append(s)
    return socks

for tos in range(1, 5):
    a, b = pair(tos)
    go = threading.Barrier(2)
    def send(src, dst, tag):
        go.wait()
        for i in range(8):
            src.sendto(b"%s %d %d" % (tag, tos, i), dst.getsockname())
    t = [threading.Thread(target=send, args=(a, b, b"a")),
         threading.Thread(target=send, args=(b, a, b"b"))]
    t0 = time.time()
    for x in t: x.start()
    for x in t: x.join()
    for s, tag in ((b, b"a"), (a, b"b")):
        got = []
        try:
            for i in range(8):
                got.append(s.recv(64))
        except OSError as e:
            bad.append("tos %d: %s after %d messages" % (tos, e, len(got)))
            continue
        want = [b"%s %d %d" % (tag, tos, i) for i in range(8)]
        if got != want:
            bad.append("tos %d: got %r" % (tos, got))
    print("# tos %d: both ways in %.2f s" % (tos, time.time() - t0))
    a.close(); b.close()
print("; ".join(bad) or "every message arrived, in order, both ways")
sys.exit(1 if bad else 0)
PY
}

conns_up() {
	local n
	n=$("$RDS_TOOLS/rds-info" -n 2>/dev/null | awk '$6 == "iwarp" && $7 ~ /C/' | wc -l)
	echo "# $n iwarp connections up"
	[ "$n" -ge 8 ]
}

tap_plan $PLAN
if [ "${RDS_IMPL:-ours}" != ours ]; then
	tap_skip "iWARP connect race" "Linux has no iWARP RDS"
	tap_skip "iWARP connect race: connections up" "Linux has no iWARP RDS"
	exit 0
fi
if rdma link show siw0/1 2>/dev/null | grep -q ACTIVE &&
	{ loaded rds_iwarp || modprobe rds_iwarp 2>/dev/null; }; then
	tap_check "iWARP (siw0): both ends connect at once, 4 new connections (TOS 1-4): 8 messages each way arrive, in order" \
		race
	tap_check "iWARP (siw0): ... and all 8 connections (4 per side) are up" conns_up
else
	tap_skip "iWARP connect race" "no siw0 or no rds_iwarp"
	tap_skip "iWARP connect race: connections up" "no siw0 or no rds_iwarp"
fi
tap_done
