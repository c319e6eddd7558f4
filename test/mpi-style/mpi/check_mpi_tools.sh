#!/bin/sh
# check_mpi_tools.sh - DFC as an MPI, the parts that need no launcher (run by `make check`):
#  - libmpi.so exports a strong PMPI_x and a weak MPI_x for every function mpi.h declares,
#    and as many as dfc.h has non-extension functions (plus the MPI-only ones);
#  - the build tree's mpicc/mpicxx: -show, -showme:compile/-showme:link, -compile-info,
#    -link-info, -cc= and MPICH_CC/OMPI_CC; a program from mpi.h alone builds and runs as a
#    singleton; pkg-config's dfc-mpi module;
#  - mpiexec's translation of the common options for srun, mpirun and prterun (-show), and
#    one real start of a program through it with mpirun (when mpirun is installed);
#  - CMake's FindMPI, pointed at the built mpicc with -DMPI_C_COMPILER, configures and builds
#    a project (skipped, with a message, only where cmake is not installed).
set -u
top=${srcdir:-.}
b=${builddir:-.}
bin=$b/dfc-mpi/build
lib=$b/dfc-mpi/.libs/libmpi.so
# A sanitized build (test/run-sanitizers) makes a libdfc that needs the sanitizer runtime first
# in every program; the programs this script builds through the wrappers do not have it. The
# unsanitized build runs every check here.
if grep -qE '^CFLAGS = .*-fsanitize' "$b/Makefile" 2>/dev/null; then
    echo "check_mpi_tools: SKIP: sanitized build (checked in the plain build)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
problem() { echo "check_mpi_tools: $*" >&2; fail=1; }

# ---- symbols ----
nm -D --defined-only "$lib" > "$tmp/syms" || { echo "no $lib" >&2; exit 99; }
grep -oE '\bMPI_[A-Za-z0-9_]+\(' "$b/dfc-mpi/include/mpi.h" | tr -d '(' | sort -u > "$tmp/decl"
n=$(wc -l < "$tmp/decl")
napi=$(grep -cE '^(int|double|DFC_Aint) DFC_' "$top/include/dfc.h")
next=$(grep -cE '^[A-Za-z_].* MPI_[A-Za-z0-9_]+\(' "$top/src/mpi/mpi_extra.h")
# dfc.h's extensions (4 functions) get no generated MPI_ name, nor do its variadic functions
# (DFC_Pcontrol), which mpi_extra.h declares (so they are counted there).
nvar=$(grep -cE '^(int|double) DFC_.*\.\.\.' "$top/include/dfc.h")
[ "$n" -eq $((napi - 4 - nvar + next)) ] ||
    problem "mpi.h declares $n MPI_ functions; dfc.h has $napi (4 extensions), mpi_extra.h $next"
while read -r f; do
    grep -qE "^[0-9a-f]+ W $f\$" "$tmp/syms" || problem "$f is not a weak symbol of libmpi.so"
    grep -qE "^[0-9a-f]+ T P$f\$" "$tmp/syms" || problem "P$f is not a strong symbol of libmpi.so"
    grep -qE "\bP$f\(" "$b/dfc-mpi/include/mpi.h" || problem "mpi.h does not declare P$f"
done < "$tmp/decl"

