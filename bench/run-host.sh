#!/bin/sh
# run-host.sh - host-buffer benchmarks: dfc_bench at 2 ranks and at 4 ranks (oversubscribed on
# this 2-core machine kind) under mpirun, each once as is and once with DFC_ASYNC_PROGRESS=1
# for the overlap of the nonblocking allreduce (the variable is read at DFC_Init, so it takes
# its own run), then dfc_chaos at 4 ranks; CSV, JSON, text and PNG plots go to a results
# folder, then a summary of ratios and targets (bench/summarize.py).
#
# Usage: bench/run-host.sh [-o DIR] [-n "2 4"] [dfc_bench options...]
#   -o DIR   results folder (default bench/results/YYYYmmdd-HHMMSS)
#   -n LIST  rank counts (default "2 4")
#   anything else is passed to dfc_bench (e.g. -maxsize 1M -iters 500)
# Run from the build tree after `make`.
set -eu
cd "$(dirname "$0")/.."
OUT=
RANKS="2 4"
while [ $# -gt 0 ]; do
    case "$1" in
        -o) OUT=$2; shift 2 ;;
        -n) RANKS=$2; shift 2 ;;
        *) break ;;
    esac
done
[ -n "$OUT" ] || OUT=bench/results/$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUT"
[ -x bench/dfc_bench ] || { echo "run-host.sh: bench/dfc_bench is not built (make first)" >&2; exit 1; }
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
command -v mpirun >/dev/null || { echo "run-host.sh: no mpirun" >&2; exit 1; }

{
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "host: $(hostname); $(nproc) cpus; $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
    echo "kernel: $(uname -r)"
    echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "mpirun: $(mpirun --version 2>&1 | head -1)"
    echo "git: $(git describe --always --dirty 2>/dev/null || echo unknown)"
    echo "dfc_bench options: $*"
} > "$OUT/machine.txt"
cat "$OUT/machine.txt"

for n in $RANKS; do
    echo
    echo "== mpirun -n $n bench/dfc_bench $*"
    $MPIRUN -n "$n" bench/dfc_bench "$@" -csv "$OUT/dfc_bench-n$n.csv" -json "$OUT/dfc_bench-n$n.json" \
        | tee "$OUT/dfc_bench-n$n.txt"
    echo
    echo "== DFC_ASYNC_PROGRESS=1 mpirun -n $n bench/dfc_bench -workloads iallreduce $*"
    $MPIRUN -x DFC_ASYNC_PROGRESS=1 -n "$n" bench/dfc_bench -workloads iallreduce "$@" \
        -csv "$OUT/dfc_bench-n$n-async.csv" -json "$OUT/dfc_bench-n$n-async.json" \
        | tee "$OUT/dfc_bench-n$n-async.txt"
done

echo
echo "== mpirun -n 4 bench/dfc_chaos -iters 20"
$MPIRUN -n 4 bench/dfc_chaos -iters 20 | tee "$OUT/dfc_chaos-n4.txt"

echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/machine.txt"
echo
python3 bench/plot.py -o "$OUT" "$OUT"/dfc_bench-*.csv || echo "run-host.sh: plotting failed (results are kept)"
echo
python3 bench/summarize.py "$OUT"/dfc_bench-*.csv | tee "$OUT/summary.md"
echo
echo "results in $OUT"
