/*
 * intercomm.c - intercommunicators (MPI-4.1 7.6): two disjoint groups; point-to-point ranks
 * name the remote group.
 *
 * An intercommunicator is a dfc_comm_t whose group, rank and size are the local group's
 * (Comm_size, Comm_rank, Comm_group answer for it) and whose `remote` group is the one
 * point-to-point ranks name (dfc_comm_peers): a message carries the sender's local rank,
 * which is its rank in the receiver's remote group, so matching needs nothing new. Its
 * context id must be free in both groups: it is made as an intracommunicator over the union
 * of the groups (dfc_comm_create_group_on over DFC_COMM_WORLD, on shadow contexts of this
 * file's own, so that it never meets a user's Comm_create_group), whose id then serves the
 * intercommunicator. `local` is a private duplicate of the local group's communicator, on
 * which the intercommunicator collectives (src/coll/inter_*.c) run their local phases.
 * Both sides order the union the same way: the group whose first member has the lower world
 * rank first (Intercomm_merge's `high` decides there).
 *
 * Intercomm_create: the leaders swap their groups' world ranks over peer_comm with the
 * user's tag (as MPICH does: MPI says the tag is for that); each leader then sends the
 * remote group, or an error, to the rest of its group (linearly, on local_comm's collective
 * context with an internal tag), so that a bad leader argument fails the whole group
 * instead of leaving it waiting. Intercomm_create_from_groups (MPI-4.0) needs no leaders'
 * exchange: both groups are arguments.
 */
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"

#define TAG_GROUP (-12) /* the leader's message to its group (local_comm's collective context) */
#define TAG_MERGE (-13) /* merge's `high` between the rank 0s (the intercommunicator's) */
/* The union's creation gathers on world's context plus these (comm.c uses 1 * MAX). */
#define SHADOW_CREATE ((uint32_t)DFC_CTX_SHADOW_INTER_CREATE)
#define SHADOW_MERGE ((uint32_t)DFC_CTX_SHADOW_INTER_MERGE)
#define SHADOW_DUP ((uint32_t)DFC_CTX_SHADOW_INTER_DUP)
enum { GROUP_OK = 0, GROUP_OVERLAP = -1, GROUP_BAD_LEADER = -2 };

int dfc_comm_intra_check(const dfc_comm_t *c, const char *func, const char *argname)
{
    if (!c->remote) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_COMM, func,
                   "invalid argument %s: an intercommunicator, which this call does not take "
                   "(DFC_Intercomm_merge makes an intracommunicator of it)",
                   argname);
}

int dfc_comm_inter_check(const dfc_comm_t *c, const char *func, const char *argname)
{
    if (c->remote) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_COMM, func,
                   "invalid argument %s: an intracommunicator, where an intercommunicator is "
                   "needed (DFC_Intercomm_create makes one)",
                   argname);
}

/* A blocking exchange on c (coll: its collective context); DFC_PROC_NULL skips a side. */
static int xfer(dfc_comm_t *c, int coll, const void *sbuf, uint64_t sbytes, int dst, void *rbuf,
                uint64_t rbytes, int src, int tag, uint64_t *got)
{
    dfc_req_t sr = {0}, rr = {0};
    int rc = DFC_SUCCESS;
    dfc_req_init_internal(&sr, c);
    dfc_req_init_internal(&rr, c);
    if (src != DFC_PROC_NULL) rc = dfc_p2p_irecv(c, coll, rbuf, rbytes, src, tag, &rr);
    if (!rc && dst != DFC_PROC_NULL) rc = dfc_p2p_isend(c, coll, sbuf, sbytes, dst, tag, 0, &sr);
    if (!rc && src != DFC_PROC_NULL) rc = dfc_progress_until(&rr.complete);
    if (!rc && dst != DFC_PROC_NULL) rc = dfc_progress_until(&sr.complete);
    if (!rc) rc = sr.status.DFC_ERROR ? sr.status.DFC_ERROR : rr.status.DFC_ERROR;
    if (got) *got = dfc_status_bytes(&rr.status);
    return rc;
}

/* Linear broadcast of `bytes` (at most cap) from root on l's collective context. */
static int group_bcast(dfc_comm_t *l, int root, void *buf, uint64_t bytes, uint64_t cap)
{
    int rc = DFC_SUCCESS;
    if (l->rank != root) return xfer(l, 1, NULL, 0, DFC_PROC_NULL, buf, cap, root, TAG_GROUP, NULL);
    for (int r = 0; r < l->size && !rc; r++)
        if (r != root) rc = xfer(l, 1, buf, bytes, r, NULL, 0, DFC_PROC_NULL, TAG_GROUP, NULL);
    return rc;
}

