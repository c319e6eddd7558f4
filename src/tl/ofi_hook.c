/*
 * ofi_hook.c - what tells the ofi registration cache (ofi_mr.h) that memory went away:
 * free, realloc, munmap and mremap defined here, in front of the C library's.
 *
 * Each forwards to the next definition in the process (dlsym RTLD_NEXT; before that is
 * known, glibc's own entry points or the system call). While the cache watches no range the
 * cost is one atomic load. Otherwise every watched range that the call releases is marked
 * stale (free: the whole block, whose size malloc_usable_size gives when glibc's allocator is
 * the one in use, else the ranges holding the pointer; realloc: the old block, as it may
 * move; munmap, mremap: the old mapping). Marking is lock-free, so that a free inside a
 * signal handler or under another lock cannot deadlock; a range marked by mistake only
 * costs one registration.
 *
 * Kept apart from the rest of the transport, with no dependency on it, since every program
 * linked with libdfc (and every unit test, which links this object for its `free`) runs it.
 */
#include "config.h"

#include <dlfcn.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tl/ofi_mr.h"

#define DFC_OFI_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Under a sanitizer its runtime owns malloc and free: a free of ours in front of it (the unit
 * tests link this object into the executable, which comes first) would meet its memory
 * before our constructor knew whom to forward to. The cache then sees nothing and is off. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define OFI_HOOK_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define OFI_HOOK_SANITIZED 1
#endif
#endif

#if HAVE_LIBFABRIC && defined(__GLIBC__) && !defined(OFI_HOOK_SANITIZED)

enum { W_FREE = 0, W_LIVE = 1, W_STALE = 2, W_BUSY = 3 };

static struct {
    _Atomic int state;
    _Atomic uintptr_t base;
    _Atomic size_t len;
} watch[DFC_OFI_WATCH_MAX];
static _Atomic int nwatched;
static _Atomic int free_reached; /* set by our free: the probe of dfc_ofi_hooks_live */

extern void __libc_free(void *);
extern void *__libc_realloc(void *, size_t);
static void (*next_free)(void *);
static void *(*next_realloc)(void *, size_t);
static int (*next_munmap)(void *, size_t);
static void *(*next_mremap)(void *, size_t, size_t, int, ...);

__attribute__((constructor)) static void hooks_resolve(void)
{
    next_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    next_munmap = (int (*)(void *, size_t))dlsym(RTLD_NEXT, "munmap");
    next_mremap = (void *(*)(void *, size_t, size_t, int, ...))dlsym(RTLD_NEXT, "mremap");
    next_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
}

static void mark(uintptr_t lo, uintptr_t hi)
{
    for (int i = 0; i < DFC_OFI_WATCH_MAX; i++) {
        if (atomic_load_explicit(&watch[i].state, memory_order_acquire) != W_LIVE) continue;
        uintptr_t b = atomic_load_explicit(&watch[i].base, memory_order_relaxed);
        size_t l = atomic_load_explicit(&watch[i].len, memory_order_relaxed);
        if (b < hi && lo < b + l) {
            int live = W_LIVE;
            atomic_compare_exchange_strong(&watch[i].state, &live, W_STALE);
        }
    }
}

/* The block at p is released (or may move): its watched ranges go stale. */
static void mark_block(void *p)
{
    if (!p || atomic_load_explicit(&nwatched, memory_order_relaxed) == 0) return;
    uintptr_t lo = (uintptr_t)p;
    /* malloc_usable_size is glibc's: valid only for blocks of glibc's allocator. */
    size_t n = !next_free || next_free == __libc_free ? malloc_usable_size(p) : 1;
    mark(lo, lo + (n ? n : 1));
}

void free(void *p)
{
    if (DFC_OFI_UNLIKELY(!atomic_load_explicit(&free_reached, memory_order_relaxed)))
        atomic_store_explicit(&free_reached, 1, memory_order_relaxed); /* once: no sharing */
    mark_block(p);
    if (next_free) next_free(p);
    else __libc_free(p);
}

void *realloc(void *p, size_t n)
{
    mark_block(p);
    return next_realloc ? next_realloc(p, n) : __libc_realloc(p, n);
}

int munmap(void *p, size_t n)
{
    if (atomic_load_explicit(&nwatched, memory_order_relaxed)) mark((uintptr_t)p, (uintptr_t)p + n);
    if (next_munmap) return next_munmap(p, n);
    return (int)syscall(SYS_munmap, p, n);
}

void *mremap(void *p, size_t old, size_t n, int flags, ...)
{
    void *to = NULL;
    if (flags & MREMAP_FIXED) {
        __builtin_va_list ap;
        __builtin_va_start(ap, flags);
        to = __builtin_va_arg(ap, void *);
        __builtin_va_end(ap);
    }
    if (atomic_load_explicit(&nwatched, memory_order_relaxed)) {
        mark((uintptr_t)p, (uintptr_t)p + old);
        if (to) mark((uintptr_t)to, (uintptr_t)to + n);
    }
    if (next_mremap) return next_mremap(p, old, n, flags, to);
    return (void *)syscall(SYS_mremap, p, old, n, flags, to);
}

int dfc_ofi_hooks_live(void)
{
    static int live = -1;
    if (live < 0) {
        /* The free the application's calls reach (the first definition in the global
         * scope): ours only if libdfc comes before the C library there. */
        void (*app_free)(void *) = (void (*)(void *))dlsym(RTLD_DEFAULT, "free");
        void *volatile p = malloc(16);
        if (app_free) app_free(p);
        else __libc_free(p);
        live = atomic_load_explicit(&free_reached, memory_order_relaxed);
    }
    return live;
}

int dfc_ofi_watch_add(uintptr_t base, size_t len)
{
    for (int i = 0; i < DFC_OFI_WATCH_MAX; i++) {
        int f = W_FREE;
        if (!atomic_compare_exchange_strong(&watch[i].state, &f, W_BUSY)) continue;
        atomic_store_explicit(&watch[i].base, base, memory_order_relaxed);
        atomic_store_explicit(&watch[i].len, len, memory_order_relaxed);
        atomic_fetch_add(&nwatched, 1);
        atomic_store_explicit(&watch[i].state, W_LIVE, memory_order_release);
        return i;
    }
    return -1;
}

int dfc_ofi_watch_stale(int slot)
{
    return slot >= 0 && atomic_load_explicit(&watch[slot].state, memory_order_acquire) == W_STALE;
}

void dfc_ofi_watch_remove(int slot)
{
    if (slot < 0) return;
    atomic_store_explicit(&watch[slot].state, W_FREE, memory_order_release);
    atomic_fetch_sub(&nwatched, 1);
}

#else /* no ofi transport, not glibc, or a sanitizer: nothing is cached (per transfer) */

int dfc_ofi_hooks_live(void) { return 0; }
int dfc_ofi_watch_add(uintptr_t base, size_t len)
{
    (void)base;
    (void)len;
    return -1;
}
int dfc_ofi_watch_stale(int slot) { return slot >= 0; }
void dfc_ofi_watch_remove(int slot) { (void)slot; }

#endif
