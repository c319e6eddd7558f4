#!/bin/sh
# check_api_inward.sh - each DFC_ entry point makes at most one call inward (run by
# `make check`; issue 13, DESIGN.md: the api layer checks arguments, then makes ONE call into
# the layers below, so that what an operation does has one home there).
#
# For every DFC_ function defined in src/api/*.c, counts the calls in its body to functions
# declared in the headers of the layers below api (comm, coll, gpu, cuda, tl, pmix, io). Not
# counted: util (errors, tables), the api's own helpers (static functions, check_*, dfc_api_*:
# what they call is theirs), and argument checks by the lower layers' naming convention,
# dfc_*_check and dfc_*_lookup (a handle checked and resolved for the argument check). Fails,
# naming the entry point and its calls, when one makes more than one.
#
# ACCESSORS are inline functions of the lower layers' headers that only resolve a handle or
# read a field (the argument check's lookup, a status's byte count): not counted anywhere.
# ALLOWED lists "<entry point> <call>" pairs not counted, each judged beside it (none today).
#
# automake sets $srcdir; run by hand from the top of the source tree it defaults to ".".

srcdir=${srcdir:-.}
src=$srcdir/src
[ -d "$src/api" ] || { echo "check_api_inward: $src/api is missing (srcdir=$srcdir)" >&2; exit 99; }

ACCESSORS='dfc_comm_get dfc_dtype_get dfc_op_get dfc_req_get dfc_req_is_inert dfc_status_bytes
dfc_status_empty'

ALLOWED=''

tmp=${TMPDIR:-/tmp}/check_api_inward.$$
trap 'rm -f "$tmp"' EXIT
for d in comm coll gpu cuda tl pmix io; do
    cat "$src/$d"/*.h 2>/dev/null
done | grep -o 'dfc_[A-Za-z0-9_]*[ ]*(' | sed 's/[ (]//g' |
    grep -v -e '_check$' -e '_lookup$' | sort -u | grep -v -x -F "$(echo $ACCESSORS | tr ' ' '\n')" >"$tmp"
[ -s "$tmp" ] || { echo "check_api_inward: no lower-layer functions found" >&2; exit 99; }

# One line per counted call: "<file> <entry point> <call>".
calls=$(awk -v allowed="$ALLOWED" '
BEGIN { n = split(allowed, al, "\n"); for (i = 1; i <= n; i++) if (al[i] != "") skip[al[i]] = 1 }
NR == FNR { inward[$1] = 1; next }
# A definition: "DFC_Name(" at the start of a line or after the return type, no ";" after.
!fn && /^[A-Za-z_][A-Za-z0-9_ *]*[ *]DFC_[A-Za-z0-9_]+\(/ {
    s = $0; sub(/\(.*/, "", s); sub(/.*[ *]/, "", s); cand = s; next_open = !/;[ \t]*$/; next
}
next_open && /;[ \t]*$/ { next_open = 0; cand = "" } # a declaration, not a definition
next_open && /^\{/ { fn = cand; next_open = 0; next }
fn && /^\}/ { fn = ""; next }
fn {
    line = $0
    if (incomment) { if (sub(/.*\*\//, "", line)) incomment = 0; else next }
    gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, "", line)
    if (sub(/\/\*.*/, "", line)) incomment = 1
    gsub(/"([^"\\]|\\.)*"/, "\"\"", line)
    while (match(line, /dfc_[A-Za-z0-9_]+[ ]*\(/)) {
        name = substr(line, RSTART, RLENGTH); sub(/[ (]+$/, "", name)
        line = substr(line, RSTART + RLENGTH)
        if ((name in inward) && !((fn " " name) in skip)) print FILENAME, fn, name
    }
}
' "$tmp" "$src"/api/*.c) || exit 99

fail=0
for fn in $(echo "$calls" | awk 'NF == 3 { print $2 }' | sort | uniq -d); do
    echo "check_api_inward: $fn makes more than one call inward:" \
        $(echo "$calls" | awk -v f="$fn" '$2 == f { print $3 }') \
        "(fold them into one function of the layer below; DESIGN.md)" >&2
    fail=1
done
[ "$fail" = 0 ] || exit 1
nfn=$(echo "$calls" | awk 'NF == 3 { print $2 }' | sort -u | wc -l)
echo "check_api_inward: $nfn entry points call inward, each once"
exit 0
