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

#endif