# ---- wrappers ----
show=$("$bin/mpicc" -show -o x x.c)
case $show in
*" -I"*"/dfc-mpi/include -o x x.c -L"*"/dfc-mpi/.libs "*" -lmpi") ;;
*) problem "mpicc -show: $show" ;;
esac
case $("$bin/mpicc" -show -c x.c) in
*-lmpi*) problem "mpicc -show -c has link flags: $("$bin/mpicc" -show -c x.c)" ;;
*" $("$bin/mpicc" -showme:compile) -c x.c") ;;
*) problem "mpicc -show -c: $("$bin/mpicc" -show -c x.c)" ;;
esac
case " $("$bin/mpicc" -showme:compile) $("$bin/mpicc" -compile-info -c)" in
*-I*-I*) ;; *) problem "mpicc -showme:compile / -compile-info" ;;
esac
case "$("$bin/mpicc" -showme:link) $("$bin/mpicc" -link-info)" in
*-lmpi*-lmpi) ;; *) problem "mpicc -showme:link / -link-info" ;;
esac
[ "$(MPICH_CC=mycc "$bin/mpicc" -show x.c | cut -d' ' -f1)" = mycc ] || problem "MPICH_CC ignored"
[ "$(OMPI_CC=occ "$bin/mpicc" -show x.c | cut -d' ' -f1)" = occ ] || problem "OMPI_CC ignored"
[ "$(MPICH_CC=mycc "$bin/mpicc" -cc=opt -show x.c | cut -d' ' -f1)" = opt ] || problem "-cc= ignored"
[ "$(MPICH_CXX=myxx "$bin/mpicxx" -show x.cxx | cut -d' ' -f1)" = myxx ] || problem "MPICH_CXX ignored"
[ "$(CC=nope "$bin/mpicc" -show x.c | cut -d' ' -f1)" != nope ] || problem "mpicc follows CC"
"$bin/mpicc" -o "$tmp/prog" "$top/test/mpi-style/mpi/mpiprog.c" || problem "mpicc cannot build"
out=$("$tmp/prog" 2>&1)
[ "$out" = " No Errors" ] || problem "mpiprog as a singleton: $out"
if command -v pkg-config > /dev/null; then
    PKG_CONFIG_PATH=$b/dfc-mpi:$b${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH} pkg-config --libs dfc-mpi \
        > "$tmp/pc" 2>&1 || problem "pkg-config dfc-mpi: $(cat "$tmp/pc")"
    grep -q -- "-lmpi" "$tmp/pc" || problem "pkg-config --libs dfc-mpi: $(cat "$tmp/pc")"
fi

# ---- mpiexec ----
x=$bin/mpiexec
check_exec() {
    want=$1
    shift
    got=$(env -u SLURM_JOB_ID "$x" "$@" 2>&1)
    [ "$got" = "$want" ] || problem "mpiexec $*: '$got', expected '$want'"
}
check_exec "srun --mpi=pmix -n 4 --ntasks-per-node=2 ./a.out -v" --launcher=srun -n 4 -ppn 2 -show ./a.out -v
check_exec "mpirun -n 3 --host h1,h2 --wdir /w ./a.out" --launcher=mpirun -np 3 -host h1,h2 -wdir /w -show ./a.out
check_exec "prterun -n 2 --map-by ppr:1:node ./a.out x" --launcher=prterun -n 2 -ppn 1 -show -- ./a.out x
if command -v mpirun > /dev/null; then
    check_exec "mpirun -n 2 ./a.out" -n 2 -show ./a.out
    # One real start through Open MPI's mpirun (as root and on 2 cores, as CI runs).
    out=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        OMPI_MCA_rmaps_base_oversubscribe=1 timeout 120 "$x" --launcher=mpirun -n 3 \
        "$tmp/prog" 2>&1)
    [ "$out" = " No Errors" ] || problem "mpiexec -n 3 mpiprog: $out"
fi
env -u SLURM_JOB_ID "$x" --bogus ./a.out > /dev/null 2>&1 && problem "mpiexec takes --bogus"

# ---- CMake's FindMPI ----
if command -v cmake > /dev/null; then
    abs_mpicc=$(cd "$bin" && pwd)/mpicc
    if cmake -S "$top/test/mpi-style/mpi/findmpi" -B "$tmp/cmake" -DMPI_C_COMPILER="$abs_mpicc" \
        > "$tmp/cmake.log" 2>&1 && cmake --build "$tmp/cmake" >> "$tmp/cmake.log" 2>&1; then
        grep -q "dfc-findmpi: MPI_C_VERSION=4.1" "$tmp/cmake.log" ||
            problem "FindMPI: $(grep dfc-findmpi "$tmp/cmake.log")"
        grep -q "dfc-findmpi: MPI_C_INCLUDE_DIRS=.*dfc-mpi/include" "$tmp/cmake.log" ||
            problem "FindMPI found other headers: $(grep dfc-findmpi "$tmp/cmake.log")"
        out=$("$tmp/cmake/findmpi_prog" 2>&1)
        [ "$out" = " No Errors" ] || problem "the FindMPI-built program: $out"
    else
        problem "FindMPI with MPI_C_COMPILER=$abs_mpicc failed:"
        tail -30 "$tmp/cmake.log" >&2
    fi
else
    echo "check_mpi_tools: cmake is not installed: FindMPI not checked"
fi
grep dfc-findmpi "$tmp/cmake.log" 2>/dev/null
[ $fail = 0 ] && echo "ok: libmpi symbols, mpicc/mpicxx, pkg-config, mpiexec, FindMPI"
exit $fail
