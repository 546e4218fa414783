#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""An Ethernet switch for QEMU guests joined by `-netdev stream` (unix).

    wire-switch.py SOCKET

Listens on the unix socket SOCKET; each QEMU that connects to it
(`-netdev stream,server=off,addr.type=unix,addr.path=SOCKET`) is one port.
QEMU's stream framing is a 4-byte big-endian length before each frame.
The switch learns source MACs and sends a unicast frame to the one port
that owns its destination, floods the rest (broadcast, multicast,
unknown). vmN.sh runs one per wire of three hosts or more (two hosts are
joined directly).

A port that stops reading (a frozen guest: QEMU's "stop") must not hold
up the others: every write is non-blocking, each port queues at most
QUEUE_MAX bytes in the switch and a frame that does not fit is dropped,
as a switch's full egress queue drops. Runs until it is killed; prints
what each port sent and what it dropped for it when the port goes (its
QEMU exits) or when the switch gets SIGTERM.
"""
import os
import selectors
import signal
import socket
import struct
import sys

QUEUE_MAX = 512 * 1024
READ_MAX = 256 * 1024
FRAME_MAX = 65536 + 64


class Port:
    def __init__(self, sock, num):
        self.sock = sock
        self.num = num
        self.inbuf = bytearray()
        self.out = bytearray()
        self.dropped = 0
        self.frames = 0


def main():
    if len(sys.argv) != 2:
        print("usage: wire-switch.py SOCKET", file=sys.stderr)
        return 2
    path = sys.argv[1]
    sel = selectors.DefaultSelector()
    lsock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if os.path.exists(path):
        os.unlink(path)
    lsock.bind(path + ".tmp")
    lsock.listen(16)
    lsock.setblocking(False)
    # Renamed once it listens: a QEMU that finds the path can connect.
    os.rename(path + ".tmp", path)
    sel.register(lsock, selectors.EVENT_READ, None)
    ports = []
    macs = {}

    def port_report(p):
        print("wire-switch: port %d: %d frames in, %d dropped (queue full)"
              % (p.num, p.frames, p.dropped), file=sys.stderr)

    def report(*_):
        for p in ports:
            port_report(p)
        sys.exit(0)

    signal.signal(signal.SIGTERM, report)

    def want_write(p):
        ev = selectors.EVENT_READ
        if p.out:
            ev |= selectors.EVENT_WRITE
        sel.modify(p.sock, ev, p)

    def enqueue(p, frame):
        if len(p.out) + len(frame) + 4 > QUEUE_MAX:
            p.dropped += 1
            return
        p.out += struct.pack("!I", len(frame)) + frame
        flush(p)

    def flush(p):
        try:
            n = p.sock.send(p.out)
            del p.out[:n]
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            p.out.clear()
        want_write(p)

    def forward(src, frame):
        if len(frame) < 14:
            return
        dst_mac, src_mac = bytes(frame[0:6]), bytes(frame[6:12])
        if not src_mac[0] & 1:
            macs[src_mac] = src
        dst = macs.get(dst_mac) if not dst_mac[0] & 1 else None
        if dst is not None:
            if dst is not src and dst in ports:
                enqueue(dst, frame)
            return
        for p in ports:
            if p is not src:
                enqueue(p, frame)

    def drop_port(p):
        port_report(p)
        sel.unregister(p.sock)
        p.sock.close()
        ports.remove(p)
        for mac in [m for m, q in macs.items() if q is p]:
            del macs[mac]

    num = 0
    while True:
        for key, ev in sel.select():
            if key.data is None:
                conn, _ = lsock.accept()
                conn.setblocking(False)
                num += 1
                p = Port(conn, num)
                ports.append(p)
                sel.register(conn, selectors.EVENT_READ, p)
                continue
            p = key.data
            if ev & selectors.EVENT_WRITE:
                flush(p)
            if not ev & selectors.EVENT_READ:
                continue
            try:
                data = p.sock.recv(READ_MAX)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                data = b""
            if not data:
                drop_port(p)
                continue
            p.inbuf += data
            off = 0
            while len(p.inbuf) - off >= 4:
                (flen,) = struct.unpack_from("!I", p.inbuf, off)
                if flen > FRAME_MAX:
                    break
                if len(p.inbuf) - off - 4 < flen:
                    break
                p.frames += 1
                forward(p, p.inbuf[off + 4:off + 4 + flen])
                off += 4 + flen
            del p.inbuf[:off]
            if len(p.inbuf) >= 4 and \
                    struct.unpack_from("!I", p.inbuf)[0] > FRAME_MAX:
                print("wire-switch: port %d sent a frame of %d bytes: closed"
                      % (p.num, struct.unpack_from("!I", p.inbuf)[0]),
                      file=sys.stderr)
                drop_port(p)


if __name__ == "__main__":
    sys.exit(main())
