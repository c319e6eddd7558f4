/*
 * dfc_win.h - one-sided communication (RMA windows): the engine behind src/api/api_win.c.
 *
 * A window has one of two backends, chosen at creation (dfc(7), "One-sided communication"):
 *  - SHM: Win_allocate and Win_allocate_shared when every member is on this node. The memory
 *    of all members is one shared segment; Put/Get are memcpy, accumulates hold a per-target
 *    spinlock in the segment, passive-target locks are a reader/writer word per target. The
 *    target takes no part, so passive target completes while it computes.
 *  - AM (active messages): Win_create, Win_create_dynamic, and any window spanning nodes.
 *    Every operation is a message on the window's private communicator (point-to-point
 *    context), applied by the target's progress engine (win_am.c, dfc_win_progress) in the
 *    order it arrived; replies (Get data, lock grants, flush acknowledgements) come back on
 *    its collective context. The first such window starts the progress thread
 *    (DFC_RMA_PROGRESS_THREAD), so that passive target completes while the target computes.
 * Synchronization (win_sync.c): fence = complete own operations + barrier; lock/unlock and
 * flush; post/start/complete/wait with POST and DONE messages on both backends.
 */
#ifndef DFC_WIN_H
#define DFC_WIN_H

#include <stdatomic.h>
#include <string.h>

#include "comm/dfc_comm.h"

enum { DFC_WIN_BACKEND_AM = 0, DFC_WIN_BACKEND_SHM = 1 };

/* Per-target control words in a SHM window's segment: the words origins take, then on a
 * cache line of their own the member's fence flags (win_sync.c: round k of the dissemination
 * barrier stores the fence's sequence number into bar[k] of its partner, which waits there,
 * asleep on the word (futex) after a long wait, counted in bar_sleepers so the store wakes it). */
#define DFC_WIN_BAR_ROUNDS 15 /* up to 32768 members; more use the window's message barrier */
typedef struct dfc_win_ctl {
    _Atomic int lock; /* passive-target lock: DFC_WIN_LOCK_EXCL bit, or a count of readers */
    _Atomic int acc;  /* accumulate spinlock: 0 free, 1 held */
    char pad[56];
    _Atomic uint32_t bar[DFC_WIN_BAR_ROUNDS];
    _Atomic uint32_t bar_sleepers;
} dfc_win_ctl_t;
#define DFC_WIN_LOCK_EXCL (1 << 30)

/* An attached region of a dynamic window. */
typedef struct dfc_win_region {
    uintptr_t base;
    size_t size;
    int dev; /* device memory (asked of the memory-type cache once, at attach) */
} dfc_win_region_t;

typedef struct dfc_win {
    int handle;
    int flavor;       /* DFC_WIN_FLAVOR_* */
    int model;        /* DFC_WIN_UNIFIED */
    int backend;      /* DFC_WIN_BACKEND_* */
    dfc_comm_t *comm; /* private duplicate: requests on its p2p context, replies and the
                         window's own collectives on its collective context */
    int rank, size;
    void *base;
    DFC_Aint size_bytes;
    int disp_unit;
    DFC_Aint *sizes; /* of every member (range checks at the origin) */
    int *disp_units;
    char **bases;    /* SHM: every member's memory in this process's mapping */
    void *own_alloc; /* AM Win_allocate: memory to free */
    void *seg;       /* SHM: the mapping */
    size_t seg_bytes;
    dfc_win_ctl_t *ctl;        /* SHM: size entries */
    dfc_win_region_t *regions; /* dynamic: attached regions (this process) */
    int nregions;
    char name[DFC_MAX_OBJECT_NAME];
    DFC_Errhandler errhandler;
    dfc_info_t *info;
    dfc_attr_t *attrs; /* the user's attributes (api_attr.c), deleted by Win_free */
    /* epochs at the origin */
    int fence_epoch; /* a fence opened an epoch (no DFC_MODE_NOSUCCEED) */
    uint32_t fences; /* SHM: fences so far (the sequence number of the barrier flags) */
    int *locked;     /* per target: 0, DFC_LOCK_SHARED or DFC_LOCK_EXCLUSIVE */
    int lock_all;
    dfc_group_t *start_group;     /* access epoch of Win_start, or NULL */
    dfc_group_t *post_group;      /* exposure epoch of Win_post, or NULL */
    int *posts_seen, *dones_seen; /* POST / DONE messages received, per member */
    /* AM origin: operations in flight, and how many per target */
    dfc_list_t recs;
    int *pending;
    int *touched;          /* a Put or Accumulate went to the target since its last flush */
    struct win_rec **held; /* per target: a small Put/Accumulate not yet sent (win_am.c) */
    uint32_t next_tag;
    /* AM target */
    dfc_list_t inbox;   /* received requests, applied in arrival order */
    dfc_list_t replies; /* replies being sent */
    dfc_list_t waiters; /* lock requests not yet granted */
    int excl_holder;    /* -1 or the rank holding the exclusive lock */
    int nshared;
    int error; /* first error of an operation in flight (reported by the next sync call) */
    /* Device windows (win_dev.c) */
    int dev_mem;        /* this process's memory (Win_create) is device memory */
    dfc_gpu_ipc_t *ipc; /* per member: its device memory, exported, which this process copies
                           to and from directly (buffer_id 0: through messages); NULL: none */
    dfc_list_t devops;  /* those direct copies in flight (counted in pending[]) */
    dfc_list_t link;    /* all windows */
} dfc_win_t;

