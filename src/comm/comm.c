/*
 * comm.c - communicators: the predefined ones, constructors, comparison and release.
 *
 * Every constructor follows one pattern: the members gather (color, key, free context-id
 * mask) over the parent's collective context with a ring allgather, then each member
 * computes the same new group and the same lowest common free context id locally. One
 * ring round-trip per creation, no central server.
 */
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"
#include "comm/dfc_topo.h"

dfc_htable_t dfc_comm_table;
void (*dfc_comm_destroy_hook)(dfc_comm_t *c);
static dfc_comm_t comm_world, comm_self;

/* Split and its relatives gather on the parent's collective context with this internal tag
 * (collectives use tags >= 0). Comm_create_group needs the whole user tag range (0 ..
 * DFC_TAG_UB_VALUE, 2^31 tags), which the negative tags cannot hold next to this one and
 * DFC_ANY_TAG: it gathers with the user's tag itself on a context of its own, that of a
 * shadow of the parent whose id is parent's + DFC_CTXID_MAX (no communicator has such an
 * id), so that two concurrent creations with different tags never meet. */
#define TAG_COMM_CREATE (-10)

static dfc_comm_t *comm_new(uint32_t ctx, dfc_group_t *group)
{
    dfc_comm_t *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->refcount = 1;
    c->ctx = ctx;
    c->group = group;
    c->world = group->world;
    c->size = group->size;
    c->rank = group->rank;
    c->errhandler = DFC_ERRORS_ARE_FATAL;
    return c;
}

int dfc_comm_init_predefined(void)
{
    dfc_htable_init(&dfc_comm_table, DFC_KIND_COMM, 3);
    dfc_ctxid_reset();
    int n = dfc_proc.world_size;
    int *all = malloc(n * sizeof(int));
    if (!all) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    for (int i = 0; i < n; i++) all[i] = i;
    dfc_group_t *gw = dfc_group_new(n, all);
    dfc_group_t *gs = dfc_group_new(1, &dfc_proc.world_rank);
    free(all);
    if (!gw || !gs) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    comm_world = (dfc_comm_t){.handle = DFC_COMM_WORLD,
                              .refcount = 1,
                              .ctx = 0,
                              .group = gw,
                              .world = gw->world,
                              .size = n,
                              .rank = gw->rank,
                              .is_world = 1,
                              .errhandler = DFC_ERRORS_ARE_FATAL};
    comm_self = (dfc_comm_t){.handle = DFC_COMM_SELF,
                             .refcount = 1,
                             .ctx = 1,
                             .group = gs,
                             .world = gs->world,
                             .size = 1,
                             .rank = 0,
                             .is_self = 1,
                             .errhandler = DFC_ERRORS_ARE_FATAL};
    strcpy(comm_world.name, "DFC_COMM_WORLD");
    strcpy(comm_self.name, "DFC_COMM_SELF");
    dfc_htable_set(&dfc_comm_table, DFC_HANDLE_INDEX(DFC_COMM_WORLD), &comm_world);
    dfc_htable_set(&dfc_comm_table, DFC_HANDLE_INDEX(DFC_COMM_SELF), &comm_self);
    return DFC_SUCCESS;
}

void dfc_comm_finalize_predefined(void)
{
    dfc_comm_t *pre[2] = {&comm_world, &comm_self};
    for (int i = 0; i < 2; i++) {
        if (dfc_comm_destroy_hook) dfc_comm_destroy_hook(pre[i]);
        dfc_group_release(pre[i]->group);
        if (pre[i]->info) dfc_info_destroy(pre[i]->info);
        dfc_attr_drop_all(&pre[i]->attrs);
    }
    dfc_htable_destroy(&dfc_comm_table);
}

int dfc_comm_check(DFC_Comm h, const char *func, const char *argname, dfc_comm_t **out)
{
    dfc_comm_t *c = dfc_comm_get(h);
    *out = c;
    if (c) return DFC_SUCCESS;
    if (h == DFC_COMM_NULL)
        return dfc_err(DFC_ERR_COMM, func, "invalid argument %s: DFC_COMM_NULL", argname);
    return dfc_err(DFC_ERR_COMM, func,
                   "invalid argument %s: 0x%x is not a valid communicator (freed or never created)",
                   argname, (unsigned)h);
}

