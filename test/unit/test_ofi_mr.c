/*
 * test_ofi_mr - the ofi transport's registration cache (src/tl/ofi_mr.c) and the hooks that
 * invalidate it (src/tl/ofi_hook.c), with a fake register function that records what it was
 * asked for (no libfabric needed; skipped, exit 77, when the hooks are not built):
 *   1. the same buffer twice: one registration, then a hit; a sub-range: a hit; the same
 *      range for another access: a new registration.
 *   2. free: a heap block (64 KiB) and an mmap block (1 MiB) registered, freed, allocated
 *      again (same size, so usually the same address): the next get registers anew and the
 *      old registration is closed; likewise munmap and realloc.
 *   3. the bound: with max 4, six ranges used one after the other leave 4 registrations,
 *      the least recently used closed first; one in use is never closed.
 *   4. max 0: every registration is closed when its last user puts it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "tl/ofi_mr.h"

static int fails, regs, deregs;
static uintptr_t last_dereg;

#define CHECK(c, ...)                                      \
    do {                                                   \
        if (!(c)) {                                        \
            fails++;                                       \
            fprintf(stderr, "test_ofi_mr:%d: ", __LINE__); \
            fprintf(stderr, __VA_ARGS__);                  \
            fputc('\n', stderr);                           \
        }                                                  \
    } while (0)

static int fake_reg(void *ctx, dfc_ofi_mr_t *mr)
{
    (void)ctx;
    regs++;
    mr->handle = (void *)mr->base;
    mr->key = (uint64_t)regs;
    return 0;
}

static void fake_dereg(void *ctx, dfc_ofi_mr_t *mr)
{
    (void)ctx;
    deregs++;
    last_dereg = mr->base;
}

static dfc_ofi_mr_t *get(dfc_ofi_mrc_t *c, const void *p, size_t n, uint64_t access)
{
    dfc_ofi_mr_t *mr = NULL;
    CHECK(dfc_ofi_mrc_get(c, p, n, access, &mr) == 0 && mr, "get of %zu bytes failed", n);
    return mr;
}

static void reuse(void)
{
    dfc_ofi_mrc_t c;
    dfc_ofi_mrc_init(&c, 8, fake_reg, fake_dereg, NULL);
    char *buf = malloc(100000);
    regs = deregs = 0;
    dfc_ofi_mr_t *a = get(&c, buf, 100000, 1);
    dfc_ofi_mrc_put(&c, a);
    dfc_ofi_mr_t *b = get(&c, buf, 100000, 1);
    CHECK(a == b && regs == 1 && c.hits == 1, "reuse: %d registrations, %llu hits", regs,
          (unsigned long long)c.hits);
    dfc_ofi_mr_t *d = get(&c, buf + 10, 1000, 1); /* inside: a hit, two users */
    CHECK(d == a && a->refs == 2 && regs == 1, "sub-range: not a hit (%d registrations)", regs);
    dfc_ofi_mrc_put(&c, d);
    dfc_ofi_mrc_put(&c, b);
    dfc_ofi_mr_t *e = get(&c, buf, 100000, 2); /* another access */
    CHECK(e != a && regs == 2, "another access reused a registration");
    dfc_ofi_mrc_put(&c, e);
    dfc_ofi_mr_t *f = get(&c, buf, 100001, 1); /* one byte more */
    CHECK(f != a && regs == 3, "a longer range reused a shorter registration");
    dfc_ofi_mrc_put(&c, f);
    CHECK(deregs == 0, "%d registrations closed while in the cache", deregs);
    free(buf);
    dfc_ofi_mrc_fini(&c);
    CHECK(deregs == 3 && c.n == 0, "fini closed %d of 3", deregs);
}

/* Registers n bytes at p, puts it, releases p with `release`, allocates again with `again`
 * and checks that the cache registers the new memory instead of reusing. */
