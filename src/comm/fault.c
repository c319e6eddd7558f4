/*
 * fault.c - process failure (dfc(7), "Process failure"): ULFM's model without recovery.
 *
 * A world rank is declared failed when a transport loses it (tcp EOF or reset; shm's
 * liveness check through /proc) or when the launcher sends a PMIx event naming it. Both
 * transports connect every pair of ranks they serve at init, so every live rank notices
 * every failure by itself: nothing has to be forwarded, and no heartbeat is needed. From
 * then on (p2p.c): operations with the failed rank as peer, wildcard receives pending on a
 * communicator that contains it, and every transfer of a collective on such a communicator
 * complete with DFC_ERR_PROC_FAILED; new ones fail at once. Traffic between live ranks, and
 * collectives on communicators without the failed rank, go on.
 *
 * DFC_FAULT_TIMEOUT bounds the detection where the operating system alone would not: the
 * tcp transport uses it for keepalive and its heartbeat (a dead host sends no reset).
 */
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"
#include "pmix/dfc_boot.h"

static int *fail_code; /* per world rank: 0 (alive) or the code its operations fail with */
static int nfailed;
static uint32_t fail_epoch; /* bumped per failure: communicators cache their check by it */

int dfc_fault_timeout_s;

int dfc_fault_init(void)
{
    long t = dfc_env_long(
        "DFC_FAULT_TIMEOUT", 5,
        "seconds within which a failed peer's pending operations complete with "
        "DFC_ERR_PROC_FAILED where the OS does not report the failure at once (tcp keepalive)");
    dfc_fault_timeout_s = t > 0 ? (int)t : 5;
    fail_code = calloc(dfc_proc.world_size, sizeof *fail_code);
    if (!fail_code) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    nfailed = 0;
    fail_epoch = 0;
    return DFC_SUCCESS;
}

void dfc_fault_finalize(void)
{
    free(fail_code);
    fail_code = NULL;
}

int dfc_fault_count(void) { return nfailed; }

int dfc_comm_has_member(const dfc_comm_t *c, int world)
{
    return dfc_group_rank_of(c->group, world) != DFC_UNDEFINED ||
           (c->remote && dfc_group_rank_of(c->remote, world) != DFC_UNDEFINED);
}

/* The code for a failed member of c, or 0; cached per communicator until the next failure. */
static int comm_failed(dfc_comm_t *c)
{
    if (c->fail_epoch == fail_epoch) return c->fail_code;
    c->fail_epoch = fail_epoch;
    c->fail_code = 0;
    for (int i = 0; i < c->size && !c->fail_code; i++) c->fail_code = fail_code[c->world[i]];
    for (int i = 0; c->remote && i < c->remote->size && !c->fail_code; i++)
        c->fail_code = fail_code[c->remote->world[i]]; /* intercommunicators: both groups */
    return c->fail_code;
}

int dfc_fault_check(dfc_comm_t *c, int coll_ctx, int world)
{
    if (DFC_LIKELY(!nfailed)) return DFC_SUCCESS;
    if (world >= 0 && fail_code[world]) return fail_code[world];
    return coll_ctx && c ? comm_failed(c) : DFC_SUCCESS;
}

void dfc_fault_peer(int world, int code, const char *how)
{
    if (world < 0 || world >= dfc_proc.world_size || world == dfc_proc.world_rank ||
        fail_code[world])
        return;
    char why[DFC_MAX_ERROR_STRING];
    dfc_err_message(code, why, sizeof why);
    /* The class string is added once, to the message below. */
    const char *cls = dfc_err_class_string(DFC_ERR_PROC_FAILED);
    size_t n = strlen(why), k = strlen(cls);
    if (n >= k + 3 && !strncmp(why + n - k - 3, " (", 2) && !strncmp(why + n - k - 1, cls, k))
        why[n - k - 3] = '\0';
    /* One message names the rank for every operation that fails because of it. */
    fail_code[world] = dfc_err(DFC_ERR_PROC_FAILED, "DFC",
                               "rank %d of DFC_COMM_WORLD has failed "
                               "(%s: %s)",
                               world, how, why);
    nfailed++;
    fail_epoch++;
    DFC_LOG(DFC_LOG_INFO, "fault", "world rank %d failed (%s)", world, how);
    dfc_p2p_fail_peer(world, fail_code[world]);
}

int dfc_fault_poll(void)
{
    int world, n = 0;
    while ((world = dfc_boot_next_failed()) >= 0) {
        if (fail_code[world]) continue;
        dfc_fault_peer(world,
                       dfc_err(DFC_ERR_PROC_FAILED, "PMIx",
                               "the launcher reports it "
                               "terminated"),
                       "launcher event");
        n++;
    }
    return n;
}