/* The leader's part of Intercomm_create: msg becomes [tag, n or GROUP_*, n world ranks]. */
static int leader_swap(dfc_comm_t *local, dfc_comm_t *peer, int remote_leader, int tag, int *msg)
{
    int W = dfc_proc.world_size, n = local->size, rc;
    uint64_t got = 0;
    msg[0] = tag;
    if (!peer || remote_leader < 0 || remote_leader >= dfc_comm_npeers(peer)) {
        msg[1] = GROUP_BAD_LEADER;
        return DFC_SUCCESS;
    }
    int *mine = malloc(((size_t)n + 1) * sizeof *mine);
    if (!mine) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory creating an intercommunicator");
    mine[0] = n;
    memcpy(mine + 1, local->world, (size_t)n * sizeof *mine);
    rc = xfer(peer, 0, mine, ((uint64_t)n + 1) * sizeof *mine, remote_leader, msg + 1,
              ((uint64_t)W + 1) * sizeof *msg, remote_leader, tag, &got);
    free(mine);
    if (rc) return rc;
    if (msg[1] < 1 || msg[1] > W || got != ((uint64_t)msg[1] + 1) * sizeof *msg)
        return DFC_ERR(DFC_ERR_INTERN, "the remote leader sent a malformed group (%llu bytes)",
                       (unsigned long long)got);
    for (int i = 0; i < msg[1]; i++)
        if (dfc_group_rank_of(local->group, msg[2 + i]) != DFC_UNDEFINED) msg[1] = GROUP_OVERLAP;
    return DFC_SUCCESS;
}

/* The union of a and b, the group whose first member has the lower world rank first
 * (a_first < 0), or a first (1), or b first (0). */
static dfc_group_t *union_of(const dfc_group_t *a, const dfc_group_t *b, int a_first)
{
    if (a_first < 0) a_first = a->world[0] < b->world[0];
    const dfc_group_t *x = a_first ? a : b, *y = a_first ? b : a;
    int *w = malloc(((size_t)x->size + (size_t)y->size) * sizeof *w);
    if (!w) return NULL;
    memcpy(w, x->world, (size_t)x->size * sizeof *w);
    memcpy(w + x->size, y->world, (size_t)y->size * sizeof *w);
    dfc_group_t *g = dfc_group_new(x->size + y->size, w);
    free(w);
    return g;
}

/* Makes u (an intracommunicator over the union, whose context id it keeps) the
 * intercommunicator of local group lg (whose communicator lc it duplicates) and remote
 * group rg (a reference given up by the caller). */
static int make_inter(dfc_comm_t *u, dfc_group_t *lg, dfc_group_t *rg, dfc_comm_t *lc)
{
    /* the union's shm slots (comm.c opens them for any one-node communicator) index the
     * union's ranks: an intercommunicator's collectives run their own way (coll/inter_*.c) */
    dfc_comm_slots_close(u);
    dfc_group_release(u->group);
    dfc_group_retain(lg);
    u->group = lg;
    u->world = lg->world;
    u->size = lg->size;
    u->rank = lg->rank;
    u->remote = rg;
    u->errhandler = lc->errhandler;
    return dfc_comm_dup(lc, NULL, &u->local);
}

/* Creates the intercommunicator of lc's group and rg over a union gathered at shadow/tag. */
static int build(dfc_comm_t *lc, dfc_group_t *rg, int tag, uint32_t shadow, dfc_comm_t **out)
{
    dfc_comm_t *world = dfc_comm_get(DFC_COMM_WORLD), *u = NULL;
    dfc_group_t *ug = union_of(lc->group, rg, -1);
    int rc;
    *out = NULL;
    if (!ug) {
        dfc_group_release(rg);
        return DFC_ERR(DFC_ERR_NO_MEM, "out of memory creating an intercommunicator");
    }
    rc = dfc_comm_create_group_on(world, ug, tag, world->ctx + shadow, &u);
    dfc_group_release(ug);
    if (rc || !u) {
        dfc_group_release(rg);
        return rc ? rc : DFC_ERR(DFC_ERR_INTERN, "not a member of the intercommunicator's union");
    }
    if ((rc = make_inter(u, lc->group, rg, lc))) {
        dfc_comm_release(u);
        return rc;
    }
    *out = u;
    return DFC_SUCCESS;
}

