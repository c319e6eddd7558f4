/*
 * env_registry.c - every environment parameter of DFC with the values it accepts, in one
 * table. DFC_Init checks the environment against it (dfc_env_check in env.c): a value outside
 * these is an error that names the parameter and what it accepts, and a DFC_ variable that is
 * neither here nor in the list of the source tree's own script variables is a warning.
 *
 * The parameters are read where they are used, in every layer (the dfc_env_* readers); this
 * table only describes them, so it lives at the bottom. A parameter read in src/ and missing
 * here fails test/unit/check_env_registry.sh; dfc_env(7) documents each one (check_man.sh).
 * Ranges are what the code can use, not what is sensible: tuning stays the user's.
 */
#include <stddef.h>

#include "util/dfc_util.h"

#define KIB 1024L
#define MIB (1024L * KIB)
#define GIB (1024L * MIB)
#define MINUTE_US 60000000L /* microsecond waits: up to a minute */
#define DAY_S 86400L

#define INT(name, lo, hi)               \
    {                                   \
        name, DFC_ENV_INT, lo, hi, NULL \
    }
#define BOOL(name)                    \
    {                                 \
        name, DFC_ENV_INT, 0, 1, NULL \
    }
#define REAL(name, lo, hi)               \
    {                                    \
        name, DFC_ENV_REAL, lo, hi, NULL \
    }
#define CHOICE(name, list)               \
    {                                    \
        name, DFC_ENV_CHOICE, 0, 0, list \
    }
#define ALGO(name, list)                         \
    {                                            \
        name, DFC_ENV_CHOICE, 0, 0, "auto|" list \
    }

