#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read RDS's per-lane history (UEK's RDS6_INFO_CONN_PATHS, 10021, or
RDS_INFO_CONN_PATHS, 10020 with -4) straight from getsockopt and print
one line per lane:

    laddr faddr tos transport lane state flags attempts attempts_total
    resets drops connect_ms reset_ms reason reset_reason

(numbers; reasons as numbers from <linux/rds_uek.h>). With --each, print
only the record size the call returned (it must be 666: UEK's 346 bytes
and our extension). Exit 1 if the call fails.

    rds_paths.py [-4] [--each]
"""
import ctypes
import errno
import os
import ipaddress
import socket
import struct
import sys

SOL_RDS = 276
RDS_INFO_CONN_PATHS = 10020
RDS6_INFO_CONN_PATHS = 10021
PATHS_MAX = 8
HDR = struct.Struct("<16s16s16sBB")           # 50 bytes
PATH = struct.Struct("<qqqIIIB")              # 37 bytes
EXT = struct.Struct("<QQQIIIBB2x")            # 40 bytes
STATES = ["down", "connecting", "up", "disconnecting", "error"]


def fetch(opt):
    """The table's bytes and the call's return value (the record size),
    through libc: Python's own getsockopt hides the latter."""
    libc = ctypes.CDLL(None, use_errno=True)
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET)
    size = 4096
    while True:
        buf = ctypes.create_string_buffer(size)
        ln = ctypes.c_uint(size)
        ret = libc.getsockopt(s.fileno(), SOL_RDS, opt, buf, ctypes.byref(ln))
        err = ctypes.get_errno()
        if ret >= 0:
            break
        if err != errno.ENOSPC or size > (1 << 24):
            raise OSError(err, os.strerror(err))
        size = max(size * 2, ln.value)
    s.close()
    return buf.raw[:ln.value], ret


def addr(b):
    a = ipaddress.IPv6Address(b)
    return str(a.ipv4_mapped) if a.ipv4_mapped else str(a)


def main():
    opt = RDS_INFO_CONN_PATHS if "-4" in sys.argv else RDS6_INFO_CONN_PATHS
    each = HDR.size + PATHS_MAX * (PATH.size + EXT.size)
    buf, ret = fetch(opt)
    if ret != each:
        print("the call says records are %d bytes, not %d" % (ret, each))
        return 1
    if len(buf) % each:
        print("record size mismatch: %d bytes is not a multiple of %d"
              % (len(buf), each))
        return 1
    if "--each" in sys.argv:
        print(ret)
        return 0
    for off in range(0, len(buf), each):
        la, fa, tr, tos, n = HDR.unpack_from(buf, off)
        tr = tr.split(b"\0")[0].decode()
        for i in range(min(n, PATHS_MAX)):
            at, ct, rt, reason, att, idx, flags = PATH.unpack_from(
                buf, off + HDR.size + i * PATH.size)
            am, cm, rm, resets, tot, drops, st, rr = EXT.unpack_from(
                buf, off + HDR.size + PATHS_MAX * PATH.size + i * EXT.size)
            # UEK's seconds agree with our milliseconds.
            if ct != cm // 1000 or rt != rm // 1000 or at != am // 1000:
                print("seconds and milliseconds disagree: %d/%d %d/%d %d/%d"
                      % (ct, cm, rt, rm, at, am))
                return 1
            print(addr(la), addr(fa), tos, tr, idx,
                  STATES[st] if st < len(STATES) else st, flags, att, tot,
                  resets, drops, cm, rm, reason, rr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
