/*
 * test_gpu_rails - GPU daemons in jobs larger than their peer tables (issue 15), without a
 * GPU (src/gpu/daemon_plan.h, src/coll/gpu.c):
 *   - dfc_gpu_choose_peers: node, job and rail modes on blocked, round-robin and irregular
 *     placements of 2 to 200 processes, equal nodes or not; rails number each node's processes 0 .. L-1 in
 *     world order; the link relation is symmetric, every process links its node mates, and
 *     no process links more than DFC_GPU_MAX_LOCAL (its peer tables); dfc_gpu_peer_table
 *     lists every linked process once, node mates at their local index (the index a node
 *     mate writes into the mailbox at must agree across the node: call P hung without it);
 *     dfc_gpu_geom_peers, the mailbox geometry's peer count, holds every table of the job (of
 *     the node in NODE mode) and is the widest (on unequal nodes processes' tables differ);
 *   - dfc_coll_gpu_rails_route on rail jobs, equal nodes or not, for WORLD, reversed, strided
 *     and random communicators and daemons left out: the answer does not depend on the calling rank;
 *     DFC_COLL_GPU_DAEMON only when every pair of members links; DFC_COLL_GPU_RAILS only when
 *     the call has a hierarchical schedule whose every transfer, on every rank, goes to a
 *     linked process, within DFC_GPU_MAX_STEPS, and never for a bcast below
 *     DFC_BCAST_SCATTER_ALLGATHER_MIN or a reduce below DFC_GPU_RAILS_REDUCE_MIN; kinds
 *     without one (barrier, gatherv, alltoallv) never ride the rails; on unequal nodes every
 *     kind that has one rides them, and a bcast, reduce, gather or scatter from every
 *     root, a surplus root too (all roots of the smaller jobs); a member whose daemon is out
 *     keeps the call off the GPU;
 *   - dfc_gpu_steps_to_daemon: every transfer's peer becomes the daemon index of its world
 *     rank, and a transfer to a process the daemon does not connect is counted.
 * Prints "ok: ..." lines and exits 0, or reports each failure and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/dfc_coll.h"
#include "gpu/daemon_plan.h"

#include "unit_check.h"

#define MAXW 200

/* Places w processes on nodes: blocked (r / per), round robin (r % nodes), or uneven
 * (node k holds k + 1 processes, then the rest on the last). */
enum { BLOCKED, ROUND_ROBIN, UNEVEN };
static void place(int w, int nodes, int how, int *node_of)
{
    int per = (w + nodes - 1) / nodes, k = 0, left = 1;
    for (int r = 0; r < w; r++) {
        if (how == BLOCKED) node_of[r] = r / per;
        else if (how == ROUND_ROBIN) node_of[r] = r % nodes;
        else {
            node_of[r] = k < nodes - 1 ? k : nodes - 1;
            if (--left == 0) left = ++k + 1;
        }
    }
}

/* u's daemon table: every linked process once, u's node mates first at their local
 * indices (so that each is at the same index in every table of the node). */
static void check_table(int c, int mode, int w, const int *node_of, const int *rail, int nnodes,
                        int u, int links)
{
    int table[DFC_GPU_MAX_LOCAL], me = -1, seen[MAXW] = {0};
    int n = dfc_gpu_peer_table(mode, w, node_of, rail, nnodes, u, table, DFC_GPU_MAX_LOCAL, &me);
    CHECK(n == links, "case %d: %d's table has %d entries for %d links", c, u, n, links);
    CHECK(me >= 0 && me < n && table[me] == u, "case %d: %d is not at its own index", c, u);
    for (int i = 0; i < n && i < DFC_GPU_MAX_LOCAL; i++) {
        int v = table[i];
        CHECK(!seen[v]++ && dfc_gpu_peers_linked(mode, node_of, rail, nnodes, u, v),
              "case %d: %d's table lists %d twice or unlinked", c, u, v);
        if (node_of[v] == node_of[u])
            CHECK(i == rail[v], "case %d: node mate %d at index %d of %d's table, not %d", c, v, i,
                  u, rail[v]);
    }
}

