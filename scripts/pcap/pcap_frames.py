# SPDX-License-Identifier: GPL-2.0
"""What the capture readers (pcap-rds.py, pcap-roce.py, pcap-iwarp.py)
share: the classic pcap file QEMU's filter-dump writes, Ethernet frames
cut to a few hundred bytes, and RDS's 48-byte header."""
import struct
import sys

RDS_HDR = 48


def frames(path):
    """Yield each captured Ethernet frame (bytes, maybe cut short)."""
    with open(path, "rb") as f:
        hdr = f.read(24)
        if len(hdr) < 24:
            raise ValueError("not a pcap file (too short)")
        magic = struct.unpack("<I", hdr[:4])[0]
        if magic in (0xA1B2C3D4, 0xA1B23C4D):
            end = "<"
        elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
            end = ">"
        else:
            raise ValueError("not a pcap file (magic %#x)" % magic)
        linktype = struct.unpack(end + "I", hdr[20:24])[0]
        if linktype != 1:
            raise ValueError("link type %d, expected Ethernet (1)" % linktype)
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return
            caplen = struct.unpack(end + "IIII", rec)[2]
            yield f.read(caplen)


def ip_packet(frame):
    """(version, protocol, src, dst, l4, l4_len) of an IPv4 or IPv6 packet
    (l4: its transport header and payload as captured; l4_len: their
    length on the wire), else None. IPv6 with a transport header right
    after the fixed one only (Linux sends no extension headers here)."""
    if len(frame) < 14:
        return None
    etype = struct.unpack("!H", frame[12:14])[0]
    ip = frame[14:]
    if etype == 0x0800 and len(ip) >= 20:
        ihl = (ip[0] & 0x0F) * 4
        total = struct.unpack("!H", ip[2:4])[0]
        return 4, ip[9], bytes(ip[12:16]), bytes(ip[16:20]), ip[ihl:], total - ihl
    if etype == 0x86DD and len(ip) >= 40:
        return (6, ip[6], bytes(ip[8:24]), bytes(ip[24:40]), ip[40:],
                struct.unpack("!H", ip[4:6])[0])
    return None


def rds_header_ok(h):
    """A 48-byte RDS header with a right (or absent) checksum."""
    if len(h) < RDS_HDR:
        return False
    if struct.unpack("!H", h[30:32])[0] == 0:
        return True
    s = sum(struct.unpack("!24H", h[:RDS_HDR]))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s == 0xFFFF


def parse_args(doc):
    """(FILE, versions to require: a subset of {4, 6}) from the command
    line "FILE [--require v4,v6]"; prints DOC and exits 2 if it is not."""
    args = sys.argv[1:]
    require = set()
    if "--require" in args:
        i = args.index("--require")
        wants = args[i + 1].split(",") if i + 1 < len(args) else ["nothing"]
        for want in wants:
            v = {"v4": 4, "v6": 6}.get(want)
            if v is None:
                print("--require takes v4 and/or v6, not %s" % want, file=sys.stderr)
                sys.exit(2)
            require.add(v)
        del args[i:i + 2]
    if len(args) != 1:
        print(doc.strip(), file=sys.stderr)
        sys.exit(2)
    return args[0], require


def verdict(require, carried, what):
    """1 (printing why) if a required IP version did not carry WHAT
    (carried[version] false), else 0."""
    rc = 0
    for v in sorted(require):
        if not carried[v]:
            print("no %s on IPv%d" % (what, v))
            rc = 1
    return rc