extern dfc_htable_t dfc_win_table;
static inline dfc_win_t *dfc_win_get(DFC_Win h)
{
    return (dfc_win_t *)dfc_htable_get(&dfc_win_table, h);
}
/* Checks a window handle; records "<func>: invalid argument <argname>: ..." (DFC_ERR_WIN). */
int dfc_win_check(DFC_Win h, const char *func, const char *argname, dfc_win_t **out);
int dfc_win_init(void);
void dfc_win_finalize(void);
void dfc_win_register_params(void); /* for dfc_env_register_all */

/* Construction (win.c), collective over comm. base/size: Win_create's memory (flavor
 * CREATE); for ALLOCATE and SHARED the memory is allocated and returned in *baseptr. */
int dfc_win_create(int flavor, void *base, DFC_Aint size, int disp_unit, const dfc_info_t *info,
                   dfc_comm_t *comm, void *baseptr, DFC_Win *out);
/* Deletes the user's attributes, then frees; *kept is 1 when a delete callback refused
 * (its code returned) and the window is still there. */
int dfc_win_free(dfc_win_t *w, int *kept);
int dfc_win_shared_query(dfc_win_t *w, int rank, DFC_Aint *size, int *disp_unit, void *baseptr);
int dfc_win_attach(dfc_win_t *w, void *base, DFC_Aint size);
int dfc_win_detach(dfc_win_t *w, const void *base);
int dfc_win_get_attr(dfc_win_t *w, int keyval, void *attribute_val, int *flag);
int dfc_win_get_group(dfc_win_t *w, DFC_Group *group);
int dfc_win_set_info(dfc_win_t *w, const dfc_info_t *info);
int dfc_win_get_info(dfc_win_t *w, DFC_Info *info_used);

/* One operation (win_ops.c), after the api's argument checks. */
enum {
    DFC_WIN_OP_PUT = 1,
    DFC_WIN_OP_GET,
    DFC_WIN_OP_ACC,  /* Accumulate */
    DFC_WIN_OP_GACC, /* Get_accumulate, Fetch_and_op */
    DFC_WIN_OP_CAS
};
typedef struct dfc_win_op {
    int kind;
    const void *origin;      /* Put/Accumulate data; CAS: the new value */
    const void *compare;     /* CAS */
    void *result;            /* Get, Get_accumulate, CAS */
    uint64_t bytes;          /* bytes moved at the target */
    const dfc_dtype_t *base; /* the predefined element type (accumulates) */
    const dfc_op_t *op;      /* accumulates */
    int target;
    DFC_Aint disp;
} dfc_win_op_t;
/* Starts the operation; with `request` (Rput...), gives the user a request that completes
 * as MPI says (local completion; Get-like: the result is there). */
int dfc_win_op(dfc_win_t *w, const char *func, const dfc_win_op_t *op, DFC_Request *request);

/* Synchronization (win_sync.c). Each checks the epoch state and records DFC_ERR_RMA_SYNC
 * messages naming func. */
int dfc_win_fence(dfc_win_t *w, int assert);
int dfc_win_lock(dfc_win_t *w, int lock_type, int rank);
int dfc_win_unlock(dfc_win_t *w, int rank);
int dfc_win_lock_all(dfc_win_t *w);
int dfc_win_unlock_all(dfc_win_t *w);
int dfc_win_flush(dfc_win_t *w, int rank); /* rank -1: all */
int dfc_win_sync(dfc_win_t *w);
int dfc_win_post(dfc_win_t *w, dfc_group_t *g);
int dfc_win_start(dfc_win_t *w, dfc_group_t *g);
int dfc_win_complete(dfc_win_t *w);
int dfc_win_wait(dfc_win_t *w, int test, int *flag);