void dfc_comm_release(dfc_comm_t *c)
{
    if (--c->refcount > 0 || c->is_world || c->is_self) return;
    if (dfc_comm_destroy_hook) dfc_comm_destroy_hook(c);
    dfc_comm_slots_close(c); /* before the id (its set) can be taken again */
    dfc_ctxid_free(c->ctx);
    dfc_group_release(c->group);
    if (c->remote) dfc_group_release(c->remote);
    if (c->local) dfc_comm_release(c->local);
    if (c->info) dfc_info_destroy(c->info);
    dfc_topo_free(c->topo);
    dfc_attr_drop_all(&c->attrs);
    free(c);
}

void dfc_comm_apply_info(dfc_comm_t *c, const dfc_info_t *info)
{
    if (!info) return;
    const char *p = dfc_info_lookup(info, "dfc_priority");
    if (p) c->priority = atoi(p);
    dfc_info_t *copy = dfc_info_copy(info);
    if (copy) {
        if (c->info) dfc_info_destroy(c->info);
        c->info = copy;
    }
}

const char *dfc_comm_peer_transport(const dfc_comm_t *c, int r)
{
    return dfc_route[c->world[r]]->ops->name;
}

int dfc_comm_compare(const dfc_comm_t *a, const dfc_comm_t *b)
{
    if (a == b) return DFC_IDENT;
    if (a->size != b->size) return DFC_UNEQUAL;
    int same_order = 1;
    for (int i = 0; i < a->size; i++)
        if (a->world[i] != b->world[i]) same_order = 0;
    if (same_order) return DFC_CONGRUENT;
    for (int i = 0; i < a->size; i++)
        if (dfc_group_rank_of(b->group, a->world[i]) == DFC_UNDEFINED) return DFC_UNEQUAL;
    return DFC_SIMILAR;
}

/* Ring allgather of `bytes` per member among `n` members of parent (given as parent
 * ranks, `me` is this process's index), on the collective context of `parent` (or of its
 * shadow, see TAG_COMM_CREATE). */
static int members_allgather(dfc_comm_t *parent, int n, const int *members, int me, int tag,
                             const void *mine, size_t bytes, void *all)
{
    memcpy((char *)all + (size_t)me * bytes, mine, bytes);
    int right = members[(me + 1) % n], left = members[(me - 1 + n) % n];
    for (int k = 0; k < n - 1; k++) {
        int sblk = (me - k + n) % n, rblk = (me - k - 1 + n) % n;
        dfc_req_t sreq, rreq;
        dfc_req_init_internal(&sreq, parent);
        dfc_req_init_internal(&rreq, parent);
        int rc = dfc_p2p_irecv(parent, 1, (char *)all + (size_t)rblk * bytes, bytes, left, tag,
                               &rreq);
        if (!rc)
            rc = dfc_p2p_isend(parent, 1, (char *)all + (size_t)sblk * bytes, bytes, right, tag, 0,
                               &sreq);
        if (!rc) rc = dfc_progress_until(&rreq.complete);
        if (!rc) rc = dfc_progress_until(&sreq.complete);
        if (rc) return rc;
        if (rreq.status.DFC_ERROR) return rreq.status.DFC_ERROR;
    }
    return DFC_SUCCESS;
}

/* The largest incarnation of a communicator this process was a member of. */
static uint64_t incarnation_clock;

typedef struct creation_entry {
    uint64_t clock;      /* the participant's incarnation_clock */
    uint64_t slot_clock; /* its dfc_comm_slot_clock: the new slots' stamps start above */
    int color, key, parent_rank;
    int offered; /* this process offered its free mask in this round (see ctxid.c) */
    uint32_t mask[DFC_CTXID_WORDS];
} creation_entry_t;

static int cmp_key_then_rank(const void *a, const void *b)
{
    const creation_entry_t *x = *(creation_entry_t *const *)a, *y = *(creation_entry_t *const *)b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->parent_rank - y->parent_rank;
}

/* The common core: entries of all participants are known; members are those with my
 * color, ordered by (key, parent rank). Builds the communicator if I am a member. */
