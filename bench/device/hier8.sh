#!/bin/bash
# hier8.sh [host|gpu|all] [TARBALL] - the hierarchical bcast, allgather and
# reduce_scatter_block (branch hier8) against the flat algorithms, on the 16-core GPU
# machine, across simulated nodes. Each part alone stays within a 10-minute device call
# (host: 36 runs of at most 60 s, about 5 minutes; gpu: 12 short runs and 2 devcoll).
#
# With TARBALL (a `make dist` tarball of the branch; the GPU machine has no libtool) it is
# built in /tmp first, as bench/run-gpu.sh does; without, the current directory must be a
# configured tree (its test programs are built here). Output on stdout; the host part's
# CSV files under ${OUT:-./hier8-results}.
#
# 1. Host buffers: 2 simulated nodes of 2, 3 and 4 ranks (test/launch/dfc-mpirun-nodes with
#    DFC_SIM_NODES=2: round robin, so rank r is on node r mod 2), each workload forced to
#    hierarchical and to the default without a layout (DFC_<KIND>_ALGORITHM names it:
#    scatter_allgather for bcast, ring for allgather, pairwise for reduce_scatter_block),
#    interleaved, HIER8_ROUNDS rounds (default two), 256 KiB to 16 MiB.
# 2. Device buffers under CUDA MPS, 4 ranks on 2 simulated nodes: the GPU daemon reaches
#    the other node through its host proxy and its own node directly, as BENCHMARKS.md's
#    hierarchical allreduce was measured (no DFC_GPU_PROXY=force there: forcing every peer
#    through the proxy would hide what the hierarchy saves), forced against the default.
#    Then devcoll -daemon with every hierarchical algorithm forced, on that layout and with
#    DFC_GPU_PROXY=force.
set -u
out=$(readlink -f "${OUT:-hier8-results}")
mkdir -p "$out"
part=${1:-all}
if [[ $# -ge 2 ]]; then
    tarball=$(readlink -f "$2")
    mkdir -p /tmp/dfc-hier8 && cd /tmp/dfc-hier8 && tar xzf "$tarball" && cd dfc-*/ || exit 1
    { ./configure && make -j"$(nproc)" && make -j"$(nproc)" check TESTS=; } >"$out/build.log" 2>&1 ||
        { tail -40 "$out/build.log"; exit 1; }
else # a built tree: only the test programs, which `make` alone does not build
    make -j"$(nproc)" check TESTS= >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
fi
export DFC_SIM_NODES=2 # (the launcher passes --mca plm rsh itself)
echo "== $(date -u +%FT%TZ) $(hostname), load $(cut -d' ' -f1-3 /proc/loadavg)"
status=0
for round in $(seq 1 "${HIER8_ROUNDS:-2}"); do
    [[ $part == gpu ]] && break
    for np in 4 6 8; do
        for w in bcast:BCAST:scatter_allgather allgather:ALLGATHER:ring \
                 reduce_scatter:REDUCE_SCATTER_BLOCK:pairwise; do
            IFS=: read -r wl kind flat <<<"$w"
            for algo in "$flat" hierarchical; do
                tag="r${round}_np${np}_${wl}_${algo}"
                echo "-- $tag"
                timeout 60 test/launch/dfc-mpirun-nodes "$np" -x DFC_${kind}_ALGORITHM=$algo -- \
                    bench/dfc_bench -workloads "$wl" -noanchor -minsize 256K -maxsize 16M \
                    -iters 20 -warmup 3 -maxtime 0.3 -csv "$out/$tag.csv" || status=1
            done
        done
    done
done
# The host part's summary: per workload, ranks and size, the flat and hierarchical medians
# of the rounds' medians and their ratio.
[[ $part == gpu ]] || python3 - "$out" <<'PY' || true
import csv, glob, os, statistics, sys
t = {}
for f in glob.glob(os.path.join(sys.argv[1], "r*_np*_*.csv")):
    _, np_, rest = os.path.basename(f)[:-4].split("_", 2)
    wl, algo = ("bcast", rest[6:]) if rest.startswith("bcast_") else rest.rsplit("_", 1)
    for row in csv.DictReader(l for l in open(f) if not l.startswith("#")):
        t.setdefault((wl, int(np_[2:]), int(row["bytes"])), {}).setdefault(algo, []).append(
            float(row["median_us"]))
print("workload ranks bytes flat_us hierarchical_us ratio")
for k in sorted(t):
    flat = [a for a in t[k] if a != "hierarchical"]
    if flat and "hierarchical" in t[k]:
        f, h = statistics.median(t[k][flat[0]]), statistics.median(t[k]["hierarchical"])
        print(*k, "%.1f %.1f %.2fx" % (f, h, h / f))
PY
# Device buffers through the proxy (CUDA MPS: several daemons on the one GPU).
if [[ $part != host ]] && command -v nvidia-smi >/dev/null && [[ -x bench/dfc_bench_gpu ]]; then
    export CUDA_MPS_PIPE_DIRECTORY=/tmp/dfc-mps CUDA_MPS_LOG_DIRECTORY=/tmp/dfc-mps-log
    mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
    if nvidia-cuda-mps-control -d; then
        for w in bcast:BCAST:scatter_allgather allgather:ALLGATHER:ring \
                 reduce_scatter:REDUCE_SCATTER_BLOCK:pairwise; do
            IFS=: read -r wl kind flat <<<"$w"
            for algo in "$flat" hierarchical "$flat" hierarchical; do
                echo "-- gpu np4 $wl $algo"
                timeout 90 test/launch/dfc-mpirun-nodes 4 -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY \
                    -x DFC_${kind}_ALGORITHM=$algo -- \
                    bench/dfc_bench_gpu -noanchor \
                    -workloads "$wl" -sizes 1M,16M -reps 3 || status=1
            done
        done
        # correctness of every collective in the daemon with the hierarchical algorithms forced
        for proxy in auto force; do
            echo "-- gpu devcoll np4 DFC_GPU_PROXY=$proxy, hierarchical forced"
            timeout 150 test/launch/dfc-mpirun-nodes 4 -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY \
                -x DFC_GPU_PROXY=$proxy \
                -x DFC_BCAST_ALGORITHM=hierarchical -x DFC_ALLGATHER_ALGORITHM=hierarchical \
                -x DFC_ALLGATHERV_ALGORITHM=hierarchical \
                -x DFC_REDUCE_SCATTER_BLOCK_ALGORITHM=hierarchical \
                -x DFC_REDUCE_SCATTER_ALGORITHM=hierarchical -- test/mpi-style/gpu/devcoll -daemon ||
                status=1
        done
        echo quit | nvidia-cuda-mps-control
    else
        status=1
    fi
fi
exit $status
