#!/bin/sh
# bench/device/ofi8.sh - issue 18 on the 16-core machine, branch ofi8: DFC's ofi transport over
# libfabric's net provider beside DFC's own tcp on 2 simulated nodes, after ofi8's two changes
# (rget_start's read slots grow past 16; DFC_OFI_CREDITS 64 instead of 32, a packet above
# 32 KiB of payload taking 2). Variants (bench/run-ofi.sh): tcp, net (the new defaults) and
# net-c32 (DFC_OFI_CREDITS=32, with the new read slots): net against tcp answers the issue's
# 1.2x, net against net-c32 says what the credits did at 16 KiB and below (above, net-c32
# has only 16 full packets in flight, fewer than before the branch). 16 KiB and below, the credits; 128 and 256 KiB, the read
# slots (compare with the 51.38/35.11 and 72.20/58.53 us of BENCHMARKS.md, "net on 16 idle
# cores").
#
# Run from the unpacked `make dist` tree of the branch, configured with libfabric and built
# (make -j; config.h says HAVE_LIBFABRIC 1), on an otherwise idle machine:
#     bench/device/ofi8.sh [OUTDIR]      (default /tmp/ofi8; about 7 minutes)
# Part 1: the full table (pingpong, bw, allreduce, 8 B to 16 MiB, Open MPI's anchor in every
# variant), 3 runs interleaved, as the earlier 16-core set. Part 2: 64 B to 512 KiB without
# the anchor, 4 more runs interleaved, for the six bw rows that were over 1.2x (its -workloads
# bw adds to run-ofi.sh's list, so all three workloads run). Each part prints the median and
# best of its runs' medians and the ratios to tcp (table.txt in its folder).
set -eu
cd "$(dirname "$0")/../.."
OUT=${1:-/tmp/ofi8}
# (test/launch/dfc-mpirun-nodes asks for --mca plm rsh itself: the lent machine sets
# OMPI_MCA_plm=isolated, and mpirun refuses a parameter given twice.)
MPIRUN=${MPIRUN:-mpirun}
export MPIRUN
grep -q '^#define HAVE_LIBFABRIC 1' config.h || { echo "ofi8.sh: built without libfabric" >&2; exit 2; }
if command -v fi_info >/dev/null; then # the lent machine has libfabric without its tools
    fi_info -p net >/dev/null 2>&1 || { echo "ofi8.sh: libfabric lists no net provider" >&2; exit 2; }
fi
echo "== part 1: $(date -u '+%H:%M:%S UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
bench/run-ofi.sh -o "$OUT/full" -n 3 -v "tcp net net-c32" -maxtime 0.15
echo "== part 2: $(date -u '+%H:%M:%S UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
bench/run-ofi.sh -o "$OUT/bw" -n 4 -v "tcp net net-c32" -noanchor -workloads bw -minsize 64 \
    -maxsize 512K -maxtime 0.1
echo "== done: $(date -u '+%H:%M:%S UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
