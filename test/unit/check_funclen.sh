#!/bin/sh
# check_funclen.sh - no function in src/ is longer than 80 lines (run by `make check`).
#
# A function's length is the number of lines between the lines "{" and "}" that open and
# close its body at column 0 (the code's style for every function definition; one-line
# functions are short anyway). A function may be longer when a comment at its top - in the
# comment right above its signature or in the first lines of its body - says why, with the
# words "longer than 80 lines because". Generated code (*_fatbin.c) is not checked.
#
# ALLOWED lists, as file:function, the long functions of files that were being changed by
# others when this check came; each is to be split, and taken off the list, by whoever next
# changes it. An entry whose function is no longer long (or no longer exists) is an error, so
# the list only shrinks.
#
# automake sets $srcdir; run by hand from the top of the source tree it defaults to ".".
# With -v it also prints every function over 60 lines.

srcdir=${srcdir:-.}
src=$srcdir/src
[ -d "$src" ] || { echo "check_funclen: $src is missing (srcdir=$srcdir)" >&2; exit 99; }
LIMIT=80
verbose=0
[ "$1" = -v ] && verbose=1

ALLOWED='
'

# Prints "<file> <line> <name> <body lines> <marked>" for every function of one file.
measure() {
    awk -v file="$1" '
    { line[NR] = $0 }
    # The name: the identifier before the "(" that opens the parameter list, found by
    # matching parentheses back from the end of the signature (attributes may come first).
    function name_of(sig,    i, c, depth, end) {
        sub(/[ \t]+$/, "", sig)
        depth = 0
        for (i = length(sig); i > 0; i--) {
            c = substr(sig, i, 1)
            if (c == ")") depth++
            else if (c == "(" && --depth == 0) break
        }
        sig = substr(sig, 1, i - 1)
        sub(/[ \t]+$/, "", sig)
        end = length(sig)
        match(sig, /[A-Za-z0-9_]+$/)
        return RSTART ? substr(sig, RSTART) : "?"
    }
    END {
        for (i = 1; i <= NR; i++) {
            if (line[i] != "{") continue
            j = i - 1
            sig = line[j]
            while (j > 1 && line[j] ~ /^[ \t]/) { j--; sig = line[j] " " sig }
            if (sig !~ /\(/) continue
            for (k = i + 1; k <= NR && line[k] != "}"; k++) ;
            mark = 0
            for (m = j - 1; m >= 1 && line[m] ~ /^[ \t]*(\/\*|\*|\/\/)|\*\/[ \t]*$/; m--)
                if (line[m] ~ /longer than 80 lines because/) mark = 1
            for (m = i + 1; m <= i + 4 && m < k; m++)
                if (line[m] ~ /longer than 80 lines because/) mark = 1
            print file, j, name_of(sig), k - i - 1, mark
        }
    }' "$1"
}

fail=0
nfunc=0
tmp=${TMPDIR:-/tmp}/check_funclen.$$
trap 'rm -f "$tmp"' EXIT INT TERM
find "$src" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) \
    ! -name '*_fatbin.c' | sort | while read -r f; do measure "$f"; done >"$tmp"
while read -r file line name len mark; do
    nfunc=$((nfunc + 1))
    rel=${file#"$srcdir"/}
    [ $verbose -eq 1 ] && [ "$len" -gt 60 ] && echo "check_funclen: $rel:$line: $name: $len lines"
    [ "$len" -gt $LIMIT ] || continue
    [ "$mark" = 1 ] && continue
    printf '%s\n' "$ALLOWED" | grep -qx "$rel:$name" && continue
    echo "check_funclen: $rel:$line: $name is $len lines long (at most $LIMIT, or a comment at" \
        "its top saying why it is \"longer than 80 lines because\" ...)" >&2
    fail=1
done <"$tmp"
if [ "$(wc -l <"$tmp")" -le 200 ]; then
    echo "check_funclen: few functions found: is the pattern stale?" >&2
    fail=1
fi

for entry in $ALLOWED; do
    file=${entry%%:*}
    name=${entry#*:}
    len=$(awk -v f="$srcdir/$file" -v n="$name" '$1 == f && $3 == n { print $4; exit }' "$tmp")
    if [ -z "$len" ] || [ "$len" -le $LIMIT ]; then
        echo "check_funclen: $entry is no longer over $LIMIT lines: remove it from ALLOWED" >&2
        fail=1
    fi
done

[ $fail -eq 0 ] && echo "check_funclen: $(wc -l <"$tmp") functions, none over $LIMIT lines" \
    "unless marked or listed ($(printf '%s\n' "$ALLOWED" | grep -c .) listed)"
exit $fail
