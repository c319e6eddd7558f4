#!/bin/sh
# run-ofi.sh - the ofi transport (libfabric, provider tcp;ofi_rxm) beside DFC's own tcp
# transport on 2 simulated nodes (test/launch/dfc-mpirun-nodes): dfc_bench ping-pong,
# bandwidth and allreduce from 8 B to 16 MiB, once with DFC_TRANSPORT=tcp, once with
# DFC_TRANSPORT=ofi (rendezvous by RMA read) and once with ofi and DFC_OFI_RMA=0 (rendezvous
# by fragments, as before the RMA read), each with the Open MPI anchor restricted to its tcp
# BTL (--mca btl tcp,self), then a table of medians and the ratio ofi/tcp per size (inline
# python below).
#
# With -n RUNS the three runs are repeated RUNS times, interleaved (tcp, ofi, ofi-frag, tcp,
# ...), and the table shows the median of each run's median: on a shared 2-core machine one
# run's medians move by 2x and more from one run to the next.
#
# Usage: bench/run-ofi.sh [-o DIR] [-n RUNS] [dfc_bench options...]   (run from the build tree)
set -eu
cd "$(dirname "$0")/.."
OUT=
RUNS=1
if [ "${1:-}" = -o ]; then OUT=$2; shift 2; fi
if [ "${1:-}" = -n ]; then RUNS=$2; shift 2; fi
[ -n "$OUT" ] || OUT=bench/results/ofi-$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUT"
{
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "host: $(nproc) cpus; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "git: $(git describe --always --dirty 2>/dev/null || echo unknown)"
} > "$OUT/machine.txt"
cat "$OUT/machine.txt"
for i in $(seq 1 "$RUNS"); do
    for run in tcp ofi ofi-frag; do
        t=${run%-frag}
        rma=1
        [ "$run" = ofi-frag ] && rma=0
        echo "== run $i: DFC_TRANSPORT=$t DFC_OFI_RMA=$rma"
        DFC_TRANSPORT=$t DFC_OFI_RMA=$rma DFC_OFI_PROVIDER="tcp;ofi_rxm" FI_PROVIDER="tcp;ofi_rxm" \
            test/launch/dfc-mpirun-nodes 2 -x DFC_TRANSPORT -x DFC_OFI_RMA -x DFC_OFI_PROVIDER \
            -x FI_PROVIDER --mca btl tcp,self -- bench/dfc_bench -workloads pingpong,bw,allreduce \
            -minsize 8 -maxsize 16M "$@" -csv "$OUT/$run.$i.csv" > "$OUT/$run.$i.txt"
    done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/machine.txt"
python3 - "$OUT" "$RUNS" <<'PY'
import csv, statistics, sys
out, runs = sys.argv[1], int(sys.argv[2])
meds = {}
for run in ("tcp", "ofi", "ofi-frag"):
    for i in range(1, runs + 1):
        rows = [l for l in open(f"{out}/{run}.{i}.csv") if not l.startswith("#")]
        for r in csv.DictReader(rows):
            lib = run if r["lib"] == "dfc" else f"ompi({run} run)"
            meds.setdefault((r["workload"], int(r["bytes"]), lib), []).append(float(r["median_us"]))
med = {k: statistics.median(v) for k, v in meds.items()}
print(f"{'workload':10} {'bytes':>9} {'ofi us':>10} {'ofi-frag':>10} {'tcp us':>10} "
      f"{'ofi/tcp':>8} {'frag/tcp':>8} {'ompi-tcp us':>12}")
for wl in ("pingpong", "bw", "allreduce"):
    for b in sorted({k[1] for k in med if k[0] == wl}):
        o, f, t = (med.get((wl, b, x)) for x in ("ofi", "ofi-frag", "tcp"))
        a = med.get((wl, b, "ompi(tcp run)"))
        r1 = f"{o / t:8.2f}" if o and t else "       -"
        r2 = f"{f / t:8.2f}" if f and t else "       -"
        print(f"{wl:10} {b:9d} {o or 0:10.2f} {f or 0:10.2f} {t or 0:10.2f} {r1} {r2} {a or 0:12.2f}")
PY