static void test_choose(void)
{
    enum { M = DFC_GPU_MAX_LOCAL };
    static const struct {
        int w, nodes, how, proxy, cap, mode;
    } cases[] = {
        {8, 1, BLOCKED, 1, M, DFC_GPU_PEERS_JOB},
        {16, 2, ROUND_ROBIN, 1, M, DFC_GPU_PEERS_JOB},
        {16, 2, BLOCKED, 0, M, DFC_GPU_PEERS_NODE},
        {20, 4, BLOCKED, 1, M, DFC_GPU_PEERS_RAILS},
        {20, 4, ROUND_ROBIN, 1, M, DFC_GPU_PEERS_RAILS},
        {24, 3, BLOCKED, 1, M, DFC_GPU_PEERS_RAILS},
        {64, 8, BLOCKED, 1, M, DFC_GPU_PEERS_RAILS},
        {64, 8, ROUND_ROBIN, 0, M, DFC_GPU_PEERS_NODE},
        {80, 10, BLOCKED, 1, M, DFC_GPU_PEERS_RING}, /* 8 + 10 - 1 = 17 links: a ring, 10 */
        {72, 8, BLOCKED, 1, M, DFC_GPU_PEERS_RAILS}, /* 9 + 8 - 1 = 16 */
        {18, 4, UNEVEN, 1, M, DFC_GPU_PEERS_RAILS},  /* 1, 2, 3, 12: 12 + 4 - 1 = 15 */
        {12, 4, UNEVEN, 1, 8, DFC_GPU_PEERS_NODE},   /* 1, 2, 3, 6: 6 + 3 > 8, L = 1 */
        {200, 25, BLOCKED, 1, M, DFC_GPU_PEERS_RING},
        {17, 17, BLOCKED, 1, M, DFC_GPU_PEERS_NODE},      /* L = 1: 17 links, a ring of 3 */
        {200, 14, ROUND_ROBIN, 1, M, DFC_GPU_PEERS_NODE}, /* 15 and 14 per node: 15 + 2 */
        {196, 14, ROUND_ROBIN, 1, M, DFC_GPU_PEERS_RING}, /* 14 + 2 = 16 */
        {195, 14, ROUND_ROBIN, 1, M, DFC_GPU_PEERS_RING}, /* 14 and 13 per node: 14 + 2 */
        {19, 4, ROUND_ROBIN, 1, M, DFC_GPU_PEERS_RAILS},  /* 5, 5, 5, 4: 5 + 4 - 1 = 8 */
        {10, 4, ROUND_ROBIN, 1, 5, DFC_GPU_PEERS_RING},   /* 3, 3, 2, 2: 3 + 3 > 5, 3 + 2 */
        {34, 17, BLOCKED, 1, M, DFC_GPU_PEERS_RING},      /* 2 each: a ring of 17 */
        {20, 4, BLOCKED, 1, 8, DFC_GPU_PEERS_RAILS},      /* DFC_GPU_PEERS_MAX=8 */
        {20, 4, ROUND_ROBIN, 1, 7, DFC_GPU_PEERS_RING},   /* 5 + 2 = 7 */
        {20, 4, BLOCKED, 1, 6, DFC_GPU_PEERS_NODE},
        {6, 3, BLOCKED, 1, 6, DFC_GPU_PEERS_JOB},
        {9, 3, BLOCKED, 1, 5, DFC_GPU_PEERS_RAILS}, /* 3 + 3 - 1 = 5: the ring of 3 is the rail */
    };
    int before = failures, n = (int)(sizeof cases / sizeof cases[0]);
    for (int c = 0; c < n; c++) {
        int w = cases[c].w, node_of[MAXW], rail[MAXW];
        place(w, cases[c].nodes, cases[c].how, node_of);
        int nnodes = 0;
        int mode = dfc_gpu_choose_peers(w, node_of, cases[c].proxy, cases[c].cap, rail, &nnodes);
        CHECK(nnodes == cases[c].nodes, "case %d: %d nodes counted", c, nnodes);
        CHECK(mode == cases[c].mode, "case %d (%d processes): mode %d, expected %d", c, w, mode,
              cases[c].mode);
        int most = dfc_gpu_largest_node(w, rail), widest = 0;
        for (int u = 0; u < w; u++) {
            int expect = 0, links = 0, mates = 0;
            for (int q = 0; q < u; q++) expect += node_of[q] == node_of[u];
            for (int q = 0; q < w; q++) mates += node_of[q] == node_of[u];
            CHECK(rail[u] == expect, "case %d: rail of %d is %d, expected %d", c, u, rail[u],
                  expect);
            for (int v = 0; v < w; v++) {
                int l = dfc_gpu_peers_linked(mode, node_of, rail, nnodes, u, v);
                links += l;
                CHECK(l == dfc_gpu_peers_linked(mode, node_of, rail, nnodes, v, u),
                      "case %d: %d -> %d linked one way only", c, u, v);
                if (node_of[u] == node_of[v])
                    CHECK(l, "case %d: node mates %d, %d unlinked", c, u, v);
                else if (mode == DFC_GPU_PEERS_RING) /* the rail's ring neighbours only */
                    CHECK(l == (rail[u] == rail[v] &&
                                dfc_gpu_ring_adjacent(node_of[u], node_of[v], nnodes)),
                          "case %d: %d -> %d linked %d on the ring", c, u, v, l);
            }
            CHECK(links <= cases[c].cap || mode == DFC_GPU_PEERS_NODE,
                  "case %d: process %d links %d processes", c, u, links);
            check_table(c, mode, w, node_of, rail, nnodes, u, links);
            /* the mailbox geometry's peer count: room for u's table, and one answer for
             * every process that u's daemon talks to (its node, or the job) */
            int geom = dfc_gpu_geom_peers(mode, w, nnodes, most, mates);
            CHECK(links <= geom, "case %d: %d links %d, geometry for %d", c, u, links, geom);
            if (mode == DFC_GPU_PEERS_NODE) CHECK(geom == mates, "case %d: node geometry", c);
            widest = links > widest ? links : widest;
        }
        if (mode != DFC_GPU_PEERS_NODE)
            CHECK(dfc_gpu_geom_peers(mode, w, nnodes, most, 0) == widest,
                  "case %d: geometry for %d peers, the widest table has %d", c,
                  dfc_gpu_geom_peers(mode, w, nnodes, most, 0), widest);
    }
    printf("%s: peer choice of %d placements\n", failures > before ? "FAIL" : "ok", n);
}

