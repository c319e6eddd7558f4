/*
 * api_count_c_w.c - what the large-count forms of the v and w collectives share
 * (api_count_c_v.c, api_count_c_nbr.c): their blocks, DFC_Count counts at DFC_Aint
 * displacements, as the int-count w forms (Alltoallw, Neighbor_alltoallw) take them.
 *
 * Each block keeps its count, datatype and displacement when they fit the w form's ints;
 * a block that does not fit becomes one item of a derived type of its own (a struct of the
 * count items, made as api_count_c.c makes its large types, at the displacement), with
 * count 1 at displacement 0. The choice is local to each block, and the v forms always go
 * through the w form, so every process makes the same collective call whatever its own
 * counts and displacements are (a process cannot know which of the others' do not fit).
 * The types made are freed after the inner call (its request holds what it needs).
 */
#include <limits.h>
#include <stdlib.h>

#include "api/api_count_c.h"

int dfc_api_wside_init(dfc_api_wside_t *w, int n)
{
    size_t m = (size_t)(n > 0 ? n : 0) + 1;
    *w = (dfc_api_wside_t){.n = n};
    w->counts = calloc(m, sizeof *w->counts);
    w->displs = calloc(m, sizeof *w->displs);
    w->adispls = calloc(m, sizeof *w->adispls);
    w->types = calloc(m, sizeof *w->types);
    w->made = calloc(m, sizeof *w->made);
    if (!w->counts || !w->displs || !w->adispls || !w->types || !w->made) return DFC_ERR_NO_MEM;
    for (size_t i = 0; i < m; i++) w->types[i] = DFC_BYTE;
    return DFC_SUCCESS;
}

int dfc_api_wside_done(dfc_api_wside_t *w, int rc)
{
    for (int i = 0; i < w->nmade; i++) DFC_Type_free(&w->made[i]);
    free(w->counts);
    free(w->displs);
    free(w->adispls);
    free(w->types);
    free(w->made);
    *w = (dfc_api_wside_t){0};
    return rc;
}

/* count items of t starting `disp` bytes from the buffer, as one item of a new type. */
static int block_type(DFC_Count count, DFC_Datatype t, DFC_Aint disp, DFC_Datatype *out)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, t, &b);
    if (rc) return rc;
    int bl = b.n;
    DFC_Datatype bt = b.use;
    if (!(rc = DFC_Type_create_struct(1, &bl, &disp, &bt, out)) && (rc = DFC_Type_commit(out)))
        DFC_Type_free(out);
    return dfc_api_big_done(&b, rc);
}

int dfc_api_wside_block(dfc_api_wside_t *w, int i, DFC_Count count, DFC_Datatype t, DFC_Aint disp)
{
    int int_disp = disp >= INT_MIN && disp <= INT_MAX;
    w->types[i] = t;
    if (count <= 0) { /* negative counts were refused before; empty blocks move nothing */
        w->counts[i] = 0;
        return DFC_SUCCESS;
    }
    if (count <= INT_MAX && (w->aint || int_disp) && !w->force) {
        w->counts[i] = (int)count;
        w->displs[i] = int_disp ? (int)disp : 0;
        w->adispls[i] = disp;
        return DFC_SUCCESS;
    }
    int rc = block_type(count, t, disp, &w->types[i]);
    if (rc) return rc;
    w->made[w->nmade++] = w->types[i];
    w->counts[i] = 1;
    return DFC_SUCCESS;
}

int dfc_api_count_check(const char *func, const char *name, const DFC_Count *counts, int n)
{
    if (n > 0 && !counts)
        return dfc_err(DFC_ERR_ARG, func, "invalid argument %s: NULL pointer", name);
    for (int i = 0; i < n; i++)
        if (counts[i] < 0)
            return dfc_err(DFC_ERR_COUNT, func,
                           "invalid argument %s: element %d is negative (%lld)", name, i,
                           (long long)counts[i]);
    return DFC_SUCCESS;
}

int dfc_api_c_fail(DFC_Comm comm, int rc)
{
    DFC_API_ENTER();
    rc = dfc_api_error(dfc_comm_get(comm), rc);
    DFC_API_EXIT();
    return rc;
}
