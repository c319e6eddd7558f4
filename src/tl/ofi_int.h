/*
 * ofi_int.h - the ofi transport's state, shared by ofi.c (endpoint, messages, progress) and
 * ofi_rma.c (rendezvous by RMA read). Internal to src/tl; needs libfabric.
 */
#ifndef DFC_OFI_INT_H
#define DFC_OFI_INT_H

#include "tl/dfc_tl.h"
#include "tl/ofi_fabric.h"
#include "tl/ofi_mr.h"
#include "tl/ofi_wire.h"

#define OFI_CQ_BATCH 16
#define OFI_NAME_MAX 256
#define OFI_READ_BLOCKS 16 /* of 16 read slots each (ofi_rma.c) */

/* BUF_SPILL: a receive copied out of its RX buffer during a blocking read (dfc_ofi_cq_drain),
 * one allocation with its bytes behind it. */
enum { BUF_RX = 0, BUF_TX = 1, BUF_CTL = 2, BUF_READ = 3, BUF_SPILL = 4 };

typedef struct ofi_buf {
    struct fi_context2 ctx; /* first: completions give its address back */
    int kind;               /* BUF_RX, BUF_TX, BUF_CTL, BUF_READ */
    int peer;               /* TX/CTL: index of the peer it went to */
    int next;               /* free list */
    uint32_t seq;           /* RX waiting in its peer's stash: the message's seq */
    struct ofi_buf *snext;  /* the peer's stash */
    size_t len;             /* RX in a stash: message length */
    char *mem;
    void *desc;
} ofi_buf_t;

typedef struct ofi_pool {
    ofi_buf_t *bufs;
    char *mem;
    struct fid_mr *mr;
    int n, free, nfree;
    size_t size;
} ofi_pool_t;

typedef struct ofi_peer {
    int world;
    fi_addr_t addr;
    int dead, unreported, hello_ok;
    int hello_sent;          /* our HELLO is posted: PKTs may follow (FI_ORDER_SAS) */
    int credits;             /* packets we may still send it */
    int owed;                /* its packets delivered here since we last gave credits back */
    uint32_t tx_seq, rx_seq; /* seq of the next message to it, expected next from it */
    ofi_buf_t *stash;        /* its messages that completed before an earlier one */
    uint64_t last_rx, last_tx;
    int inflight;         /* our sends to it not completed yet */
    int injected;         /* a packet injected since the last completed send (ofi_pending) */
    uint32_t inj_seq;     /* the seq of the last injected packet */
    uint64_t busy_since;  /* when its sends last made progress while some were in flight */
    uint64_t again_since; /* sends to it refused (-FI_EAGAIN) since then; 0: accepted */
    char why[128];
    struct ofi_offer *offers; /* its RTS keys we have not answered yet (ofi_rma.c), oldest first */
} ofi_peer_t;

typedef struct ofi {
    int rank, size;
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    int wait_fd; /* -1 without FI_WAIT_FD */
    /* A wait set of our own (FI_WAIT_SET) whose fd is wait_fd, where the provider's
     * fi_trywait does not prepare its CQ's fd for sleeping (net: ofi_prov.h); else NULL. */
    struct fid_wait *waitset;
    int has_source;
    ofi_pool_t rx, tx, ctl;
    ofi_peer_t *peers;
    int npeers;
    int *w2p; /* world rank -> index in peers, or -1 */
    uint8_t secret[DFC_OFI_SECRET_LEN];
    size_t max_payload;
    size_t inject_size; /* messages up to this size go out by fi_tinject (no completion) */
    int credits;
    int ntx_busy; /* TX and CTL buffers posted and not completed */
    int nunreported;
    uint64_t beat_ns, silence_ns, stuck_ns, last_progress;
    dfc_tl_deliver_fn deliver; /* during progress */
    int delivered;
    /* RMA rendezvous (ofi_rma.c) */
    int rma;                /* FI_RMA offered and DFC_OFI_RMA not 0 */
    size_t rma_min;         /* DFC_OFI_RMA_MIN: smaller rendezvous messages go as fragments */
    uint64_t mr_mode;       /* the domain's FI_MR_* requirements */
    uint64_t next_key;      /* keys we choose ourselves (without FI_MR_PROV_KEY) */
    size_t max_msg;         /* largest single read */
    dfc_ofi_mrc_t mrc;      /* registration cache */
    struct ofi_expo *expos; /* our buffers exposed to peers' reads (RTS sent, no answer) */
    int nexpos;
    ofi_buf_t rd;                            /* the context of rget's read in flight */
    struct ofi_read *reads[OFI_READ_BLOCKS]; /* rget_start's read slots (ofi_rma.c), blocks */
    int nreadblk;                            /* blocks allocated */
    int nreads;                              /* reads started and not yet answered by rget_test */
    int rd_busy, rd_err;          /* rd posted and not completed; its completion's error */
    struct ofi_rx_done *deferred; /* receives completed during a read, delivered later */
    int ndeferred, deferred_cap;
    int manual_progress; /* data moves only inside calls into the provider */
} ofi_t;