/* The arguments of a call of `kind` on the communicator `world` (its ranks' world ranks). */
static dfc_coll_args_t call_args(int kind, int size, const int *world, const int *node_of,
                                 const int *counts, uint64_t count, int root)
{
    dfc_coll_args_t a = {.kind = kind,
                         .size = size,
                         .root = root,
                         .commutative = 1,
                         .count = count,
                         .elem = 4,
                         .sbytes = count * 4,
                         .rbytes = count * 4,
                         .selem = 4,
                         .relem = 4,
                         .world = world,
                         .world_node = node_of};
    if (kind == DFC_COLL_REDUCE_SCATTER) a.rcounts = counts;
    if (kind == DFC_COLL_ALLGATHERV || kind == DFC_COLL_GATHERV || kind == DFC_COLL_ALLTOALLV) {
        static int displs[MAXW];
        for (int r = 0, off = 0; r < size; off += counts[r++]) displs[r] = off;
        a.vcounts = a.scounts = counts;
        a.vdispls = a.sdispls = displs;
    }
    return a;
}

/* Whether world ranks u and v are linked by rails (ring: N, or 0 for whole rails), as
 * dfc_gpu_peers_linked says of RAILS and RING jobs. */
static int linked(const dfc_coll_args_t *a, const int *rail, int ring, int u, int v)
{
    int mode = ring ? DFC_GPU_PEERS_RING : DFC_GPU_PEERS_RAILS;
    return dfc_gpu_peers_linked(mode, a->world_node, rail, ring, u, v);
}

/* Every rank's schedule of a rails call: each transfer to a linked process, within the
 * daemon's step limit. Returns the transfers checked. */
