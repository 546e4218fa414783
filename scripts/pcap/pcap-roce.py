#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise the RDS over RoCE (IB) traffic in a capture of the two-host wire.

    pcap-roce.py FILE [--require v4,v6]

FILE is what QEMU's filter-dump wrote for the wire (scripts/vm/vm2.sh --pcap):
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

from pcap_frames import RDS_HDR, frames, ip_packet, parse_args, rds_header_ok, verdict

ROCE_PORT = 4791
RC_SEND_FIRST, RC_SEND_ONLY, RC_SEND_ONLY_IMM = 0x00, 0x04, 0x05
RC_SENDS = range(0x00, 0x06)
UD_SEND_ONLY = 0x64


def udp_payload(frame):
    """(version, payload) of a UDP datagram to ROCE_PORT, else None."""
    pkt = ip_packet(frame)
    if not pkt or pkt[1] != 17:
        return None
    udp = pkt[4]
    if len(udp) < 8 or struct.unpack("!H", udp[2:4])[0] != ROCE_PORT:
        return None
    return pkt[0], udp[8:]


def main():
    path, require = parse_args(__doc__)
    st = {v: {"roce": 0, "cm": 0, "rc_send": 0, "rds": 0} for v in (4, 6)}
    for frame in frames(path):
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
    return verdict(require, {v: st[v]["rds"] for v in (4, 6)}, "RDS over RoCE")


if __name__ == "__main__":
    sys.exit(main())
