#!/bin/sh
# check_dfc_info.sh - runs `dfc_info -p` and fails unless it prints a version line, the
# three transports, an env line for every parameter documented in man/man7/dfc_env.7 that
# the library reads through dfc_env_long/_double/_str (the DFC_<KIND>_ALGORITHM names
# included), and nothing on standard error; and lints man/man1/dfc_info.1.
builddir=${builddir:-.}
srcdir=${srcdir:-.}
prog=$builddir/src/tools/dfc_info
tmp=${TMPDIR:-/tmp}/check_dfc_info.$$
mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
problem() {
    echo "check_dfc_info: $*" >&2
    fail=1
}

[ -x "$prog" ] || { echo "check_dfc_info: $prog is missing" >&2; exit 99; }

"$prog" -p >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || problem "dfc_info -p exited with $rc"
if [ -s "$tmp/err" ]; then
    problem "dfc_info -p wrote to stderr:"
    cat "$tmp/err" >&2
fi
grep -q '^version:[0-9]' "$tmp/out" || problem "no version line"
for t in self shm tcp; do
    grep -qx "transport:$t" "$tmp/out" || problem "transport $t is not listed"
done

# Parameters documented in dfc_env(7) (".TP" then ".B NAME"), and the ones read through
# dfc_env_* in src/ (literal names, plus the collective algorithm variables).
awk 'prev == ".TP" && $1 == ".B" && $2 ~ /^DFC_/ { print $2 } { prev = $1 }' \
    "$srcdir/man/man7/dfc_env.7" | sort -u >"$tmp/documented"
grep -rhoE 'dfc_env_(long|double|str)\("DFC_[A-Z0-9_]+"' "$srcdir/src" |
    sed 's/.*"\(DFC_[A-Z0-9_]*\)"/\1/' >"$tmp/read"
grep -E '^DFC_[A-Z0-9_]+_ALGORITHM$' "$tmp/documented" >>"$tmp/read"
sort -u "$tmp/read" -o "$tmp/read"
comm -12 "$tmp/documented" "$tmp/read" >"$tmp/expected"
for p in DFC_EAGER_LIMIT DFC_SPIN_US DFC_TRANSPORT DFC_ALLREDUCE_ALGORITHM; do
    grep -qx "$p" "$tmp/expected" || echo "$p" >>"$tmp/expected"
done
while read -r p; do
    grep -q "^env:$p:value:.*:default:" "$tmp/out" || problem "no env line for $p"
done <"$tmp/expected"

# The man page lints clean (as check_man.sh requires of the pages it scans).
page=$srcdir/man/man1/dfc_info.1
if [ -f "$page" ]; then
    w=$(groff -ww -z -man "$page" 2>&1) || problem "groff failed on $page"
    [ -z "$w" ] || problem "groff warns on $page: $w"
    if command -v mandoc >/dev/null 2>&1; then
        mandoc -T lint -W error "$page" >/dev/null 2>&1 || problem "mandoc -T lint fails on $page"
    fi
else
    problem "$page is missing"
fi

[ $fail -eq 0 ] && echo "check_dfc_info: ok ($(wc -l <"$tmp/expected") parameters)"
exit $fail
