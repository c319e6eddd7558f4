#!/usr/bin/env python3
"""summarize.py - ratios and the project's host targets from dfc_bench CSV files.

Usage: bench/summarize.py FILE.csv [FILE.csv ...]

Prints, per CSV (ranks, async progress), the geometric mean of anchor/DFC median-time ratios
per workload over three size bands (> 1: DFC faster), then the host targets (2 ranks):
  - small allreduce latency at most 0.7x Open MPI's (DFC/anchor median time at 8 B, and the
    worst size up to 1 KiB);
  - 16 MiB allreduce busbw at least 2x Open MPI's;
  - iallreduce overlap at least 90% with the progress thread (DFC_ASYNC_PROGRESS=1).
Standard library only.
"""
import csv
import math
import sys

BANDS = [("<=1KiB", 0, 1024), ("2KiB-64KiB", 1025, 65536), (">=128KiB", 65537, 1 << 62)]
ORDER = ["allreduce", "allgather", "reduce_scatter", "bcast", "alltoall", "alltoallv", "pingpong", "bw",
         "iallreduce"]


def read(path):
    with open(path) as f:
        rows = list(csv.DictReader(l for l in f if l.strip() and not l.startswith("#")))
    for r in rows:
        for k in ("ranks", "async_progress", "bytes", "iters"):
            r[k] = int(float(r[k]))
        for k in ("median_us", "mean_us", "busbw_GBps", "overlap_pct"):
            r[k] = float(r[k]) if r.get(k) not in (None, "") else None
    return rows


def pairs(rows, workload):
    """{bytes: (dfc row, anchor row or None)}"""
    d, a = {}, {}
    for r in rows:
        if r["workload"] == workload:
            (d if r["lib"] == "dfc" else a)[r["bytes"]] = r
    return {b: (d[b], a.get(b)) for b in sorted(d)}


def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def fmt_size(b):
    for unit, s in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= s and b % s == 0:
            return "%d %s" % (b // s, unit)
    return "%d B" % b


def verdict(ok, by):
    return ("MET" if ok else "MISSED") + " (" + by + ")"


def main(files):
    if not files:
        print(__doc__, file=sys.stderr)
        return 2
    targets = {}
    for path in files:
        rows = read(path)
        if not rows:
            continue
        n, asy = rows[0]["ranks"], rows[0]["async_progress"]
        print("## %s: %d ranks, DFC_ASYNC_PROGRESS=%d" % (path, n, asy))
        print("| workload | " + " | ".join(b[0] for b in BANDS) + " | worst size (anchor/DFC) | best size |")
        print("|---|" + "---|" * (len(BANDS) + 2))
        for w in ORDER:
            p = pairs(rows, w)
            if not p or all(a is None for _, a in p.values()):
                continue
            cells = []
            ratios = {b: a["median_us"] / d["median_us"] for b, (d, a) in p.items() if a and d["median_us"] > 0}
            for _, lo, hi in BANDS:
                g = gmean([x for b, x in ratios.items() if lo <= b <= hi])
                cells.append("%.2fx" % g if g else "-")
            worst = min(ratios, key=ratios.get)
            best = max(ratios, key=ratios.get)
            print("| %s | %s | %.2fx at %s | %.2fx at %s |" % (w, " | ".join(cells), ratios[worst], fmt_size(worst),
                                                              ratios[best], fmt_size(best)))
        print()
        if n == 2:
            ar = pairs(rows, "allreduce")
            if ar and not asy:
                d, a = ar[min(ar)]
                if a:
                    targets["lat"] = (min(ar), d["median_us"], a["median_us"])
                    small = [(b, d["median_us"] / a["median_us"]) for b, (d, a) in ar.items() if a and b <= 1024]
                    targets["lat_worst"] = max(small, key=lambda t: t[1])
                big = max(ar)
                d, a = ar[big]
                if a:
                    targets["bw"] = (big, d["busbw_GBps"], a["busbw_GBps"])
            ia = pairs(rows, "iallreduce")
            if ia:
                ov = {b: d["overlap_pct"] for b, (d, a) in ia.items()}
                anc = {b: a["overlap_pct"] for b, (d, a) in ia.items() if a}
                targets["ovl_async" if asy else "ovl_noasync"] = (ov, anc)
    if targets:
        print("## Targets (host, 2 ranks)")
        if "lat" in targets:
            b, d, a = targets["lat"]
            r = d / a
            print("- small allreduce latency <= 0.7x Open MPI's: %s: DFC %.2f us vs %.2f us = %.2fx at %s; %s"
                  % (verdict(r <= 0.7, "needs %.0f%% less time" % (100 * (1 - 0.7 / r)) if r > 0.7 else
                             "%.2fx to spare" % (0.7 / r)), d, a, r, fmt_size(b),
                     "worst size up to 1 KiB: %.2fx at %s" % (targets["lat_worst"][1],
                                                              fmt_size(targets["lat_worst"][0]))))
        if "bw" in targets:
            b, d, a = targets["bw"]
            r = d / a if a else float("inf")
            print("- %s allreduce busbw >= 2x Open MPI's: %s: DFC %.2f GB/s vs %.2f GB/s = %.2fx"
                  % (fmt_size(b), verdict(r >= 2, "%.0f%% short of 2x" % (100 * (1 - r / 2)) if r < 2 else
                                          "%.2fx to spare" % (r / 2)), d, a, r))
        for key, label in (("ovl_async", "with the progress thread"), ("ovl_noasync", "without it (for reference)")):
            if key not in targets:
                continue
            ov, anc = targets[key]
            worst = min(ov, key=ov.get)
            sizes = [b for b in sorted(ov) if b in (8, 1024, 65536, 1 << 20, 16 << 20)] or sorted(ov)
            detail = ", ".join("%s %.0f%%" % (fmt_size(b), ov[b]) for b in sizes)
            adetail = ", ".join("%s %.0f%%" % (fmt_size(b), anc[b]) for b in sizes if b in anc)
            ok = ov[worst] >= 90
            line = "- iallreduce overlap >= 90%% %s: " % label
            if key == "ovl_async":
                line += verdict(ok, "lowest %.0f%% at %s" % (ov[worst], fmt_size(worst))) + "; "
            else:
                line += "lowest %.0f%% at %s; " % (ov[worst], fmt_size(worst))
            line += "DFC " + detail
            if adetail:
                line += "; anchor " + adetail
            sizes_met = sum(1 for v in ov.values() if v >= 90)
            line += "; %d of %d sizes at >= 90%%" % (sizes_met, len(ov))
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
