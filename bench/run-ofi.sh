#!/bin/sh
# run-ofi.sh - the ofi transport (libfabric) beside DFC's own tcp transport on 2 simulated
# nodes (test/launch/dfc-mpirun-nodes): dfc_bench ping-pong, bandwidth and allreduce from 8 B
# to 16 MiB, one run per variant, then a table of medians and the ratio variant/tcp per size
# (inline python below). Variants (-v, default "tcp net rxm"):
#
#   tcp       DFC_TRANSPORT=tcp; the Open MPI anchor of this run, restricted to its tcp BTL
#             (--mca btl tcp,self), is the ompi-tcp column (every variant runs the anchor,
#             unless -noanchor, so that all run the same processes)
#   net       DFC_TRANSPORT=ofi over libfabric's net provider (its tcp path with a native
#             reliable-datagram endpoint, no rxm; what DFC_TRANSPORT=ofi chooses where
#             libfabric offers it and nothing but socket providers exists)
#   rxm       DFC_TRANSPORT=ofi over tcp;ofi_rxm (the tcp provider under the rxm layer; CI's
#             provider)
#   net-frag, rxm-frag   the same with DFC_OFI_RMA=0: rendezvous by fragments instead of the
#             RMA read
#   net-eK, rxm-eK   net and rxm with DFC_OFI_EAGER_LIMIT and DFC_OFI_MAX_PAYLOAD at K KiB
#             (e.g. net-e64: the defaults before 2026-12-04; the default is 128 KiB)
#   net-c32   net with DFC_OFI_CREDITS=32, the default before 2026-12-02 (branch ofi8): what
#             the window of 64 credits does for bw (the same up to 32 KiB of payload; above,
#             a packet takes one credit per started 32 KiB, so fewer are in flight)
#
# Floors: where bench/ofi_floor was built (configure found libfabric), every run also runs it
# once per provider of the variants, over the same sizes (up to 256 KiB): the kernel's tcp
# sockets alone and the provider alone, for ping-pong, bw and the exchange under a 2-rank
# allreduce. The last table sets each transport beside its floor: what DFC adds above it.
#
# With -n RUNS every variant runs RUNS times, interleaved (tcp, net, rxm, tcp, ...), and the
# tables show the median and the best of each run's median: on a shared machine one run's
# medians move by 2x and more from one run to the next. A last table pairs each run with the
# tcp run beside it: the median of those ratios, and their range.
#
# Usage: bench/run-ofi.sh [-o DIR] [-n RUNS] [-v "VARIANTS"] [-x NAME]... [dfc_bench options...]
# -x NAME passes environment variable NAME to every rank (mpirun -x), e.g. DFC_SPIN_US.
# Run from the build tree (a git checkout or an unpacked `make dist` tarball, configured
# with libfabric and built: make -j; make -j check TESTS= is not needed).
set -eu
cd "$(dirname "$0")/.."
OUT=
RUNS=1
VARIANTS="tcp net rxm"
XENV=
while [ $# -gt 0 ]; do
    case $1 in
    -o) OUT=$2; shift 2 ;;
    -n) RUNS=$2; shift 2 ;;
    -v) VARIANTS=$2; shift 2 ;;
    -x) XENV="$XENV -x $2"; shift 2 ;;
    *) break ;;
    esac
done
# The floor's sizes: dfc_bench's (the last -minsize and -maxsize given), at most 256 KiB.
FMIN=8 FMAX=256K prev=
for a in "$@"; do
    case $prev in -minsize) FMIN=$a ;; -maxsize) FMAX=$a ;; esac
    prev=$a