int dfc_intercomm_create(dfc_comm_t *local, int local_leader, dfc_comm_t *peer, int remote_leader,
                         int tag, const char *func, dfc_comm_t **out)
{
    int W = dfc_proc.world_size, rc = DFC_SUCCESS;
    int *msg = malloc(((size_t)W + 2) * sizeof *msg);
    if (!msg) return dfc_err(DFC_ERR_NO_MEM, func, "out of memory creating an intercommunicator");
    *out = NULL;
    if (local->rank == local_leader && (rc = leader_swap(local, peer, remote_leader, tag, msg)))
        msg[1] = GROUP_BAD_LEADER; /* the group still hears of it */
    uint64_t bytes = 0;
    if (local->rank == local_leader) bytes = ((uint64_t)DFC_MAX2(msg[1], 0) + 2) * sizeof *msg;
    int rc2 = group_bcast(local, local_leader, msg, bytes, ((uint64_t)W + 2) * sizeof *msg);
    if (rc || (rc = rc2)) goto out;
    if (msg[1] == GROUP_BAD_LEADER) {
        if (local->rank == local_leader)
            rc = dfc_err(DFC_ERR_RANK, func,
                         "invalid argument remote_leader: %d is not a rank of peer_comm at the "
                         "local leader (rank %d of local_comm)",
                         remote_leader, local_leader);
        else
            rc = dfc_err(DFC_ERR_RANK, func,
                         "invalid argument remote_leader: the local leader (rank %d of "
                         "local_comm) was given a remote leader that is not a rank of peer_comm",
                         local_leader);
    } else if (msg[1] == GROUP_OVERLAP) {
        rc = dfc_err(DFC_ERR_COMM, func,
                     "invalid arguments local_comm and remote_leader: the local and remote "
                     "groups overlap (an intercommunicator needs two disjoint groups)");
    } else {
        dfc_group_t *rg = dfc_group_new(msg[1], msg + 2);
        rc = rg ? build(local, rg, msg[0], SHADOW_CREATE, out)
                : dfc_err(DFC_ERR_NO_MEM, func, "out of memory creating an intercommunicator");
    }
out:
    free(msg);
    return rc;
}

/* Every process knows both groups here, so no leader swaps anything: the local group's
 * communicator is made from its group (matched by tag, as Comm_create_from_group does),
 * then the intercommunicator over the union as Intercomm_create makes it. Both groups see
 * an overlap alike and fail before any communication. */
int dfc_intercomm_from_groups(dfc_group_t *lg, dfc_group_t *rg, dfc_info_t *info, int tag,
                              const char *func, dfc_comm_t **out)
{
    dfc_comm_t *lc = NULL;
    int rc;
    *out = NULL;
    for (int i = 0; i < rg->size; i++)
        if (dfc_group_rank_of(lg, rg->world[i]) != DFC_UNDEFINED)
            return dfc_err(DFC_ERR_GROUP, func,
                           "invalid arguments local_group and remote_group: they overlap (rank "
                           "%d of remote_group is in local_group; an intercommunicator needs two "
                           "disjoint groups)",
                           i);
    if ((rc = dfc_comm_create_from_group(dfc_comm_get(DFC_COMM_WORLD), lg, info, tag, &lc)))
        return rc;
    if (!lc) return dfc_err(DFC_ERR_GROUP, func, "invalid argument local_group: not a member");
    dfc_group_retain(rg);
    rc = build(lc, rg, tag, SHADOW_CREATE, out);
    dfc_comm_release(lc);
    return rc;
}

int dfc_intercomm_merge(dfc_comm_t *c, int high, const char *func, dfc_comm_t **out)
{
    (void)func;
    int mine = high ? 1 : 0, theirs = 0, rc;
    dfc_comm_t *world = dfc_comm_get(DFC_COMM_WORLD);
    if (c->rank == 0 &&
        (rc = xfer(c, 1, &mine, sizeof mine, 0, &theirs, sizeof theirs, 0, TAG_MERGE, NULL)))
        return rc;
    if ((rc = group_bcast(c->local, 0, &theirs, sizeof theirs, sizeof theirs))) return rc;
    /* The low group first; equal values: the creation's order. */
    int local_first = mine != theirs ? !mine : c->world[0] < c->remote->world[0];
    dfc_group_t *ug = union_of(c->group, c->remote, local_first);
    if (!ug) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory merging an intercommunicator");
    rc = dfc_comm_create_group_on(world, ug, (int)c->ctx, world->ctx + SHADOW_MERGE, out);
    dfc_group_release(ug);
    if (!rc && *out) (*out)->errhandler = c->errhandler;
    return rc;
}

int dfc_intercomm_dup(dfc_comm_t *c, const dfc_info_t *info, dfc_comm_t **out)
{
    dfc_group_retain(c->remote);
    int rc = build(c->local, c->remote, (int)c->ctx, SHADOW_DUP, out);
    if (rc) return rc;
    (*out)->errhandler = c->errhandler;
    if (c->info) dfc_comm_apply_info(*out, c->info);
    if (info) dfc_comm_apply_info(*out, info);
    return DFC_SUCCESS;
}
