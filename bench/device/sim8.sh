#!/bin/sh
# sim8.sh - issue 22's validation on the 16-core machine (helper sim8, stop 20): two
# independent sets of real runs; the simulator fitted on the first, then tested against both
# (the second with the first's fit, FIT=0), and the second refitted on its own (-R); then both
# sets against the script's fixed parameters (FIT=0 defaults: poll 20 + 12 ns per other rank,
# o 150 ns, set in stop 20 from the medians of stops 18 and 19, before any of these runs: the
# out-of-sample test, with -R, no mpirun). Prints every table whole. About 4-5 minutes on 16
# idle cores; the calls are cut at 200, 200 and 3 x 60 s, so that it ends within 10 minutes.
#
# Run from the top of an unpacked, built `make dist` tree (./configure --without-cuda &&
# make -j16), or of the merged tree after make:
#     sh bench/device/sim8.sh [OUTDIR]          (default /tmp/sim8; its raw files stay there)
set -u
cd "$(dirname "$0")/../.." || exit 1
OUT=${1:-/tmp/sim8}
RUNS=${RUNS:-10}
NS=${NS:-4 8 16} # rank counts (a quick check elsewhere: NS=4 RUNS=1)
rm -rf "$OUT"
mkdir -p "$OUT"
echo "sim8.sh: $(date -u '+%F %T UTC'), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"

# The simulator's unit tests (clock, network, the 1,000-rank chaos run): seconds
make -s test/unit/test_sim > /dev/null 2>&1 && test/unit/test_sim; echo "test_sim: rc $?"

# table DIR: the issue's columns of DIR/validate.csv, then the whole CSV
table() {
    echo "== $1: $(grep -h 'fitted\|not fitted' "$1/machine.txt")"
    awk -F, 'NR == 1 {next}
        {f = "%-9s %3s  preempt real %6.3f sim %6.3f (%5.2f)  overhead real %8.1f%%"
         f = f " [%7.1f, %7.1f] sim %8.1f%%  %-12s time %5.2f  %s  issue %s\n"
         printf f, $1, $2, $9, $14, $16, $6, $7, $8, $13, $18, $17, $19, $26}' "$1/validate.csv"
    echo "-- the real samples' spread, ms per iteration: consistent order, chaos order (min" \
        "median max; which is the noisy part of the overhead)"
    for f in "$1"/real-*-n*.csv; do
        for c in 3 4; do
            awk -F, -v c=$c '{print 1e3 * $c / $2}' "$f" | sort -g |
                awk '{v[NR] = $1} END {printf "%.3f %.3f %.3f  ", v[1], v[int((NR + 1) / 2)], v[NR]}'
        done | sed "s|^|$(basename "$f" .csv): |"
        echo
    done
    echo "-- $1/validate.csv"
    cat "$1/validate.csv"
    echo
}

V=bench/sim-validate.sh
# call TIMEOUT NAME ARGS...: one call of the script, its stderr in OUT/NAME.err
call() {
    _t=$1 _name=$2
    shift 2
    timeout "$_t" "$@" -o "$OUT/$_name" > /dev/null 2> "$OUT/$_name.err"
    echo "sim8.sh: $_name: rc $? ($(date -u +%T)); the end of its log:"
    grep 'fitted\|failed' "$OUT/$_name.err" | tail -5
}
# set a: real runs (with the 2-rank fit point), fitted on its own rows: POLL at 2 ranks, o on
# small at 4, PEER on budget at 8 (PEER_N)
call 200 a sh $V -n "$NS" -r "$RUNS"
echo "sim8.sh: set a's fits (each grid twice, in turn):"
grep 'fit:' "$OUT/a.err" | sed 's/^sim-validate.sh: fit: /  /'
fit=$(grep -h '^fitted' "$OUT/a/machine.txt")
val() { # the fitted value $1 (1 POLL, 2 PEER, 3 O) of set a's machine.txt
    echo "$fit" | sed -n "s/^fitted: poll \([0-9.]*\) + \([0-9.]*\) ns.*; o \([0-9.]*\) ns;.*/\\$1/p"
}
POLL=$(val 1) PEER=$(val 2) O=$(val 3)
echo "sim8.sh: set a's fit: POLL=$POLL PEER=$PEER O=$O"
# set b: new real runs, tested with a's fit; then refitted on its own (no mpirun)
call 200 b env FIT=0 POLL="${POLL:-20}" PEER="${PEER:-12}" O="${O:-150}" sh $V -n "$NS" -r "$RUNS"
call 60 b-own sh $V -n "$NS" -R "$OUT/b"
# both sets against the fixed parameters (the script's FIT=0 defaults)
call 60 a-fixed env FIT=0 sh $V -n "$NS" -R "$OUT/a"
call 60 b-fixed env FIT=0 sh $V -n "$NS" -R "$OUT/b"

table "$OUT/a"
table "$OUT/b"
table "$OUT/b-own"
table "$OUT/a-fixed"
table "$OUT/b-fixed"
echo "sim8.sh: done $(date -u '+%T UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
