/*
 * test_coll_select.c - dfc_coll_select's default choices (select.c), above all ring's rank
 * limit (issue 22): up to 64 ranks the choice is the size rule's alone (ring for allreduce
 * above 512 KiB and allgather above 64 KiB gathered, as before the limit existed); above
 * it rabenseifner (ring up to 512 ranks when the size is not a power of two) and recursive
 * doubling / bruck. Then, in a forked child (the thresholds
 * are read once per process), DFC_ALLREDUCE_RING_MAX_RANKS and DFC_ALLGATHER_RING_MAX_RANKS
 * move the limit both ways. The hierarchical bcast, allgather and allreduce: chosen on 8 ranks
 * over 4 nodes where their flat counterparts would be; on nodes of unequal counts bcast and
 * allgather (from 512 KiB) and allreduce, which fold the surplus ranks; the hierarchical reduce_scatter_block is never the default. Allreduce across nodes uses
 * recursive doubling up to 32 KiB; on one node up to 512 KiB on 2 ranks (16 KiB for a
 * nonblocking call), 16 KiB on 3 and 4, 16 KiB x 4/n on more, and never below 4 KiB. The shm
 * slot pipelines' limits for bcast and allgather (check_slots).
 * Runs without DFC_Init; exits 1 when a choice differs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "coll/dfc_coll.h"

static int failures;

typedef struct sel_case {
    dfc_coll_kind_t kind;
    int size;
    uint64_t count, elem; /* allreduce, bcast: count items of elem bytes; allgather: one
                             block of count * elem bytes */
    int commutative;
    const char *want;
} sel_case_t;

/* slots: the communicator has shm collective slots (check_slots) */
static void check_with(const sel_case_t *c, const char *what, int slots)
{
    dfc_coll_args_t a = {.kind = c->kind,
                         .rank = 0,
                         .size = c->size,
                         .commutative = c->commutative,
                         .count = c->count,
                         .elem = c->elem,
                         .sbytes = c->count * c->elem,
                         .rbytes = c->count * c->elem,
                         .selem = c->elem,
                         .relem = c->elem,
                         .slots = slots};
    const dfc_coll_algo_t *al = dfc_coll_select(&a);
    const char *got = al ? al->name : "(none)";
    if (strcmp(got, c->want)) {
        fprintf(stderr, "test_coll_select (%s): %s on %d ranks, %llu x %llu bytes%s: %s, want %s\n",
                what, dfc_coll_kind_name(c->kind), c->size, (unsigned long long)c->count,
                (unsigned long long)c->elem, c->commutative ? "" : " (non-commutative)", got,
                c->want);
        failures++;
    }
}

static void check(const sel_case_t *c, const char *what) { check_with(c, what, 0); }

#define AR DFC_COLL_ALLREDUCE
#define AG DFC_COLL_ALLGATHER
#define KIB 1024
#define MIB (1024 * 1024)

