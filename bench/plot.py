#!/usr/bin/env python3
"""plot.py - PNG plots from dfc_bench (host, Open MPI anchor) and dfc_bench_gpu (device,
NCCL anchor) CSV files: time and busbw against message size, DFC and the anchor, one PNG
per (CSV file, workload); for iallreduce also the overlap.

Usage: bench/plot.py [-o OUTDIR] FILE.csv [FILE.csv ...]

Uses matplotlib when the python3 running this has it (Debian: python3-matplotlib; if the
python3 on PATH lacks it but /usr/bin/python3 has it, re-runs under that one), else gnuplot;
with neither it says so and exits 0 without plots.
"""
import csv
import os
import shutil
import subprocess
import sys
import tempfile


def from_gpu_row(r):
    """dfc_bench_gpu writes one row per size with both libraries (dfc_us, nccl_us, ...): two
    rows in dfc_bench's shape, the anchor being NCCL."""
    out = []
    for lib, pre in (("dfc", "dfc"), ("anchor", "nccl")):
        if float(r[pre + "_us"]) > 0:
            out.append({"workload": r["workload"], "lib": lib, "ranks": r["ranks"], "bytes": r["bytes"],
                        "median_us": r[pre + "_us"], "busbw_GBps": r[pre + "_busbw"],
                        "overlap_pct": ""})
    return out


def read_csv(path):
    """Rows of one dfc_bench or dfc_bench_gpu CSV ('#' comment lines skipped), numbers
    converted."""
    with open(path) as f:
        lines = [l for l in f if l.strip() and not l.startswith("#")]
    raw = list(csv.DictReader(lines))
    if raw and "nccl_us" in raw[0]:
        raw = [x for r in raw for x in from_gpu_row(r)]
        LABEL["anchor"] = "anchor (NCCL)"
    rows = []
    for r in raw:
        for k, v in list(r.items()):
            if k not in ("workload", "lib"):
                try:
                    r[k] = float(v) if v != "" else None
                except ValueError:
                    pass
        rows.append(r)
    return rows


def series(rows):
    """{workload: {lib: [rows sorted by bytes]}}"""
    out = {}
    for r in rows:
        out.setdefault(r["workload"], {}).setdefault(r["lib"], []).append(r)
    for w in out.values():
        for lib in w:
            w[lib].sort(key=lambda r: r["bytes"])
    return out


LABEL = {"dfc": "DFC", "anchor": "anchor (Open MPI)"}


def size_label(v):
    v = int(round(v))
    for unit, s in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if v >= s and v % s == 0:
            return "%d%s" % (v // s, unit)
    return str(v)


def title_of(stem, workload, rows):
    r0 = rows[0]
    t = "%s, %d ranks" % (workload, int(r0["ranks"]))
    if workload == "iallreduce":
        t += ", DFC_ASYNC_PROGRESS=%d" % int(r0["async_progress"] or 0)
    return "%s (%s)" % (t, stem)


def plot_matplotlib(files, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    made = []
    for path in files:
        stem = os.path.splitext(os.path.basename(path))[0]
        for workload, libs in series(read_csv(path)).items():
            over = workload == "iallreduce"
            fig, axes = plt.subplots(1, 3 if over else 2, figsize=(15 if over else 11, 4.2))
            for lib, rows in sorted(libs.items(), key=lambda kv: kv[0] != "dfc"):
                x = [r["bytes"] for r in rows]
                style = dict(marker="o", markersize=3, label=LABEL.get(lib, lib))
                axes[0].plot(x, [r["median_us"] for r in rows], **style)
                axes[1].plot(x, [r["busbw_GBps"] for r in rows], **style)
                if over:
                    axes[2].plot(x, [r["overlap_pct"] for r in rows], **style)
            axes[0].set_yscale("log")
            axes[0].set_ylabel("median time per op (us)")
            axes[1].set_ylabel("busbw (GB/s)")
            if over:
                axes[2].set_ylabel("overlap (%)")
                axes[2].set_ylim(-5, 105)
            for ax in axes:
                ax.set_xscale("log", base=2)
                ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: size_label(v)))
                ax.set_xlabel("bytes")
                ax.grid(True, which="major", alpha=0.3)
                ax.legend()
            fig.suptitle(title_of(stem, workload, next(iter(libs.values()))))
            fig.tight_layout()
            png = os.path.join(outdir, "%s_%s.png" % (stem, workload))
            fig.savefig(png, dpi=100)
            plt.close(fig)
            made.append(png)
    return made


