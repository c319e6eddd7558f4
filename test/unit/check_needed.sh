#!/bin/sh
# Fails when libdfc.so itself needs a library that DFC loads at first use instead: libfabric
# (src/tl/ofi_dl.c: Debian's links the providers' libraries, whose constructors spin about
# 0.2 s in every process that loads them) or the CUDA libraries (src/cuda/cuda.c). Such a
# dependency would be loaded at the start of every DFC program, also of one that never
# leaves its node or touches a device buffer.
lib=.libs/libdfc.so
if [ ! -f "$lib" ]; then
    echo "check_needed: no $lib (configure --disable-shared?): nothing to check"
    exit 77
fi
command -v objdump > /dev/null || { echo "check_needed: objdump (binutils) is missing"; exit 1; }
needed=$(objdump -p "$lib" | awk '$1 == "NEEDED" {print $2}')
[ -n "$needed" ] || { echo "check_needed: objdump listed no NEEDED entry of $lib"; exit 1; }
bad=$(echo "$needed" | grep -E '^lib(fabric|cudart|cuda|nvidia-ml|psm2?|psm_infinipath|ibverbs|efa|rdmacm)\.' || true)
if [ -n "$bad" ]; then
    echo "check_needed: $lib needs $(echo $bad), which DFC loads at first use instead"
    exit 1
fi
echo "check_needed: $lib needs only $(echo $needed)"