static int build_from_entries(dfc_comm_t *parent, creation_entry_t *entries, int n, int my_color,
                              dfc_comm_t **out)
{
    *out = NULL;
    if (my_color == DFC_UNDEFINED) return DFC_SUCCESS;
    creation_entry_t **sel = malloc(n * sizeof *sel);
    int *world = malloc(n * sizeof(int));
    int rc = DFC_SUCCESS, m = 0;
    if (!sel || !world) {
        rc = DFC_ERR(DFC_ERR_NO_MEM, "out of memory creating a communicator");
        goto out;
    }
    uint32_t mask[DFC_CTXID_WORDS];
    uint64_t clock = 0, slot_clock = 0;
    memset(mask, 0xff, sizeof mask);
    for (int i = 0; i < n; i++)
        if (entries[i].color == my_color) {
            sel[m++] = &entries[i];
            dfc_ctxid_and(mask, entries[i].mask, 1, 0);
            if (entries[i].clock > clock) clock = entries[i].clock;
            if (entries[i].slot_clock > slot_clock) slot_clock = entries[i].slot_clock;
        }
    qsort(sel, m, sizeof *sel, cmp_key_then_rank);
    for (int i = 0; i < m; i++) world[i] = parent->world[sel[i]->parent_rank];
    int ctx = dfc_ctxid_pick(mask);
    if (ctx < 0) {
        rc = DFC_ERR(DFC_ERR_OTHER,
                     "no context id is free on every member (%d communicators exist); free some",
                     DFC_CTXID_MAX);
        goto out;
    }
    dfc_group_t *g = dfc_group_new(m, world);
    dfc_comm_t *c = g ? comm_new((uint32_t)ctx, g) : NULL;
    if (!c) {
        if (g) dfc_group_release(g);
        rc = DFC_ERR(DFC_ERR_NO_MEM, "out of memory creating a communicator");
        goto out;
    }
    if ((rc = dfc_comm_slots_open(c, slot_clock))) {
        dfc_group_release(g);
        free(c);
        goto out;
    }
    dfc_ctxid_take((uint32_t)ctx);
    c->incarnation = clock + 1;
    if (c->incarnation > incarnation_clock) incarnation_clock = c->incarnation;
    c->errhandler = parent->errhandler;
    c->priority = parent->priority;
    *out = c;
out:
    free(sel);
    free(world);
    return rc;
}

/* Runs the gather among `n` participants (parent ranks) over `via` (the parent or its
 * shadow) and builds the result. Rounds repeat until every participant offered its mask;
 * ctxid.c explains why no two creations take one id and why this always ends. */
static int create_common(dfc_comm_t *parent, dfc_comm_t *via, int n, const int *participants,
                         int me, int tag, int color, int key, dfc_comm_t **out)
{
    creation_entry_t mine, *all = malloc((size_t)n * sizeof *all);
    if (!all) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory creating a communicator");
    dfc_ctxid_creation_t cr;
    dfc_ctxid_begin(&dfc_ctxid_proc, &cr, ((uint64_t)parent->ctx << 32) | (uint32_t)tag,
                    dfc_proc.thread_level != DFC_THREAD_MULTIPLE);
    memset(&mine, 0, sizeof mine);
    mine.color = color;
    mine.key = key;
    mine.parent_rank = parent->rank;
    mine.clock = incarnation_clock;
    int rc, retry;
    do {
        mine.offered = dfc_ctxid_offer(&dfc_ctxid_proc, &cr, mine.mask);
        /* After the mask: a set free there was closed, and counted in the clock, before. */
        mine.slot_clock = dfc_comm_slot_clock();
        rc = members_allgather(via, n, participants, me, tag, &mine, sizeof mine, all);
        retry = 0;
        for (int i = 0; !rc && i < n; i++)
            if (!all[i].offered) retry = 1; /* every participant sees the same entries */
        /* The id is taken while the mask is still lent to this round. */
        if (!rc && !retry) rc = build_from_entries(parent, all, n, color, out);
        dfc_ctxid_round_end(&dfc_ctxid_proc, &cr);
    } while (!rc && retry);
    dfc_ctxid_end(&dfc_ctxid_proc, &cr);
    free(all);
    return rc;
}

static int *all_ranks(int n)
{
    int *r = malloc(n * sizeof(int));
    if (r)
        for (int i = 0; i < n; i++) r[i] = i;
    return r;
}

