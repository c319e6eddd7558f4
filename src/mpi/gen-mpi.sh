#!/bin/sh
# gen-mpi.sh DFC_H EXTRA_H OUTDIR - makes OUTDIR/include/mpi.h and OUTDIR/mpi_gen.c from dfc.h,
# so that the MPI names of libmpi are never written by hand (run by make; see Makefile.inc).
#
# mpi.h is dfc.h with DFC_ spelled MPI_ (types, constants, MPI_Status with its public fields
# MPI_SOURCE/MPI_TAG/MPI_ERROR), DFC's extensions left out or spelled MPIX_, then EXTRA_H
# (the MPI-only functions: Fortran handle conversions, MPI_Pcontrol) and a PMPI_ prototype for
# every MPI_ one. The handles are the same integers and MPI_Status has DFC_Status's layout,
# so every entry point is a plain call.
# mpi_gen.c defines, for every DFC_ function that is not an extension, a strong PMPI_x that
# calls DFC_x and a weak MPI_x alias of it: a profiling tool's MPI_x wins over ours and
# reaches DFC through PMPI_x. The marker objects of dfc.h (dfc_X_marker: DFC_STATUS_IGNORE,
# and any other) get libmpi twins dfc_mpi_X_marker, because a program linked with libmpi alone
# cannot see libdfc's; every pointer argument of a marker's type is turned back into DFC's
# marker on the way in (a pointer compare per argument).
set -e
dfc_h=$1
extra_h=$2
out=$3
[ -f "$dfc_h" ] && [ -f "$extra_h" ] && [ -n "$out" ] || {
    echo "usage: gen-mpi.sh DFC_H EXTRA_H OUTDIR" >&2
    exit 2
}
mkdir -p "$out/include"

# Prototypes of dfc.h, one per line ("ext<TAB>prototype"): ext is 1 for the DFC extensions
# (a "DFC extension" comment just above) and variadic ones, which get no generated MPI name. Also the other lines,
# tagged "txt", for mpi.h; comment blocks that belong to an extension are dropped.
parse() {
    awk '
    function flush_comment(keep) { if (keep) printf "%s", cbuf; cbuf = "" }
    /^(int|double|DFC_Aint) DFC_/ { proto = $0; isext = ext; ext = 0; inproto = 1 }
    inproto && proto != $0 { proto = proto " " $0 }
    inproto {
        if (proto ~ /;/) {
            gsub(/[ \t]+/, " ", proto)
            flush_comment(!isext)
            # A variadic one (DFC_Pcontrol) cannot be passed on: mpi_extra.h and
            # mpi_fint.c spell its MPI twin by hand.
            if (proto ~ /\.\.\./) isext = 1
            print (isext ? "ext\t" : "api\t") proto
            inproto = 0
        }
        next
    }
    /^(\/\*| \*)/ && !/^#/ {
        if ($0 ~ /DFC extension/) ext = 1
        cbuf = cbuf "txt\t" $0 "\n"
        next
    }
    /^typedef .*DFC_Request_callback/ { ext = 0; cbuf = ""; next }
    { flush_comment(1); ext = 0; print "txt\t" $0 }
    ' "$dfc_h"
}

# DFC names that are not MPI names: spelled MPIX_ (as MPICH spells its extensions).
mpix="$(dirname "$0")/mpix.sed"
[ -f "$mpix" ] || { echo "gen-mpi.sh: $mpix is missing" >&2; exit 1; }

# The function prototypes of EXTRA_H, one a line whatever its formatting: comments and
# preprocessor lines dropped, the rest joined and cut after each ";".
extra_protos() {
    awk '{
        line = $0; out = ""
        while (1) {
            if (inc) { e = index(line, "*/"); if (!e) { line = ""; break }
                       line = substr(line, e + 2); inc = 0 }
            s = index(line, "/*"); if (!s) { out = out line; break }
            out = out substr(line, 1, s - 1); line = substr(line, s + 2); inc = 1
        }
        if (out !~ /^#/) print out
    }' "$extra_h" | tr '\n' ' ' | sed 's/;/;\n/g' | sed -E 's/^ +//; s/ +/ /g' |
        grep -E '^[A-Za-z_].*\bMPI_[A-Za-z0-9_]+\('
}

tmp=$out/.gen-mpi.$$
trap 'rm -f "$tmp".*' EXIT
parse > "$tmp.all"
[ "$(grep -c '^api' "$tmp.all")" -gt 100 ] || { echo "gen-mpi.sh: too few prototypes in $dfc_h" >&2; exit 1; }

