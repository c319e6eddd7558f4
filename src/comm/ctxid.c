/*
 * ctxid.c - context ids, agreed without a central server.
 *
 * Each process keeps a bitmask of the ids it has free. Creating a communicator gathers the
 * members' masks and takes the lowest id free on all of them; freeing returns the id to the
 * local mask. Members that still hold an id keep it out of every later agreement, so ids
 * are reused safely and 100,000 create/free cycles never run out.
 */
#include <string.h>

#include "comm/dfc_comm.h"

static uint32_t free_mask[DFC_CTXID_WORDS];

void dfc_ctxid_reset(void)
{
    memset(free_mask, 0xff, sizeof free_mask);
    dfc_ctxid_take(0); /* DFC_COMM_WORLD */
    dfc_ctxid_take(1); /* DFC_COMM_SELF */
}

void dfc_ctxid_mask(uint32_t *mask) { memcpy(mask, free_mask, sizeof free_mask); }
void dfc_ctxid_take(uint32_t ctx) { free_mask[ctx / 32] &= ~(1u << (ctx % 32)); }
void dfc_ctxid_free(uint32_t ctx) { free_mask[ctx / 32] |= 1u << (ctx % 32); }

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