int dfc_comm_split(dfc_comm_t *c, int color, int key, dfc_comm_t **out)
{
    int *parts = all_ranks(c->size);
    if (!parts) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    int rc = create_common(c, c, c->size, parts, c->rank, TAG_COMM_CREATE, color, key, out);
    free(parts);
    return rc;
}

int dfc_comm_dup(dfc_comm_t *c, const dfc_info_t *info, dfc_comm_t **out)
{
    if (c->remote) return dfc_intercomm_dup(c, info, out);
    int rc = dfc_comm_split(c, 0, c->rank, out);
    if (rc || !*out) return rc;
    if (c->info) dfc_comm_apply_info(*out, c->info);
    if (info) dfc_comm_apply_info(*out, info);
    if (c->topo && !((*out)->topo = dfc_topo_copy(c->topo))) { /* MPI: dup keeps the topology */
        dfc_comm_release(*out);
        *out = NULL;
        return DFC_ERR(DFC_ERR_NO_MEM, "out of memory copying the topology");
    }
    return DFC_SUCCESS;
}

int dfc_comm_split_type(dfc_comm_t *c, int split_type, int key, const dfc_info_t *info,
                        dfc_comm_t **out)
{
    int color = split_type == DFC_COMM_TYPE_SHARED ? dfc_node_of[c->world[c->rank]] : DFC_UNDEFINED;
    int rc = dfc_comm_split(c, color, key, out);
    if (!rc && *out && info) dfc_comm_apply_info(*out, info);
    return rc;
}

int dfc_comm_create(dfc_comm_t *c, dfc_group_t *group, dfc_comm_t **out)
{
    /* Every process of c takes part; members keep the group's order through the key. Since
     * MPI-2.2 the processes may pass different groups as long as they are disjoint (mpi4py
     * makes the local communicator of an intercommunicator that way): the color names the
     * group by its lowest world rank, the same for all who pass it and distinct between
     * disjoint ones. */
    int myidx = dfc_group_rank_of(group, c->world[c->rank]);
    int color = DFC_UNDEFINED;
    for (int i = 0; myidx != DFC_UNDEFINED && i < group->size; i++)
        if (color == DFC_UNDEFINED || group->world[i] < color) color = group->world[i];
    return dfc_comm_split(c, color, myidx, out);
}

int dfc_comm_create_from_group(dfc_comm_t *parent, dfc_group_t *group, dfc_info_t *info, int tag,
                               dfc_comm_t **out)
{
    int rc = dfc_comm_create_group(parent, group, tag, out);
    if (!rc && *out && info) dfc_comm_apply_info(*out, info);
    return rc;
}

int dfc_comm_free(dfc_comm_t *c)
{
    int rc = dfc_attr_delete_all(&c->attrs, c->handle);
    if (rc) return rc; /* a delete callback refused: comm stays as it is (MPICH) */
    /* The handle dies now; the object lives until pending operations drop their references. */
    dfc_htable_remove(&dfc_comm_table, c->handle);
    c->handle = 0;
    dfc_comm_release(c);
    return DFC_SUCCESS;
}

int dfc_comm_create_group(dfc_comm_t *c, dfc_group_t *group, int tag, dfc_comm_t **out)
{
    return dfc_comm_create_group_on(c, group, tag, c->ctx + DFC_CTX_SHADOW_CREATE, out);
}

int dfc_comm_create_group_on(dfc_comm_t *c, dfc_group_t *group, int tag, uint32_t shadow_ctx,
                             dfc_comm_t **out)
{
    /* Only the group's members take part, so the ring runs over them alone. */
    int n = group->size, me = -1;
    int *parts = malloc(n * sizeof(int));
    if (!parts) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    for (int i = 0; i < n; i++) {
        parts[i] = dfc_group_rank_of(c->group, group->world[i]);
        if (group->world[i] == c->world[c->rank]) me = i;
    }
    /* The shadow: the parent's members and ranks on a context no communicator uses. It
     * lives until the gather is over (p2p reads it while the requests are posted). */
    dfc_comm_t shadow = *c;
    shadow.ctx = shadow_ctx;
    shadow.is_world = shadow.is_self = 0;
    shadow.slots = NULL; /* c's shm slot set numbers c's collectives, not the shadow's */
    int rc = create_common(c, &shadow, n, parts, me, tag, 0, me, out);
    free(parts);
    return rc;
}