static const dfc_env_spec_t specs[] = {
    /* util */
    {"DFC_DEBUG", DFC_ENV_DEBUG, 0, 3, "init|boot|tl|shm|tcp|ofi|p2p|coll|sched|gpu|stage|error"},
    /* progress and waiting (comm) */
    BOOL("DFC_ASYNC_PROGRESS"),
    BOOL("DFC_ASYNC_PROGRESS_BIND"),
    INT("DFC_SPIN_US", 0, MINUTE_US),
    INT("DFC_ASYNC_SPIN_US", 0, MINUTE_US),
    INT("DFC_ASYNC_DEFER_MIN", 0, GIB),
    INT("DFC_LOCK_SPIN_US", 0, MINUTE_US),
    INT("DFC_YIELD_US", 0, MINUTE_US),
    INT("DFC_SLEEP_US", 0, MINUTE_US),
    INT("DFC_HANG_REPORT_SECONDS", 0, DAY_S),
    BOOL("DFC_HANG_REPORT_SIGNAL"),
    /* collective scheduling (coll) */
    INT("DFC_SPIN_BUDGET", 0, MIB),
    INT("DFC_SPIN_BUDGET_MIN", 0, MIB),
    INT("DFC_SPIN_BUDGET_MAX", 0, MIB),
    INT("DFC_COLL_RING_SEGMENT", 0, GIB),
    INT("DFC_COLL_CHAIN_SEGMENT", 0, GIB),
    BOOL("DFC_SPIN_MOVE_TO_HEAD"),
    INT("DFC_ALLREDUCE_RECURSIVE_DOUBLING_MAX", 0, GIB),
    INT("DFC_ALLREDUCE_RECURSIVE_DOUBLING_NET_MAX", 0, GIB),
    INT("DFC_ALLREDUCE_RABENSEIFNER_MAX", 0, GIB),
    INT("DFC_BCAST_SCATTER_ALLGATHER_MIN", 0, GIB),
    INT("DFC_GPU_RAILS_REDUCE_MIN", 0, GIB),
    INT("DFC_ALLGATHER_SHORT_MAX", 0, GIB),
    INT("DFC_ALLREDUCE_RING_MAX_RANKS", 0, GIB),
    INT("DFC_ALLGATHER_RING_MAX_RANKS", 0, GIB),
    INT("DFC_ALLGATHER_LINEAR_MIN", 0, GIB),
    INT("DFC_BCAST_SLOTS_MAX", 0, GIB),
    INT("DFC_ALLGATHER_SLOTS_MAX", 0, GIB),
    /* device buffers (cuda, gpu) */
    {"DFC_CUDA_LIBRARY", DFC_ENV_TEXT, 0, 0, NULL},
    BOOL("DFC_GPU_DAEMON"),
    INT("DFC_GPU_DEVICE", -1, 1023),
    INT("DFC_GPU_CHANNELS", 1, 32),
    INT("DFC_GPU_SLOTS", 1, 64),
    INT("DFC_GPU_FIFO_DEPTH", 2, 64),
    INT("DFC_GPU_CHUNK", 0, GIB),
    INT("DFC_GPU_FIFO_MEMORY", 1, MIB),
    INT("DFC_GPU_CHANNEL_MIN_BYTES", 1, GIB),
    INT("DFC_GPU_IDLE_US", 0, MINUTE_US),
    INT("DFC_GPU_LINGER_US", 0, MINUTE_US),
    REAL("DFC_GPU_RELAUNCH_US", 0, MINUTE_US),
    INT("DFC_GPU_SPIN_BUDGET", 0, MIB),
    INT("DFC_GPU_SPIN_BUDGET_MIN", 0, MIB),
    INT("DFC_GPU_SPIN_BUDGET_MAX", 0, MIB),
    INT("DFC_GPU_TRACE", 0, 2),
    BOOL("DFC_GPU_RENDEZVOUS"),
    INT("DFC_GPU_FAULT_LAUNCH", -1000000, 1000000),
    /* the GPU daemon's host proxy to peers on other nodes (gpu/proxy.c, issue 15) */
    CHOICE("DFC_GPU_PROXY", "auto|force|off"),
    INT("DFC_GPU_PROXY_STAGE_MAX", 0, 1L << 40),
    INT("DFC_GPU_PEERS_MAX", 2, 16), /* the daemon's peer tables (DFC_GPU_MAX_LOCAL) */
    /* staging device buffers through pinned host memory (comm/stage*.c) */
    INT("DFC_STAGE_CHUNK", 1, GIB),
    INT("DFC_STAGE_CHUNK_MIN", 1, GIB),
    INT("DFC_STAGE_DEPTH", 1, 16),
    INT("DFC_STAGE_POOL_MAX", 0, 1L << 40),
    BOOL("DFC_GPU_P2P"), /* device point-to-point (comm/p2p.c, cuda/ipc.c) */
    INT("DFC_GPU_IPC_CACHE", 1, 4096),
    INT("DFC_GPU_KCOPY_MAX", 0, 1 << 20),
    INT("DFC_GPU_KCOPY_LINGER_US", 0, MINUTE_US),
    BOOL("DFC_GPU_KCOPY_EARLY_FIN"),
    INT("DFC_GPU_HOLD_MEMORY", 0, GIB), /* cuda/arena.c, comm/p2p_hold.c */
    INT("DFC_GPU_HOLD_DELAY_US", 0, MINUTE_US),
    INT("DFC_GPU_COPY_FLAGS", -1, 1L << 40), /* cuda/stage_copy.c */
    /* collective algorithms (coll/select.c; test_env checks these lists against it) */
    ALGO("DFC_BARRIER_ALGORITHM", "dissemination|shm_slots"),
    ALGO("DFC_BCAST_ALGORITHM", "binomial|scatter_allgather|shm_slots|hierarchical|chain|linear"),
    ALGO("DFC_REDUCE_ALGORITHM", "binomial|hierarchical|chain"),
    ALGO("DFC_ALLREDUCE_ALGORITHM",
         "recursive_doubling|shm_slots|shm_slots_rs_ag|rabenseifner|ring|hierarchical"),
    ALGO("DFC_GATHER_ALGORITHM", "linear|hierarchical"),
    ALGO("DFC_GATHERV_ALGORITHM", "linear"),
    ALGO("DFC_SCATTER_ALGORITHM", "linear|hierarchical"),
    ALGO("DFC_SCATTERV_ALGORITHM", "linear"),
    ALGO("DFC_ALLGATHER_ALGORITHM", "shm_slots|ring|recursive_doubling|bruck|hierarchical|linear"),
    ALGO("DFC_ALLGATHERV_ALGORITHM", "ring|hierarchical|linear"),
    ALGO("DFC_ALLTOALL_ALGORITHM", "pairwise|shm_slots|hierarchical"),
    ALGO("DFC_ALLTOALLV_ALGORITHM", "pairwise"),
    ALGO("DFC_REDUCE_SCATTER_BLOCK_ALGORITHM", "pairwise|hierarchical"),
    ALGO("DFC_REDUCE_SCATTER_ALGORITHM", "pairwise|hierarchical"),
    ALGO("DFC_SCAN_ALGORITHM", "linear"),
    ALGO("DFC_EXSCAN_ALGORITHM", "linear"),
    ALGO("DFC_NEIGHBOR_ALLGATHER_ALGORITHM", "linear"),
    ALGO("DFC_NEIGHBOR_ALLGATHERV_ALGORITHM", "linear"),
    ALGO("DFC_NEIGHBOR_ALLTOALL_ALGORITHM", "linear"),
    ALGO("DFC_NEIGHBOR_ALLTOALLV_ALGORITHM", "linear"),
    ALGO("DFC_NEIGHBOR_ALLTOALLW_ALGORITHM", "linear"),
    ALGO("DFC_ALLTOALLW_ALGORITHM", "pairwise"), /* issue 17, part 3 */
    /* point-to-point protocol and process failure (comm) */
    INT("DFC_EAGER_LIMIT", 0, GIB),
    INT("DFC_GPU_EAGER_LIMIT", 0, GIB),
    BOOL("DFC_RGET"),
    INT("DFC_UNEXPECTED_LIMIT", 0, 1L << 50),
    INT("DFC_FAULT_TIMEOUT", 1, DAY_S),
    INT("DFC_REQ_CACHE", 0, MIB), /* issue 16: request cache (comm/request.c) */
    /* transports (comm/init.c, tl) */
    CHOICE("DFC_TRANSPORT", "auto|tcp|ofi"),
    INT("DFC_SHM_RING_BYTES", 0, GIB),
    INT("DFC_SHM_MAX_PAYLOAD", 1, GIB),
    INT("DFC_SHM_BURST", 1, MIB),
    BOOL("DFC_SHM_CMA"),
    INT("DFC_SHM_CMA_MAX", 0, 1L << 40),
    INT("DFC_SHM_COOP_MIN", 0, 1L << 40),
    INT("DFC_SHM_EAGER_LIMIT", 0, GIB),
    BOOL("DFC_SHM_SLOTS"),
    INT("DFC_SHM_LIVENESS_MS", 1, 60000),
    {"DFC_TCP_IF_ADDR", DFC_ENV_IPV4, 0, 0, NULL},
    {"DFC_TCP_IF", DFC_ENV_TEXT, 0, 0, NULL},
    INT("DFC_TCP_CONNECT_TIMEOUT", 1, DAY_S),
    INT("DFC_TCP_MAX_PAYLOAD", KIB, GIB),
    INT("DFC_TCP_EAGER_LIMIT", 0, 64 * MIB),
    INT("DFC_TCP_MAX_QUEUED", 1, 1L << 40),
    INT("DFC_TCP_SOCKBUF", 0, GIB),
    {"DFC_OFI_PROVIDER", DFC_ENV_TEXT, 0, 0, NULL},
    {"DFC_OFI_LIBRARY", DFC_ENV_TEXT, 0, 0, NULL},
    INT("DFC_OFI_MAX_PAYLOAD", KIB, 64 * MIB),
    INT("DFC_OFI_CREDITS", 2, 4096),
    INT("DFC_OFI_RX_BUFS", 1, 65536),
    INT("DFC_OFI_TX_BUFS", 1, 65536),
    INT("DFC_OFI_KEEPALIVE", 0, DAY_S),
    BOOL("DFC_OFI_RMA"),
    INT("DFC_OFI_MR_CACHE", 0, 256),
    INT("DFC_OFI_EAGER_LIMIT", 0, 64 * MIB),
    INT("DFC_OFI_RMA_MIN", 0, 1L << 40),
    /* when CUDA is loaded (cuda/memtype.c, issue 16) */
    CHOICE("DFC_GPU_INIT", "auto|eager|lazy"),
    /* one-sided communication (comm/win.c) */
    BOOL("DFC_RMA_SHM"),
    BOOL("DFC_RMA_PROGRESS_THREAD"),
};

