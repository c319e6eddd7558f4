#!/bin/sh
# check_man.sh - checks the man pages against the code (run by `make check`).
#
# Fails when
#  (a) a function declared in include/dfc.h has no page man/man3/<function>.3, or its page
#      (or the page its .so link names) does not list it in its NAME section;
#  (b) an environment parameter read in src/ (dfc_env_long/_str/_double("DFC_..."), a
#      getenv("DFC_..."), or a DFC_<KIND>_ALGORITHM built from the kind names of
#      src/coll/select.c) has no entry (".TP" then ".B NAME") in man/man7/dfc_env.7;
#  (c) a page draws warnings from `groff -ww -z -man`, or errors from `mandoc -T lint`
#      (mandoc is optional; groff is not: CI installs groff-base);
#  (d) a page under man/ is not listed in man/Makefile.inc (it would not be installed or
#      distributed), or a listed page does not exist.
#
# automake sets $srcdir; run by hand from the top of the source tree it defaults to ".".

srcdir=${srcdir:-.}
top=$srcdir
man=$top/man
header=$top/include/dfc.h
fail=0
tmp=${TMPDIR:-/tmp}/check_man.$$
mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

problem() {
    echo "check_man: $*" >&2
    fail=1
}

for f in "$header" "$man/Makefile.inc" "$man/man7/dfc_env.7" "$top/src/coll/select.c"; do
    [ -f "$f" ] || { echo "check_man: $f is missing (srcdir=$srcdir)" >&2; exit 99; }
done

# ---- (a) every function of dfc.h has a page ----------------------------------------------
sed -n 's/^[A-Za-z_][A-Za-z0-9_ ]*[ *]\(DFC_[A-Za-z0-9_]*\)[ 	]*(.*/\1/p' "$header" | sort -u \
    >"$tmp/functions"
nfunc=$(wc -l <"$tmp/functions")
[ "$nfunc" -gt 100 ] || problem "found only $nfunc functions in $header: is the pattern stale?"
# One awk over every page (a loop of sed and grep per function took 25 s on the CI VM). A
# page's text is its own or, for a link, that of the target of its first ".so man3/X.3"; the
# names a page lists are the comma-separated text up to "\-" on the lines after .SH NAME.
awk 'FILENAME == ARGV[1] { fn[++nfn] = $1; next }
     FNR == 1 { match(FILENAME, /man[0-9]\/[^\/]*$/); page = substr(FILENAME, RSTART)
                exists[page] = 1; in_name = 0 }
     /^\.so[ \t]/ && !(page in so) { so[page] = $2 }
     /^\.SH/ { in_name = ($2 == "NAME" || $2 == "\"NAME\""); next }
     in_name { line = $0; sub(/\\-.*/, "", line); gsub(/\\f[BIRP]/, "", line)
               k = split(line, names, ",")
               for (i = 1; i <= k; i++) { gsub(/^[ \t]+|[ \t]+$/, "", names[i])
                                          if (names[i] != "") listed[page, names[i]] = 1 } }
     END { for (i = 1; i <= nfn; i++) {
               f = fn[i]; page = "man3/" f ".3"; real = (page in so) ? so[page] : page
               if (!(page in exists)) print f " (include/dfc.h) has no page man/" page
               else if (!(real in exists)) print "man/" page " links to " real ", which does not exist"
               else if (!((real, f) in listed)) print f " is not in the NAME section of man/" real
           } }' "$tmp/functions" "$man"/man1/*.1 "$man"/man3/*.3 "$man"/man7/*.7 >"$tmp/nopage"
while read -r line; do problem "$line"; done <"$tmp/nopage"

# ---- (b) every environment parameter has an entry in dfc_env(7) ---------------------------
find "$top/src" -name '*.[ch]' -exec cat {} + | tr '\n' ' ' |
    grep -oE '(dfc_env_(long|str|double)|getenv)[[:space:]]*\([[:space:]]*"DFC_[A-Z0-9_]+"' |
    grep -oE 'DFC_[A-Z0-9_]+' >"$tmp/params"
# DFC_<KIND>_ALGORITHM: the kind names are the strings of the kind_names array.
tr '\n' ' ' <"$top/src/coll/select.c" |
    sed -n 's/.*kind_names\[[^]]*\][[:space:]]*=[[:space:]]*{\([^}]*\)}.*/\1/p' |
    grep -oE '"[a-z_]+"' | tr -d '"' | tr 'a-z' 'A-Z' | sed 's/.*/DFC_&_ALGORITHM/' >"$tmp/algos"
[ -s "$tmp/algos" ] || problem "no collective kind names found in src/coll/select.c (kind_names)"
[ -s "$tmp/params" ] || problem "no environment parameters found in src/: is the pattern stale?"
sort -u "$tmp/params" "$tmp/algos" >"$tmp/allparams"
awk 'prev == ".TP" && ($1 == ".B" || $1 == ".BR") { print $2 } { prev = $1 }' \
    "$man/man7/dfc_env.7" | tr -d '"' | sort -u >"$tmp/documented"
while read -r p; do
    grep -qx "$p" "$tmp/documented" || problem "$p (used in src/) has no entry in man/man7/dfc_env.7"
done <"$tmp/allparams"

# ---- (d) the pages and man/Makefile.inc agree ------------------------------------------------
(cd "$man" && ls man1/*.1 man3/*.3 man7/*.7 2>/dev/null) | sed 's|^|man/|' | sort >"$tmp/pages"
tr '\\\n\t' '   ' <"$man/Makefile.inc" | tr ' ' '\n' | grep -E '^man/man[0-9]/.*\.[0-9]$' | sort -u \
    >"$tmp/listed"
comm -23 "$tmp/pages" "$tmp/listed" | while read -r p; do
    echo "check_man: $p is not in dist_man_MANS (man/Makefile.inc)" >&2
    echo x
done >"$tmp/unlisted"
[ -s "$tmp/unlisted" ] && fail=1
comm -13 "$tmp/pages" "$tmp/listed" | while read -r p; do
    echo "check_man: man/Makefile.inc lists $p, which does not exist" >&2
    echo x
done >"$tmp/missing"
[ -s "$tmp/missing" ] && fail=1

# ---- (c) groff and mandoc ------------------------------------------------------------------
# Each program reads every page in one run (1 s; one run per page took 50 s on the CI VM) and
# names the page in each message, which is printed once, not once per page that links to it.
# The man macros' .TH starts each page afresh, so a page cannot lean on the one before it.
pages=$(sed 's|^man/||' "$tmp/pages")
if ! command -v groff >/dev/null 2>&1; then
    problem "groff is not installed (install groff-base): the pages cannot be checked"
else
    # From man/, so that ".so man3/X.3" resolves as it does under man(1).
    # shellcheck disable=SC2086  # $pages is a word list on purpose
    out=$(cd "$man" && groff -ww -z -man $pages 2>&1 | awk '!seen[$0]++')
    [ -z "$out" ] || problem "groff -ww -z -man:
$out"
fi
if command -v mandoc >/dev/null 2>&1; then
    # shellcheck disable=SC2086
    out=$(cd "$man" && mandoc -T lint -W error $pages 2>&1 | awk '!seen[$0]++')
    [ -z "$out" ] || problem "mandoc -T lint:
$out"
else
    echo "check_man: mandoc is not installed; skipping mandoc -T lint" >&2
fi

if [ "$fail" -eq 0 ]; then
    echo "check_man: $nfunc functions, $(wc -l <"$tmp/allparams") environment parameters," \
        "$(wc -l <"$tmp/pages") pages: all good"
fi
exit "$fail"