done
case $FMAX in *M | *m | [0-9][0-9][0-9][0-9][0-9][0-9][0-9]*) FMAX=256K ;; esac
[ -n "$OUT" ] || OUT=bench/results/ofi-$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUT"
{
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "host: $(nproc) cpus; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "git: $(git describe --always --dirty 2>/dev/null || echo unknown)"
    echo "libfabric: $(fi_info --version 2>/dev/null | tr '\n' ' ' || echo unknown)"
    echo "variants: $VARIANTS"
    for v in $(echo "$XENV" | sed 's/-x //g'); do echo "$v=$(printenv "$v" || true)"; done
} > "$OUT/machine.txt"
cat "$OUT/machine.txt"
for i in $(seq 1 "$RUNS"); do
    for run in $VARIANTS; do
        t=ofi rma=1 prov= cred= cenv=
        case $run in
        tcp) t=tcp prov="tcp;ofi_rxm" ;;
        net | net-frag) prov=net ;;
        net-c32) prov=net cred="-x DFC_OFI_CREDITS" cenv=DFC_OFI_CREDITS=32 ;;
        rxm | rxm-frag) prov="tcp;ofi_rxm" ;;
        net-e[0-9]* | rxm-e[0-9]*)
            prov=net; case $run in rxm*) prov="tcp;ofi_rxm" ;; esac
            kib=${run#*-e}
            case $kib in *[!0-9]*) echo "run-ofi.sh: bad variant $run" >&2; exit 2 ;; esac
            cred="-x DFC_OFI_EAGER_LIMIT -x DFC_OFI_MAX_PAYLOAD"
            cenv="DFC_OFI_EAGER_LIMIT=$((kib * 1024)) DFC_OFI_MAX_PAYLOAD=$((kib * 1024))" ;;
        *) echo "run-ofi.sh: unknown variant $run" >&2; exit 2 ;;
        esac
        case $run in *-frag) rma=0 ;; esac
        echo "== run $i: $run (DFC_TRANSPORT=$t DFC_OFI_PROVIDER=$prov DFC_OFI_RMA=$rma)"
        env $cenv DFC_TRANSPORT=$t DFC_OFI_RMA=$rma DFC_OFI_PROVIDER=$prov FI_PROVIDER=$prov \
            test/launch/dfc-mpirun-nodes 2 -x DFC_TRANSPORT -x DFC_OFI_RMA -x DFC_OFI_PROVIDER \
            -x FI_PROVIDER $cred $XENV --mca btl tcp,self -- bench/dfc_bench -workloads pingpong,bw,allreduce \
            -minsize 8 -maxsize 16M "$@" -csv "$OUT/$run.$i.csv" > "$OUT/$run.$i.txt"
    done
    if [ -x bench/ofi_floor ]; then
        provs=
        for run in $VARIANTS; do
            case $run in net*) provs="$provs net" ;; rxm*) provs="$provs rxm" ;; esac
        done
        for pv in $(echo $provs | tr ' ' '\n' | sort -u); do
            p=net; [ "$pv" = rxm ] && p="tcp;ofi_rxm"
            echo "== run $i: floor of $p"
            bench/ofi_floor -p "$p" -minsize "$FMIN" -maxsize "$FMAX" \
                -csv "$OUT/floor-$pv.$i.csv" > "$OUT/floor-$pv.$i.txt"
        done
    fi
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/machine.txt"
python3 - "$OUT" "$RUNS" $VARIANTS <<'PY' | tee "$OUT/table.txt"
import csv, statistics, sys
out, runs, variants = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
meds = {}
per_run = {}  # (workload, bytes, variant) -> {run index: DFC's median}
for run in variants:
    for i in range(1, runs + 1):
        rows = [l for l in open(f"{out}/{run}.{i}.csv") if not l.startswith("#")]
        for r in csv.DictReader(rows):
            lib = run if r["lib"] == "dfc" else f"ompi({run})"
            meds.setdefault((r["workload"], int(r["bytes"]), lib), []).append(float(r["median_us"]))
            if r["lib"] == "dfc":
                per_run.setdefault((r["workload"], int(r["bytes"]), run), {})[i] = float(r["median_us"])
