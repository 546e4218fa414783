#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run one command on a QEMU human monitor (HMP) listening on a unix socket.

    qmon.py SOCKET COMMAND...

Prints what the monitor answered; exits 0 if it answered at all, 1 if it
could not be reached or did not answer within 10 s. Used by vm2.sh to
serve the guests' link and freeze requests (selftests/lib/wire.sh,
wire_ctl).
"""
import socket
import sys
import time

PROMPT = b"(qemu) "


def read_prompt(s, deadline):
    buf = b""
    while not buf.endswith(PROMPT):
        s.settimeout(max(0.1, deadline - time.monotonic()))
        chunk = s.recv(4096)
        if not chunk:
            raise EOFError("monitor closed")
        buf += chunk
    return buf[: -len(PROMPT)]


def main():
    if len(sys.argv) < 3:
        print("usage: qmon.py SOCKET COMMAND...", file=sys.stderr)
        return 2
    deadline = time.monotonic() + 10
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(sys.argv[1])
        read_prompt(s, deadline)  # the banner
        s.sendall(" ".join(sys.argv[2:]).encode() + b"\n")
        out = read_prompt(s, deadline)
    except (OSError, EOFError) as e:
        print(f"qmon: {sys.argv[1]}: {e}", file=sys.stderr)
        return 1
    finally:
        s.close()
    # The monitor echoes the command line first.
    lines = out.decode(errors="replace").replace("\r", "").split("\n")[1:]
    print("\n".join(line for line in lines if line.strip()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
