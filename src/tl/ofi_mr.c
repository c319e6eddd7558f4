/* ofi_mr.c - the ofi transport's registration cache (ofi_mr.h). */
#include "config.h"

#include <stdlib.h>

#include "tl/dfc_tl.h"
#include "tl/ofi_mr.h"
#include "util/dfc_util.h"

void dfc_ofi_mrc_init(dfc_ofi_mrc_t *c, int max, dfc_ofi_mr_reg_fn reg, dfc_ofi_mr_dereg_fn dereg,
                      void *ctx)
{
    *c = (dfc_ofi_mrc_t){.reg = reg, .dereg = dereg, .ctx = ctx};
    if (max > DFC_OFI_WATCH_MAX) max = DFC_OFI_WATCH_MAX;
    /* Without hooks a freed buffer would go unnoticed: register per transfer. */
    c->max = max > 0 && dfc_ofi_hooks_live() ? max : 0;
}

static void mr_close(dfc_ofi_mrc_t *c, dfc_ofi_mr_t **link)
{
    dfc_ofi_mr_t *mr = *link;
    *link = mr->next;
    c->n--;
    dfc_ofi_watch_remove(mr->watch);
    c->dereg(c->ctx, mr);
    dfc_free(mr);
}

/* Closes stale unused registrations, and the least recently used unused ones beyond max. */
static void mrc_trim(dfc_ofi_mrc_t *c)
{
    int unused = 0;
    for (dfc_ofi_mr_t **l = &c->list; *l;) {
        if ((*l)->refs == 0 && dfc_ofi_watch_stale((*l)->watch)) {
            c->stale++;
            mr_close(c, l);
            continue;
        }
        unused += (*l)->refs == 0;
        l = &(*l)->next;
    }
    while (unused > c->max) {
        dfc_ofi_mr_t **lru = NULL;
        for (dfc_ofi_mr_t **l = &c->list; *l; l = &(*l)->next)
            if ((*l)->refs == 0 && (!lru || (*l)->used < (*lru)->used)) lru = l;
        c->evicted += c->max > 0;
        mr_close(c, lru);
        unused--;
    }
}

int dfc_ofi_mrc_get(dfc_ofi_mrc_t *c, const void *addr, size_t len, uint64_t access,
                    dfc_ofi_mr_t **out)
{
    uintptr_t a = (uintptr_t)addr;
    for (dfc_ofi_mr_t *mr = c->list; mr; mr = mr->next) {
        if (mr->base > a || a + len > mr->base + mr->len || (mr->access & access) != access ||
            mr->watch < 0 || dfc_ofi_watch_stale(mr->watch))
            continue;
        mr->refs++;
        mr->used = ++c->clock;
        c->hits++;
        *out = mr;
        return DFC_SUCCESS;
    }
    mrc_trim(c); /* stale ones go before a new one may take their address */
    dfc_ofi_mr_t *mr = dfc_calloc(1, sizeof(*mr));
    if (!mr) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for a memory registration");
    *mr = (dfc_ofi_mr_t){.base = a, .len = len, .access = access, .refs = 1, .watch = -1};
    /* Watched from before registering: a free racing with us marks it, never misses it. */
    if (c->max > 0) mr->watch = dfc_ofi_watch_add(a, len);
    int rc = c->reg(c->ctx, mr);
    if (rc) {
        dfc_ofi_watch_remove(mr->watch);
        dfc_free(mr);
        return rc;
    }
    mr->used = ++c->clock;
    mr->next = c->list;
    c->list = mr;
    c->n++;
    c->misses++;
    *out = mr;
    return DFC_SUCCESS;
}

void dfc_ofi_mrc_put(dfc_ofi_mrc_t *c, dfc_ofi_mr_t *mr)
{
    if (!mr || --mr->refs > 0) return;
    if (mr->watch < 0) { /* not cacheable (cache off, hooks' table full): closed now */
        for (dfc_ofi_mr_t **l = &c->list; *l; l = &(*l)->next)
            if (*l == mr) {
                mr_close(c, l);
                return;
            }
    }
    mrc_trim(c);
}

void dfc_ofi_mrc_fini(dfc_ofi_mrc_t *c)
{
    while (c->list) mr_close(c, &c->list);
}