{
    echo "/* mpi.h - MPI for DFC (generated from dfc.h by src/mpi/gen-mpi.sh; do not edit)."
    echo " * Programs that include it link with libmpi (mpicc does both): see dfc_mpi(7). */"
    echo "#ifndef DFC_MPI_MPI_H"
    echo "#define DFC_MPI_MPI_H"
    # Skip dfc.h's opening comment, its guard and its version header; keep the rest.
    sed -n 's/^\(txt\|api\)\t//p' "$tmp.all" |
        awk '/^#ifdef __cplusplus$/ && n++ { exit } started { print } /^#define DFC_H$/ { started = 1 }' |
        grep -v '^#include "dfc_version.h"' |
        sed -E -f "$mpix" | sed -E 's/\bdfc_([A-Za-z0-9_]+_marker)\b/dfc_mpi_\1/g; s/\bDFC_/MPI_/g'
    echo
    echo "/* ---- MPI functions that DFC does not spell (src/mpi/mpi_extra.h) ------------------ */"
    awk 'body { print } /^ \*\/$/ && !body { body = 1 }' "$extra_h"
    echo
    echo "/* ---- The profiling interface: PMPI_ for every MPI_ function ----------------------- */"
    { sed -n 's/^api\t//p' "$tmp.all" | sed -E -f "$mpix" -e 's/\bDFC_/MPI_/g'
      extra_protos; } |
        sed -E 's/^([A-Za-z_ ]+ \**)MPI_([A-Za-z0-9_]+)\(/\1PMPI_\2(/'
    echo
    echo "#ifdef __cplusplus"
    echo "}"
    echo "#endif"
    echo "#endif /* DFC_MPI_MPI_H */"
} > "$tmp.h"

# The markers of dfc.h, "type name" a line (e.g. "DFC_Status dfc_status_ignore_marker").
sed -nE 's/^extern ([A-Za-z_][A-Za-z0-9_]*) (dfc_[A-Za-z0-9_]+_marker)\[1\];.*/\1 \2/p' "$dfc_h" \
    > "$tmp.markers"

# The entry points: one PMPI_x per DFC_x, its arguments passed through by name.
sed -n 's/^api\t//p' "$tmp.all" | awk -v markers="$tmp.markers" '
BEGIN {
    print "/* mpi_gen.c - MPI_ and PMPI_ entry points of libmpi (generated from dfc.h by"
    print " * src/mpi/gen-mpi.sh; do not edit). */"
    print "#include \"dfc.h\""
    print "#include \"mpi/dfc_mpi_impl.h\""
    print ""
    while ((getline line < markers) > 0) {
        split(line, f, " "); t = f[1]; m = f[2]; mm = m; sub(/^dfc_/, "dfc_mpi_", mm)
        printf "%s %s[1];\n", t, mm
        mark[t] = mark[t] sprintf("(const void *)(p) == (const void *)%s ? %s : ", mm, m)
    }
    for (t in mark) printf "#define DFC_MPI_MARK_%s(p) (%s(p))\n", t, mark[t]
}
{
    open_ = index($0, "("); close_ = length($0); while (substr($0, close_, 1) != ")") close_--
    head = substr($0, 1, open_ - 1); params = substr($0, open_ + 1, close_ - open_ - 1)
    name = head; sub(/.*DFC_/, "", name); ret = head; sub(/DFC_[A-Za-z0-9_]*$/, "", ret)
    n = split(params, p, ",")
    args = ""
    for (i = 1; i <= n; i++) {
        a = p[i]; gsub(/\[[^]]*\]/, "", a); sub(/[ \t]+$/, "", a)
        if (a ~ /^[ \t]*void$/) continue
        match(a, /[A-Za-z_][A-Za-z0-9_]*$/); v = substr(a, RSTART, RLENGTH)
        # A plain pointer or array of a marker type (not int **, not int x[][3]).
        t = substr(a, 1, RSTART - 1); gsub(/const|\*|[ \t]/, "", t)
        nstar = gsub(/\*/, "*", a) + (p[i] ~ /\[/ ? 1 : 0)
        if ((t in mark) && nstar == 1 && p[i] !~ /\]\[/) v = "DFC_MPI_MARK_" t "(" v ")"
        args = args (args == "" ? "" : ", ") v
    }
    printf "\n%sPMPI_%s(%s)\n{\n    return DFC_%s(%s);\n}\n", ret, name, params, name, args
    printf "#pragma weak MPI_%s = PMPI_%s\n", name, name
    count++
}
END { printf "/* %d entry points */\n", count }' > "$tmp.c"

# Replace only what changed, so that make does not rebuild libmpi for nothing.
cmp -s "$tmp.h" "$out/include/mpi.h" || mv "$tmp.h" "$out/include/mpi.h"
cmp -s "$tmp.c" "$out/mpi_gen.c" || mv "$tmp.c" "$out/mpi_gen.c"