def plot_gnuplot(files, outdir, gnuplot):
    made = []
    tmp = tempfile.mkdtemp(prefix="dfc_plot_")
    try:
        for path in files:
            stem = os.path.splitext(os.path.basename(path))[0]
            for workload, libs in series(read_csv(path)).items():
                over = workload == "iallreduce"
                data = {}
                for lib, rows in libs.items():
                    dat = os.path.join(tmp, "%s_%s_%s.dat" % (stem, workload, lib))
                    with open(dat, "w") as f:
                        for r in rows:
                            f.write("%g %g %g %g\n" % (r["bytes"], r["median_us"], r["busbw_GBps"],
                                                      r["overlap_pct"] or 0))
                    data[lib] = dat
                png = os.path.join(outdir, "%s_%s.png" % (stem, workload))
                title = title_of(stem, workload, next(iter(libs.values())))
                cols = [(2, "median time per op (us)", "set logscale y"),
                        (3, "busbw (GB/s)", "unset logscale y")]
                if over:
                    cols.append((4, "overlap (%)", "unset logscale y"))
                sizes = sorted({int(r["bytes"]) for rows in libs.values() for r in rows})
                tics = ", ".join('"%s" %d' % (size_label(b), b) for b in sizes[::max(1, len(sizes) // 6)])
                script = ["set terminal png size %d,420 noenhanced" % (450 * len(cols)),
                          "set output '%s'" % png,
                          "set multiplot layout 1,%d title '%s'" % (len(cols), title.replace("'", "")),
                          "set logscale x 2", "set xtics (%s)" % tics, "set xlabel 'bytes'", "set grid",
                          "set key top left"]
                for col, ylabel, ylog in cols:
                    if col == 4:
                        ylog += "; set yrange [-5:105]"
                    script += [ylog, "set ylabel '%s'" % ylabel,
                               "plot " + ", ".join("'%s' using 1:%d with linespoints title '%s'"
                                                   % (dat, col, LABEL.get(lib, lib))
                                                   for lib, dat in sorted(data.items(),
                                                                          key=lambda kv: kv[0] != "dfc"))]
                script.append("unset multiplot")
                subprocess.run([gnuplot], input="\n".join(script) + "\n", text=True, check=True)
                made.append(png)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return made


def main(argv):
    outdir, files = ".", []
    i = 0
    while i < len(argv):
        if argv[i] == "-o" and i + 1 < len(argv):
            outdir = argv[i + 1]
            i += 2
        elif argv[i] in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            files.append(argv[i])
            i += 1
    if not files:
        print(__doc__, file=sys.stderr)
        return 2
    os.makedirs(outdir, exist_ok=True)
    try:
        import matplotlib  # noqa: F401
        have_mpl = True
    except ImportError:
        have_mpl = False
        system_py = "/usr/bin/python3"
        if (os.path.realpath(sys.executable) != os.path.realpath(system_py) and os.access(system_py, os.X_OK)
                and not os.environ.get("DFC_PLOT_REEXEC")
                and subprocess.run([system_py, "-c", "import matplotlib"], stderr=subprocess.DEVNULL).returncode == 0):
            env = dict(os.environ, DFC_PLOT_REEXEC="1")
            return subprocess.run([system_py, os.path.abspath(__file__)] + argv, env=env).returncode
    if have_mpl:
        made = plot_matplotlib(files, outdir)
    elif shutil.which("gnuplot"):
        made = plot_gnuplot(files, outdir, shutil.which("gnuplot"))
    else:
        print("plot.py: neither matplotlib (Debian: python3-matplotlib) nor gnuplot is installed; no plots made")
        return 0
    for p in made:
        print("wrote", p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