/* ---- Inside the engine (win.c, win_am.c, win_sync.c, win_ops.c) ---------------------- */
/* Messages of the AM protocol: a header, then data. */
enum {
    DFC_WIN_MSG_PUT = 1,
    DFC_WIN_MSG_GET,
    DFC_WIN_MSG_ACC,
    DFC_WIN_MSG_GACC,
    DFC_WIN_MSG_CAS,
    DFC_WIN_MSG_LOCK_SHARED,
    DFC_WIN_MSG_LOCK_EXCL,
    DFC_WIN_MSG_UNLOCK,
    DFC_WIN_MSG_FLUSH,
    DFC_WIN_MSG_POST,
    DFC_WIN_MSG_DONE,
    DFC_WIN_MSG_PUT_LARGE, /* a Put whose data follows in its own message (tag 1) */
    DFC_WIN_MSG_ACC_LARGE, /* the same for an Accumulate (received apart, then applied) */
    DFC_WIN_MSG_KIND = 0xff,
    DFC_WIN_MSG_ACK = 0x100,    /* flag on PUT and ACC: acknowledge once applied (a flush) */
    DFC_WIN_MSG_UNLOCKS = 0x200 /* ... and then release the origin's lock (an UNLOCK) */
};
typedef struct dfc_win_msg {
    uint32_t kind;
    uint32_t tag;    /* of the reply, on the collective context */
    int32_t op;      /* op handle (accumulates) */
    int32_t dtype;   /* predefined element type handle (accumulates) */
    uint64_t offset; /* byte offset in the target's window (dynamic: the address) */
    uint64_t bytes;  /* bytes at the target */
} dfc_win_msg_t;

/* Sends a message to `target`; data (dbytes) is copied. With reply_bytes >= 0 a reply of
 * that many bytes is awaited into reply_buf. user: a request completed with the message. */
int dfc_win_am_send(dfc_win_t *w, int target, dfc_win_msg_t *hdr, const void *data, size_t dbytes,
                    void *reply_buf, long reply_bytes, dfc_req_t *user);
/* A Put or Accumulate of more than DFC_WIN_PUT_COPY_MAX bytes: the data goes straight from
 * the origin buffer (MPI lets the origin reuse it only once the operation completes) in a
 * message of its own, which the target receives when it reaches the header (rendezvous: on
 * one node the target copies it across processes once): a Put's into the window, an
 * Accumulate's into a scratch buffer that is then applied. */
#define DFC_WIN_PUT_COPY_MAX 16384
int dfc_win_am_send_large(dfc_win_t *w, int target, dfc_win_msg_t *hdr, const void *data,
                          size_t bytes, dfc_req_t *user);
/* This process's memory at a request's offset (dynamic windows: address) and length, or NULL
 * when it is not all in the window (an attached region). */
char *dfc_win_local_addr(dfc_win_t *w, uint64_t offset, uint64_t bytes);
/* A small Put or Accumulate without a request is held at the origin until the next message
 * to its target or a synchronization (MPI lets an operation wait for the call that completes
 * it): a flush then rides on it (DFC_WIN_MSG_ACK) instead of a FLUSH message of its own.
 * dfc_win_am_release sends target's held message, asking for an acknowledgement with ack
 * (it then counts as the flush); *sent (may be NULL) says whether there was one. */
int dfc_win_am_release(dfc_win_t *w, int target, int ack, int *sent);
/* The same for unlock: the held message, when there is one, carries the UNLOCK. */
int dfc_win_am_release_unlock(dfc_win_t *w, int target, int *sent);
/* Progresses until every operation to target (-1: every target) is complete, held ones sent. */
int dfc_win_am_wait_target(dfc_win_t *w, int target);
/* The progress engine's pass over windows: applies arrived requests, frees finished
 * operations. Returns the number of events. */
int dfc_win_progress(void);
extern int dfc_win_count; /* live windows */
/* dfc_win_progress while windows exist, else NULL (progress.c calls it each pass). */
extern int (*dfc_win_progress_hook)(void);
/* dfc_win_report while windows exist: the hang report's lines about windows. */
extern void (*dfc_win_report_hook)(FILE *f);
void dfc_win_report(FILE *f);
extern dfc_list_t dfc_win_list;
/* Collectives among the window's members on its private communicator. */
int dfc_win_barrier(dfc_win_t *w);
int dfc_win_allgather(dfc_win_t *w, const void *mine, size_t bytes, void *all);
/* Applies an accumulate: target = origin (op) target, as MPI's accumulate. */
void dfc_win_apply(const dfc_op_t *op, const dfc_dtype_t *base, const void *origin, void *target,
                   uint64_t bytes);
/* ---- Device memory (win_dev.c; dfc(7), "Device-memory windows") ------------------------
 * Win_create over device memory: each process exports its memory's CUDA IPC handle once
 * (cuda/ipc.c, the export cache of device point-to-point) and the members gather them; an
 * origin on the same node then Puts and Gets with copies on DFC's stream straight to and from
 * the target's memory, mapped through ipc.c's cache of open handles, completed by the next
 * synchronization. Everything else (accumulates, which the target must apply one at a time,
 * other nodes, dynamic windows, memory IPC cannot export) goes through the messages of
 * win_am.c, with the target copying device memory where it used memcpy. */
