#!/bin/sh
# check_gpu_floor.sh - the floor benchmarks of bench/gpu_floor compile with this tree's nvcc,
# for sm_90 and the portable target the daemon's kernels use (src/gpu/Makefile.inc). They are
# built by hand and run on the GPU machine only (BENCHMARKS.md); kcopylat.cu includes the
# small-copy kernel itself, so a change of the kernel or its ring that breaks it fails here.
# Skipped (77) where configure found no CUDA.
set -e
srcdir=${srcdir:-.}
[ -n "${NVCC:-}" ] && [ -x "$NVCC" ] || { echo "no nvcc: skipped"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for f in "$srcdir"/bench/gpu_floor/*.cu; do
    "$NVCC" -std=c++17 -O2 -I"$srcdir/src" -gencode arch=compute_90,code=sm_90 \
        -gencode arch=compute_75,code=compute_75 -c -o "$out/$(basename "$f").o" "$f" ||
        { echo "FAIL: $f does not compile"; exit 1; }
done
echo "PASS: $(ls "$srcdir"/bench/gpu_floor/*.cu | wc -l) floor benchmarks compile"
