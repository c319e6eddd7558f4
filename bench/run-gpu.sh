#!/bin/bash
# run-gpu.sh TARBALL [OUTDIR] - on a machine with GPUs: builds DFC from a `make dist` tarball
# (the GPU machine has no libtool, so no autoreconf), then runs the device-buffer tests and
# the DFC-versus-NCCL benchmark, keeping logs and CSV in OUTDIR (default: ./gpu-results).
#
#   DFC_GPU_STEPS   which steps to run (default "info tests shared mps bench chaos memtype")
#   DFC_BENCH_MAX   largest benchmark size (default 1G)
# One process per GPU everywhere except the "shared" step (more processes than GPUs, staged) and
# the "mps" step (2 to 4 ranks' daemons on one GPU under CUDA MPS, started and stopped here).
set -u
tarball=$(readlink -f "$1")
out=$(readlink -f "${2:-gpu-results}")
steps=${DFC_GPU_STEPS:-info tests shared mps bench chaos memtype}
mkdir -p "$out" /tmp/dfc-gpu-build
cd /tmp/dfc-gpu-build && tar xzf "$tarball" && cd dfc-*/ || exit 1
ngpu=$(nvidia-smi -L | wc -l)
echo "== $(date -u +%FT%TZ) $(hostname): $ngpu GPU(s)"
nvidia-smi --query-gpu=name,pci.bus_id,memory.total --format=csv,noheader
nvidia-smi topo -m | head -n $((ngpu + 1))
{ ./configure && make -j"$(nproc)" && make -j"$(nproc)" check TESTS=; } >"$out/build.log" 2>&1 ||
    { tail -40 "$out/build.log"; exit 1; }
grep -A12 "configuration summary" "$out/build.log"
mpirun="mpirun --allow-run-as-root --oversubscribe --bind-to none"
status=0
for step in $steps; do
    echo; echo "== step $step ($(date -u +%T))"
    case $step in
    info) src/tools/dfc_info || status=1 ;;
    tests) test/mpi-style/runtests --launcher mpirun test/mpi-style/gpu/testlist || status=1 ;;
    shared) test/mpi-style/runtests --launcher mpirun test/mpi-style/gpu/testlist-shared || status=1 ;;
    mps) # MPS's control daemon is this step's own: its pipe directory is private and it quits here
        export CUDA_MPS_PIPE_DIRECTORY=/tmp/dfc-mps CUDA_MPS_LOG_DIRECTORY=/tmp/dfc-mps-log
        mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
        nvidia-cuda-mps-control -d || { status=1; continue; }
        test/mpi-style/runtests --launcher mpirun test/mpi-style/gpu/testlist-mps || status=1
        # 20 daemons on 4 simulated nodes: more than the daemon's peer tables (rails)
        test/mpi-style/runtests --launcher mpirun-nodes test/mpi-style/gpu/testlist-mps-nodes ||
            status=1
        echo quit | nvidia-cuda-mps-control
        unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY ;;
    bench)
        $mpirun -n "$ngpu" bench/dfc_bench_gpu -maxsize "${DFC_BENCH_MAX:-1G}" -csv "$out/bench_gpu.csv" || status=1 ;;
    chaos) $mpirun -n "$ngpu" bench/dfc_bench_gpu -workloads none -chaos -iters 200 || status=1 ;;
    memtype) # issue 16: the memory-type cache on real CUDA memory, and no CUDA in host-only runs
        DFC_TEST_CUDA=1 test/unit/test_memtype || status=1
        $mpirun -n 2 test/mpi-style/init/lazycuda || status=1
        $mpirun -n 2 -x DFC_GPU_INIT=eager test/mpi-style/init/lazycuda -expect=cuda || status=1 ;;
    *) echo "unknown step $step"; status=1 ;;
    esac
done
exit $status
