/*
 * ctxid.c - context ids, agreed without a central server.
 *
 * Each process keeps a bitmask of the ids it has free. Creating a communicator gathers the
 * members' masks and takes the lowest id free on all of them; freeing returns the id to the
 * local mask. Members that still hold an id keep it out of every later agreement, so ids
 * are reused safely and 100,000 create/free cycles never run out.
 *
 * Concurrent creations (threads under DFC_THREAD_MULTIPLE). A creation runs in rounds; in
 * each round every participant offers either its free mask or an empty one, and a round in
 * which anyone offered an empty mask is repeated by all (each sees every offer, so they all
 * decide alike). Two rules make this safe and live:
 *
 * Safety: a process lends its mask to one round at a time (`lent_to`, MPICH's mask_in_use)
 * and gets it back only after that round has taken its id. Two creations in flight in one
 * process therefore never pick from the same snapshot: the second offers an empty mask, or
 * the mask without the first one's id.
 *
 * Progress: a round whose peers have not all arrived can last for ever (rank 1 may first
 * need another creation that this process is part of), so it must not hold the mask.
 * Hence the first round of a concurrent creation offers nothing: it only learns that every
 * participant has entered the creation ("entered"). From then on each of its rounds ends in
 * finite time, since every participant is inside it and offering never blocks. The mask is
 * lent only to the entered creation with the smallest key (parent context, tag: the same on
 * every participant) in this process, when nobody holds it. Suppose creations stopped
 * completing. Then the set of creations stops changing, and a creation entered on one
 * participant is entered on all (its first round ended there, so all had sent theirs). Let
 * C be the one with the smallest key among the entered ones. On each of its participants
 * the round holding the mask ends in finite time, and after that only C may take it; so
 * some round of C gets every participant's mask and completes (with an id, or with the
 * error that none is free): a contradiction. Not starvation-free: a thread that keeps
 * creating from a smaller key can keep a larger one waiting, as in MPICH.
 * A process that cannot have two creations at once (below THREAD_MULTIPLE) offers its mask
 * from the first round: no other creation of its own can wait on it.
 */
#include <string.h>

#include "comm/dfc_comm.h"

dfc_ctxid_space_t dfc_ctxid_proc;

void dfc_ctxid_space_reset(dfc_ctxid_space_t *s)
{
    memset(s, 0, sizeof *s);
    memset(s->free, 0xff, sizeof s->free);
    dfc_ctxid_space_take(s, 0); /* DFC_COMM_WORLD */
    dfc_ctxid_space_take(s, 1); /* DFC_COMM_SELF */
}

void dfc_ctxid_space_take(dfc_ctxid_space_t *s, uint32_t ctx)
{
    s->free[ctx / 32] &= ~(1u << (ctx % 32));
}

void dfc_ctxid_space_free(dfc_ctxid_space_t *s, uint32_t ctx)
{
    s->free[ctx / 32] |= 1u << (ctx % 32);
}

void dfc_ctxid_reset(void) { dfc_ctxid_space_reset(&dfc_ctxid_proc); }
void dfc_ctxid_mask(uint32_t *mask)
{
    memcpy(mask, dfc_ctxid_proc.free, sizeof dfc_ctxid_proc.free);
}
void dfc_ctxid_take(uint32_t ctx) { dfc_ctxid_space_take(&dfc_ctxid_proc, ctx); }
void dfc_ctxid_free(uint32_t ctx) { dfc_ctxid_space_free(&dfc_ctxid_proc, ctx); }

void dfc_ctxid_begin(dfc_ctxid_space_t *s, dfc_ctxid_creation_t *cr, uint64_t key, int entered)
{
    cr->key = key;
    cr->entered = entered;
    cr->next = s->flight;
    s->flight = cr;
}

/* The smallest key among entered creations in flight is cr's (ties: cr is among them). */
static int smallest_entered(const dfc_ctxid_space_t *s, const dfc_ctxid_creation_t *cr)
{
    for (const dfc_ctxid_creation_t *o = s->flight; o; o = o->next)
        if (o != cr && o->entered && o->key < cr->key) return 0;
    return 1;
}

int dfc_ctxid_offer(dfc_ctxid_space_t *s, dfc_ctxid_creation_t *cr, uint32_t *mask)
{
    if (cr->entered && !s->lent_to && smallest_entered(s, cr)) {
        s->lent_to = cr;
        memcpy(mask, s->free, sizeof s->free);
        return 1;
    }
    memset(mask, 0, sizeof s->free);
    return 0;
}

void dfc_ctxid_round_end(dfc_ctxid_space_t *s, dfc_ctxid_creation_t *cr)
{
    cr->entered = 1;
    if (s->lent_to == cr) s->lent_to = NULL;
}

void dfc_ctxid_end(dfc_ctxid_space_t *s, dfc_ctxid_creation_t *cr)
{
    if (s->lent_to == cr) s->lent_to = NULL;
    for (dfc_ctxid_creation_t **p = &s->flight; *p; p = &(*p)->next)
        if (*p == cr) {
            *p = cr->next;
            break;
        }
}

int dfc_ctxid_pick(const uint32_t *mask)
{
    for (int w = 0; w < DFC_CTXID_WORDS; w++)
        if (mask[w]) return w * 32 + __builtin_ctz(mask[w]);
    return -1;
}

void dfc_ctxid_and(uint32_t *acc, const void *masks, int n, size_t stride)
{
    for (int i = 0; i < n; i++) {
        const uint32_t *m = (const uint32_t *)((const char *)masks + (size_t)i * stride);
        for (int w = 0; w < DFC_CTXID_WORDS; w++) acc[w] &= m[w];
    }
}
