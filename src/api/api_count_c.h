/*
 * api_count_c.h - what the large-count (_c) wrappers share (api_count_c*.c): a DFC_Count
 * count of a datatype as an int count of a datatype (the same one when the count fits an
 * int, else one item of a derived type that holds them all; api_count_c.c says how).
 */
#ifndef DFC_API_COUNT_C_H
#define DFC_API_COUNT_C_H

#include "api/dfc_api.h"

typedef struct dfc_api_big {
    int n;            /* the count the int form gets */
    DFC_Datatype use; /* and its datatype */
    DFC_Datatype tmp; /* the derived type made for it, or DFC_DATATYPE_NULL */
} dfc_api_big_t;

/* count items of dt as (b->n, b->use). */
int dfc_api_big_type(DFC_Count count, DFC_Datatype dt, dfc_api_big_t *b);
/* Frees b's derived type (the inner call's request holds what it needs) and returns rc. */
int dfc_api_big_done(dfc_api_big_t *b, int rc);

/* The v and w collectives' blocks as the int-count w forms take them (api_count_c_w.c):
 * n entries of counts, int and DFC_Aint byte displacements and datatypes (DFC_BYTE where
 * empty); a block that does not fit is one item of a type made for it (made[], freed by
 * dfc_api_wside_done). aint: the w form takes DFC_Aint displacements (Neighbor_alltoallw). */
typedef struct dfc_api_wside {
    int n, aint;
    int force; /* every non-empty block gets a type of its own (absolute addresses) */
    int *counts, *displs;
    DFC_Aint *adispls;
    DFC_Datatype *types, *made;
    int nmade;
} dfc_api_wside_t;
int dfc_api_wside_init(dfc_api_wside_t *w, int n); /* DFC_ERR_NO_MEM (not reported) */
/* Block i: count items of t at disp bytes from the buffer (count >= 0). */
int dfc_api_wside_block(dfc_api_wside_t *w, int i, DFC_Count count, DFC_Datatype t, DFC_Aint disp);
int dfc_api_wside_done(dfc_api_wside_t *w, int rc); /* frees what it made; returns rc */
/* n counts, none negative (under the library lock: records the message). */
int dfc_api_count_check(const char *func, const char *name, const DFC_Count *counts, int n);
/* Hands rc (a recorded error) to comm's error handler and returns what the handler leaves. */
int dfc_api_c_fail(DFC_Comm comm, int rc);

/* The call context of a large-count v or w form: mode 0 blocking, 1 nonblocking, 2
 * persistent. */
typedef struct dfc_api_kcall {
    const char *func;
    int mode;
    DFC_Info info;
    DFC_Request *request;
} dfc_api_kcall_t;
#define DFC_API_KB ((dfc_api_kcall_t){__func__, 0, DFC_INFO_NULL, NULL})
#define DFC_API_KN(req) ((dfc_api_kcall_t){__func__, 1, DFC_INFO_NULL, (req)})
#define DFC_API_KP(info, req) ((dfc_api_kcall_t){__func__, 2, (info), (req)})

#endif
