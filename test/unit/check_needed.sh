#!/bin/sh
# Fails when libdfc.so itself needs a library that DFC loads at first use instead: libfabric
# (src/tl/ofi_dl.c: Debian's links the providers' libraries, whose constructors spin about
# 0.2 s in every process that loads them) or the CUDA libraries (src/cuda/cuda.c). Such a
# dependency would be loaded at the start of every DFC program, also of one that never
# leaves its node or touches a device buffer. Also fails when libdfc.so or libdfc.a defines
# a symbol of libfabric's (fi_*): DFC's forwarders have names of their own (ofi_fabric.h), so
# that a program linking libdfc beside its own libfabric, shared or static, gets one of each.
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
# nm -g --defined-only: the global symbols each library defines, the name third.
for f in "$lib" .libs/libdfc.a; do
    [ -f "$f" ] || continue
    own=$(nm -g --defined-only "$f" 2>/dev/null | awk '$3 ~ /^fi_/ {print $3}' | sort -u)
    if [ -n "$own" ]; then
        echo "check_needed: $f defines libfabric's $(echo $own)"
        exit 1
    fi
done
echo "check_needed: $lib needs only $(echo $needed); no fi_* symbol defined"
