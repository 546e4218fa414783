#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A paced, SHA-checked RDS stream for failover tests (IPv4: Python's
AF_RDS takes IPv4 tuples only).

    twonic_stream.py recv ADDR PORT COUNT TIMEOUT_S
    twonic_stream.py send LOCAL PEER PORT COUNT RATE

The sender sends COUNT messages, RATE per second, from LOCAL:PORT+1 to
PEER:PORT; message i is (i, length, SHA-256 of the body) then a body of
64 B to 8 KiB. A full send buffer (ENOBUFS, EAGAIN) is waited out, so a
stalled path shows as a gap, never as a skipped message. The receiver
checks every message once, in order, intact, and prints one line:

    stream: received R expected E lost L dup D reordered O corrupt C
            maxgap_ms G at_ms T

G is the longest time between two consecutive arrivals, T when (ms since
the first arrival) the message that ended it came. It prints "receiver
ready" once bound. Exit 0 only if R == E and L, D, O, C are 0.
"""
import errno
import hashlib
import os
import socket
import struct
import sys
import time

HDR = struct.Struct("!II32s")


def body(i):
    n = 64 + (i * 997) % 8128
    return os.urandom(n)


def send(local, peer, port, count, rate):
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
    s.bind((local, port + 1))
    start = time.monotonic()
    for i in range(count):
        due = start + i / rate
        now = time.monotonic()
        if due > now:
            time.sleep(due - now)
        b = body(i)
        msg = HDR.pack(i, len(b), hashlib.sha256(b).digest()) + b
        while True:
            try:
                s.sendto(msg, (peer, port))
                break
            except OSError as e:
                if e.errno not in (errno.ENOBUFS, errno.EAGAIN):
                    raise
                time.sleep(0.01)
    print("stream: sent %d" % count, flush=True)
    # Stay (the socket open) until the caller kills us once the receiver
    # has everything: a closed socket's queued messages have rules of
    # their own (orphans), which are not what this tests.
    time.sleep(float(os.environ.get("STREAM_LINGER", "5")))
    return 0


def recv(addr, port, count, timeout):
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind((addr, port))
    print("receiver ready", flush=True)
    deadline = time.monotonic() + timeout
    expect = got = lost = dup = reord = corrupt = 0
    first = last = None
    maxgap = 0.0
    gap_at = 0.0
    while got < count:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        s.settimeout(left)
        try:
            data = s.recv(65536)
        except socket.timeout:
            break
        now = time.monotonic()
        if first is None:
            first = now
        elif now - last > maxgap:
            maxgap = now - last
            gap_at = now - first
        last = now
        if len(data) < HDR.size:
            corrupt += 1
            continue
        i, n, h = HDR.unpack_from(data)
        b = data[HDR.size:]
        if len(b) != n or hashlib.sha256(b).digest() != h:
            corrupt += 1
        if i == expect:
            expect += 1
            got += 1
        elif i > expect:
            lost += i - expect
            reord += 1
            expect = i + 1
            got += 1
        else:
            dup += 1
    print("stream: received %d expected %d lost %d dup %d reordered %d "
          "corrupt %d maxgap_ms %d at_ms %d" %
          (got, count, lost + (count - expect), dup, reord, corrupt,
           maxgap * 1000, gap_at * 1000), flush=True)
    return 0 if (got == count and not lost and not dup and not reord
                 and not corrupt) else 1


def main():
    a = sys.argv
    if len(a) == 6 and a[1] == "recv":
        return recv(a[2], int(a[3]), int(a[4]), float(a[5]))
    if len(a) == 7 and a[1] == "send":
        return send(a[2], a[3], int(a[4]), int(a[5]), float(a[6]))
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
