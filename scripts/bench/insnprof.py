#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Symbolize the insnprof plugin's profiles (scripts/bench/insnprof.sh).

    insnprof.py report DIR [--ops N] [--top N] [--window N]
    insnprof.py diff DIR_A DIR_B [--ops-a N] [--ops-b N] [--top N] [--window N]

DIR holds what one run left: prof.N (the plugin's "ADDR COUNT" lines per
translation-block start address, window N), kallsyms (the guest's), and
the guest's win.N ("T0 T1", guest seconds), ops.N or rate.N.

Every block's instructions go to the text symbol at or below its start
address (a block never spans a call, so never two functions), its module
to the symbol's [module] tag or [kernel]; user-space addresses are one
symbol, [user].
"""
import argparse
import bisect
import os
import sys

USER_TOP = 0x0000800000000000


class Symbols:
    def __init__(self, path):
        syms = []
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) < 3 or parts[1] not in "tTwW":
                    continue
                addr = int(parts[0], 16)
                if not addr:
                    continue
                mod = parts[3].strip("[]") if len(parts) > 3 else "[kernel]"
                syms.append((addr, parts[2], mod))
        syms.sort()
        self.addrs = [s[0] for s in syms]
        self.syms = syms

    def lookup(self, addr):
        if addr < USER_TOP:
            return "[user]", "[user]"
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0:
            return "[unknown]", "[unknown]"
        return self.syms[i][1], self.syms[i][2]


class Window:
    """One window of one run: instructions per symbol and per module."""

    def __init__(self, d, n, ops=None):
        self.total = 0
        self.by_sym = {}
        self.by_mod = {}
        syms = Symbols(os.path.join(d, "kallsyms"))
        with open(os.path.join(d, "prof.%d" % n)) as f:
            for line in f:
                if line.startswith("#"):
                    continue
                a, c = line.split()
                c = int(c)
                name, mod = syms.lookup(int(a, 16))
                key = (name, mod)
                self.by_sym[key] = self.by_sym.get(key, 0) + c
                self.by_mod[mod] = self.by_mod.get(mod, 0) + c
                self.total += c
        self.seconds = None
        win = os.path.join(d, "win.%d" % n)
        if os.path.exists(win):
            t0, t1 = (float(x) for x in open(win).read().split())
            self.seconds = t1 - t0
        self.ops = ops
        self.ops_from = "--ops" if ops else None
        for name in ("ops", "rate"):
            p = os.path.join(d, "%s.%d" % (name, n))
            if not os.path.exists(p):
                continue
            v = float(open(p).read().split()[0])
            if name == "ops":
                self.ops, self.ops_from = v, "the guest's count"
            elif self.seconds:
                self.ops = v * self.seconds
                self.ops_from = "%.1f/s x %.4f s" % (v, self.seconds)

    def summary(self):
        s = "%d instructions" % self.total
        if self.seconds:
            s += ", %.4f s guest time = %.1f per usec (125 when never idle)" % (
                self.seconds, self.total / self.seconds / 1e6)
        if self.ops:
            s += "\n  %.0f operations (%s): %.0f instructions per operation" % (
                self.ops, self.ops_from, self.total / self.ops)
        return s


def windows(d):
    return sorted(int(f.split(".")[1]) for f in os.listdir(d)
                  if f.startswith("prof.") and f.split(".")[1].isdigit())


def per_op(w, count):
    return "%12.1f" % (count / w.ops) if w.ops else ""


def report(args):
    ns = [args.window] if args.window else windows(args.dir)
    if not ns:
        sys.exit("insnprof: no profile in %s" % args.dir)
    for n in ns:
        w = Window(args.dir, n, args.ops)
        op = "      per op" if w.ops else ""
        print("%s window %d: %s" % (args.dir, n, w.summary()))
        print("\n%-14s %14s %6s%s" % ("module", "instructions", "%", op))
        for mod, c in sorted(w.by_mod.items(), key=lambda x: -x[1]):
            print("%-14s %14d %6.2f%s" % (mod, c, 100.0 * c / w.total,
                                           per_op(w, c)))
        print("\n%-40s %-10s %14s %6s%s" % ("symbol", "module",
                                            "instructions", "%", op))
        top = sorted(w.by_sym.items(), key=lambda x: -x[1])[:args.top]
        for (name, mod), c in top:
            print("%-40s %-10s %14d %6.2f%s" % (name[:40], mod, c,
                                                100.0 * c / w.total,
                                                per_op(w, c)))
        rest = w.total - sum(c for _, c in top)
        print("%-40s %-10s %14d %6.2f%s\n" % ("(the rest)", "", rest,
                                              100.0 * rest / w.total,
                                              per_op(w, rest)))


def diff(args):
    n = args.window or 1
    a = Window(args.dir_a, n, args.ops_a)
    b = Window(args.dir_b, n, args.ops_b)
    both = bool(a.ops and b.ops)
    unit = "per op" if both else "instructions"

    def val(w, c):
        return c / w.ops if both else c

    print("A %s window %d: %s" % (args.dir_a, n, a.summary()))
    print("B %s window %d: %s" % (args.dir_b, n, b.summary()))

    def table(title, ka, kb, keyname, width):
        keys = set(ka) | set(kb)
        rows = sorted(keys, key=lambda k: -max(val(a, ka.get(k, 0)),
                                               val(b, kb.get(k, 0))))
        print("\n%-*s %14s %14s %14s  (%s)" % (width, title, "A", "B",
                                              "B - A", unit))
        for k in rows[:args.top]:
            va, vb = val(a, ka.get(k, 0)), val(b, kb.get(k, 0))
            print("%-*s %14.1f %14.1f %+14.1f" % (width, keyname(k)[:width],
                                                  va, vb, vb - va))
        va, vb = val(a, a.total), val(b, b.total)
        print("%-*s %14.1f %14.1f %+14.1f" % (width, "(total)", va, vb,
                                              vb - va))

    table("module", a.by_mod, b.by_mod, lambda k: k, 14)
    table("symbol [module]", a.by_sym, b.by_sym,
          lambda k: k[0] if k[1] == k[0] else "%s %s" % (
              k[0], k[1] if k[1].startswith("[") else "[%s]" % k[1]), 52)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("report")
    r.add_argument("dir")
    r.add_argument("--ops", type=float)
    r.add_argument("--top", type=int, default=60)
    r.add_argument("--window", type=int)
    r.set_defaults(func=report)
    d = sub.add_parser("diff")
    d.add_argument("dir_a")
    d.add_argument("dir_b")
    d.add_argument("--ops-a", type=float)
    d.add_argument("--ops-b", type=float)
    d.add_argument("--top", type=int, default=60)
    d.add_argument("--window", type=int)
    d.set_defaults(func=diff)
    args = p.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
