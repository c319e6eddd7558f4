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
# DFC_BENCH_DIR (environment) runs dfc_bench and dfc_chaos from another folder (default bench),
# e.g. a snapshot of the binaries, with LD_LIBRARY_PATH pointing at a snapshot of libdfc, so
# that a rebuild in the tree during a long run changes nothing.
# MPIRUN_EXTRA (environment) adds mpirun options, e.g. "--bind-to none --host localhost:2" to
# emulate this 2-core machine kind on a bigger one under `taskset -c 0,1`.
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
BIN=${DFC_BENCH_DIR:-bench}
[ -x "$BIN/dfc_bench" ] || { echo "run-host.sh: $BIN/dfc_bench is not built (make first)" >&2; exit 1; }
MPIRUN="mpirun --allow-run-as-root --oversubscribe ${MPIRUN_EXTRA:-}"
command -v mpirun >/dev/null || { echo "run-host.sh: no mpirun" >&2; exit 1; }

{
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "host: $(hostname); $(nproc) cpus; $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
    echo "kernel: $(uname -r)"
    echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "mpirun version: $(mpirun --version 2>&1 | head -1)"
    echo "cpu affinity: $(taskset -pc $$ 2>/dev/null | sed 's/.*: //')"
    echo "git: $(git describe --always --dirty 2>/dev/null || echo unknown)"
    echo "dfc_bench options: $*"
    echo "mpirun: $MPIRUN"
    echo "binaries: $BIN; LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
} > "$OUT/machine.txt"
cat "$OUT/machine.txt"

for n in $RANKS; do
    echo
    echo "== $MPIRUN -n $n $BIN/dfc_bench $*"
    $MPIRUN -n "$n" "$BIN/dfc_bench" "$@" -csv "$OUT/dfc_bench-n$n.csv" -json "$OUT/dfc_bench-n$n.json" \
        | tee "$OUT/dfc_bench-n$n.txt"
    echo
    echo "== $MPIRUN -x DFC_ASYNC_PROGRESS=1 -n $n $BIN/dfc_bench -workloads iallreduce $*"
    $MPIRUN -x DFC_ASYNC_PROGRESS=1 -n "$n" "$BIN/dfc_bench" -workloads iallreduce "$@" \
        -csv "$OUT/dfc_bench-n$n-async.csv" -json "$OUT/dfc_bench-n$n-async.json" \
        | tee "$OUT/dfc_bench-n$n-async.txt"
done

echo
echo "== $MPIRUN -n 4 $BIN/dfc_chaos -iters 20"
$MPIRUN -n 4 "$BIN/dfc_chaos" -iters 20 | tee "$OUT/dfc_chaos-n4.txt"

echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/machine.txt"
echo
python3 bench/plot.py -o "$OUT" "$OUT"/dfc_bench-*.csv || echo "run-host.sh: plotting failed (results are kept)"
echo
python3 bench/summarize.py "$OUT"/dfc_bench-*.csv | tee "$OUT/summary.md"
echo
echo "results in $OUT"