/* At creation, after the members' information was gathered: info of every member. */
typedef struct dfc_win_devinfo {
    int32_t dev;       /* device ordinal of the member's memory, -1 host */
    int32_t node;      /* node id */
    dfc_gpu_ipc_t ipc; /* buffer_id 0: not exported */
} dfc_win_devinfo_t;
/* This process's part: sets w->dev_mem and exports base when it is device memory. */
void dfc_win_dev_mine(dfc_win_t *w, void *base, DFC_Aint size, dfc_win_devinfo_t *mine);
/* Keeps the handles of same-node device members this process can map (w->ipc). */
int dfc_win_dev_setup(dfc_win_t *w, const dfc_win_devinfo_t *all);
/* 1 when the operation goes straight to the target's memory (a Put or Get to a mapped
 * member); dfc_win_dev_direct then starts it. */
int dfc_win_dev_is_direct(const dfc_win_t *w, const dfc_win_op_t *op);
int dfc_win_dev_direct(dfc_win_t *w, const dfc_win_op_t *op, uint64_t off, dfc_req_t *user);
/* Waits until the direct copies to target (-1: all) are done (before an UNLOCK or DONE). */
int dfc_win_dev_drain(dfc_win_t *w, int target);
/* Progress: completes finished direct copies. Returns the number of events. */
int dfc_win_dev_progress(dfc_win_t *w);
/* Whether this process's window memory at t is device memory. */
int dfc_win_dev_at(const dfc_win_t *w, const void *t);
/* memcpy where either side may be device memory (the memory-type cache says which). */
int dfc_win_copy(void *dst, const void *src, uint64_t bytes);
/* An operation's data movement on memory t of this process (tdev: device memory), with the
 * origin, compare and result buffers anywhere: loads and stores, or copies to host,
 * arithmetic, and copies back. The caller makes it atomic. */
int dfc_win_dev_local(const dfc_win_op_t *op, char *t, int tdev);

/* SHM: the accumulate lock of target. */
void dfc_win_shm_acc_lock(dfc_win_t *w, int target);
void dfc_win_shm_acc_unlock(dfc_win_t *w, int target);
/* SHM: one attempt at rank's passive-target lock (1: taken), and its release. Inline: the
 * api's fast paths (api_win_sync.c) take them without a call. The release is a sequentially
 * consistent read-modify-write or store, so the epoch's stores are visible before the lock is
 * free (and, on x86, before the unlock returns). */
static inline int dfc_win_shm_try_lock(dfc_win_t *w, int rank, int excl)
{
    _Atomic int *l = &w->ctl[rank].lock;
    if (excl) {
        int expect = 0;
        return atomic_compare_exchange_strong(l, &expect, DFC_WIN_LOCK_EXCL);
    }
    if (atomic_fetch_add(l, 1) & DFC_WIN_LOCK_EXCL) {
        atomic_fetch_sub(l, 1);
        return 0;
    }
    return 1;
}
static inline void dfc_win_shm_unlock(dfc_win_t *w, int rank, int excl)
{
    if (excl) atomic_store(&w->ctl[rank].lock, 0);
    else atomic_fetch_sub(&w->ctl[rank].lock, 1);
}
/* SHM: the accumulate lock of target as the fast paths take it: one attempt inline, the
 * waiting loop (dfc_win_shm_acc_lock) only when it is held; the release is a store. */
static inline void dfc_win_shm_acc_enter(dfc_win_t *w, int target)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong_explicit(&w->ctl[target].acc, &expect, 1,
                                                 memory_order_acquire, memory_order_relaxed))
        dfc_win_shm_acc_lock(w, target);
}
static inline void dfc_win_shm_acc_exit(dfc_win_t *w, int target)
{
    atomic_store_explicit(&w->ctl[target].acc, 0, memory_order_release);
}
/* SHM: the operation of the api's fast path (api_win_ops.c), once the arguments were found
 * right there, inline so that a small Put costs no call through the library's PLT: count items
 * of the dense type dt between origin (host memory) and t, the target's memory in the segment;
 * an Accumulate (DFC_WIN_OP_ACC, a predefined dt and op) under the target's accumulate lock,
 * as local_op (win_ops.c) applies it. */
static inline void dfc_win_shm_fast_op(dfc_win_t *w, int kind, void *origin, char *t, size_t count,
                                       const dfc_dtype_t *dt, const dfc_op_t *op, int target)
{
    if (kind == DFC_WIN_OP_PUT) memcpy(t, origin, count * dt->size);
    else if (kind == DFC_WIN_OP_GET) memcpy(origin, t, count * dt->size);
    else {
        dfc_win_shm_acc_enter(w, target);
        dfc_op_reduce(op, dt, origin, t, count);
        dfc_win_shm_acc_exit(w, target);
    }
}

#endif /* DFC_WIN_H */
