/*
 * sched.c - building schedules: appending steps and reserving scratch space.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/dfc_coll.h"

void dfc_sched_init(dfc_sched_t *s) { memset(s, 0, sizeof *s); }

void dfc_sched_destroy(dfc_sched_t *s)
{
    free(s->steps);
    dfc_sched_init(s);
}

static dfc_step_t *append(dfc_sched_t *s, int kind)
{
    if (s->nsteps == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        dfc_step_t *st = realloc(s->steps, (size_t)cap * sizeof *st);
        if (!st) return NULL;
        s->steps = st;
        s->cap = cap;
    }
    dfc_step_t *st = &s->steps[s->nsteps++];
    memset(st, 0, sizeof *st);
    st->kind = (uint8_t)kind;
    if (kind == DFC_STEP_SEND || kind == DFC_STEP_RECV || kind == DFC_STEP_RECV_REDUCE)
        s->ntransfers++;
    if (kind == DFC_STEP_REDUCE || kind == DFC_STEP_RECV_REDUCE) s->reduces = 1;
    return st;
}

#define APPEND_OR_FAIL(st, s, kind)       \
    dfc_step_t *st = append((s), (kind)); \
    if (!st) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory building a collective schedule")

int dfc_sched_send(dfc_sched_t *s, int peer, int buf, uint64_t off, uint64_t bytes)
{
    APPEND_OR_FAIL(st, s, DFC_STEP_SEND);
    st->peer = peer;
    st->src_buf = (uint8_t)buf;
    st->src_off = off;
    st->bytes = bytes;
    return DFC_SUCCESS;
}

int dfc_sched_recv(dfc_sched_t *s, int peer, int buf, uint64_t off, uint64_t bytes)
{
    APPEND_OR_FAIL(st, s, DFC_STEP_RECV);
    st->peer = peer;
    st->dst_buf = (uint8_t)buf;
    st->dst_off = off;
    st->bytes = bytes;
    return DFC_SUCCESS;
}

int dfc_sched_recv_reduce(dfc_sched_t *s, int peer, int buf, uint64_t off, uint64_t count,
                          uint64_t bytes, uint64_t tmp_off, int order)
{
    APPEND_OR_FAIL(st, s, DFC_STEP_RECV_REDUCE);
    st->peer = peer;
    st->dst_buf = (uint8_t)buf;
    st->dst_off = off;
    st->count = count;
    st->bytes = bytes;
    st->tmp_off = tmp_off;
    st->order = (uint8_t)order;
    return DFC_SUCCESS;
}

int dfc_sched_copy(dfc_sched_t *s, int src_buf, uint64_t src_off, int dst_buf, uint64_t dst_off,
                   uint64_t bytes)
{
    if (bytes == 0 || (src_buf == dst_buf && src_off == dst_off)) return DFC_SUCCESS;
    APPEND_OR_FAIL(st, s, DFC_STEP_COPY);
    st->src_buf = (uint8_t)src_buf;
    st->src_off = src_off;
    st->dst_buf = (uint8_t)dst_buf;
    st->dst_off = dst_off;
    st->bytes = bytes;
    return DFC_SUCCESS;
}

int dfc_sched_reduce(dfc_sched_t *s, int src_buf, uint64_t src_off, int dst_buf, uint64_t dst_off,
                     uint64_t count, int order)
{
    if (count == 0) return DFC_SUCCESS;
    APPEND_OR_FAIL(st, s, DFC_STEP_REDUCE);
    st->src_buf = (uint8_t)src_buf;
    st->src_off = src_off;
    st->dst_buf = (uint8_t)dst_buf;
    st->dst_off = dst_off;
    st->count = count;
    st->order = (uint8_t)order;
    return DFC_SUCCESS;
}

/* A SLOT_ALLREDUCE step: one exchange of the slot schedules, told apart by `peer` (-1:
 * every member's contribution reduced; a root: bcast; DFC_SLOT_PEER_*: the others). */
static int slot_step(dfc_sched_t *s, int peer, int src_buf, uint64_t src_off, uint64_t dst_off,
                     uint64_t count, uint64_t bytes, uint64_t tmp_off)
{
    APPEND_OR_FAIL(st, s, DFC_STEP_SLOT_ALLREDUCE);
    st->src_buf = (uint8_t)src_buf;
    st->src_off = src_off;
    st->dst_buf = DFC_BUF_RECV;
    st->dst_off = dst_off;
    st->peer = peer;
    st->count = count;
    st->bytes = bytes;
    st->tmp_off = tmp_off;
    s->uses_slots++;
    return DFC_SUCCESS;
}

int dfc_sched_slot_allreduce(dfc_sched_t *s, int src_buf, uint64_t count, uint64_t bytes,
                             uint64_t tmp_off)
{
    return slot_step(s, -1, src_buf, 0, 0, count, bytes, tmp_off); /* every member contributes */
}

int dfc_sched_slot_alltoall(dfc_sched_t *s, int src_buf, uint64_t block, uint64_t bytes)
{
    return slot_step(s, DFC_SLOT_PEER_ALLTOALL, src_buf, 0, 0, block, bytes, 0);
}

int dfc_sched_slot_allgather(dfc_sched_t *s, int src_buf, uint64_t src_off, uint64_t piece_off,
                             uint64_t block, uint64_t bytes)
{
    return slot_step(s, DFC_SLOT_PEER_ALLGATHER, src_buf, src_off, piece_off, block, bytes, 0);
}

int dfc_sched_slot_reduce_scatter(dfc_sched_t *s, int src_buf, uint64_t off, uint64_t count,
                                  uint64_t bytes, uint64_t tmp_off)
{
    return slot_step(s, DFC_SLOT_PEER_REDUCE_SCATTER, src_buf, off, off, count, bytes, tmp_off);
}

int dfc_sched_slot_allgather_chunks(dfc_sched_t *s, uint64_t off, uint64_t chunk_off,
                                    uint64_t count, uint64_t bytes)
{
    return slot_step(s, DFC_SLOT_PEER_ALLGATHER_CHUNKS, DFC_BUF_RECV, off + chunk_off, off, count,
                     bytes, 0);
}

int dfc_sched_slot_bcast(dfc_sched_t *s, int root, uint64_t off, uint64_t bytes)
{
    return slot_step(s, root, DFC_BUF_RECV, off, off, 0, bytes, 0);
}

int dfc_sched_fence(dfc_sched_t *s)
{
    /* Two fences in a row, or a fence first, wait for nothing. */
    if (s->nsteps == 0 || s->steps[s->nsteps - 1].kind == DFC_STEP_FENCE) return DFC_SUCCESS;
    APPEND_OR_FAIL(st, s, DFC_STEP_FENCE);
    (void)st;
    return DFC_SUCCESS;
}

uint64_t dfc_sched_tmp(dfc_sched_t *s, uint64_t bytes)
{
    uint64_t off = (s->tmp_bytes + 7) & ~(uint64_t)7;
    s->tmp_bytes = off + bytes;
    return off;
}