/* The defaults. 4 to 64 ranks: what main chose before the rank limit. */
static const sel_case_t defaults[] = {
    {AR, 4, 4 * KIB, 4, 1, "recursive_doubling"},
    {AR, 4, 64 * KIB, 4, 1, "rabenseifner"},
    {AR, 4, 1 * MIB, 4, 1, "ring"},
    {AR, 8, 147456, 4, 1, "ring"}, /* dfc_chaos's 576 KiB */
    {AR, 16, 1 * MIB, 4, 1, "ring"},
    {AR, 12, 1 * MIB, 4, 1, "ring"},
    {AR, 64, 1 * MIB, 4, 1, "ring"},
    {AR, 16, 1 * MIB, 4, 0, "recursive_doubling"}, /* ring is commutative only */
    {AR, 128, 1 * MIB, 4, 1, "rabenseifner"},
    {AR, 128, 147456, 4, 1, "rabenseifner"},
    {AR, 1024, 1 * MIB, 4, 1, "rabenseifner"},
    {AR, 65, 1 * MIB, 4, 1, "ring"}, /* not powers of two: up to 8 x 64 */
    {AR, 96, 1 * MIB, 4, 1, "ring"},
    {AR, 512, 1 * MIB, 4, 1, "rabenseifner"},
    {AR, 511, 1 * MIB, 4, 1, "ring"},
    {AR, 513, 1 * MIB, 4, 1, "rabenseifner"},
    {AR, 10000, 1 * MIB, 4, 1, "rabenseifner"},
    {AR, 128, 1 * MIB, 4, 0, "rabenseifner"}, /* rabenseifner keeps the rank order */
    {AR, 96, 1 * MIB, 4, 0, "recursive_doubling"},
    {AR, 128, 64, 16 * KIB, 1, "ring"}, /* 64 items < 128: no rabenseifner */
    {AR, 128, 64 * KIB, 4, 1, "rabenseifner"},
    {AR, 128, 1 * KIB, 4, 1, "recursive_doubling"},
    /* recursive doubling's limit on one node (select.c, allreduce_rd_limit): 2 ranks up to
     * rabenseifner's limit (blocking calls); 16 KiB x 4/n (count bytes) from 4 ranks up,
     * no lower than 4 KiB */
    {AR, 2, 32 * KIB, 1, 1, "recursive_doubling"},
    {AR, 2, 512 * KIB, 1, 1, "recursive_doubling"},
    {AR, 2, 512 * KIB + 4, 1, 1, "ring"},
    {AR, 2, 512 * KIB, 1, 0, "recursive_doubling"},
    {AR, 3, 16 * KIB, 1, 1, "recursive_doubling"},
    {AR, 3, 16 * KIB + 4, 1, 1, "rabenseifner"},
    {AR, 4, 16 * KIB, 1, 1, "recursive_doubling"},
    {AR, 4, 16 * KIB + 4, 1, 1, "rabenseifner"},
    {AR, 8, 8 * KIB, 1, 1, "recursive_doubling"},
    {AR, 8, 8 * KIB + 4, 1, 1, "rabenseifner"},
    {AR, 12, 5 * KIB, 1, 1, "recursive_doubling"}, /* 16 KiB x 4/12 = 5461 bytes */
    {AR, 12, 6 * KIB, 1, 1, "rabenseifner"},
    {AR, 16, 4 * KIB, 1, 1, "recursive_doubling"},
    {AR, 16, 4 * KIB + 4, 1, 1, "rabenseifner"},
    {AR, 64, 4 * KIB, 1, 1, "recursive_doubling"},
    {AR, 64, 4 * KIB + 4, 1, 1, "rabenseifner"},
    {AG, 4, 32 * KIB, 1, 1, "linear"}, /* one node, 3-16 ranks, blocks from 4 KiB */
    {AG, 4, 4 * KIB, 1, 1, "linear"},
    {AG, 4, 4 * KIB - 1, 1, 1, "recursive_doubling"},
    {AG, 5, 4 * KIB - 1, 1, 1, "bruck"},
    {AG, 2, 1 * MIB, 1, 1, "ring"},
    {AG, 17, 1 * MIB, 1, 1, "ring"},
    {AG, 8, 1 * KIB, 1, 1, "recursive_doubling"},
    {AG, 6, 1 * KIB, 1, 1, "bruck"},
    {AG, 16, 1 * MIB, 1, 1, "linear"},
    {AG, 16, 4 * KIB, 1, 1, "linear"},
    {AG, 6, 4 * KIB, 1, 1, "linear"},
    {AG, 64, 2 * KIB, 1, 1, "ring"},
    {AG, 65, 2 * KIB, 1, 1, "bruck"},
    {AG, 128, 1 * MIB, 1, 1, "recursive_doubling"},
    {AG, 1000, 4 * KIB, 1, 1, "bruck"},
    {DFC_COLL_BCAST, 128, 1 * MIB, 1, 1, "scatter_allgather"}, /* unchanged */
};

/* DFC_ALLREDUCE_RING_MAX_RANKS=2: ring on 2 ranks, or up to 16 that are not a power of two;
 * DFC_ALLGATHER_RING_MAX_RANKS=100000: ring allgather on every size. */
static const sel_case_t moved[] = {
    {AR, 2, 1 * MIB, 4, 1, "ring"},
    {AR, 3, 1 * MIB, 4, 1, "ring"}, /* 3 <= 8 x 2 */
    {AR, 4, 1 * MIB, 4, 1, "rabenseifner"},
    {AR, 17, 1 * MIB, 4, 1, "rabenseifner"},
    {AR, 16, 1 * KIB, 4, 1, "recursive_doubling"},
    {AG, 128, 1 * MIB, 1, 1, "ring"},
    {AG, 1000, 4 * KIB, 1, 1, "ring"},
    {AG, 1000, 16, 1, 1, "bruck"},
};

static const int world[8] = {0, 1, 2, 3, 4, 5, 6, 7};
static const int even[8] = {0, 1, 2, 3, 0, 1, 2, 3}, uneven[8] = {0, 0, 0, 1, 1, 1, 2, 2};
static const int one_node[8] = {0, 0, 0, 0, 0, 0, 0, 0};

