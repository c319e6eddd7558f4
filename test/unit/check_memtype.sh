#!/bin/sh
# check_memtype.sh - the memory-type cache (src/cuda/memtype.c): test_memtype's host checks
# as is, then again against a fake CUDA driver (test/unit/fake_cuda_driver.c, built here as a
# library whose soname is libcuda.so.1), where it checks which pointers reach the driver and
# what device ranges, managed, registered, freed and reused ranges answer.
srcdir=${srcdir:-.}
prog=./test/unit/test_memtype
[ -x "$prog" ] || { echo "check_memtype.sh: $prog is not built"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# No CUDA runtime of the machine may be loaded behind the fake driver.
export DFC_CUDA_LIBRARY=$tmp/none.so
"$prog" || exit 1
${CC:-cc} -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$tmp/libcuda.so.1" \
    "$srcdir/test/unit/fake_cuda_driver.c" || { echo "check_memtype.sh: cannot build the fake driver"; exit 1; }
# Another library loaded first makes the cache move its pinned last object (memtype.c).
${CC:-cc} -shared -fPIC -Wl,-soname,libmemtypeother.so -o "$tmp/libmemtypeother.so" \
    "$srcdir/test/unit/fake_cuda_driver.c" || { echo "check_memtype.sh: cannot build a library"; exit 1; }
OTHER_LIBRARY=$tmp/libmemtypeother.so FAKE_CUDA_DRIVER=$tmp/libcuda.so.1 "$prog"
