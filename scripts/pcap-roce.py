#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise the RDS over RoCE (IB) traffic in a capture of the two-host wire.

    pcap-roce.py FILE [--require v4,v6]

FILE is what QEMU's filter-dump wrote for the wire (scripts/vm2.sh --pcap):
classic pcap, Ethernet frames cut to 256 bytes. RoCEv2 is InfiniBand's
transport header (BTH) in UDP to port 4791. Prints, per IP version, the
RoCEv2 packets, the RDMA CM's (UD to QP 1), the reliable-connection SENDs
and how many of those begin with an RDS header whose checksum is right
(RDS over IB starts every fragment with its 48-byte header and checksums
it). With --require, exits 1 unless each named version carried such RDS
headers: proof from outside both guests that RDS went over IB on the wire.
"""
import struct
import sys

ROCE_PORT = 4791
RC_SEND_FIRST, RC_SEND_ONLY, RC_SEND_ONLY_IMM = 0x00, 0x04, 0x05
RC_SENDS = range(0x00, 0x06)
UD_SEND_ONLY = 0x64
RDS_HDR = 48


def frames(path):
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
        if struct.unpack(end + "I", hdr[20:24])[0] != 1:
            raise ValueError("expected Ethernet frames")
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return
            caplen = struct.unpack(end + "IIII", rec)[2]
            yield f.read(caplen)


def udp_payload(frame):
    """(version, payload) of a UDP datagram to ROCE_PORT, else None."""
    if len(frame) < 14:
        return None
    etype = struct.unpack("!H", frame[12:14])[0]
    ip = frame[14:]
    if etype == 0x0800 and len(ip) >= 20 and ip[9] == 17:
        ver, udp = 4, ip[(ip[0] & 0x0F) * 4:]
    elif etype == 0x86DD and len(ip) >= 40 and ip[6] == 17:
        ver, udp = 6, ip[40:]
    else:
        return None
    if len(udp) < 8 or struct.unpack("!H", udp[2:4])[0] != ROCE_PORT:
        return None
    return ver, udp[8:]


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


def main():
    args = sys.argv[1:]
    require = []
    if "--require" in args:
        i = args.index("--require")
        require = args[i + 1].split(",")
        del args[i:i + 2]
    if len(args) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    st = {v: {"roce": 0, "cm": 0, "rc_send": 0, "rds": 0} for v in (4, 6)}
    for frame in frames(args[0]):
        got = udp_payload(frame)
        if not got:
            continue
        ver, bth = got
        if len(bth) < 12:
            continue
        s = st[ver]
        s["roce"] += 1
        opcode = bth[0]
        qpn = struct.unpack("!I", bth[4:8])[0] & 0xFFFFFF
        if opcode == UD_SEND_ONLY and qpn == 1:
            s["cm"] += 1
        elif opcode in RC_SENDS:
            s["rc_send"] += 1
            if opcode in (RC_SEND_FIRST, RC_SEND_ONLY, RC_SEND_ONLY_IMM) and \
                    rds_header_ok(bth[12:12 + RDS_HDR]):
                s["rds"] += 1
    for v in (4, 6):
        s = st[v]
        print("IPv%d: %d RoCEv2 packets, %d RDMA CM, %d RC SENDs, "
              "%d starting with a valid RDS header" %
              (v, s["roce"], s["cm"], s["rc_send"], s["rds"]))
    rc = 0
    for want in require:
        v = {"v4": 4, "v6": 6}.get(want)
        if v is None:
            print("--require takes v4 and/or v6, not %s" % want, file=sys.stderr)
            return 2
        if not st[v]["rds"]:
            print("no RDS over RoCE on IPv%d" % v)
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
