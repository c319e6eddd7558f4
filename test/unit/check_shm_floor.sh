#!/bin/sh
# check_shm_floor.sh - bench/shm_floor (the floors issue 16's small cells are read against)
# runs in each of its modes and prints what BENCHMARKS.md reads: one line for the 8-byte
# allreduce and bcast, a row for every size from 8 B to 4 KiB for the exchange and the
# ping-pong. Each mode checks the first and last byte of every copy (abort on a wrong one).
# The timings are not judged: 200 iterations on a CI machine say nothing about a floor.
set -e
floor=${SHM_FLOOR:-bench/shm_floor}
[ -x "$floor" ] || { echo "FAIL: $floor was not built"; exit 1; }
for mode in "" bcast; do
    out=$("$floor" 200 $mode)
    echo "$out" | grep -q "^shm_floor: 8-byte .* median of the max over both ranks [0-9]* ns" ||
        { echo "FAIL: shm_floor $mode printed: $out"; exit 1; }
done
for mode in exchange pingpong; do
    sizes=$("$floor" 200 "$mode" | awk '!/^#/ && $2 ~ /^[0-9]+$/ {print $1}' | paste -sd' ')
    [ "$sizes" = "8 16 32 64 128 256 512 1024 2048 4096" ] ||
        { echo "FAIL: shm_floor $mode: sizes '$sizes'"; exit 1; }
done
if "$floor" 10 nosuchmode >/dev/null 2>&1; then
    echo "FAIL: shm_floor accepted an unknown mode"
    exit 1
fi
echo "PASS: shm_floor's four modes"
