#!/bin/sh
# check_layering.sh - the include graph of src/ runs one way (run by `make check`).
#
# The layers, lowest first (README.md "Layout", DESIGN.md section 2):
#
#   0 util                       errors, logging, environment parameters, tables
#   1 pmix, cuda                 bootstrap; the CUDA loader and memory-type query
#   2 tl                         transports
#   3 comm                       communicators, p2p, requests, progress, init order
#   4 coll, gpu                  collectives; the GPU daemon, which runs coll's schedules
#   5 io                         MPI-IO files over POSIX; agrees through coll's allreduce
#   6 api                        argument checks, one call inward
#   7 tools, mpi                 dfc_info; libmpi's MPI_ and PMPI_ names over dfc.h
#
# A file of src/<dir>/ may include a header of its own directory or of a lower layer. Two
# layers of the same level share only what is listed in SHARED: the daemon includes the
# schedule format (and the scheduling policy both executors run), coll includes the daemon's
# submission interface; neither includes the other's internals. Fails, naming the file and
# the header, for any other include of a header of a layer above or beside, and for a
# directory of src/ that is not in the table (a new layer must be placed in it).
#
# ALLOWED lists includes that break the rule today in files this check's author does not own;
# each line says what removes it. The list only shrinks.
#
# automake sets $srcdir; run by hand from the top of the source tree it defaults to ".".

srcdir=${srcdir:-.}
src=$srcdir/src
[ -d "$src" ] || { echo "check_layering: $src is missing (srcdir=$srcdir)" >&2; exit 99; }

LEVELS='util=0 pmix=1 cuda=1 tl=2 comm=3 coll=4 gpu=4 io=5 api=6 tools=7 mpi=7'

# "<including dir> <included header>" pairs allowed between layers of the same level.
SHARED='
gpu coll/dfc_sched.h
gpu coll/dfc_policy.h
coll gpu/dfc_gpu.h
'

# "<file> <included header>": known exceptions, to be removed (see the header comment).
ALLOWED='
src/comm/progress.c gpu/dfc_gpu.h
'
# progress.c calls dfc_gpu_busy() directly; calling dfc_comm_gpu_busy() (comm/dfc_comm.h, a
# hook the api layer sets) instead, and including cuda/dfc_cuda.h if anything of the loader
# is needed, removes the line above.

level_of() {
    for kv in $LEVELS; do
        [ "${kv%%=*}" = "$1" ] && { echo "${kv#*=}"; return; }
    done
    echo none
}

fail=0
nfiles=0
nincludes=0
for f in $(find "$src" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) |
           sort); do
    rel=${f#"$srcdir"/}
    dir=${rel#src/}
    dir=${dir%%/*}
    case $rel in src/*/*) ;; *) continue ;; esac
    case $(basename "$f") in *_fatbin.c) continue ;; esac # generated (embed.sh)
    mine=$(level_of "$dir")
    if [ "$mine" = none ]; then
        echo "check_layering: $rel: src/$dir is not a known layer (add it to LEVELS)" >&2
        fail=1
        continue
    fi
    nfiles=$((nfiles + 1))
    for inc in $(sed -n 's/^[ 	]*#[ 	]*include[ 	]*"\([a-z_]*\/[^"]*\)".*/\1/p' "$f"); do
        nincludes=$((nincludes + 1))
        idir=${inc%%/*}
        [ "$idir" = "$dir" ] && continue
        theirs=$(level_of "$idir")
        if [ "$theirs" = none ]; then
            echo "check_layering: $rel includes $inc: $idir is not a known layer" >&2
            fail=1
            continue
        fi
        [ "$theirs" -lt "$mine" ] && continue
        if [ "$theirs" -eq "$mine" ] && printf '%s\n' "$SHARED" | grep -qx "$dir $inc"; then
            continue
        fi
        printf '%s\n' "$ALLOWED" | grep -qx "$rel $inc" && continue
        if [ "$theirs" -eq "$mine" ]; then
            why="$idir is beside $dir (level $mine) and $inc is not a shared header"
        else
            why="$idir (level $theirs) is above $dir (level $mine)"
        fi
        echo "check_layering: $rel includes $inc: $why" >&2
        fail=1
    done
done

# An exception that no longer occurs must leave the list, so that it cannot hide a new one.
for pair in $(printf '%s\n' "$ALLOWED" | sed 's/ /:/'); do
    file=${pair%%:*}
    inc=${pair#*:}
    pattern="^[ 	]*#[ 	]*include[ 	]*\"$inc\""
    if [ -f "$srcdir/$file" ] && ! grep -q "$pattern" "$srcdir/$file"; then
        echo "check_layering: $file no longer includes $inc: remove it from ALLOWED" >&2
        fail=1
    fi
done

if [ "$nfiles" -le 20 ]; then
    echo "check_layering: only $nfiles files found: is the pattern stale?" >&2
    fail=1
fi
[ $fail -eq 0 ] && echo "check_layering: $nfiles files, $nincludes includes, all one way"
exit $fail