/* Rank 0's arguments of a call of `bytes` (ints) on 8 ranks placed on the nodes `node`. */
static dfc_coll_args_t on_nodes(dfc_coll_kind_t kind, uint64_t bytes, int commutative,
                                const int *node)
{
    return (dfc_coll_args_t){.kind = kind,
                             .size = 8,
                             .commutative = commutative,
                             .count = bytes / 4,
                             .elem = 4,
                             .sbytes = bytes,
                             .rbytes = bytes,
                             .selem = 4,
                             .relem = 4,
                             .world = world,
                             .world_node = node};
}

/* The hierarchical algorithms on 8 ranks over 4 nodes (rank r on node r mod 4), and on nodes
 * of unequal counts (3, 3 and 2 ranks) those that fold the surplus ranks: bcast and allgather
 * from 512 KiB, allreduce. */
static void check_nodes(void)
{
    static const struct {
        dfc_coll_kind_t kind;
        uint64_t bytes; /* bcast, allreduce: the message; allgather: one block;
                           reduce_scatter_block: one block */
        int commutative, even;
        const char *want;
    } cases[] = {
        {DFC_COLL_BCAST, 1 * MIB, 1, 1, "hierarchical"},
        {DFC_COLL_BCAST, 64 * KIB, 1, 1, "hierarchical"},
        {DFC_COLL_BCAST, 32 * KIB, 1, 1, "binomial"},
        {DFC_COLL_BCAST, 1 * MIB, 1, 0, "hierarchical"}, /* folds the surplus ranks */
        {DFC_COLL_BCAST, 512 * KIB, 1, 0, "hierarchical"},
        {DFC_COLL_BCAST, 512 * KIB - 1, 1, 0, "scatter_allgather"},
        {AG, 128 * KIB, 1, 1, "hierarchical"},
        {AG, 1 * KIB, 1, 1, "recursive_doubling"},
        {AG, 128 * KIB, 1, 0, "hierarchical"}, /* unequal nodes: folded from 512 KiB */
        {AG, 64 * KIB, 1, 0, "hierarchical"},  /* gathered (8 blocks) */
        {AG, 64 * KIB - 4, 1, 0, "ring"},
        {DFC_COLL_REDUCE_SCATTER_BLOCK, 1 * MIB, 1, 1, "pairwise"}, /* hierarchical: forced only */
        {DFC_COLL_REDUCE, 1 * MIB, 1, 1, "binomial"},               /* hierarchical: forced only */
        {DFC_COLL_GATHER, 1 * MIB, 1, 1, "linear"},                 /* hierarchical: forced only */
        {DFC_COLL_SCATTER, 1 * MIB, 1, 1, "linear"},                /* hierarchical: forced only */
        {DFC_COLL_ALLTOALL, 1 * MIB, 1, 1, "pairwise"},             /* hierarchical: forced only */
        {AR, 1 * MIB, 1, 1, "hierarchical"},
        {AR, 1 * MIB, 1, 0, "hierarchical"},       /* folds the surplus ranks */
        {AR, 1 * MIB, 0, 0, "recursive_doubling"}, /* not commutative: nor is ring */
        /* across nodes recursive doubling up to 32 KiB (DFC_ALLREDUCE_RECURSIVE_DOUBLING_NET_MAX) */
        {AR, 32 * KIB, 1, 1, "recursive_doubling"},
        {AR, 32 * KIB, 1, 0, "recursive_doubling"},
        {AR, 32 * KIB + 4, 1, 1, "rabenseifner"},
        {AR, 64 * KIB, 0, 0, "rabenseifner"},
    };
    /* In the GPU daemon over rails: the hierarchical schedule, but for gather, scatter and
     * alltoall, which are staged unless forced (NULL), bcasts below 64 KiB and reduces below
     * 128 KiB. */
    static const struct {
        dfc_coll_kind_t kind;
        uint64_t bytes;
        int hierarchical;
    } rails[] = {{AR, 8, 1},
                 {AG, 8, 1},
                 {DFC_COLL_REDUCE, 8, 0}, /* below DFC_GPU_RAILS_REDUCE_MIN: staged */
                 {DFC_COLL_REDUCE, 128 * KIB - 4, 0},
                 {DFC_COLL_REDUCE, 128 * KIB, 1},
                 {DFC_COLL_BCAST, 64 * KIB, 1},
                 {DFC_COLL_BCAST, 32 * KIB, 0},
                 {DFC_COLL_GATHER, 1 * MIB, 0},
                 {DFC_COLL_SCATTER, 1 * MIB, 0},
                 {DFC_COLL_ALLTOALL, 1 * MIB, 0}};
    for (size_t i = 0; i < sizeof rails / sizeof rails[0]; i++) {
        dfc_coll_args_t a = on_nodes(rails[i].kind, rails[i].bytes, 1, even);
        a.gpu = DFC_COLL_GPU_RAILS;
        const dfc_coll_algo_t *al = dfc_coll_select(&a);
        if (rails[i].hierarchical ? !al || strcmp(al->name, "hierarchical") : al != NULL) {
            fprintf(stderr, "test_coll_select (rails): %s of %llu bytes: %s\n",
                    dfc_coll_kind_name(rails[i].kind), (unsigned long long)rails[i].bytes,
                    al ? al->name : "staged");
            failures++;
        }
    }
    /* A nonblocking (or persistent) allreduce on 2 ranks keeps rabenseifner from 16 KiB: its
     * overlap with the progress thread (select.c, allreduce_rd_limit). */
    static const struct {
        uint64_t bytes;
        const char *want;
    } nb[] = {{16 * KIB, "recursive_doubling"},
              {16 * KIB + 4, "rabenseifner"},
              {512 * KIB, "rabenseifner"},
              {512 * KIB + 4, "ring"}};
    for (size_t i = 0; i < sizeof nb / sizeof nb[0]; i++) {
        dfc_coll_args_t a = {.kind = AR,
                             .size = 2,
                             .commutative = 1,
                             .count = nb[i].bytes,
                             .elem = 1,
                             .nonblocking = 1};
        const dfc_coll_algo_t *al = dfc_coll_select(&a);
        if (!al || strcmp(al->name, nb[i].want)) {
            fprintf(stderr,
                    "test_coll_select (nonblocking): allreduce of %llu bytes on 2 ranks: "
                    "%s, want %s\n",
                    (unsigned long long)nb[i].bytes, al ? al->name : "(none)", nb[i].want);
            failures++;
        }
    }
    /* On one node (a node map saying so), 8 ranks: recursive doubling up to 8 KiB only. */
    static const struct {
        uint64_t bytes;
        const char *want;
    } local[] = {{8 * KIB, "recursive_doubling"}, {16 * KIB, "rabenseifner"}};
    for (size_t i = 0; i < sizeof local / sizeof local[0]; i++) {
        dfc_coll_args_t a = on_nodes(AR, local[i].bytes, 1, one_node);
        const dfc_coll_algo_t *al = dfc_coll_select(&a);
        if (!al || strcmp(al->name, local[i].want)) {
            fprintf(stderr, "test_coll_select (one node): allreduce of %llu bytes: %s, want %s\n",
                    (unsigned long long)local[i].bytes, al ? al->name : "(none)", local[i].want);
            failures++;
        }
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dfc_coll_args_t a = on_nodes(cases[i].kind, cases[i].bytes, cases[i].commutative,
                                     cases[i].even ? even : uneven);
        const dfc_coll_algo_t *al = dfc_coll_select(&a);
        const char *got = al ? al->name : "(none)";
        if (strcmp(got, cases[i].want)) {
            fprintf(stderr,
                    "test_coll_select (nodes): %s of %llu bytes on %s nodes%s: %s, want %s\n",
                    dfc_coll_kind_name(cases[i].kind), (unsigned long long)cases[i].bytes,
                    cases[i].even ? "4 even" : "uneven",
                    cases[i].commutative ? "" : " (non-commutative)", got, cases[i].want);
            failures++;
        }
    }
    /* In the GPU daemon (all linked) the folds are not the default on unequal nodes. */
    static const struct {
        dfc_coll_kind_t kind;
        const char *want;
    } daemon[] = {{AR, "ring"}, {DFC_COLL_BCAST, "scatter_allgather"}, {AG, "ring"}};
    for (size_t i = 0; i < sizeof daemon / sizeof daemon[0]; i++) {
        dfc_coll_args_t a = on_nodes(daemon[i].kind, 1 * MIB, 1, uneven);
        a.gpu = DFC_COLL_GPU_DAEMON;
        const dfc_coll_algo_t *al = dfc_coll_select(&a);
        if (!al || strcmp(al->name, daemon[i].want)) {
            fprintf(stderr, "test_coll_select (daemon, uneven nodes): %s: %s, want %s\n",
                    dfc_coll_kind_name(daemon[i].kind), al ? al->name : "(none)", daemon[i].want);
            failures++;
        }
    }
}

