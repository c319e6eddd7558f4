/*
 * htable.c - handle tables: integer handles (kind << 24 | index) to object pointers.
 * Integer handles let every entry point detect a null, freed or wrong-kind handle instead of
 * dereferencing it (MPICH's choice).
 */
#include <stdlib.h>
#include <string.h>

#include "util/dfc_util.h"

void dfc_htable_init(dfc_htable_t *t, int kind, uint32_t first_dynamic)
{
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->first = first_dynamic;
    t->next = first_dynamic;
}

static int grow(dfc_htable_t *t, uint32_t need)
{
    if (need < t->cap) return 1;
    uint32_t cap = t->cap ? t->cap : 64;
    while (cap <= need) cap *= 2;
    if (cap > 0xffffffu) return 0;
    void **s = realloc(t->slots, cap * sizeof *s);
    uint32_t *f = realloc(t->freelist, cap * sizeof *f);
    if (!s || !f) {
        if (s) t->slots = s;
        if (f) t->freelist = f;
        return 0;
    }
    memset(s + t->cap, 0, (cap - t->cap) * sizeof *s);
    t->slots = s;
    t->freelist = f;
    t->cap = cap;
    return 1;
}

void dfc_htable_set(dfc_htable_t *t, uint32_t index, void *obj)
{
    if (grow(t, index)) t->slots[index] = obj;
}

int dfc_htable_add(dfc_htable_t *t, void *obj)
{
    uint32_t i;
    if (t->nfree) {
        i = t->freelist[--t->nfree];
    } else {
        if (!grow(t, t->next)) return 0;
        i = t->next++;
    }
    t->slots[i] = obj;
    return (int)(((unsigned)t->kind << 24) | i);
}

void dfc_htable_remove(dfc_htable_t *t, int h)
{
    uint32_t i = DFC_HANDLE_INDEX(h);
    if (DFC_HANDLE_KIND(h) != (unsigned)t->kind || i == 0 || i >= t->cap || !t->slots[i]) return;
    t->slots[i] = NULL;
    if (i >= t->first) t->freelist[t->nfree++] = i;
}

void dfc_htable_destroy(dfc_htable_t *t)
{
    free(t->slots);
    free(t->freelist);
    int kind = t->kind;
    uint32_t first = t->first;
    dfc_htable_init(t, kind, first);
}
