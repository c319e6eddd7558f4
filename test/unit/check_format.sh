#!/bin/sh
# check_format.sh - the C sources follow .clang-format: runs `clang-format --dry-run -Werror`
# over the .c, .h, .cu and .cuh files of src/, include/, test/ and bench/ and fails, listing
# the files, when one would change. Skips (exit 77, automake's SKIP) with a message when
# clang-format is not installed. Generated files (*_fatbin.c, dfc_version.h, and dfc_mpi.h,
# which check_dfc_mpi.sh compares with its generator's output) are left out.
#
# CLANG_FORMAT names the program (default: clang-format). The options of .clang-format were
# chosen with clang-format 14; another version may format a few constructs differently.
#
# automake sets $srcdir; run by hand from the top of the source tree it defaults to ".".

srcdir=${srcdir:-.}
cf=${CLANG_FORMAT:-clang-format}
if ! command -v "$cf" >/dev/null 2>&1; then
    echo "check_format: SKIP: $cf is not installed (Debian: apt-get install clang-format)"
    exit 77
fi
if [ ! -f "$srcdir/.clang-format" ]; then
    echo "check_format: $srcdir/.clang-format is missing" >&2
    exit 99
fi

cd "$srcdir" || exit 99
# The sources are the files git tracks (a build writes C files under test/, such as the
# suite's programs converted to MPI_ names in test/mpi-style/mpi/suite/); outside a git
# checkout of its own (a tarball, or run-sanitizers' copy in build-asan/src), found by find.
if [ -e .git ] && git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    files=$(git ls-files -- 'src/*' 'include/*' 'test/*' 'bench/*' |
                grep -E '\.(c|h|cu|cuh)$' | grep -vE '(_fatbin\.c|/dfc_version\.h|/dfc_mpi\.h)$')
else
    files=$(find src include test bench -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \
                -o -name '*.cuh' \) ! -name '*_fatbin.c' ! -name dfc_version.h ! -name dfc_mpi.h \
                ! -path 'test/mpi-style/mpi/suite/*' | sort)
fi
[ -n "$files" ] || { echo "check_format: no sources found under $srcdir" >&2; exit 99; }
bad=0
n=0
for f in $files; do
    n=$((n + 1))
    if ! "$cf" --style=file --dry-run -Werror "$f" >/dev/null 2>&1; then
        echo "check_format: $f is not formatted: run $cf -i --style=file $f" >&2
        bad=$((bad + 1))
    fi
done
if [ $bad -ne 0 ]; then
    echo "check_format: $bad of $n files differ from .clang-format ($("$cf" --version))" >&2
    exit 1
fi
echo "check_format: $n files formatted as .clang-format says"