/* The shm slot pipelines (issue 16, stop 43) on a communicator with slots: bcast up to 1 KiB on
 * 2 ranks and up to DFC_BCAST_SLOTS_MAX (4 MiB) from 3; allgather up to a 4 KiB result on
 * 2 ranks, 32 KiB on 3 to 7 and DFC_ALLGATHER_SLOTS_MAX (4 MiB) from 8 (this process is not
 * oversubscribed: it runs no job); alltoall up to a 4 KiB send buffer. One byte more takes the message rules. */
static void check_slots(void)
{
    static const sel_case_t cases[] = {
        {DFC_COLL_BCAST, 2, 1024, 1, 1, "shm_slots"},
        {DFC_COLL_BCAST, 2, 1025, 1, 1, "binomial"},
        {DFC_COLL_BCAST, 3, 4 * MIB, 1, 1, "shm_slots"},
        {DFC_COLL_BCAST, 3, 4 * MIB + 1, 1, 1, "binomial"},
        {DFC_COLL_BCAST, 16, 4 * MIB, 1, 1, "shm_slots"},
        {DFC_COLL_BCAST, 16, 4 * MIB + 1, 1, 1, "scatter_allgather"},
        {AG, 2, 2 * KIB, 1, 1, "shm_slots"},
        {AG, 2, 2 * KIB + 1, 1, 1, "recursive_doubling"},
        {AG, 4, 8 * KIB, 1, 1, "shm_slots"},
        {AG, 4, 8 * KIB + 1, 1, 1, "linear"},
        {AG, 8, 512 * KIB, 1, 1, "shm_slots"},
        {AG, 8, 512 * KIB + 1, 1, 1, "linear"},
        {DFC_COLL_ALLTOALL, 2, 2048, 1, 1, "shm_slots"}, /* a block of 2 KiB: 4 KiB sent */
        {DFC_COLL_ALLTOALL, 2, 2049, 1, 1, "pairwise"},
        {DFC_COLL_ALLTOALL, 4, 1024, 1, 1, "shm_slots"},
        {DFC_COLL_ALLTOALL, 4, 1025, 1, 1, "pairwise"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_with(&cases[i], "slots", 1);
}

int main(void)
{
    static const char *const unset[] = {"DFC_ALLREDUCE_ALGORITHM",
                                        "DFC_ALLGATHER_ALGORITHM",
                                        "DFC_BCAST_ALGORITHM",
                                        "DFC_REDUCE_SCATTER_BLOCK_ALGORITHM",
                                        "DFC_REDUCE_ALGORITHM",
                                        "DFC_GATHER_ALGORITHM",
                                        "DFC_SCATTER_ALGORITHM",
                                        "DFC_ALLTOALL_ALGORITHM",
                                        "DFC_ALLREDUCE_RECURSIVE_DOUBLING_MAX",
                                        "DFC_ALLREDUCE_RECURSIVE_DOUBLING_NET_MAX",
                                        "DFC_ALLREDUCE_RABENSEIFNER_MAX",
                                        "DFC_ALLGATHER_SHORT_MAX",
                                        "DFC_BCAST_SCATTER_ALLGATHER_MIN",
                                        "DFC_BCAST_SLOTS_MAX",
                                        "DFC_ALLGATHER_SLOTS_MAX",
                                        "DFC_ALLGATHER_LINEAR_MIN"};
    for (size_t i = 0; i < sizeof unset / sizeof unset[0]; i++) unsetenv(unset[i]);
    /* The child first: the parent's selections below read the thresholds, once. */
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        perror("test_coll_select: fork");
        return 1;
    }
    if (pid == 0) {
        setenv("DFC_ALLREDUCE_RING_MAX_RANKS", "2", 1);
        setenv("DFC_ALLGATHER_RING_MAX_RANKS", "100000", 1);
        for (size_t i = 0; i < sizeof moved / sizeof moved[0]; i++) check(&moved[i], "moved");
        /* Forced, the slots run an alltoall up to 4 KiB on 2 ranks too; beyond, the rules. */
        setenv("DFC_ALLTOALL_ALGORITHM", "shm_slots", 1);
        static const sel_case_t forced[] = {
            {DFC_COLL_ALLTOALL, 2, 2048, 1, 1, "shm_slots"},
            {DFC_COLL_ALLTOALL, 2, 2049, 1, 1, "pairwise"},
        };
        for (size_t i = 0; i < sizeof forced / sizeof forced[0]; i++)
            check_with(&forced[i], "forced", 1);
        _exit(failures ? 1 : 0);
    }
    unsetenv("DFC_ALLREDUCE_RING_MAX_RANKS");
    unsetenv("DFC_ALLGATHER_RING_MAX_RANKS");
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
        check(&defaults[i], "defaults");
    check_nodes();
    check_slots();
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
        fprintf(stderr, "test_coll_select: the child with moved limits failed\n");
        failures++;
    }
    if (failures) fprintf(stderr, "test_coll_select: %d failures\n", failures);
    return failures ? 1 : 0;
}
