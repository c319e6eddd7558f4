#!/bin/sh
# check_without_ofi.sh - the ofi transport's sources compile without libfabric (run by
# `make check`).
#
# Machines that build DFC without libfabric (the lent GPU machine has none) compile the
# `#else /* !HAVE_LIBFABRIC */` side of src/tl/ofi*.c, which CI's own build, with libfabric
# installed, never sees: a function left on the wrong side once broke that build only. This
# compiles each file with -fsyntax-only under a copy of config.h that says HAVE_LIBFABRIC 0.
#
# automake sets $srcdir and runs this from the build directory (where config.h and the
# generated include/dfc_version.h are; the source tree may be elsewhere: VPATH builds).

srcdir=${srcdir:-.}
cc=${CC:-cc}
[ -f config.h ] || { echo "check_without_ofi: no config.h here (run from the build directory)" >&2; exit 99; }
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
sed 's/^#define HAVE_LIBFABRIC 1$/#define HAVE_LIBFABRIC 0/' config.h >"$tmp/config.h"
fail=0
for f in "$srcdir"/src/tl/ofi*.c; do
    if ! $cc -fsyntax-only -I"$tmp" -I. -I./include -I./src -I"$srcdir/include" -I"$srcdir/src" "$f"; then
        echo "check_without_ofi: $f does not compile without libfabric" >&2
        fail=1
    fi
done
[ $fail -eq 0 ] && echo "check_without_ofi: src/tl/ofi*.c compile with HAVE_LIBFABRIC 0"
exit $fail