static int check_schedules(const char *what, dfc_coll_args_t a, const int *rail, int ring)
{
    int transfers = 0;
    a.gpu = ring ? DFC_COLL_GPU_RING : DFC_COLL_GPU_RAILS;
    for (int r = 0; r < a.size; r++) {
        a.rank = r;
        const dfc_coll_algo_t *al = dfc_coll_select(&a);
        if (!al) {
            FAIL("%s: rank %d has no schedule", what, r);
            continue;
        }
        dfc_sched_t s;
        dfc_sched_init(&s);
        CHECK(al->build(&a, &s) == DFC_SUCCESS, "%s: rank %d: building %s failed", what, r,
              al->name);
        CHECK(s.nsteps <= DFC_GPU_MAX_STEPS, "%s: rank %d: %d steps", what, r, s.nsteps);
        for (int i = 0; i < s.nsteps; i++) {
            if (!dfc_gpu_is_transfer(&s.steps[i])) continue;
            int u = a.world[r], v = a.world[s.steps[i].peer];
            transfers++;
            CHECK(linked(&a, rail, ring, u, v),
                  "%s (%s): rank %d (world %d) talks to world %d, not linked", what, al->name, r, u,
                  v);
        }
        dfc_sched_destroy(&s);
    }
    return transfers;
}

static int all_linked(const dfc_coll_args_t *a, const int *rail, int ring)
{
    for (int u = 0; u < a->size; u++)
        for (int v = 0; v < a->size; v++)
            if (!linked(a, rail, ring, a->world[u], a->world[v])) return 0;
    return 1;
}

/* Communicators of a rail job: WORLD, reversed, every second rank, a random subset, node
 * 1's processes, rail 1 (these two within the peer tables, every pair linked), and WORLD with
 * its first two ranks swapped (node mates when blocked: a hierarchical layout whose local
 * index 0 is rail 1 on one node and rail 0 on the others, so it must not ride the rails). */
enum { NCOMMS = 7 };
static int make_comm(int which, int w, const int *node_of, const int *rail, int *world)
{
    int n = 0;
    for (int r = 0; r < w; r++) {
        if (which == 0) world[n++] = r;
        else if (which == 1) world[n++] = w - 1 - r;
        else if (which == 2 && r % 2 == 0) world[n++] = r;
        else if (which == 3 && rnd64() % 3) world[n++] = r;
        else if (which == 4 && node_of[r] == 1) world[n++] = r;
        else if (which == 5 && rail[r] == 1) world[n++] = r;
        else if (which == 6) world[n++] = r < 2 ? 1 - r : r;
    }
    return n;
}

/* The first 10 kinds of test_routes have a hierarchical schedule, the first 7 one that
 * crosses nodes between ring neighbours only (allreduce, allgather(v), reduce_scatter(_block),
 * bcast and reduce by their chains). On unequal nodes they all have one: theirs fold the
 * surplus ranks in and out, or carry their blocks (gather, scatter, alltoall; hier_layout.c). */
enum { RAILS_KINDS = 10, RING_KINDS = 7 };
static int rooted(int kind)
{
    return kind == DFC_COLL_BCAST || kind == DFC_COLL_REDUCE || kind == DFC_COLL_GATHER ||
           kind == DFC_COLL_SCATTER;
}

/* Whether the call's communicator has surplus ranks (lies on unequal nodes); `root_out`
 * whether its root is one of them. */
static int surplus(const dfc_coll_args_t *a, int *root_out)
{
    dfc_coll_args_t t = *a;
    dfc_hier_layout_t h;
    t.kind = DFC_COLL_ALLREDUCE; /* folds, so unequal nodes have a layout; roots stay put */
    *root_out = 0;
    if (!dfc_coll_hier_layout(&t, &h)) return 0;
    *root_out = h.local[a->root] >= h.nlocal;
    dfc_coll_hier_layout_free(&h);
    return h.nsurplus > 0;
}

