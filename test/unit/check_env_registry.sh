#!/bin/sh
# check_env_registry.sh - the registry of environment parameters (src/util/env_registry.c)
# against the sources (run by `make check`). Fails when
#  (a) a parameter read in src/ (dfc_env_long/_str/_double("DFC_..."), getenv("DFC_..."), or
#      a DFC_<KIND>_ALGORITHM from the kind names of src/coll/select.c) is not in the
#      registry, so that DFC_Init would warn about it as unknown and never check its value;
#  (b) a registry entry is read nowhere in src/ (a stale name would hide a typo);
#  (c) a DFC_ variable that the tree's scripts, tests or benchmarks read from the environment
#      (${DFC_X..., $DFC_X, getenv("DFC_X"), os.environ...("DFC_X")) is neither a parameter
#      nor in the registry's list of script variables, which DFC_Init leaves alone; or a
#      listed script variable is read nowhere outside src/.
#
# automake sets $srcdir; run by hand from the top of the source tree it defaults to ".".

srcdir=${srcdir:-.}
top=$srcdir
reg=$top/src/util/env_registry.c
fail=0
tmp=${TMPDIR:-/tmp}/check_env_registry.$$
mkdir -p "$tmp" || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
for f in "$reg" "$top/src/coll/select.c"; do
    [ -f "$f" ] || { echo "check_env_registry: $f is missing (srcdir=$srcdir)" >&2; exit 99; }
done

problem() {
    echo "check_env_registry: $*" >&2
    fail=1
}

# The parameters the sources read (the same patterns as check_man.sh).
find "$top/src" -name '*.[ch]' ! -name env_registry.c -exec cat {} + | tr '\n' ' ' |
    grep -oE '(dfc_env_(long|str|double)|getenv)[[:space:]]*\([[:space:]]*"DFC_[A-Z0-9_]+"' |
    grep -oE 'DFC_[A-Z0-9_]+' >"$tmp/read"
tr '\n' ' ' <"$top/src/coll/select.c" |
    sed -n 's/.*kind_names\[[^]]*\][[:space:]]*=[[:space:]]*{\([^}]*\)}.*/\1/p' |
    grep -oE '"[a-z_]+"' | tr -d '"' | tr 'a-z' 'A-Z' | sed 's/.*/DFC_&_ALGORITHM/' >>"$tmp/read"
sort -u "$tmp/read" -o "$tmp/read"
[ "$(wc -l <"$tmp/read")" -gt 30 ] || problem "few parameters found in src/: is the pattern stale?"

# The registry: parameter entries are the first string of a table line, script variables the
# strings after "script_vars[]".
sed -n '/^static const dfc_env_spec_t specs/,/^};/p' "$reg" |
    grep -oE '^[[:space:]]*([A-Z]+\()?\{?"DFC_[A-Z0-9_]+"' | grep -oE 'DFC_[A-Z0-9_]+' |
    sort -u >"$tmp/specs"
sed -n '/script_vars\[\] = {/,/^};/p' "$reg" | grep -oE '"DFC_[A-Z0-9_]+"' | tr -d '"' |
    sort -u >"$tmp/scripts"
[ -s "$tmp/specs" ] && [ -s "$tmp/scripts" ] || problem "cannot read the tables of $reg"

for p in $(comm -23 "$tmp/read" "$tmp/specs"); do
    problem "$p is read in src/ but not in src/util/env_registry.c (add it with its range)"
done
for p in $(comm -13 "$tmp/read" "$tmp/specs"); do
    problem "$p is in src/util/env_registry.c but read nowhere in src/ (remove it)"
done

# Variables that the rest of the tree reads from the environment.
(cd "$top" && find test bench run-demo -type f \( -name '*.sh' -o -name '*.py' -o -name '*.c' \
        -o -name '*.h' -o -name run-demo -o -perm -u+x \) ! -name '*.o' \
        ! -name check_env_registry.sh 2>/dev/null |
    while read -r f; do
        grep -ohE '\$\{?DFC_[A-Z0-9_]+|getenv\("DFC_[A-Z0-9_]+"' "$f" 2>/dev/null
        grep -ohE 'environ[^"]*"DFC_[A-Z0-9_]+"|DFC_[A-Z0-9_]+="?\$' "$f" 2>/dev/null
    done) | grep -oE 'DFC_[A-Z0-9_]+' | sort -u >"$tmp/outside"
[ -s "$tmp/outside" ] || problem "no DFC_ variables read outside src/: is the pattern stale?"
for v in $(comm -23 "$tmp/outside" "$tmp/specs"); do
    grep -qx "$v" "$tmp/scripts" ||
        problem "$v is read by the tree's scripts but is neither a parameter nor in script_vars" \
            "(DFC_Init would warn about it)"
done
# Every listed script variable must be read (or documented) somewhere outside src/.
for v in $(cat "$tmp/scripts"); do
    (cd "$top" && grep -rqsF "$v" test bench run-demo README.md BENCHMARKS.md man 2>/dev/null) ||
        problem "script variable $v is mentioned nowhere outside src/ (remove it from script_vars)"
done

[ $fail -eq 0 ] && echo "check_env_registry: $(wc -l <"$tmp/specs") parameters," \
    "$(wc -l <"$tmp/scripts") script variables, all read where they should be"
exit $fail
