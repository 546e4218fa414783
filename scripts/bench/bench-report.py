#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the raw runs of `make bench` into a side-by-side table, a CSV and a
PNG plot, and the cost curves (curves.csv beside each RUNS.csv) into a
CSV per curve and one PNG.

    bench-report.py OUTDIR RUNS.csv...

Each scenario's figure is the median over its runs, with the spread of
the runs (the largest distance from the median, in per cent); a scenario
whose runs failed shows "n/a: <error>" instead of numbers, and no ratio.
"""
import csv
import os
import statistics
import subprocess
import sys

IMPLS = ("ours", "intree")
METRICS = (("tx_per_s", "tx/s"), ("rtt_usec", "rtt us"), ("kbytes_per_s", "K/s"))


def load(paths):
    rows = []
    for p in paths:
        if os.path.exists(p):
            with open(p) as f:
                rows += list(csv.DictReader(f))
    return rows


def summarize(rows):
    """{(transport, scenario): {impl: {"ok": bool, metric: median, "error": str, "runs": n}}}"""
    out = {}
    for r in rows:
        key = (r["transport"], r["scenario"])
        cell = out.setdefault(key, {}).setdefault(
            r["impl"], {"vals": {m: [] for m, _ in METRICS}, "errors": [], "runs": 0})
        cell["runs"] += 1
        if r["status"] == "ok":
            for m, _ in METRICS:
                cell["vals"][m].append(float(r[m]))
        else:
            cell["errors"].append(r["error"] or r["status"])
    for cells in out.values():
        for c in cells.values():
            ok = len(c["vals"]["tx_per_s"])
            c["ok"] = ok > 0 and ok == c["runs"]
            for m, _ in METRICS:
                c[m] = statistics.median(c["vals"][m]) if ok else None
            c["error"] = c["errors"][0] if c["errors"] else ""
    return out


def spread(c):
    """The runs' largest distance from the median tx/s, in per cent."""
    if not c or not c["ok"] or not c["tx_per_s"]:
        return ""
    return "%.0f%%" % (100 * max(abs(v - c["tx_per_s"]) for v in c["vals"]["tx_per_s"])
                       / c["tx_per_s"])


def fmt(c, m, notes):
    """A table cell; a failure becomes "n/a [k]" with the error as note k."""
    if c is None:
        return "not run"
    if not c["ok"]:
        err = c["error"] or "failed"
        if err not in notes:
            notes.append(err)
        return "n/a [%d]" % (notes.index(err) + 1)
    return "%.0f" % c[m] if m != "rtt_usec" else "%.1f" % c[m]


def ratio(cells, m):
    o, i = cells.get("ours"), cells.get("intree")
    if not o or not i or not o["ok"] or not i["ok"] or not i[m]:
        return "n/a"
    return "%.2f" % (o[m] / i[m])


def ceiling(summary):
    """RDMA write over RDS as a share of the raw verbs ceiling measured in
    the same boot (perftest's ib_write_bw on the same device), in 64 KiB
    writes per second: each rdma-write transaction carries one."""
    out = []
    for tr in sorted({k[0] for k in summary}):
        w, p = summary.get((tr, "rdma-write")), summary.get((tr, "perftest-write"))
        if not w or not p:
            continue
        parts = []
        for impl in IMPLS:
            wc, pc = w.get(impl), p.get(impl)
            if wc and pc and wc["ok"] and pc["ok"] and pc["tx_per_s"]:
                parts.append("%s %.0f%% of %.0f writes/s" % (
                    impl, 100 * wc["tx_per_s"] / pc["tx_per_s"], pc["tx_per_s"]))
        if parts:
            out.append("%s rdma-write 64 KiB writes/s as a share of ib_write_bw: %s" %
                       (tr, "; ".join(parts)))
    return [""] + out if out else []


CEILING_OF = {"loop": "AF_UNIX SEQPACKET", "tcp": "plain TCP"}


def msg_ceilings(summary):
    """RDS's msgbench rows as a share of the same pattern over what bounds
    them, measured in the same boot (scenario "ceil:NAME")."""
    out = []
    for tr, name in sorted(summary):
        c = summary.get((tr, "ceil:" + name))
        if name.startswith("ceil:") or not c:
            continue
        parts = []
        for impl in IMPLS:
            rc, cc = summary[(tr, name)].get(impl), c.get(impl)
            if rc and cc and rc["ok"] and cc["ok"] and cc["tx_per_s"]:
                parts.append("%s %.2f (%.0f/%.0f)" % (
                    impl, rc["tx_per_s"] / cc["tx_per_s"], rc["tx_per_s"], cc["tx_per_s"]))
        if parts:
            out.append("%s %s as a share of %s: %s" % (
                tr, name, CEILING_OF.get(tr, "its ceiling"), "; ".join(parts)))
    return [""] + out if out else []


