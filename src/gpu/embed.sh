#!/bin/sh
# embed.sh NAME FILE: writes a C source defining `const unsigned char NAME[]` with FILE's
# bytes (16-byte aligned, as CUDA wants a fat binary). Used for the daemon kernel's fatbin;
# od is in every POSIX system, so the build needs nothing beyond the CUDA toolkit.
set -e
echo "/* Generated from $2 by src/gpu/embed.sh: do not edit. */"
echo "__attribute__((aligned(16))) const unsigned char $1[] = {"
od -An -v -tx1 "$2" | sed -e 's/\([0-9a-f][0-9a-f]\)/0x\1,/g' -e 's/^ *//'
echo "};"