/* A receive completion held back while a read waits (nothing is delivered then). */
typedef struct ofi_rx_done {
    ofi_buf_t *b;
    size_t len;
    fi_addr_t src;
} ofi_rx_done_t;

/* ofi.c */
void dfc_ofi_peer_fail(ofi_t *s, ofi_peer_t *p, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int dfc_ofi_dead_err(const char *func, const ofi_peer_t *p);
/* Reads the completion queue; with defer, receives are held back in s->deferred (copied out
 * of their buffers, which are posted again: see the function). */
void dfc_ofi_cq_drain(ofi_t *s, int defer);
/* 1 when the completion queue may have entries (do not sleep); 0 when the caller may sleep on
 * s->wait_fd, which then wakes for the next one. Needs a wait fd. */
int dfc_ofi_wait_ready(ofi_t *s);
/* The periodic part of progress: beats, credits owed, the failure rules. */
void dfc_ofi_tick(ofi_t *s);

static inline ofi_peer_t *dfc_ofi_peer_of(ofi_t *s, int world)
{
    if (DFC_UNLIKELY(world < 0 || world >= s->size || s->w2p[world] < 0)) return NULL;
    return &s->peers[s->w2p[world]];
}

/* ofi_rma.c */
int dfc_ofi_rma_init(ofi_t *s, long cache_entries);
void dfc_ofi_rma_fini(ofi_t *s);
/* Sender: registers the buffer of an RTS for the peer's read, filling the key trailer;
 * returns the exposure to keep (dfc_ofi_rma_sent) or NULL (a plain RTS then). */
struct ofi_expo *dfc_ofi_rma_expose(ofi_t *s, const dfc_pkt_t *pkt, dfc_ofi_rkey_t *key);
void dfc_ofi_rma_sent(ofi_t *s, ofi_peer_t *p, struct ofi_expo *e, int posted);
/* A packet from p (before delivery) or to p (sent): answers and keys move exposures and
 * offers. */
void dfc_ofi_rma_on_pkt_in(ofi_t *s, ofi_peer_t *p, const dfc_pkt_t *pkt,
                           const dfc_ofi_rkey_t *key);
void dfc_ofi_rma_on_pkt_out(ofi_t *s, ofi_peer_t *p, const dfc_pkt_t *pkt);
/* p failed: its exposures and offers go. */
void dfc_ofi_rma_peer_gone(ofi_t *s, ofi_peer_t *p);
int dfc_ofi_rget(dfc_tl_t *tl, int peer, void *local, uint64_t remote_addr, size_t len,
                 unsigned flags);
int dfc_ofi_rget_start(dfc_tl_t *tl, int peer, void *local, uint64_t remote_addr, size_t len,
                       void **op);
int dfc_ofi_rget_test(dfc_tl_t *tl, void *op, int *done);
/* A read's completion (ok) or completion error (err != 0) came for context b. */
void dfc_ofi_read_done(ofi_t *s, ofi_buf_t *b, int err);

#endif /* DFC_OFI_INT_H */
