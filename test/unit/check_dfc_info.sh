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

# GPUs: without one, the human form says so in one line; with some, each has its fields.
"$prog" >"$tmp/human" 2>&1 || problem "dfc_info exited with $?"
ngpu=$(sed -n 's/^gpu:count://p' "$tmp/out")
if [ "$ngpu" = 0 ]; then
    grep -qx 'GPUs: none (no CUDA runtime or no device)' "$tmp/human" || problem "no 'GPUs: none' line"
elif [ -n "$ngpu" ]; then
    i=0
    while [ $i -lt "$ngpu" ]; do
        for k in name pci memory_bytes compute_capability numa cpus; do
            grep -q "^gpu:$i:$k:" "$tmp/out" || problem "no gpu:$i:$k line"
        done
        i=$((i + 1))
    done
else
    problem "no gpu:count line"
fi

# The GPU section against a fake CUDA runtime and NVML (test/unit/fake_gpu.c): three GPUs,
# 0-1 direct NVLinks, 0-2 through NVSwitches, 1-2 PCIe without peer access.
fake=$srcdir/test/unit/fake_gpu.c
if ${CC:-cc} -shared -fPIC -o "$tmp/libfakecudart.so" "$fake" &&
    cp "$tmp/libfakecudart.so" "$tmp/libnvidia-ml.so.1"; then
    for form in -p ""; do
        DFC_CUDA_LIBRARY=$tmp/libfakecudart.so LD_LIBRARY_PATH=$tmp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
            "$prog" $form >"$tmp/fake$form" 2>"$tmp/fakeerr" || problem "dfc_info $form with the fake GPUs failed"
        [ -s "$tmp/fakeerr" ] && problem "dfc_info $form with the fake GPUs wrote to stderr: $(cat "$tmp/fakeerr")"
    done
    for line in gpu:count:3 'gpu:0:name:Fake GPU 0' gpu:1:pci:0000:43:00.0 gpu:2:memory_bytes:85899345920 \
        gpu:0:compute_capability:9.0 gpu:0:peer:1:access:yes gpu:0:peer:1:link:nvlink gpu:0:peer:1:nvlinks:4 \
        gpu:1:peer:0:nvlinks:4 gpu:0:peer:2:link:nvswitch gpu:2:peer:0:nvlinks:2 gpu:1:peer:2:access:no \
        gpu:1:peer:2:link:pcie gpu:2:peer:1:nvlinks:0 gpu:path:collectives:daemon gpu:path:p2p:ipc; do
        grep -qx "$line" "$tmp/fake-p" || problem "fake GPUs: no line '$line'"
    done
    for text in 'GPU 0: Fake GPU 0, PCI 0000:1B:00.0, 80.0 GiB, compute capability 9.0' \
        'to GPU 1: peer access yes, NVLink (4 links)' 'to GPU 2: peer access yes, NVLink through NVSwitch (2 links)' \
        'to GPU 2: peer access no, PCIe'; do
        grep -qF "$text" "$tmp/fake" || problem "fake GPUs: no '$text' in the human form"
    done
else
    problem "cannot build $fake with ${CC:-cc}"
fi

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
