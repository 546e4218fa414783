#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unmodified applications: drive RDS from Python's standard socket module
# (socket.AF_RDS; addresses are IPv4 tuples there), including recvmsg with
# control messages.  Prints TAP itself.
cd "$(dirname "$0")/.." || exit 1
exec python3 - <<'PY'
import errno, os, socket, struct, sys, time, select

SO_TIMESTAMP = 29            # not exported by Python's socket module
SOL_RDS = getattr(socket, "SOL_RDS", 276)
RDS_INFO_SOCKETS = 10006
RDS_TRANS_LOOP = 3

tests = []
def test(fn):
    tests.append(fn)
    return fn

def sock():
    return socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)

def bound(ip="127.0.0.1", port=0):
    s = sock()
    s.bind((ip, port))
    return s

def wait_readable(s, timeout=3.0):
    r, _, _ = select.select([s], [], [], timeout)
    assert r, "nothing to receive"

@test
def constants_match_the_abi():
    assert socket.AF_RDS == 21, socket.AF_RDS
    assert SOL_RDS == 276
    for name, val in [("RDS_CANCEL_SENT_TO", 1), ("RDS_GET_MR", 2),
                      ("RDS_FREE_MR", 3), ("RDS_RECVERR", 5),
                      ("RDS_CONG_MONITOR", 6), ("RDS_GET_MR_FOR_DEST", 7),
                      ("RDS_CMSG_RDMA_ARGS", 1), ("RDS_CMSG_RDMA_DEST", 2),
                      ("RDS_CMSG_RDMA_MAP", 3), ("RDS_CMSG_RDMA_STATUS", 4),
                      ("RDS_CMSG_CONG_UPDATE", 5), ("RDS_INFO_COUNTERS", 10000),
                      ("RDS_INFO_SOCKETS", 10006)]:
        if hasattr(socket, name):
            assert getattr(socket, name) == val, (name, getattr(socket, name))

@test
def only_seqpacket():
    for t in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
        try:
            socket.socket(socket.AF_RDS, t, 0)
        except OSError as e:
            assert e.errno == errno.ESOCKTNOSUPPORT, e
        else:
            raise AssertionError("type %d accepted" % t)

@test
def bind_getsockname():
    s = bound("127.0.0.1", 0)
    ip, port = s.getsockname()
    assert ip == "127.0.0.1" and port > 1, (ip, port)
    try:
        s.getpeername()
    except OSError as e:
        assert e.errno == errno.ENOTCONN
    else:
        raise AssertionError("getpeername on an unconnected socket")
    s.close()

@test
def sendto_recvfrom():
    r, s = bound(), bound("127.0.0.2")
    n = s.sendto(b"hello rds", r.getsockname())
    assert n == 9
    wait_readable(r)
    data, addr = r.recvfrom(100)
    assert data == b"hello rds", data
    assert addr == s.getsockname(), (addr, s.getsockname())
    r.close(); s.close()

@test
def zero_length_and_truncation():
    r, s = bound(), bound()
    s.sendto(b"", r.getsockname())
    s.sendto(b"x" * 100, r.getsockname())
    wait_readable(r)
    data, addr = r.recvfrom(10)
    assert data == b""
    wait_readable(r)
    data, anc, flags, addr = r.recvmsg(10)
    assert data == b"x" * 10 and flags & socket.MSG_TRUNC, (data, flags)
    r.close(); s.close()

@test
def nonblocking_empty_eagain():
    r = bound()
    r.setblocking(False)
    try:
        r.recvfrom(10)
    except BlockingIOError:
        pass
    else:
        raise AssertionError("recv on an empty socket returned")
    r.close()

