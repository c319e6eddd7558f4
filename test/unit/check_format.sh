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
n=$(echo "$files" | wc -w)
# One clang-format for every file (2.5 s on the CI VM; one per file took 50 s): it goes on past
# a file that differs and names each in its errors ("FILE:LINE:COL: error: ...").
# shellcheck disable=SC2086  # $files is a word list on purpose (no file name has a space)
if ! "$cf" --style=file --dry-run -Werror $files >/dev/null 2>"${TMPDIR:-/tmp}/check_format.$$"; then
    bad=$(grep -oE '^[^:]+:[0-9]+:[0-9]+: error' "${TMPDIR:-/tmp}/check_format.$$" | cut -d: -f1 |
              sort -u)
    [ -n "$bad" ] || cat "${TMPDIR:-/tmp}/check_format.$$" >&2 # it failed otherwise: say how
    for f in $bad; do
        echo "check_format: $f is not formatted: run $cf -i --style=file $f" >&2
    done
    rm -f "${TMPDIR:-/tmp}/check_format.$$"
    echo "check_format: $(echo "$bad" | grep -c .) of $n files differ from .clang-format" \
        "($("$cf" --version))" >&2
    exit 1
fi
rm -f "${TMPDIR:-/tmp}/check_format.$$"
echo "check_format: $n files formatted as .clang-format says"
