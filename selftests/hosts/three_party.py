#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The three hosts' parts of hosts/three_hog.sh and hosts/three_sndbuf.sh.

    three_party.py hog ROLE TAG DEATH      item 3: a hog on b, c dies
    three_party.py sndbuf ROLE TAG DEATH   item 4: a sends to b and dead c

ROLE is a, b or c (this host), TAG names the scenario's markers (one per
transport and death), DEATH is "stop" (c frozen: QEMU's stop) or "link"
(c's wire loses its carrier). The hosts synchronise with marker files
in RDS_WIRE_DIR, as selftests/lib/wire.sh does; c is killed through
wire_ctl (vmN.sh serves it). Each role prints its results as NAME=VALUE
lines on stdout (the shell scripts assert them) and its progress on
stderr; it exits non-zero only when it could not run at all.
"""
import errno
import os
import select
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time

SO_RXQ_OVFL = getattr(socket, "SO_RXQ_OVFL", 40)
SO_SNDBUFFORCE, SO_RCVBUFFORCE = 32, 33
MIB = 1 << 20
ADDR = {"a": "10.99.1.1", "b": "10.99.1.2", "c": "10.99.1.3"}
# Ports on b: the hog, the other socket a sends to, the one c talks to;
# on c: the one b talks to, the one a's dead destination is.
HOG, GOOD, CTALK, BTALK, DEADP = 7100, 7101, 7102, 7103, 7104
FILL = 2            # 1 MiB messages the hog takes before it shrinks
BURST = 4           # 256 KiB messages each of a and c send it after
SMALL = 20          # messages to b's other socket once c is dead
SMALL_BOUND = 5.0   # seconds they have to arrive
TRIALS = int(os.environ.get("RDS_THREE_TRIALS", "10"))   # off, on, off...
WINDOW = float(os.environ.get("RDS_THREE_WINDOW", "1.5"))
STREAM_MSG = 64 * 1024
POKE_MSG = 16 * 1024
REFUSED = (errno.EAGAIN, errno.ENOBUFS)

ROLE = ""
TAG = ""
WDIR = os.environ.get("RDS_WIRE_DIR", "/run/wire")


def log(msg):
    print("# %s: %s" % (ROLE, msg), file=sys.stderr, flush=True)


def result(**kv):
    for k, v in kv.items():
        print("%s=%s" % (k, v), flush=True)


def mark(name, value=None):
    """A marker ROLE.TAG.NAME; it holds VALUE (a number) if given."""
    f = os.path.join(WDIR, "%s.%s.%s" % (ROLE, TAG, name))
    with open(f + ".tmp", "w") as fh:
        fh.write("%s\n" % (value if value is not None else time.time()))
    os.rename(f + ".tmp", f)


def wait(host, name, secs=120.0):
    f = os.path.join(WDIR, "%s.%s.%s" % (host, TAG, name))
    gone = os.path.join(WDIR, "%s.exited" % host)
    failed = os.path.join(WDIR, "%s.%s.failed" % (host, TAG))
    end = time.monotonic() + secs
    while time.monotonic() < end:
        if os.path.exists(f):
            return True
        if os.path.exists(gone) or os.path.exists(failed):
            break
        time.sleep(0.05)
    sys.exit("%s: no marker %s.%s from host %s within %d s"
             % (ROLE, TAG, name, host, secs))


def ctl(host, cmd):
    here = os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run(["bash", "-c", '. "$1/../lib/wire.sh"; shift; wire_ctl "$@"',
                        "-", here, host] + cmd.split(),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    log("wire_ctl %s %s: rc %d %s" % (host, cmd, r.returncode, r.stdout.strip()))
    if r.returncode:
        sys.exit("wire_ctl %s %s failed" % (host, cmd))


DEAD = []   # c's death, until it is revived


def kill_c(death):
    ctl("c", "stop" if death == "stop" else "set_link wire off")
    DEAD.append(death)


def revive_c(death):
    ctl("c", "cont" if death == "stop" else "set_link wire on")
    DEAD.clear()


def sock(port=0, rcvbuf=0, sndbuf=0):
    s = socket.socket(socket.AF_RDS, socket.SOCK_SEQPACKET, 0)
    # A blocking send gives up after 30 s (a stalled connection fails
    # the scenario rather than hang it).
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", 30, 0))
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, rcvbuf)
    if sndbuf:
        s.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, sndbuf)
    s.bind((ADDR[ROLE], port))
    return s


def run_out(cmd, stderr=subprocess.DEVNULL):
    """A command's output (with its errors if stderr is STDOUT); raises
    OSError or TimeoutExpired."""
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=stderr,
                          text=True, timeout=20).stdout


def rds_info():
    """Our rds-info (RDS_TOOLS, else on PATH)."""
    tools = os.environ.get("RDS_TOOLS", "")
    return os.path.join(tools, "rds-info") if tools else "rds-info"


def counter(name):
    """One of our core's counters (rds-info -c), or -1 (Linux's RDS)."""
    try:
        out = run_out([rds_info(), "-c"])
    except (OSError, subprocess.TimeoutExpired):
        return -1
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 2 and f[0] == name:
            return int(f[1])
    return -1


def show_state(why):
    """This host's connections, paths, queues, counters (rds-info) and QPs,
    for the log: what a scenario that came up short left behind."""
    # The last: the queue pairs' states (RTS or ERR) and peers' numbers.
    cmds = [[rds_info(), opt] for opt in ("-n", "-p", "-s", "-t", "-I", "-c")]
    cmds.append(["rdma", "res", "show", "qp"])
    for cmd in cmds:
        try:
            out = run_out(cmd, subprocess.STDOUT)
        except (OSError, subprocess.TimeoutExpired) as e:
            out = str(e)
        name = " ".join([os.path.basename(cmd[0])] + cmd[1:])
        for line in out.splitlines():
            print("state (%s) %s: %s" % (why, name, line), flush=True)


def recv_until(s, n, secs, want=None):
    """Receive up to n messages within secs; count those starting with want."""
    got, end = 0, time.monotonic() + secs
    while got < n:
        left = end - time.monotonic()
        if left <= 0 or not select.select([s], [], [], left)[0]:
            break
        data = s.recv(MIB)
        if want is None or data.startswith(want):
            got += 1
    return got


def drain(s, size=MIB):
    n = nbytes = 0
    ovfl = -1
    while True:
        try:
            data, anc, _, _ = s.recvmsg(size, socket.CMSG_SPACE(4),
                                        socket.MSG_DONTWAIT)
        except BlockingIOError:
            return n, nbytes, ovfl
        for level, typ, val in anc:
            if level == socket.SOL_SOCKET and typ == SO_RXQ_OVFL:
                ovfl = struct.unpack("=I", val[:4])[0]
        n += 1
        nbytes += len(data)


def try_send(s, data, dst):
    try:
        s.sendto(data, socket.MSG_DONTWAIT, dst)
        return True
    except OSError as e:
        if e.errno in REFUSED:
            return False
        raise


# ---- item 3: a hog on b, c dies, the rest of b's traffic from a goes on

def hog_make(good, k):
    """b: a hog over its hard limit. It takes FILL x 1 MiB from a (with a
    big SO_RCVBUF), then shrinks to 4 KiB: it holds more than 4 x SO_RCVBUF
    + 1 MiB while the senders' maps still say it has room, as after a
    burst that overtook the map; then a (and c, the first time) send
    BURST x 256 KiB more to it, which must be dropped."""
    hog = sock(HOG, rcvbuf=8 * MIB)
    hog.setsockopt(socket.SOL_SOCKET, SO_RXQ_OVFL, 1)
    mark("hog%d.ready" % k)
    # The fill, then a's settle message on the good socket: in order on
    # the one connection, so the fill is queued once the settle is here.
    if recv_until(good, 1, 60, b"settle") != 1:
        sys.exit("a's settle message did not come")
    hog.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    mark("hog%d.shrunk" % k)
    if recv_until(good, 1, 60, b"burst-done") != 1:
        sys.exit("a's end of burst did not come")
    return hog


def hog_report(hog, drops0, idx):
    held, held_bytes, ovfl = drain(hog)
    rcvbuf = hog.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
    drops = counter("recv_drop_rcvbuf")
    result(**{"hog%d_held" % idx: held, "hog%d_held_bytes" % idx: held_bytes,
              "hog%d_rcvbuf" % idx: rcvbuf, "hog%d_ovfl" % idx: ovfl,
              "hog%d_drops" % idx: (drops - drops0) if drops >= 0 else -1})
    hog.close()


def hog_b(death):
    good = sock(GOOD, rcvbuf=8 * MIB)
    ctalk = sock(CTALK, rcvbuf=8 * MIB)
    btx = sock(sndbuf=1 * MIB)
    drops0 = counter("recv_drop_rcvbuf")
    hog = hog_make(good, 0)
    # c talks to b while it is alive; b talks to c on a socket of its own.
    if recv_until(ctalk, 1, 60, b"burst-done") != 1:
        sys.exit("c's end of burst did not come")
    stop_talk = threading.Event()

    def talk():
        i = 0
        while not stop_talk.is_set():
            try_send(btx, b"b->c %d" % i, (ADDR["c"], BTALK))
            i += 1
            time.sleep(0.01)
    t = threading.Thread(target=talk)
    t.start()
    got_c = recv_until(ctalk, 10, 30, b"c->b")
    log("c talked: %d messages" % got_c)
    kill_c(death)
    t_dead = time.monotonic()
    mark("c.dead")
    got = recv_until(good, SMALL, SMALL_BOUND, b"small")
    took = time.monotonic() - t_dead
    result(c_talked=got_c, small_got=got, small_n=SMALL,
           small_secs="%.2f" % took)
    hog_report(hog, drops0, 0)

    # Full rate: the same stream from a to the good socket, without and
    # with a hog, alternated, c dead throughout; trial -1 only warms up
    # (the first stream after the scenario's start ran slower).
    rates = {0: [], 1: []}
    for k in range(-1, TRIALS):
        on = k >= 0 and k % 2
        hog = None
        if on:
            d0 = counter("recv_drop_rcvbuf")
            hog = hog_make(good, k)
        mark("trial%d.go" % k)
        t0 = first = None
        nbytes = 0
        stopped = False
        while True:
            if not select.select([good], [], [], 30)[0]:
                sys.exit("the stream stopped in trial %d" % k)
            data = good.recv(MIB)
            now = time.monotonic()
            if data.startswith(b"end"):
                break
            if first is None:
                # From the first message on, a window of WINDOW s after
                # 0.3 s of warm-up.
                first = now
                continue
            if t0 is None and now - first >= 0.3:
                t0 = now
                nbytes = 0
            if t0 is not None and now - t0 <= WINDOW:
                nbytes += len(data)
            if t0 is not None and now - t0 > WINDOW and not stopped:
                mark("trial%d.stop" % k)
                stopped = True
        rate = nbytes / WINDOW / MIB
        if k < 0:
            log("warm-up: %.2f MiB/s" % rate)
            continue
        rates[on].append(rate)
        log("trial %d (%s hog): %.2f MiB/s" % (k, "with" if on else "no", rate))
        result(**{"trial%d_%s" % (k, "hog" if on else "nohog"): "%.2f" % rate})
        if hog is not None:
            hog_report(hog, d0, k)
    off, on = statistics.median(rates[0]), statistics.median(rates[1])
    result(rate_nohog="%.2f" % off, rate_hog="%.2f" % on,
           ratio="%.3f" % (on / off if off else 0))
    revive_c(death)
    mark("done")
    stop_talk.set()
    t.join()
    wait("c", "done", 120)


def hog_a_fill(tx, k):
    wait("b", "hog%d.ready" % k)
    fill = bytes(range(256)) * (MIB // 256)
    for _ in range(FILL):
        tx.sendto(fill, (ADDR["b"], HOG))
    tx.sendto(b"settle", (ADDR["b"], GOOD))
    wait("b", "hog%d.shrunk" % k)
    sent = 0
    for _ in range(BURST):
        sent += try_send(tx, fill[:MIB // 4], (ADDR["b"], HOG))
    tx.sendto(b"burst-done", (ADDR["b"], GOOD))
    return sent


def hog_a(death):
    tx = sock(sndbuf=4 * MIB)
    sent = hog_a_fill(tx, 0)
    result(burst_sent_a0=sent)
    wait("b", "c.dead", 180)
    for j in range(SMALL):
        tx.sendto(b"small %d" % j, (ADDR["b"], GOOD))
    payload = b"x" * STREAM_MSG
    poke = b"p" * POKE_MSG
    for k in range(-1, TRIALS):
        on = k >= 0 and k % 2
        if on:
            result(**{"burst_sent_a%d" % k: hog_a_fill(tx, k)})
        wait("b", "trial%d.go" % k)
        stop = os.path.join(WDIR, "b.%s.trial%d.stop" % (TAG, k))
        hog_ok = hog_no = 0
        last_poke = 0.0
        last_look = 0.0
        while True:
            # The stop marker is looked for 10 times a second (a look is
            # a 9p round trip).
            if time.monotonic() - last_look > 0.1:
                last_look = time.monotonic()
                if os.path.exists(stop):
                    break
            tx.sendto(payload, (ADDR["b"], GOOD))
            # Knock at the hog's port 20 times a second (a sender that
            # does not know it is a hog); without the hog too, so both
            # trials offer the same traffic (b drops a message to a
            # port nobody has bound).
            if time.monotonic() - last_poke > 0.05:
                last_poke = time.monotonic()
                if try_send(tx, poke, (ADDR["b"], HOG)):
                    hog_ok += 1
                else:
                    hog_no += 1
        tx.sendto(b"end", (ADDR["b"], GOOD))
        result(**{"poke_ok%d" % k: hog_ok, "poke_refused%d" % k: hog_no})
    wait("b", "done", 300)


def hog_c(death):
    tx = sock(sndbuf=8 * MIB)
    rx = sock(BTALK, rcvbuf=8 * MIB)
    wait("b", "hog0.ready")
    wait("b", "hog0.shrunk")
    fill = bytes(256) * (MIB // 1024)
    sent = 0
    for _ in range(BURST):
        sent += try_send(tx, fill, (ADDR["b"], HOG))
    tx.sendto(b"burst-done", (ADDR["b"], CTALK))
    result(burst_sent_c=sent)
    # Talk to b until b says it is over (c is frozen or cut off meanwhile).
    done = os.path.join(WDIR, "b.%s.done" % TAG)
    failed = os.path.join(WDIR, "b.%s.failed" % TAG)
    i = 0
    while not os.path.exists(done) and not os.path.exists(failed):
        try_send(tx, b"c->b %d" % i, (ADDR["b"], CTALK))
        i += 1
        drain(rx, 4096)
        time.sleep(0.01)
    mark("done")


# ---- item 4: a's socket sends to live b and dead c

SNDBUF = 256 * 1024
N4 = int(os.environ.get("RDS_THREE_N", "200"))
MSG4 = 1024
FILL4 = 16 * 1024


def sndbuf_a(death):
    s = sock(sndbuf=SNDBUF)
    wait("b", "ready")
    wait("c", "ready")
    s.sendto(b"hello", (ADDR["b"], GOOD))
    s.sendto(b"hello", (ADDR["c"], DEADP))
    wait("b", "hello")
    wait("c", "hello")
    kill_c(death)
    # Fill c's share: until a send to it is refused (bounded: 64 MiB).
    filled = 0
    blob = b"d" * FILL4
    while filled < 4096 and try_send(s, blob, (ADDR["c"], DEADP)):
        filled += 1
    result(sndbuf=s.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF),
           dead_filled=filled, dead_filled_bytes=filled * FILL4)
    ok = no = dead_ok = 0
    t0 = time.monotonic()
    for i in range(N4):
        if try_send(s, b"live %d " % i + b"l" * MSG4, (ADDR["b"], GOOD)):
            ok += 1
        else:
            no += 1
        if i % 10 == 0 and try_send(s, blob, (ADDR["c"], DEADP)):
            dead_ok += 1
        time.sleep(0.01)
    result(live_n=N4, live_accepted=ok, live_refused=no, dead_more=dead_ok,
           live_secs="%.1f" % (time.monotonic() - t0))
    mark("count", ok)
    wait("b", "counted", 120)
    revive_c(death)
    t_up = time.monotonic()
    mark("dead", filled + dead_ok)
    wait("c", "counted", 180)
    result(revived_secs="%.1f" % (time.monotonic() - t_up))
    with open(os.path.join(WDIR, "c.%s.counted" % TAG)) as fh:
        if int(fh.read()) < filled + dead_ok:
            show_state("c short")
    mark("done")


def read_count(name):
    with open(os.path.join(WDIR, "a.%s.%s" % (TAG, name))) as fh:
        return int(fh.read())


def sndbuf_b(death):
    r = sock(GOOD, rcvbuf=8 * MIB)
    mark("ready")
    if recv_until(r, 1, 60, b"hello") != 1:
        sys.exit("a's hello did not come")
    mark("hello")
    got = 0
    count = os.path.join(WDIR, "a.%s.count" % TAG)
    a_failed = os.path.join(WDIR, "a.%s.failed" % TAG)
    end = None
    while True:
        if os.path.exists(a_failed):
            sys.exit("host a failed")
        if os.path.exists(count) and end is None:
            end = time.monotonic() + 10
        if end is not None and (got >= read_count("count")
                                or time.monotonic() > end):
            break
        if select.select([r], [], [], 0.1)[0]:
            if r.recv(MIB).startswith(b"live"):
                got += 1
    result(live_received=got)
    mark("counted")
    wait("a", "done", 300)


def sndbuf_c(death):
    r = sock(DEADP, rcvbuf=64 * MIB)
    mark("ready")
    if recv_until(r, 1, 60, b"hello") != 1:
        sys.exit("a's hello did not come")
    mark("hello")
    # Frozen or cut off from here on; afterwards everything a queued
    # must come.
    got = 0
    dead = os.path.join(WDIR, "a.%s.dead" % TAG)
    a_failed = os.path.join(WDIR, "a.%s.failed" % TAG)
    end = None
    while True:
        if os.path.exists(a_failed):
            sys.exit("host a failed")
        if os.path.exists(dead) and end is None:
            end = time.monotonic() + 60
        if end is not None and (got >= read_count("dead")
                                or time.monotonic() > end):
            break
        if select.select([r], [], [], 0.1)[0]:
            r.recv(MIB)
            got += 1
    result(dead_received=got)
    if got < read_count("dead"):
        show_state("short")
    mark("counted", got)
    wait("a", "done", 300)


def main():
    global ROLE, TAG
    if len(sys.argv) != 5 or sys.argv[1] not in ("hog", "sndbuf") \
            or sys.argv[2] not in ADDR or sys.argv[4] not in ("stop", "link"):
        print(__doc__, file=sys.stderr)
        return 2
    ROLE, TAG = sys.argv[2], sys.argv[3]
    try:
        globals()["%s_%s" % (sys.argv[1], ROLE)](sys.argv[4])
    except BaseException:
        # The others stop waiting for this host, and c comes back for
        # the next scenario.
        mark("failed")
        if DEAD:
            revive_c(DEAD[0])
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
