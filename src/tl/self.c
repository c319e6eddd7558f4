/*
 * self.c - the loopback transport: packets a process sends to itself.
 *
 * send copies the packet into a FIFO; progress delivers it. Delivery never happens inside
 * send, so the comm layer sees the same order of events as with a remote peer.
 */
#include <stdlib.h>
#include <string.h>

#include "tl/dfc_tl.h"
#include "util/dfc_util.h"

typedef struct self_pkt {
    struct self_pkt *next;
    dfc_pkt_t pkt;
    char payload[];
} self_pkt_t;

typedef struct self_state {
    self_pkt_t *head, *tail;
} self_state_t;

#define SELF_MAX_PAYLOAD (1u << 20)

static int self_init(dfc_tl_t *tl, const dfc_tl_job_t *job)
{
    (void)job;
    tl->priv = calloc(1, sizeof(self_state_t));
    if (!tl->priv) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    tl->max_payload = SELF_MAX_PAYLOAD;
    return DFC_SUCCESS;
}

static int self_send(dfc_tl_t *tl, int peer, const dfc_pkt_t *pkt, const void *payload)
{
    (void)peer;
    self_state_t *s = tl->priv;
    self_pkt_t *p = malloc(sizeof *p + pkt->payload_len);
    if (!p) return DFC_TL_AGAIN; /* retried after progress frees memory */
    p->next = NULL;
    p->pkt = *pkt;
    if (pkt->payload_len) memcpy(p->payload, payload, pkt->payload_len);
    if (s->tail) s->tail->next = p;
    else s->head = p;
    s->tail = p;
    return DFC_SUCCESS;
}

/* The peer is this process: "cross-memory attach" is a plain copy. */
static int self_rget(dfc_tl_t *tl, int peer, void *local, uint64_t remote_addr, size_t len,
                     unsigned flags)
{
    (void)tl;
    (void)peer;
    (void)flags;
    memcpy(local, (const void *)(uintptr_t)remote_addr, len);
    return DFC_SUCCESS;
}

static int self_progress(dfc_tl_t *tl, dfc_tl_deliver_fn deliver)
{
    self_state_t *s = tl->priv;
    /* Deliver only what is queued now: packets sent from inside deliver wait for the next
     * call, so one progress pass is bounded. */
    self_pkt_t *batch = s->head;
    s->head = s->tail = NULL;
    int n = 0;
    while (batch) {
        self_pkt_t *p = batch;
        batch = p->next;
        deliver(&p->pkt, p->payload);
        free(p);
        n++;
    }
    return n;
}

static int self_pending(dfc_tl_t *tl)
{
    self_state_t *s = tl->priv;
    return s->head != NULL;
}

static void self_fini(dfc_tl_t *tl)
{
    self_state_t *s = tl->priv;
    if (!s) return;
    while (s->head) {
        self_pkt_t *p = s->head;
        s->head = p->next;
        free(p);
    }
    free(s);
    tl->priv = NULL;
}

const dfc_tl_ops_t dfc_tl_self_ops = {
    .name = "self",
    .init = self_init,
    .send = self_send,
    .rget = self_rget,
    .progress = self_progress,
    .wait = NULL,
    .pending = self_pending,
    .fini = self_fini,
};