static void test_routes(void)
{
    static const int kinds[] = {DFC_COLL_ALLREDUCE,      DFC_COLL_ALLGATHER,
                                DFC_COLL_ALLGATHERV,     DFC_COLL_REDUCE_SCATTER_BLOCK,
                                DFC_COLL_REDUCE_SCATTER, DFC_COLL_BCAST,
                                DFC_COLL_REDUCE,         DFC_COLL_ALLTOALL,
                                DFC_COLL_GATHER,         DFC_COLL_SCATTER,
                                DFC_COLL_BARRIER,        DFC_COLL_GATHERV,
                                DFC_COLL_ALLTOALLV};
    static const struct {
        int w, nodes, how, cap, mode, unequal;
    } jobs[] = {{20, 4, BLOCKED, 16, DFC_GPU_PEERS_RAILS, 0},
                {20, 4, ROUND_ROBIN, 16, DFC_GPU_PEERS_RAILS, 0},
                {24, 3, BLOCKED, 16, DFC_GPU_PEERS_RAILS, 0},
                {64, 8, BLOCKED, 16, DFC_GPU_PEERS_RAILS, 0},
                {20, 4, ROUND_ROBIN, 7, DFC_GPU_PEERS_RING, 0},
                {80, 10, BLOCKED, 16, DFC_GPU_PEERS_RING, 0},
                {128, 16, ROUND_ROBIN, 16, DFC_GPU_PEERS_RING, 0},
                {19, 4, ROUND_ROBIN, 16, DFC_GPU_PEERS_RAILS, 1}, /* 5, 5, 5, 4 */
                {19, 4, BLOCKED, 16, DFC_GPU_PEERS_RAILS, 1},
                {10, 4, ROUND_ROBIN, 5, DFC_GPU_PEERS_RING, 1}, /* 3, 3, 2, 2 */
                {195, 14, ROUND_ROBIN, 16, DFC_GPU_PEERS_RING, 1}};
    int before = failures, calls = 0, rails = 0, ring_rails = 0, daemon = 0, transfers = 0;
    int folded = 0, surplus_roots = 0;
    for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; j++)
        for (int out = -1; out < 2; out++) /* -1: every daemon takes part; else one is out */
            for (int which = 0; which < NCOMMS; which++) {
                int w = jobs[j].w, node_of[MAXW], rail[MAXW], world[MAXW], counts[MAXW], nn;
                place(w, jobs[j].nodes, jobs[j].how, node_of);
                CHECK(dfc_gpu_choose_peers(w, node_of, 1, jobs[j].cap, rail, &nn) == jobs[j].mode,
                      "job %zu is not a rail or ring job", j);
                int ring = jobs[j].mode == DFC_GPU_PEERS_RING ? nn : 0;
                if (out >= 0) rail[out == 0 ? 0 : w / 2 + 1] = -1;
                int n = make_comm(which, w, node_of, rail, world);
                for (int r = 0; r < n; r++) counts[r] = (int)(rnd64() % 5);
                for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
                    for (uint64_t count = 1; count <= 200000; count *= 47)
                        for (int root = 0; root < n; root++) {
                            /* a rooted call on unequal nodes from every root (of the 195-rank
                             * job the last 3, which are surplus, so that ASan's make check
                             * stays short), else from one */
                            int all_roots = jobs[j].unequal && rooted(kinds[k]) &&
                                            (n <= 20 || root >= n - 3);
                            if (!all_roots && root != (int)(count % n)) continue;
                            char what[112];
                            snprintf(what, sizeof what,
                                     "job %zu comm %d out %d kind %d count %llu root %d", j, which,
                                     out, kinds[k], (unsigned long long)count, root);
                            dfc_coll_args_t a = call_args(kinds[k], n, world, node_of, counts,
                                                          count, root);
                            int route = dfc_coll_gpu_rails_route(&a, rail, ring), root_out;
                            int unequal = surplus(&a, &root_out);
                            surplus_roots += (route == DFC_COLL_GPU_RAILS ||
                                              route == DFC_COLL_GPU_RING) &&
                                             unequal && root_out && rooted(kinds[k]);
                            /* below DFC_BCAST_SCATTER_ALLGATHER_MIN (64 KiB) a bcast is staged,
                         * below DFC_GPU_RAILS_REDUCE_MIN (128 KiB) a reduce */
                            int small = (kinds[k] == DFC_COLL_BCAST && count * 4 < 65536) ||
                                        (kinds[k] == DFC_COLL_REDUCE && count * 4 < 131072);
                            for (int r = 1; r < n; r += 3) { /* the caller's rank plays no part */
                                a.rank = r;
                                CHECK(dfc_coll_gpu_rails_route(&a, rail, ring) == route,
                                      "%s: rank %d decides otherwise", what, r);
                            }
                            int member_out = 0;
                            for (int r = 0; r < n; r++) member_out |= rail[world[r]] < 0;
                            calls++;
                            if (member_out) CHECK(!route, "%s: a member's daemon is out", what);
                            if (which == 6 && jobs[j].how == BLOCKED)
                                CHECK(route != DFC_COLL_GPU_RAILS && route != DFC_COLL_GPU_RING,
                                      "%s: off the rails", what);
                            CHECK(route != (ring ? DFC_COLL_GPU_RAILS : DFC_COLL_GPU_RING),
                                  "%s: route %d in a %s job", what, route, ring ? "ring" : "rail");
                            if (route == DFC_COLL_GPU_DAEMON) {
                                daemon++;
                                CHECK(all_linked(&a, rail, ring), "%s: daemon but not all linked",
                                      what);
                            } else if (route == DFC_COLL_GPU_RAILS || route == DFC_COLL_GPU_RING) {
                                rails++;
                                CHECK(k < RAILS_KINDS, "%s: a kind without a hierarchical schedule",
                                      what);
                                CHECK(!ring || k < RING_KINDS, "%s: not a ring kind on a ring",
                                      what);
                                ring_rails += ring != 0;
                                folded += unequal;
                                transfers += check_schedules(what, a, rail, ring);
                            } else if (!member_out &&
                                       (which == 4 || (which == 5 && !ring) ||
                                        (k < (ring ? RING_KINDS : RAILS_KINDS) && !small &&
                                         (jobs[j].unequal ? which == 0 : which < 2))))
                                FAIL("%s: kept off the GPU", what);
                            if (small && which < 4)
                                CHECK(route != DFC_COLL_GPU_RAILS && route != DFC_COLL_GPU_RING,
                                      "%s: a small bcast or reduce on the rails", what);
                        }
            }
    CHECK(rails > 0 && daemon > 0 && ring_rails > 0 && folded > 0 && surplus_roots > 0,
          "rails %d (ring %d, unequal nodes %d, surplus roots %d), daemon %d: a case never ran",
          rails, ring_rails, folded, surplus_roots, daemon);
    printf("%s: %d calls routed (%d on the rails, %d of them on rings, %d on unequal nodes, %d "
           "transfers checked; %d on all-linked communicators)\n",
           failures > before ? "FAIL" : "ok", calls, rails, ring_rails, folded, transfers, daemon);
}

