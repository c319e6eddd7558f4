#!/bin/sh
# check_launcher_lost.sh - ranks end when their launcher dies (src/pmix/boot.c,
# launcher_lost): two ranks of launcher_lost block in DFC_Recv, mpirun gets SIGKILL, and both
# ranks must be gone within 20 s (they used to wait forever, orphaned). Skipped (77) without
# Open MPI's mpirun.
builddir=${builddir:-.}
command -v mpirun >/dev/null 2>&1 || { echo "check_launcher_lost: no mpirun: skipped"; exit 77; }
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
mpirun --allow-run-as-root --oversubscribe --bind-to none -n 2 \
    "$builddir/test/unit/launcher_lost" "$dir" >"$dir/out" 2>&1 &
launcher=$!
i=0
until [ -s "$dir/pid.0" ] && [ -s "$dir/pid.1" ]; do
    i=$((i + 1))
    if [ $i -gt 300 ] || ! kill -0 $launcher 2>/dev/null; then
        echo "check_launcher_lost: the ranks did not start within 30 s"; cat "$dir/out"
        kill -9 $launcher 2>/dev/null; exit 1
    fi
    sleep 0.1
done
sleep 0.5 # both ranks in DFC_Recv
kill -9 $launcher
wait $launcher 2>/dev/null
pids="$(cat "$dir/pid.0") $(cat "$dir/pid.1")"
i=0
while [ $i -lt 200 ]; do
    alive=""
    for p in $pids; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
    [ -z "$alive" ] && { echo "check_launcher_lost: both ranks exited"; exit 0; }
    i=$((i + 1))
    sleep 0.1
done
echo "check_launcher_lost: ranks$alive still run 20 s after their launcher died"
kill -9 $alive 2>/dev/null
exit 1