def curves(outdir, paths):
    """curves.csv of each boot: per curve, the median cost of one operation
    (usec of guest time) at each x for both implementations, their ratio
    and the runs' spread; a CSV per curve, a table and one PNG."""
    rows = load([os.path.join(os.path.dirname(p), "curves.csv") for p in paths])
    if not rows:
        return []
    cells = {}
    for r in rows:
        c = cells.setdefault((r["curve"], int(r["x"])), {}).setdefault(
            r["impl"], {"vals": [], "errors": []})
        if r["status"] == "ok" and float(r["usec_per_op"] or 0) > 0:
            c["vals"].append(float(r["usec_per_op"]))
        else:
            c["errors"].append(r["error"] or r["status"])
    names = sorted({k[0] for k in cells})
    lines = ["", "cost curves: usec of guest time per operation (median; lower is better)",
             "%-10s %-8s %-26s %-26s %s" % ("curve", "x", "ours", "in-tree", "in-tree/ours")]
    for name in names:
        path = os.path.join(outdir, "curve-%s.csv" % name)
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["x"] + ["%s_%s" % (i, m) for i in IMPLS
                                for m in ("usec_per_op", "min", "max", "status")] +
                       ["intree_over_ours"])
            for x in sorted(k[1] for k in cells if k[0] == name):
                row, shown, med = [x], [], {}
                for impl in IMPLS:
                    c = cells[(name, x)].get(impl)
                    if c and c["vals"]:
                        # A run that failed (its error in the status)
                        # leaves the median of those that did not.
                        med[impl] = statistics.median(c["vals"])
                        failed = len(c["errors"])
                        row += ["%.3f" % med[impl], "%.3f" % min(c["vals"]),
                                "%.3f" % max(c["vals"]),
                                "ok" if not failed else "%d of %d failed: %s" % (
                                    failed, failed + len(c["vals"]), c["errors"][0])]
                        shown.append("%.1f +-%.0f%%%s" % (med[impl], 100 * max(
                            abs(v - med[impl]) for v in c["vals"]) / med[impl],
                            " (%d failed)" % failed if failed else ""))
                    else:
                        err = "not run" if not c else "n/a: " + (c["errors"] or ["failed"])[0]
                        row += ["", "", "", err]
                        shown.append(err[:26])
                r = "%.2f" % (med["intree"] / med["ours"]) if len(med) == 2 else "n/a"
                w.writerow(row + [r])
                lines.append("%-10s %-8s %-26s %-26s %s" % (name, x, shown[0], shown[1], r))
    png = os.path.join(outdir, "curves.png")
    plots = []
    for name in names:
        csvp = os.path.join(outdir, "curve-%s.csv" % name)
        # Sizes span six orders of magnitude in cost too.
        logy = "set logscale y 10\nset yrange [*:*]\n" if name == "size" else \
            "unset logscale y\nset yrange [0:*]\n"
        plots.append("""set title '%s'
set logscale x 4
%splot '%s' using ($1 == 0 ? 0.5 : $1):2 with linespoints title 'ours', \\
     '' using ($1 == 0 ? 0.5 : $1):6 with linespoints title 'Linux in-tree'
""" % (name, logy, csvp))
    gp = """set terminal png size 1200,%d
set output '%s'
set datafile separator ','
set key autotitle columnhead
set grid
set ylabel 'usec per op'
set yrange [0:*]
set multiplot layout %d,2 title 'RDS loopback cost curves (under -icount; x = 0 drawn at 0.5)'
%sunset multiplot
""" % (350 * ((len(names) + 1) // 2), png, (len(names) + 1) // 2, "".join(plots))
    try:
        subprocess.run(["gnuplot"], input=gp, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print("bench: gnuplot failed on the curves: %s" % e, file=sys.stderr)
    lines.append("# curves: %s (and curve-*.csv)" % png)
    return lines


def per_connection(summary):
    """many-peers carries many-sockets' load (16 tasks, 4 requests of 256
    bytes in flight each) over 16 RDS connections instead of one: its
    tx/s as a share of many-sockets' in the same boot is what spreading
    the traffic over connections costs each implementation."""
    out = []
    for tr in sorted({k[0] for k in summary}):
        p, s = summary.get((tr, "many-peers")), summary.get((tr, "many-sockets"))
        if not p or not s:
            continue
        parts = []
        for impl in IMPLS:
            pc, sc = p.get(impl), s.get(impl)
            if pc and sc and pc["ok"] and sc["ok"] and sc["tx_per_s"]:
                parts.append("%s %.2f" % (impl, pc["tx_per_s"] / sc["tx_per_s"]))
        if parts:
            out.append("%s many-peers (16 connections) tx/s over many-sockets' (one): %s" %
                       (tr, "; ".join(parts)))
    return [""] + out if out else []


def main():
    outdir, paths = sys.argv[1], sys.argv[2:]
    summary = summarize(load(paths))
    if not summary:
        print("bench: no runs recorded", file=sys.stderr)
        return 1
    keys = sorted(summary)
    # CSV: one line per transport/scenario, both implementations side by side.
    csv_path = os.path.join(outdir, "bench.csv")
    with open(csv_path, "w", newline="") as f:
        w = csv.writer(f)
        head = ["transport", "scenario"]
        for impl in IMPLS:
            head += ["%s_%s" % (impl, m) for m, _ in METRICS] + ["%s_status" % impl]
        head += ["ratio_%s" % m for m, _ in METRICS]
        w.writerow(head)
        for k in keys:
            cells = summary[k]
            row = list(k)
            for impl in IMPLS:
                c = cells.get(impl)
                for m, _ in METRICS:
                    row.append("" if not c or not c["ok"] else "%.2f" % c[m])
                row.append("not run" if not c else "ok" if c["ok"] else "n/a: " + c["error"])
            row += [ratio(cells, m) for m, _ in METRICS]
            w.writerow(row)
    # The table, for the terminal and a text file.
    lines, notes = [], []
    hdr = "%-10s %-17s %-8s %-12s %-12s %-12s %s" % (
        "transport", "scenario", "metric", "ours", "in-tree", "ours/in-tree", "spread")
    lines += [hdr, "-" * len(hdr)]
    for k in keys:
        cells = summary[k]
        for m, label in METRICS:
            sp = "" if m != "tx_per_s" else "%s / %s" % (
                spread(cells.get("ours")) or "-", spread(cells.get("intree")) or "-")
            lines.append("%-10s %-17s %-8s %-12s %-12s %-12s %s" % (
                k[0], k[1], label, fmt(cells.get("ours"), m, notes),
                fmt(cells.get("intree"), m, notes), ratio(cells, m), sp))
    lines += ceiling(summary)
    lines += msg_ceilings(summary)
    lines += per_connection(summary)
    lines += curves(outdir, paths)
    if notes:
        lines.append("")
        lines += ["[%d] %s" % (i + 1, e) for i, e in enumerate(notes)]
    table = "\n".join(lines) + "\n"
    with open(os.path.join(outdir, "bench.txt"), "w") as f:
        f.write(table)
    sys.stdout.write(table)
    # The plot: tx/s per scenario, both implementations; a failed one is 0.
    dat = os.path.join(outdir, "bench.dat")
    with open(dat, "w") as f:
        for k in keys:
            vals = []
            for impl in IMPLS:
                c = summary[k].get(impl)
                vals.append("%.1f" % c["tx_per_s"] if c and c["ok"] else "0")
            f.write('"%s/%s" %s\n' % (k[0], k[1], " ".join(vals)))
    png = os.path.join(outdir, "bench.png")
    gp = """
set terminal png size 900,500
set output '%s'
set title 'rds-stress tx/s (median; under -icount: relative CPU cost)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel 'tx/s'
set key outside top center horizontal
set grid ytics
set yrange [0:*]
set offsets 0, 0, graph 0.1, 0
plot '%s' using 2:xtic(1) title 'ours', '' using 3 title 'Linux in-tree', \\
     '' using ($0 - 0.17):(0):($2 == 0 ? "n/a" : "") with labels offset 0,1 notitle
""" % (png, dat)
    try:
        subprocess.run(["gnuplot"], input=gp, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print("bench: gnuplot failed: %s" % e, file=sys.stderr)
        return 1
    print("# table: %s\n# csv:   %s\n# plot:  %s" % (os.path.join(outdir, "bench.txt"),
                                                  csv_path, png))
    return 0


if __name__ == "__main__":
    sys.exit(main())