/* Variables that the source tree's scripts, tests and benchmarks read (and document where
 * they read them); the library ignores them, and DFC_Init does not warn about them. */
static const char *const script_vars[] = {
    "DFC_BENCH_DIR",
    "DFC_BENCH_MAX",
    "DFC_CONFIGURE_FLAGS",
    "DFC_DEMO_ITERS",
    "DFC_DEMO_RANKS",
    "DFC_EXTRA_STAGES",
    "DFC_FUZZ_ARTIFACTS",
    "DFC_FUZZ_SECONDS",
    "DFC_GPU_STEPS",
    "DFC_JOBS",
    "DFC_JUNIT",
    "DFC_LAUNCHERS",
    "DFC_MPIRUN_NODES_FILTER",
    "DFC_PLOT_REEXEC",
    "DFC_RUNTESTS_ARGS",
    "DFC_RUNTESTS_TOKEN",
    "DFC_SANITIZER_RUNTESTS_ARGS",
    "DFC_SIM_NODES",
    "DFC_SLURM_DIR",
    "DFC_SLURM_KEEP_MUNGE",
    "DFC_SLURM_LOCKED",
    "DFC_SLURM_WAIT",
    "DFC_SRUN_FILTER",
    "DFC_SRUN_NODES_FILTER",
    "DFC_TEST_CFLAGS",
    "DFC_TEST_NODES",
    "DFC_TSAN_RUNTESTS_ARGS",
    "DFC_TEST_CUDA", /* test/unit/test_memtype: the real-CUDA checks */
};

const dfc_env_spec_t *dfc_env_specs(int *count)
{
    *count = (int)(sizeof specs / sizeof specs[0]);
    return specs;
}

const char *const *dfc_env_script_vars(int *count)
{
    *count = (int)(sizeof script_vars / sizeof script_vars[0]);
    return script_vars;
}
