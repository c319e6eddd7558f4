/*
 * ofi_mr.h - the ofi transport's memory registration cache (ofi_mr.c) and the hooks that
 * tell it when registered memory is freed (ofi_hook.c).
 *
 * Registering memory with a NIC (verbs, efa) pins its pages and costs microseconds to
 * milliseconds, so a buffer sent again and again should be registered once. The cache keeps
 * up to `max` registrations, each for the exact byte range it was asked for (never rounded
 * out to pages: a remote key must not reach a byte the application did not send), reuses
 * one whose range covers a later request, and closes the least recently used unused one
 * when full. A cached registration must never outlive its memory: a pinning provider keeps
 * reading the old pages after free and munmap, so a buffer freed and allocated again at the
 * same address would send stale data. ofi_hook.c defines free, realloc, munmap and mremap
 * (forwarding to the next definition) and marks every cached range they touch stale; a
 * stale registration is closed instead of reused. Where the hooks are not reached (libdfc
 * loaded with dlopen after libc, an allocator that frees with its own system calls) the
 * cache finds out at init (dfc_ofi_hooks_live) and registers per transfer instead.
 *
 * Free of libfabric: the transport passes its register and close functions, so that
 * test/unit/test_ofi_mr.c checks the cache with fakes. Not thread-safe (the comm layer's
 * lock serializes its callers); the hooks are, and take no lock.
 */
#ifndef DFC_OFI_MR_H
#define DFC_OFI_MR_H

#include <stddef.h>
#include <stdint.h>

typedef struct dfc_ofi_mr {
    uintptr_t base; /* the registered range */
    size_t len;
    uint64_t access; /* what it was registered for (FI_READ, FI_REMOTE_READ ...) */
    void *handle;    /* set by the register function: the provider's object */
    void *desc;      /*   its local descriptor */
    uint64_t key;    /*   its remote key */
    int refs;        /* transfers using it now */
    int watch;       /* its slot in the hooks' table, -1 when not watched (cache off) */
    uint64_t used;   /* LRU clock of its last use */
    struct dfc_ofi_mr *next;
} dfc_ofi_mr_t;

/* Register mr->base/len for mr->access, filling handle, desc and key; 0 or an error code. */
typedef int (*dfc_ofi_mr_reg_fn)(void *ctx, dfc_ofi_mr_t *mr);
typedef void (*dfc_ofi_mr_dereg_fn)(void *ctx, dfc_ofi_mr_t *mr);

typedef struct dfc_ofi_mrc {
    dfc_ofi_mr_t *list;
    int n, max; /* registrations held; at most max unused ones (0: no cache) */
    uint64_t clock;
    dfc_ofi_mr_reg_fn reg;
    dfc_ofi_mr_dereg_fn dereg;
    void *ctx;
    uint64_t hits, misses, evicted, stale; /* for tests and the debug log */
} dfc_ofi_mrc_t;

/* max: registrations kept (capped by the hooks' table); 0 or dead hooks: none kept. */
void dfc_ofi_mrc_init(dfc_ofi_mrc_t *c, int max, dfc_ofi_mr_reg_fn reg, dfc_ofi_mr_dereg_fn dereg,
                      void *ctx);
/* A registration covering [addr, addr+len) with at least `access`, one reference taken.
 * Returns 0 or the register function's error (nothing held then). */
int dfc_ofi_mrc_get(dfc_ofi_mrc_t *c, const void *addr, size_t len, uint64_t access,
                    dfc_ofi_mr_t **out);
/* Drops the reference; the registration stays cached (unless stale or over the bound). */
void dfc_ofi_mrc_put(dfc_ofi_mrc_t *c, dfc_ofi_mr_t *mr);
/* Closes every registration, used or not (the transport is going away). */
void dfc_ofi_mrc_fini(dfc_ofi_mrc_t *c);

/* ---- ofi_hook.c: the table of watched ranges ---------------------------------------------- */
#define DFC_OFI_WATCH_MAX 256
/* 1 when this process's free reaches ofi_hook.c (probed once). */
int dfc_ofi_hooks_live(void);
/* Watches [base, base+len); returns its slot, or -1 when the table is full. */
int dfc_ofi_watch_add(uintptr_t base, size_t len);
/* 1 when memory of the slot's range was freed or unmapped since it was added. */
int dfc_ofi_watch_stale(int slot);
void dfc_ofi_watch_remove(int slot);

#endif /* DFC_OFI_MR_H */
