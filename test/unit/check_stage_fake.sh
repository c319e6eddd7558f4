#!/bin/sh
# check_stage_fake.sh - the staging fallback end to end without a GPU: devstage
# (test/mpi-style/gpu/devstage.c: pipelined reductions and bcast, shadowed nonblocking,
# persistent and other collectives, point-to-point, every output checked element by element)
# under mpirun at 2 and 3 ranks, with a stand-in CUDA runtime (fake_cudart.c) preloaded and
# loaded by libdfc, DFC_GPU_DAEMON=0 and small chunks so that every size spans several.
# Fails unless the processes pinned buffers and issued asynchronous copies (the staging path
# ran). Skipped (77) where devstage is not built (no CUDA at configure time), or cc or
# mpirun is missing.
srcdir=${srcdir:-.}
builddir=${builddir:-.}
prog=$builddir/test/mpi-style/gpu/devstage
[ -x "$prog" ] || { echo "check_stage_fake: devstage not built (no CUDA): skipped"; exit 77; }
# A sanitized build (test/run-sanitizers): the stand-in preloaded ahead of the sanitizer
# runtime makes it refuse to start; the plain build runs this check.
if grep -qE '^CFLAGS = .*-fsanitize' "$builddir/Makefile" 2>/dev/null; then
    echo "check_stage_fake: SKIP: sanitized build (checked in the plain build)"
    exit 77
fi
command -v mpirun >/dev/null 2>&1 || { echo "check_stage_fake: no mpirun: skipped"; exit 77; }
cc=${CC:-cc}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# soname libcuda.so.1: the memory-type cache asks the driver only once that is loaded
"$cc" -shared -fPIC -O1 -Wl,-soname,libcuda.so.1 -o "$tmp/libfakecudart.so" \
    "$srcdir/test/unit/fake_cudart.c" ||
    { echo "check_stage_fake: cannot build the stand-in"; exit 1; }
fake=$tmp/libfakecudart.so
status=0
run() { # ranks chunk depth [args]
    n=$1 chunk=$2 depth=$3
    shift 3
    : >"$tmp/counts"
    out=$(timeout 300 mpirun --allow-run-as-root --oversubscribe -n "$n" -x LD_PRELOAD="$fake" \
        -x DFC_CUDA_LIBRARY="$fake" -x DFC_GPU_DAEMON=0 -x FAKE_CUDART_COUNTS="$tmp/counts" \
        -x DFC_STAGE_CHUNK="$chunk" -x DFC_STAGE_CHUNK_MIN="$chunk" -x DFC_STAGE_DEPTH="$depth" \
        "$prog" -chunk="$chunk" "$@" 2>&1)
    rc=$?
    copies=$(awk '{ a += $1; c += $2 } END { print a + 0, c + 0 }' "$tmp/counts")
    if [ $rc -ne 0 ] || [ "$out" != " No Errors" ]; then
        echo "FAIL: $n ranks, chunk $chunk, depth $depth (exit $rc):"
        echo "$out" | head -20
        status=1
    elif [ "${copies#0 }" = "$copies" ] && [ "${copies% 0}" = "$copies" ]; then
        echo "ok: $n ranks, chunk $chunk, depth $depth (pinned allocations, copies: $copies)"
    else
        echo "FAIL: $n ranks, chunk $chunk: nothing was staged (allocations, copies: $copies)"
        status=1
    fi
}
run 2 65536 4
run 3 4100 2
# DFC_DEBUG=2:stage: each rank logs where its pipelines spent their time at finalize (the
# probe of BENCHMARKS.md, issue 14), and DFC_Init accepts the subsystem.
out=$(timeout 300 mpirun --allow-run-as-root --oversubscribe -n 2 -x LD_PRELOAD="$fake" \
    -x DFC_CUDA_LIBRARY="$fake" -x DFC_GPU_DAEMON=0 -x DFC_DEBUG=2:stage \
    -x DFC_STAGE_CHUNK=65536 -x DFC_STAGE_CHUNK_MIN=65536 "$prog" -chunk=65536 2>&1)
logs=$(echo "$out" | grep -c 'stage\] pipeline: [1-9][0-9]* calls, .* host operations')
if echo "$out" | grep -qx " No Errors" && [ "$logs" = 2 ]; then
    echo "ok: DFC_DEBUG=2:stage, each rank's pipeline profile"
else
    echo "FAIL: DFC_DEBUG=2:stage: $logs profile lines of 2:"
    echo "$out" | head -20
    status=1
fi
exit $status
