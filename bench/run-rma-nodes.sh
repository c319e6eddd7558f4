#!/bin/bash
# run-rma-nodes.sh - issue 19's one-sided comparison across two simulated nodes: dfc_bench_rma
# (DFC and the Open MPI anchor in one process, size by size) with rank 0 and rank 1 on the
# simulated nodes n1 and n2 (test/launch/dfc-mpirun-nodes: each its own UTS namespace, so DFC
# goes over tcp), then a summary of the ratios DFC / Open MPI against issue 19's 1.2x.
#
# Usage (as root, from the top of a built tree: the git tree or an unpacked `make dist`):
#   bench/run-rma-nodes.sh [-o DIR] [dfc_bench_rma options]
#   -o DIR   results folder (default bench/results/rma-nodes-YYYYmmdd-HHMMSS)
#   options  passed to dfc_bench_rma; default -maxsize 1M -iters 300 -reps 5
# Open MPI is pinned to its tcp path: pml ob1, btl tcp,self, and osc pt2pt (4.1's default
# osc/rdma refuses MPI_Win_allocate over btl/tcp with MPI_ERR_WIN). MPIRUN_EXTRA (environment)
# adds mpirun options. The run gets a private /dev/shm (a tmpfs in its own mount namespace)
# when it can make one, so that it neither sees nor removes other runs' segments.
# mpirun runs through test/launch/dfc-mpirun-nodes, which asks for its rsh launcher whatever
# the environment chose (the lent GPU machine sets OMPI_MCA_plm=isolated).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
OUT=
while [ $# -gt 0 ]; do
    case "$1" in
        -o) OUT=$2; shift 2 ;;
        *) break ;;
    esac
done
[ $# -gt 0 ] || set -- -maxsize 1M -iters 300 -reps 5
[ -n "$OUT" ] || OUT=bench/results/rma-nodes-$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

if [ -z "${RMA_NODES_PRIVATE_SHM:-}" ] && [ "$(id -u)" = 0 ] &&
    unshare -m true 2>/dev/null; then
    export RMA_NODES_PRIVATE_SHM=1
    # shellcheck disable=SC2016  # $0/$@ expand in the inner bash, on purpose
    exec unshare -m /bin/bash -c 'mount -t tmpfs -o size=4g tmpfs /dev/shm && exec "$0" "$@"' \
        "$top/bench/run-rma-nodes.sh" -o "$OUT" "$@"
fi

launch=test/launch/dfc-mpirun-nodes
bin=bench/dfc_bench_rma
for f in "$launch" test/launch/rsh-agent "$bin"; do
    [ -x "$f" ] || { echo "run-rma-nodes.sh: $f is missing or not executable (make first)" >&2; exit 1; }
done
command -v mpirun >/dev/null || { echo "run-rma-nodes.sh: no mpirun" >&2; exit 1; }
read -r -a extra <<<"${MPIRUN_EXTRA:-}"
ompi=(--mca pml ob1 --mca btl "tcp,self" --mca osc pt2pt "${extra[@]}")
{
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "host: $(hostname); $(nproc) cpus; $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')"
    echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "mpirun version: $(mpirun --version 2>&1 | head -1)"
    echo "private /dev/shm: ${RMA_NODES_PRIVATE_SHM:-no}"
    echo "command: $launch 2 ${ompi[*]} -- $bin $*"
} | tee "$OUT/machine.txt"

log=$OUT/rma-nodes.txt
# Each mpirun gets RMA_NODES_TIMEOUT seconds (default 280): both forms fit in 10 minutes.
limit=${RMA_NODES_TIMEOUT:-280}
rc=0
timeout "$limit" "$launch" 2 "${ompi[@]}" -- "$bin" "$@" >"$log" 2>&1 || rc=$?
cat "$log"
[ $rc -eq 0 ] || { echo "run-rma-nodes.sh: mpirun exited $rc (output: $log)" >&2; exit $rc; }

# Rows: workload bytes DFC_us anchor_us ratio DFC_min anchor_min.
echo
echo "== summary (ratio = DFC / Open MPI median time; issue 19's target: at most 1.2)"
awk '/^(put|get|acc)_/ && $4 > 0 {
        n++; r = $3 / $4; if (r > worst) { worst = r; w = $1 " " $2 }
        if (r > 1.2) { over++; list = list sprintf("  %s %s B: %.3f / %.3f us = %.2f\n", $1, $2, $3, $4, r) }
     }
     END {
        if (!n) { print "no rows with an anchor time (was dfc_bench_rma built with mpicc?)"; exit 1 }
        printf "%d rows, %d above 1.2x, worst %.2f (%s)\n", n, over, worst, w
        printf "%s", list
     }' "$log" | tee "$OUT/summary.txt"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/machine.txt"