others = [v for v in variants if v != "tcp"]
cols = variants + ([f"{v}/tcp" for v in others] if "tcp" in variants else [])
for title, f in (("median", statistics.median), ("best", min)):
    if title == "best" and runs == 1:
        break
    val = {k: f(v) for k, v in meds.items()}
    print(f"\n{title} of the {runs} runs' medians, us per operation (variant/tcp > 1: slower)")
    print(f"{'workload':10} {'bytes':>9} " + " ".join(f"{c:>10}" for c in cols) + f" {'ompi-tcp':>10}")
    for wl in ("pingpong", "bw", "allreduce"):
        for b in sorted({k[1] for k in val if k[0] == wl}):
            v = {r: val.get((wl, b, r)) for r in variants}
            cells = [f"{v[r]:10.2f}" if v[r] else f"{'-':>10}" for r in variants]
            if "tcp" in variants:
                t = v["tcp"]
                cells += [f"{v[r] / t:10.2f}" if v[r] and t else f"{'-':>10}" for r in others]
            a = val.get((wl, b, "ompi(tcp)"))
            cells.append(f"{a:10.2f}" if a else f"{'-':>10}")
            print(f"{wl:10} {b:9d} " + " ".join(cells))
# Paired: each run's variant against the tcp run beside it (interleaved, so a drift of the
# machine moves both), the median of those ratios; with the spread of the ratios.
if "tcp" in variants and runs > 1 and others:
    print(f"\npaired: median over the {runs} runs of (variant / the same run's tcp) [min, max]")
    print(f"{'workload':10} {'bytes':>9} " + " ".join(f"{c + '/tcp':>22}" for c in others))
    for wl in ("pingpong", "bw", "allreduce"):
        for b in sorted({k[1] for k in per_run if k[0] == wl}):
            t = per_run.get((wl, b, "tcp"), {})
            cells = []
            for r in others:
                v = per_run.get((wl, b, r), {})
                q = sorted(v[i] / t[i] for i in v if i in t and t[i] > 0)
                cells.append(f"{statistics.median(q):6.2f} [{q[0]:5.2f}, {q[-1]:5.2f}]"
                             if q else f"{'-':>22}")
            print(f"{wl:10} {b:9d} " + " ".join(f"{c:>22}" for c in cells))
# Floors (bench/ofi_floor): each transport beside what it runs on. A 2-rank allreduce moves
# its data by one exchange up to 16 KiB (recursive doubling), so its floor is the exchange's;
# above, by two of half the size (Rabenseifner), which the floor understates.
floor = {}
for pv in ("net", "rxm"):
    for i in range(1, runs + 1):
        try:
            rows = [l for l in open(f"{out}/floor-{pv}.{i}.csv") if not l.startswith("#")]
        except OSError:
            continue
        for r in csv.DictReader(rows):
            wl = "allreduce" if r["workload"] == "exchange" else r["workload"]
            lib = "kernel" if r["lib"] == "sockets" else pv
            floor.setdefault((wl, int(r["bytes"]), lib), []).append(float(r["median_us"]))
if floor:
    fv = {k: statistics.median(v) for k, v in floor.items()}
    val = {k: statistics.median(v) for k, v in meds.items()}
    fl = [v for v in variants if v.split("-")[0] in ("tcp", "net", "rxm")]
    print("\nfloors (bench/ofi_floor, median of the runs): each transport's time, its floor "
          "(tcp: the kernel's sockets; net, rxm: the provider alone) and what DFC adds above "
          "it, us; prov/kernel: the provider's floor over the kernel's")
    hdr = "".join(f" {v:>9} {'floor':>8} {'added':>8}" for v in fl)
    print(f"{'workload':10} {'bytes':>9}{hdr} " + " ".join(
        f"{v + '/kern':>9}" for v in fl if v != "tcp"))
    for wl in ("pingpong", "bw", "allreduce"):
        for b in sorted({k[1] for k in fv if k[0] == wl}):
            cells, ratios = "", []
            for v in fl:
                t = val.get((wl, b, v))
                f = fv.get((wl, b, "kernel" if v == "tcp" else v.split("-")[0]))
                cells += (f" {t:9.2f} {f:8.2f} {t - f:8.2f}" if t and f else f" {'-':>9} {'-':>8} {'-':>8}")
                if v != "tcp":
                    k = fv.get((wl, b, "kernel"))
                    ratios.append(f"{f / k:9.2f}" if f and k else f"{'-':>9}")
            print(f"{wl:10} {b:9d}{cells} " + " ".join(ratios))
PY
