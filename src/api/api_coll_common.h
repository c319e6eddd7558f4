/*
 * api_coll_common.h - what the collective entry points share (api_coll.c, api_coll_move.c).
 *
 * Every collective exists in three forms with one body: blocking (start, then wait),
 * nonblocking (start, return the request) and persistent (build once, return an inactive
 * request that DFC_Start runs).
 */
#ifndef DFC_API_COLL_COMMON_H
#define DFC_API_COLL_COMMON_H

#include "api/dfc_api.h"
#include "coll/dfc_coll.h"

typedef enum { DFC_MODE_BLOCKING, DFC_MODE_NONBLOCKING, DFC_MODE_PERSISTENT } dfc_coll_mode_t;

/* The per-call context of an entry point. */
typedef struct dfc_coll_call {
    const char *func;
    dfc_coll_mode_t mode;
    DFC_Info info;         /* persistent: hints (dfc_priority) */
    DFC_Request *request;  /* nonblocking and persistent */
} dfc_coll_call_t;

/* Checks the arguments common to all forms: comm, and request/info by mode. */
int dfc_coll_check_call(const dfc_coll_call_t *call, DFC_Comm comm, dfc_comm_t **c);
/* Selects, builds, and runs (or prepares) the collective described by `a`. */
int dfc_coll_run(const dfc_coll_call_t *call, dfc_comm_t *c, dfc_coll_args_t *a, const void *sendbuf,
                 void *recvbuf, const dfc_dtype_t *dt, const dfc_op_t *op);
/* Checks a root argument. */
int dfc_coll_check_root(const char *func, const dfc_comm_t *c, int root);
/* Checks a (buffer, count, datatype) triple; buf may be DFC_IN_PLACE when in_place_ok. */
int dfc_coll_check_buf(const char *func, const char *bufname, const void *buf, int count,
                       DFC_Datatype dt, int in_place_ok, dfc_dtype_t **d);
/* Checks a counts array (and displacements, may be NULL) of comm size. */
int dfc_coll_check_counts(const char *func, const char *name, const int *counts, const int *displs,
                          int n);

/* The call context of the entry point where these are written (__func__ names it). */
#define DFC_BLOCKING_CALL ((dfc_coll_call_t){__func__, DFC_MODE_BLOCKING, DFC_INFO_NULL, NULL})
#define DFC_NONBLOCKING_CALL(req) ((dfc_coll_call_t){__func__, DFC_MODE_NONBLOCKING, DFC_INFO_NULL, (req)})
#define DFC_PERSISTENT_CALL(info, req) ((dfc_coll_call_t){__func__, DFC_MODE_PERSISTENT, (info), (req)})

#endif
