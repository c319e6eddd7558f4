/*
 * part.c - partitioned communication (MPI-4.1 chapter 4), the simple way: a partitioned send
 * is a persistent send whose Start only opens a round; the whole buffer goes in one message
 * when the last partition of the round is marked ready. A partitioned receive is a persistent
 * receive of the whole buffer; every partition arrives when it completes (MPI allows arrival
 * to be reported late). The state of a request's partitions hangs on r->ext.
 */
#include <stdlib.h>
#include <string.h>

#include "comm/dfc_comm.h"

typedef struct dfc_part {
    int is_send;
    int partitions;
    int nready;           /* partitions marked ready this round (send) */
    unsigned char *ready; /* one flag per partition (send) */
} dfc_part_t;

static void part_destroy(dfc_req_t *r)
{
    dfc_part_t *p = r->ext;
    if (p) free(p->ready);
    free(p);
    r->ext = NULL;
}

/* Start of a send round: nothing is sent until every partition is ready. */
static int part_send_start(dfc_req_t *r)
{
    dfc_part_t *p = r->ext;
    memset(p->ready, 0, (size_t)p->partitions);
    p->nready = 0;
    return DFC_SUCCESS;
}

int dfc_part_attach(dfc_req_t *r, int partitions, int is_send)
{
    dfc_part_t *p = calloc(1, sizeof *p);
    if (p && is_send) p->ready = calloc((size_t)partitions, 1);
    if (!p || (is_send && !p->ready)) {
        free(p);
        return DFC_ERR(DFC_ERR_NO_MEM, "out of memory allocating partition state");
    }
    p->is_send = is_send;
    p->partitions = partitions;
    r->ext = p;
    r->destroy = part_destroy;
    if (is_send) r->start = part_send_start;
    return DFC_SUCCESS;
}

int dfc_part_check(dfc_req_t *r, const char *func, int want_send)
{
    if (!r || r->destroy != part_destroy || ((dfc_part_t *)r->ext)->is_send != want_send)
        return dfc_err(DFC_ERR_REQUEST, func, "invalid argument request: not a partitioned %s",
                       want_send ? "send request (DFC_Psend_init)"
                                 : "receive request (DFC_Precv_init)");
    if (want_send && !r->active)
        return dfc_err(DFC_ERR_REQUEST, func,
                       "invalid argument request: inactive (not started with DFC_Start)");
    return DFC_SUCCESS;
}

static int check_one(const char *func, const char *arg, const dfc_part_t *p, int i)
{
    if (i < 0 || i >= p->partitions)
        return dfc_err(DFC_ERR_ARG, func, "invalid argument %s: partition %d is outside [0, %d)",
                       arg, i, p->partitions);
    if (p->ready[i])
        return dfc_err(DFC_ERR_ARG, func,
                       "invalid argument %s: partition %d is already ready in this round", arg, i);
    return DFC_SUCCESS;
}

/* Marks partitions ready: [lo, hi] when list is NULL, else list[0..n). Checks all of them
 * before marking any, so that an error leaves the round as it was. */
int dfc_part_ready(dfc_req_t *r, const char *func, int lo, int hi, const int *list, int n)
{
    dfc_part_t *p = r->ext;
    const char *arg = list ? "array_of_partitions" : (lo == hi ? "partition" : "partition_low");
    int count = list ? n : hi - lo + 1, rc = DFC_SUCCESS;
    for (int k = 0; k < count; k++) {
        int i = list ? list[k] : lo + k;
        if ((rc = check_one(func, arg, p, i))) break;
        p->ready[i] = 2; /* marked in this call: a repeat in the list is an error too */
    }
    for (int k = 0; k < count; k++) {
        int i = list ? list[k] : lo + k;
        if (i >= 0 && i < p->partitions && p->ready[i] == 2) p->ready[i] = rc ? 0 : 1;
    }
    if (rc) return rc;
    p->nready += count;
    if (p->nready < p->partitions) return DFC_SUCCESS;
    /* Device buffers: copy in again now that the data is final (Start copied it early). */
    if ((rc = dfc_req_stage_in(r))) return rc;
    return dfc_p2p_isend(r->comm, 0, r->sbuf, r->bytes, r->peer, r->tag, r->sync, r);
}

int dfc_part_arrived(dfc_req_t *r, int partition, int *flag)
{
    dfc_part_t *p = r->ext;
    int rc;
    if (partition < 0 || partition >= p->partitions)
        return dfc_err(DFC_ERR_ARG, "DFC_Parrived",
                       "invalid argument partition: %d is outside [0, %d)", partition,
                       p->partitions);
    if (r->active && !r->complete && (rc = -dfc_progress_poll()) > 0) return rc;
    *flag = !r->active || r->complete;
    return DFC_SUCCESS;
}