static void test_translate(void)
{
    int before = failures;
    int world[4] = {7, 3, 9, 0}, index_of[10];
    for (int r = 0; r < 10; r++) index_of[r] = -1;
    index_of[7] = 2;
    index_of[3] = 0;
    index_of[9] = 5;
    dfc_step_t steps[5] = {{.kind = DFC_STEP_SEND, .peer = 0},
                           {.kind = DFC_STEP_RECV, .peer = 2},
                           {.kind = DFC_STEP_FENCE, .peer = 3},
                           {.kind = DFC_STEP_RECV_REDUCE, .peer = 1},
                           {.kind = DFC_STEP_SEND, .peer = 2}};
    CHECK(dfc_gpu_steps_to_daemon(steps, 5, world, index_of) == 0, "a connected peer missing");
    static const int expect[5] = {2, 5, 3, 0, 5};
    for (int i = 0; i < 5; i++)
        CHECK(steps[i].peer == expect[i], "step %d: peer %d, expected %d", i, steps[i].peer,
              expect[i]);
    dfc_step_t far = {.kind = DFC_STEP_SEND, .peer = 3};
    CHECK(dfc_gpu_steps_to_daemon(&far, 1, world, index_of) == 1,
          "a send to a process the daemon does not connect was not counted");
    printf("%s: steps name daemon indices\n", failures > before ? "FAIL" : "ok");
}

int main(void)
{
    /* gather, scatter and alltoall ride the rails only when DFC_<KIND>_ALGORITHM forces the
     * hierarchical schedule (select.c): forced here, so that their schedules' peers are
     * checked; test_coll_select checks that they stay staged otherwise. */
    setenv("DFC_GATHER_ALGORITHM", "hierarchical", 1);
    setenv("DFC_SCATTER_ALGORITHM", "hierarchical", 1);
    setenv("DFC_ALLTOALL_ALGORITHM", "hierarchical", 1);
    test_choose();
    test_routes();
    test_translate();
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    return 0;
}
