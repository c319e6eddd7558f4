/*
 * incarnation - the communicator incarnation numbers (dfc_comm_t.incarnation, issue 23,
 * defect 3): a Lamport clock the members agree on at creation, above every incarnation any
 * of them had, folded with the context id into the GPU daemon's idents (dfc_gpu_ident), so
 * that a communicator freed and re-created with the same context id never takes a chunk or
 * a remembered cancel of its predecessor.
 *
 * Linked with the library's internals (libdfc_unit.la) to read the field. Each cycle:
 *   - ranks 0 and 1 alone create and free a few communicators (split of WORLD: the others
 *     take DFC_UNDEFINED), so that the members' clocks differ;
 *   - then a dup of WORLD, a split into halves and a DFC_Comm_create of the odd ranks: on
 *     each, every member gathers (context id, incarnation) over it and checks they are the
 *     same everywhere and larger than every incarnation it had before; its ident (tag 0) must
 *     differ from every ident this rank saw earlier with the same context id (the ids are
 *     reused as the communicators are freed: counted, and at least one reuse must happen).
 * -n=N cycles (default 200).
 */
#include <stdlib.h>

#include "../dfctest.h"
#include "comm/dfc_comm.h"
#include "gpu/dfc_gpu.h"

#define MAX_SEEN 4096

static uint64_t seen_ident[MAX_SEEN];
static uint32_t seen_ctx[MAX_SEEN];
static int nseen, reuses;
static uint64_t my_max; /* the largest incarnation this rank has had */

/* Checks a new communicator h (DFC_COMM_NULL: not a member). */
static void check_comm(DFC_Comm h, long cycle, const char *what)
{
    if (h == DFC_COMM_NULL) return;
    dfc_comm_t *c = dfc_comm_get(h);
    DFCT_CHECK(c != NULL, "cycle %ld %s: no communicator behind the handle", cycle, what);
    if (!c) return;
    int size;
    DFCT_OK(DFC_Comm_size(h, &size));
    uint64_t mine[2] = {c->ctx, c->incarnation}, *all = malloc(2 * sizeof(uint64_t) * size);
    for (int i = 0; i < 2 * size; i++) all[i] = ~0ull; /* poisoned */
    DFCT_OK(DFC_Allgather(mine, 2, DFC_UINT64_T, all, 2, DFC_UINT64_T, h));
    for (int r = 0; r < size; r++)
        DFCT_CHECK(all[2 * r] == mine[0] && all[2 * r + 1] == mine[1],
                   "cycle %ld %s: member %d has context %llu incarnation %llu, I have %llu %llu",
                   cycle, what, r, (unsigned long long)all[2 * r],
                   (unsigned long long)all[2 * r + 1], (unsigned long long)mine[0],
                   (unsigned long long)mine[1]);
    free(all);
    DFCT_CHECK(c->incarnation > my_max,
               "cycle %ld %s: incarnation %llu not above the %llu this rank had", cycle, what,
               (unsigned long long)c->incarnation, (unsigned long long)my_max);
    if (c->incarnation > my_max) my_max = c->incarnation;
    uint64_t ident = dfc_gpu_ident(c->incarnation, c->ctx, 0);
    int reused = 0;
    for (int i = 0; i < nseen; i++) {
        if (seen_ctx[i] != c->ctx) continue;
        reused = 1;
        DFCT_CHECK(seen_ident[i] != ident, "cycle %ld %s: ident %llx repeats for context %u", cycle,
                   what, (unsigned long long)ident, c->ctx);
    }
    reuses += reused;
    if (nseen < MAX_SEEN) seen_ctx[nseen] = c->ctx, seen_ident[nseen++] = ident;
}

int main(int argc, char **argv)
{
    long ncycles = 200;
    int rank, size;
    dfct_init(&argc, &argv);
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "-n=", 3)) ncycles = atol(argv[i] + 3);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    DFC_Group world_group, odd_group;
    DFCT_OK(DFC_Comm_group(DFC_COMM_WORLD, &world_group));
    int odd[64], nodd = 0;
    for (int r = 1; r < size && nodd < 64; r += 2) odd[nodd++] = r;
    DFCT_OK(DFC_Group_incl(world_group, nodd, odd, &odd_group));
    for (long it = 0; it < ncycles; it++) {
        DFC_Comm pair = DFC_COMM_NULL, dup = DFC_COMM_NULL, half = DFC_COMM_NULL,
                 odds = DFC_COMM_NULL;
        for (int k = 0; k < (int)(it % 3); k++) { /* ranks 0 and 1 run ahead of the others */
            DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, rank < 2 ? 0 : DFC_UNDEFINED, rank, &pair));
            check_comm(pair, it, "pair");
            if (pair != DFC_COMM_NULL) DFCT_OK(DFC_Comm_free(&pair));
        }
        DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &dup));
        check_comm(dup, it, "dup");
        DFCT_OK(DFC_Comm_split(dup, rank < size / 2, rank, &half));
        check_comm(half, it, "half");
        DFCT_OK(DFC_Comm_create(DFC_COMM_WORLD, odd_group, &odds));
        check_comm(odds, it, "odds");
        if (odds != DFC_COMM_NULL) DFCT_OK(DFC_Comm_free(&odds));
        DFCT_OK(DFC_Comm_free(&half));
        DFCT_OK(DFC_Comm_free(&dup));
    }
    DFCT_CHECK(ncycles < 2 || reuses > 0, "no context id was reused in %ld cycles", ncycles);
    DFCT_OK(DFC_Group_free(&odd_group));
    DFCT_OK(DFC_Group_free(&world_group));
    return dfct_finalize();
}