static void after_free(const char *what, size_t n, int how)
{
    dfc_ofi_mrc_t c;
    dfc_ofi_mrc_init(&c, 8, fake_reg, fake_dereg, NULL);
    regs = deregs = 0;
    char *p = how == 1 ? mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                       : malloc(n);
    CHECK(p && p != MAP_FAILED, "%s: allocation failed", what);
    dfc_ofi_mrc_put(&c, get(&c, p, n, 1));
    char *q;
    if (how == 0) {
        free(p);
        q = malloc(n);
    } else if (how == 1) {
        munmap(p, n);
        q = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    } else {
        q = realloc(p, 4 * n);
        q = q ? realloc(q, n) : q; /* back to the size registered, possibly at p again */
    }
    printf("# %s: %zu bytes at %p, again at %p\n", what, n, (void *)p, (void *)q);
    dfc_ofi_mr_t *mr = get(&c, q, n, 1);
    CHECK(regs == 2 && c.hits == 0, "%s: the freed range's registration was reused", what);
    CHECK(deregs == 1 && last_dereg == (uintptr_t)p && c.stale == 1,
          "%s: the freed range's registration was not closed (%d closed)", what, deregs);
    dfc_ofi_mrc_put(&c, mr);
    if (how == 1) munmap(q, n);
    else free(q);
    dfc_ofi_mrc_fini(&c);
}

static void bound(void)
{
    dfc_ofi_mrc_t c;
    dfc_ofi_mrc_init(&c, 4, fake_reg, fake_dereg, NULL);
    regs = deregs = 0;
    static char buf[6][4096];
    dfc_ofi_mr_t *held = get(&c, buf[5], 4096, 1); /* in use throughout */
    for (int i = 0; i < 5; i++) {
        dfc_ofi_mrc_put(&c, get(&c, buf[i], 4096, 1));
        if (i >= 1) dfc_ofi_mrc_put(&c, get(&c, buf[0], 4096, 1)); /* 0 stays recent */
    }
    CHECK(c.n == 5 && deregs == 1 && last_dereg == (uintptr_t)buf[1],
          "bound: %d held, %d closed, last %p (expected 5, 1, buf[1] %p)", c.n, deregs,
          (void *)last_dereg, (void *)buf[1]);
    CHECK(held->refs == 1, "the registration in use was touched");
    dfc_ofi_mrc_put(&c, held);
    CHECK(c.n == 4 && deregs == 2, "bound after put: %d held, %d closed", c.n, deregs);
    dfc_ofi_mrc_fini(&c);
}

static void no_cache(void)
{
    dfc_ofi_mrc_t c;
    dfc_ofi_mrc_init(&c, 0, fake_reg, fake_dereg, NULL);
    regs = deregs = 0;
    static char buf[8192];
    dfc_ofi_mr_t *a = get(&c, buf, 8192, 1), *b = get(&c, buf, 8192, 1);
    CHECK(a != b && regs == 2, "max 0: a registration was shared");
    dfc_ofi_mrc_put(&c, a);
    CHECK(deregs == 1, "max 0: not closed at put");
    dfc_ofi_mrc_put(&c, b);
    CHECK(deregs == 2 && c.n == 0, "max 0: %d of 2 closed", deregs);
    dfc_ofi_mrc_fini(&c);
}

int main(void)
{
    if (!dfc_ofi_hooks_live()) {
        printf("# the free/munmap hooks are not built here (no libfabric or not glibc)\n");
        return 77;
    }
    reuse();
    after_free("free of a heap block", 64 << 10, 0);
    after_free("free of an mmap block", 1 << 20, 0);
    after_free("munmap", 1 << 20, 1);
    after_free("realloc", 64 << 10, 2);
    bound();
    no_cache();
    if (fails) fprintf(stderr, "test_ofi_mr: %d checks failed\n", fails);
    else printf("test_ofi_mr: all checks passed\n");
    return fails ? 1 : 0;
}
