#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise the RDS/TCP traffic in a capture of the two-host wire.

    pcap-rds.py FILE [--require v4,v6]

FILE is what QEMU's filter-dump wrote for the wire (scripts/vm/vm2.sh --pcap):
classic pcap, Ethernet frames, possibly truncated (only the headers are
needed). Prints, per IP version, the TCP segments to or from RDS/TCP's
port 16385, their payload bytes, the distinct connections and how many
connections were opened (SYN without ACK). With --require, exits 1 unless
each named version carried payload on port 16385: proof from outside both
guests that RDS went over TCP on the wire.
"""
import struct
import sys

from pcap_frames import frames, ip_packet, parse_args, verdict

RDS_TCP_PORT = 16385


def segments(path):
    """Yield (version, src, sport, dst, dport, flags, payload_len)."""
    for frame in frames(path):
        seg = parse(frame)
        if seg:
            yield seg


def parse(frame):
    pkt = ip_packet(frame)
    if not pkt or pkt[1] != 6:
        return None
    ver, _, src, dst, tcp, l4len = pkt
    if len(tcp) < 14:
        return None
    sport, dport = struct.unpack("!HH", tcp[:4])
    doff = (tcp[12] >> 4) * 4
    flags = tcp[13]
    return ver, src, sport, dst, dport, flags, max(l4len - doff, 0)


def main():
    path, require = parse_args(__doc__)
    stats = {4: [0, 0, set(), 0], 6: [0, 0, set(), 0]}
    try:
        for ver, src, sport, dst, dport, flags, plen in segments(path):
            if RDS_TCP_PORT not in (sport, dport):
                continue
            s = stats[ver]
            s[0] += 1
            s[1] += plen
            s[2].add(tuple(sorted([(src, sport), (dst, dport)])))
            if flags & 0x02 and not flags & 0x10:
                s[3] += 1
    except (OSError, ValueError) as e:
        print("pcap-rds: %s: %s" % (path, e))
        return 1
    for ver in (4, 6):
        segs, payload, conns, syns = stats[ver]
        print("IPv%d tcp/%d: %d segments, %d payload bytes, %d connections (%d opened)"
              % (ver, RDS_TCP_PORT, segs, payload, len(conns), syns))
    return verdict(require, {v: stats[v][1] > 0 for v in (4, 6)}, "RDS/TCP payload")


if __name__ == "__main__":
    sys.exit(main())