@test
def timestamp_cmsg_via_sol_rds():
    r, s = bound(), bound()
    r.setsockopt(SOL_RDS, SO_TIMESTAMP, 1)
    s.sendto(b"ts", r.getsockname())
    wait_readable(r)
    data, anc, flags, addr = r.recvmsg(16, socket.CMSG_SPACE(16))
    assert data == b"ts"
    assert len(anc) == 1, anc
    level, typ, payload = anc[0]
    assert level == socket.SOL_SOCKET and typ == SO_TIMESTAMP, anc[0]
    sec, usec = struct.unpack("qq", payload[:16])
    assert abs(sec + usec / 1e6 - time.time()) < 10, (sec, usec)
    assert addr == s.getsockname()
    r.close(); s.close()

@test
def rxq_ovfl_option_and_no_cmsg_without_drops():
    # SO_RXQ_OVFL (SOL_SOCKET) reaches AF_RDS sockets; its cmsg comes
    # only once a message was dropped (never over loopback).
    ovfl = getattr(socket, "SO_RXQ_OVFL", 40)
    r, s = bound(), bound()
    r.setsockopt(socket.SOL_SOCKET, ovfl, 1)
    assert r.getsockopt(socket.SOL_SOCKET, ovfl) == 1
    s.sendto(b"ovfl", r.getsockname())
    wait_readable(r)
    data, anc, flags, addr = r.recvmsg(16, socket.CMSG_SPACE(4))
    assert data == b"ovfl" and anc == [], (data, anc)
    r.close(); s.close()

@test
def connect_and_send():
    r, s = bound(), bound()
    s.connect(r.getsockname())
    assert s.getpeername() == r.getsockname()
    s.send(b"via connect")
    wait_readable(r)
    assert r.recv(64) == b"via connect"
    r.close(); s.close()

@test
def sockopts():
    s = sock()
    t = s.getsockopt(SOL_RDS, 8)            # SO_RDS_TRANSPORT
    assert t == -1 or t == 0xffffffff, t    # RDS_TRANS_NONE
    s.bind(("127.0.0.1", 0))
    assert s.getsockopt(SOL_RDS, 8) == RDS_TRANS_LOOP
    s.setsockopt(SOL_RDS, socket.RDS_RECVERR if hasattr(socket, "RDS_RECVERR") else 5, 1)
    assert s.getsockopt(SOL_RDS, 5) == 1
    try:
        s.setsockopt(SOL_RDS, 999, 1)
    except OSError as e:
        assert e.errno == errno.ENOPROTOOPT, e
    else:
        raise AssertionError("unknown option accepted")
    s.close()

@test
def info_sockets():
    s = bound()
    ip, port = s.getsockname()
    try:
        s.getsockopt(SOL_RDS, RDS_INFO_SOCKETS, 1)
        raise AssertionError("a 1-byte buffer was enough")
    except OSError as e:
        assert e.errno == errno.ENOSPC, e
    # Python caps getsockopt buffers at 1024 bytes: 36 records.
    buf = s.getsockopt(SOL_RDS, RDS_INFO_SOCKETS, 28 * 36)
    assert len(buf) % 28 == 0 and len(buf) > 0, len(buf)
    ports = [struct.unpack_from("!H", buf, i + 12)[0]
             for i in range(0, len(buf), 28)]
    assert port in ports, (port, ports)
    s.close()

@test
def ping_port_zero():
    s = bound()
    s.sendto(b"ping", ("127.0.0.1", 0))
    wait_readable(s)
    data, addr = s.recvfrom(16)
    assert data == b"" and addr == ("127.0.0.1", 0), (data, addr)
    s.close()

@test
def many_messages_in_order():
    r, s = bound(), bound()
    r.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    for i in range(300):
        s.sendto(b"%d" % i, r.getsockname())
    for i in range(300):
        wait_readable(r)
        assert r.recv(16) == b"%d" % i
    r.close(); s.close()

print("TAP version 13")
print("1..%d" % len(tests))
failed = 0
for i, fn in enumerate(tests, 1):
    try:
        fn()
        print("ok %d - %s" % (i, fn.__name__))
    except Exception as e:
        failed += 1
        print("# %s: %r" % (fn.__name__, e))
        print("not ok %d - %s" % (i, fn.__name__))
sys.stdout.flush()
sys.exit(1 if failed else 0)
PY
