#!/bin/bash
# hostspeed8.sh - issue 16's overlap figures (Iallreduce with the progress thread) and the
# small ping-pong, for one or more built DFC trees side by side, rounds interleaved.
#
# Run on the 16-core machine (Open MPI beside DFC: dfc_bench's anchor), from anywhere:
#   bench/device/hostspeed8.sh NEW_TREE [OLD_TREE ...]
# Each TREE is the top of an unpacked `make dist` tarball built in place
# (./configure --without-ofi && make -j16 && make -j16 check TESTS=), so that
# TREE/bench/dfc_bench is the libtool wrapper, which finds TREE's libdfc by itself.
# Default TREE: the current directory. Environment:
#   ROUNDS   rounds over the trees (default 2)
#   ITERS    -iters for the iallreduce (default 2000)
#   LDPATH_<n>  optional LD_LIBRARY_PATH for the n-th tree (1-based), for a tree whose
#            bench/dfc_bench is a plain binary
# Prints, per round and tree: the ping-pong table (8-256 B, --bind-to core), the Iallreduce
# table (1 KiB - 1 MiB, --bind-to none, DFC_ASYNC_PROGRESS=1) whose "DFC ovl%" column is
# osu_iallreduce's overlap, with the progress thread's DFC_DEBUG=2:sched lines (a tree
# before hostspeed8 prints fewer fields); in the first round also 1K-16K alone (the sched
# counts of the small sizes) and 1K-1M with DFC_LOCK_SPIN_US=0 (callers sleep in the mutex
# at once).
set -u
trees=("$@")
[[ ${#trees[@]} -gt 0 ]] || trees=(.)
rounds=${ROUNDS:-2}
iters=${ITERS:-2000}
mpirun=(mpirun --allow-run-as-root --oversubscribe)

echo "# hostspeed8.sh on $(hostname), $(nproc) cpus, $(date -u +%FT%TZ); uptime: $(uptime)"
for t in "${trees[@]}"; do
    [[ -x $t/bench/dfc_bench ]] || { echo "no $t/bench/dfc_bench (build the tree first)"; exit 1; }
done

run_tree() { # tree index, round
    local i=$1 r=$2 t=${trees[$1]} var="LDPATH_$(($1 + 1))"
    local env=()
    [[ -n ${!var:-} ]] && env=(-x "LD_LIBRARY_PATH=${!var}")
    echo
    echo "######## round $r, tree $((i + 1)): $(cd "$t" && pwd) ($(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg))"
    echo "#### pingpong, bw 8-256 B, --bind-to core"
    "${mpirun[@]}" --bind-to core -n 2 "${env[@]}" "$t/bench/dfc_bench" \
        -workloads pingpong,bw -minsize 8 -maxsize 256 -iters 4000 -maxtime 0.2 2>&1
    echo "#### iallreduce 1K-1M, DFC_ASYNC_PROGRESS=1, --bind-to none, DFC_DEBUG=2:sched"
    "${mpirun[@]}" --bind-to none -n 2 "${env[@]}" -x DFC_ASYNC_PROGRESS=1 -x DFC_DEBUG=2:sched \
        "$t/bench/dfc_bench" -workloads iallreduce -minsize 1K -maxsize 1M -iters "$iters" \
        -maxtime 0.3 2>&1
    if [[ $r -eq 1 ]]; then
        echo "#### iallreduce 1K-16K alone (the sched counts of the small sizes only)"
        "${mpirun[@]}" --bind-to none -n 2 "${env[@]}" -x DFC_ASYNC_PROGRESS=1 \
            -x DFC_DEBUG=2:sched "$t/bench/dfc_bench" -noanchor -workloads iallreduce \
            -minsize 1K -maxsize 16K -iters "$iters" -maxtime 0.3 2>&1
        echo "#### iallreduce 1K-1M with DFC_LOCK_SPIN_US=0"
        "${mpirun[@]}" --bind-to none -n 2 "${env[@]}" -x DFC_ASYNC_PROGRESS=1 \
            -x DFC_DEBUG=2:sched -x DFC_LOCK_SPIN_US=0 "$t/bench/dfc_bench" -noanchor \
            -workloads iallreduce -minsize 1K -maxsize 1M -iters "$iters" -maxtime 0.3 2>&1
    fi
}

for r in $(seq 1 "$rounds"); do
    for i in "${!trees[@]}"; do run_tree "$i" "$r"; done
done
echo
echo "# done $(date -u +%T)"
