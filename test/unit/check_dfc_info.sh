#!/bin/sh
# check_dfc_info.sh - runs `dfc_info -p` and fails unless it prints a version line, the
# three transports, an env line (value and default) for every parameter documented in
# man/man7/dfc_env.7 and no undocumented one, the current value of a parameter set in the
# environment, and nothing on standard error; and lints man/man1/dfc_info.1. Every
# documented parameter must be listed, whether the library reads it at init, lazily, only
# in multi-process jobs or only with a GPU (dfc_env_register_all reads those).
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

# Parameters documented in dfc_env(7): ".TP" then ".B NAME".
awk 'prev == ".TP" && $1 == ".B" && $2 ~ /^DFC_/ { print $2 } { prev = $1 }' \
    "$srcdir/man/man7/dfc_env.7" | sort -u >"$tmp/documented"
n=$(wc -l <"$tmp/documented")
[ "$n" -ge 50 ] || problem "found only $n parameters in dfc_env.7: is the pattern stale?"
while read -r p; do
    grep -q "^env:$p:value:.*:default:" "$tmp/out" || problem "no env line for $p (documented in dfc_env.7)"
done <"$tmp/documented"
sed -n 's/^env:\([^:]*\):.*/\1/p' "$tmp/out" | sort >"$tmp/listed"
for p in $(comm -13 "$tmp/documented" "$tmp/listed"); do
    problem "$p is listed but not documented in dfc_env.7"
done

# The current value is the environment's: a parameter read only by shm (which a singleton
# never starts) and a collective algorithm variable.
DFC_SHM_BURST=7 DFC_BCAST_ALGORITHM=binomial "$prog" -p >"$tmp/set" 2>&1
grep -qx 'env:DFC_SHM_BURST:value:7:default:16' "$tmp/set" || problem "DFC_SHM_BURST=7 is not shown"
grep -qx 'env:DFC_BCAST_ALGORITHM:value:binomial:default:auto' "$tmp/set" ||
    problem "DFC_BCAST_ALGORITHM=binomial is not shown"

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

[ $fail -eq 0 ] && echo "check_dfc_info: ok ($n parameters)"
exit $fail
