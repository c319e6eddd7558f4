/*
 * bcast_linear.c - broadcast by the root sending to every other rank directly.
 *
 * Every rank but the root posts one receive of the whole message from the root; the root
 * sends it to every other rank, in ring order from root + 1; one fence. Above the eager limit
 * each receiver reads the root's buffer directly (shm's single-copy read), all at once, so
 * the message crosses once per receiver with no relaying rank in between, where binomial
 * relays it ceil(log2 n) times and scatter_allgather moves it in two phases of n - 1 steps.
 * Cost: alpha + B * beta per receiver for B bytes when the n - 1 reads proceed in parallel
 * (one node, single-copy reads; the root's memory serves them all); the root sends n - 1
 * messages, so it is for one node and moderate n. Never chosen by default yet
 * (DFC_BCAST_ALGORITHM=linear).
 */
#include "coll/dfc_coll.h"

int dfc_coll_bcast_linear_build(const dfc_coll_args_t *a, dfc_sched_t *s)
{
    int n = a->size, root = a->root;
    uint64_t bytes = a->count * a->elem;
    s->algorithm = "linear";
    if (n == 1 || bytes == 0) return DFC_SUCCESS;
    if (a->rank != root) DFC_TRY(dfc_sched_recv(s, root, DFC_BUF_RECV, 0, bytes));
    else
        for (int i = 1; i < n; i++)
            DFC_TRY(dfc_sched_send(s, (root + i) % n, DFC_BUF_RECV, 0, bytes));
    return dfc_sched_fence(s);
}
