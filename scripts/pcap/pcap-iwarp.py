#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise the RDS over iWARP traffic in a capture of the two-host wire.

    pcap-iwarp.py FILE [--require v4,v6]

FILE is what QEMU's filter-dump wrote for the wire (scripts/vm/vm2.sh --pcap):
classic pcap, Ethernet frames cut to 256 bytes. iWARP is MPA framing in
TCP (RFC 5044) carrying DDP (RFC 5041) and RDMAP (RFC 5040): a connection
opens with an MPA request and reply (the keys "MPA ID Req Frame" and "MPA
ID Rep Frame" begin their TCP payload), then each segment siw sends
begins with an FPDU, its 2-byte length, then the DDP header: 18 bytes for
an untagged buffer (a SEND), 14 for a tagged one (RDMA WRITE, READ
response). Prints, per IP version, the MPA exchanges, the SEND FPDUs, the
tagged ones, and how many SENDs at message offset 0 begin with an RDS
header whose checksum is right (RDS over iWARP starts every fragment with
its 48-byte header). With --require, exits 1 unless each named version
carried such RDS headers: proof from outside both guests that RDS went
over iWARP on the wire.
"""
import struct
import sys

from pcap_frames import RDS_HDR, frames, ip_packet, parse_args, rds_header_ok, verdict

MPA_REQ, MPA_REP = b"MPA ID Req Frame", b"MPA ID Rep Frame"
DDP_UNTAGGED_HDR, DDP_TAGGED_HDR = 18, 14
# RDMAP opcodes: Send, Send with Invalidate, Send with SE, both.
RDMAP_SENDS = (0x3, 0x4, 0x5, 0x6)


def tcp_payload(frame):
    """(version, payload as captured) of a TCP segment, else None."""
    pkt = ip_packet(frame)
    if not pkt or pkt[1] != 6 or len(pkt[4]) < 20:
        return None
    tcp = pkt[4]
    doff = (tcp[12] >> 4) * 4
    return pkt[0], tcp[doff:]


def main():
    path, require = parse_args(__doc__)
    st = {v: {"mpa_req": 0, "mpa_rep": 0, "send": 0, "tagged": 0, "rds": 0}
          for v in (4, 6)}
    for frame in frames(path):
        got = tcp_payload(frame)
        if not got or len(got[1]) < 2 + DDP_TAGGED_HDR:
            continue
        ver, p = got
        s = st[ver]
        if p.startswith(MPA_REQ):
            s["mpa_req"] += 1
            continue
        if p.startswith(MPA_REP):
            s["mpa_rep"] += 1
            continue
        ddp, rdmap = p[2], p[3]
        # DDP version 1 (bits 1:0 of its control byte), RDMAP version 1
        # (bits 7:6 of its own).
        if ddp & 0x3 != 1 or rdmap >> 6 != 1:
            continue
        if ddp & 0x80:
            s["tagged"] += 1
            continue
        if rdmap & 0xF not in RDMAP_SENDS or len(p) < 2 + DDP_UNTAGGED_HDR:
            continue
        s["send"] += 1
        mo = struct.unpack("!I", p[16:20])[0]
        body = p[2 + DDP_UNTAGGED_HDR:2 + DDP_UNTAGGED_HDR + RDS_HDR]
        if mo == 0 and rds_header_ok(body):
            s["rds"] += 1
    for v in (4, 6):
        s = st[v]
        print("IPv%d: %d MPA requests, %d replies, %d SEND FPDUs, "
              "%d tagged (RDMA WRITE, READ response), "
              "%d SENDs starting with a valid RDS header" %
              (v, s["mpa_req"], s["mpa_rep"], s["send"], s["tagged"], s["rds"]))
    return verdict(require, {v: st[v]["rds"] and st[v]["mpa_req"] and st[v]["mpa_rep"]
                             for v in (4, 6)}, "RDS over iWARP")


if __name__ == "__main__":
    sys.exit(main())
