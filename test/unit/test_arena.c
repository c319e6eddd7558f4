/*
 * test_arena - the hold arena's allocator (src/cuda/arena.c) over host memory
 * (dfc_gpu_arena_use), without CUDA: 256-byte granules, first fit from a rotating cursor.
 *
 * Cases: sizes rounded up to granules and 0 refused; live blocks never overlap (each is
 * filled with its own byte and checked before it is freed); the arena fills exactly and
 * refuses more, then serves again after a free; a run that must wrap around the cursor's
 * end is found at the start; a request larger than the arena is refused; random
 * allocation and free for 20000 steps against a shadow map of which granule is whose.
 * Built without CUDA the arena holds nothing: alloc always refuses (checked, then done).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/dfc_cuda.h"
#include "unit_check.h"

#define GRAN 256
#define NG 64 /* granules in the arena */

static unsigned char mem[NG * GRAN];

static size_t granule_of(const void *p) { return (size_t)((const unsigned char *)p - mem) / GRAN; }

static void basic(void)
{
    dfc_gpu_arena_use(mem, sizeof mem);
    CHECK(dfc_gpu_arena_alloc(0) == NULL, "0 bytes must be refused");
    void *a = dfc_gpu_arena_alloc(1), *b = dfc_gpu_arena_alloc(GRAN + 1);
    CHECK(a && b, "small allocations refused");
    CHECK(dfc_gpu_arena_in_use() == 3 * GRAN, "in use %zu, want %d (1 + 2 granules)",
          dfc_gpu_arena_in_use(), 3 * GRAN);
    CHECK(granule_of(b) >= granule_of(a) + 1, "the second block overlaps the first");
    CHECK(dfc_gpu_arena_alloc(sizeof mem) == NULL, "more than is free must be refused");
    dfc_gpu_arena_free(a, 1);
    dfc_gpu_arena_free(b, GRAN + 1);
    CHECK(dfc_gpu_arena_in_use() == 0, "in use %zu after every free", dfc_gpu_arena_in_use());
    void *all = dfc_gpu_arena_alloc(sizeof mem);
    CHECK(all == mem, "the whole arena must fit once it is free");
    CHECK(dfc_gpu_arena_alloc(1) == NULL, "a full arena must refuse");
    dfc_gpu_arena_free(all, sizeof mem);
    CHECK(dfc_gpu_arena_alloc(sizeof mem + 1) == NULL, "more than the arena must be refused");
}

/* The cursor sits near the end; a run that does not fit before the end is found at the start. */
static void wraps(void)
{
    dfc_gpu_arena_use(mem, sizeof mem);
    void *head = dfc_gpu_arena_alloc((NG - 4) * GRAN); /* cursor at NG - 4 */
    void *tail = dfc_gpu_arena_alloc(2 * GRAN);        /* granules NG-4, NG-3 */
    if (head != mem || !tail || granule_of(tail) != NG - 4) {
        FAIL("blocks not placed first fit from the start");
        return;
    }
    dfc_gpu_arena_free(head, (NG - 4) * GRAN);
    void *w = dfc_gpu_arena_alloc(8 * GRAN); /* only 2 free after the cursor: from 0 */
    CHECK(w == mem, "a run that does not fit before the end must come from the start");
    dfc_gpu_arena_free(w, 8 * GRAN);
    dfc_gpu_arena_free(tail, 2 * GRAN);
}

/* Random steps against a shadow owner map; each live block holds its own byte. */
static void random_steps(void)
{
    enum { SLOTS = 24 };
    struct {
        void *p;
        size_t n;
    } live[SLOTS] = {{0}};
    int owner[NG];
    for (int i = 0; i < NG; i++) owner[i] = -1;
    dfc_gpu_arena_use(mem, sizeof mem);
    for (int step = 0; step < 20000; step++) {
        int s = (int)(rnd64() % SLOTS);
        if (live[s].p) {
            const unsigned char *c = live[s].p;
            for (size_t i = 0; i < live[s].n; i++)
                CHECK(c[i] == (unsigned char)(s + 1), "step %d: block %d was overwritten", step, s);
            size_t g = granule_of(live[s].p), k = (live[s].n + GRAN - 1) / GRAN;
            for (size_t i = g; i < g + k; i++) owner[i] = -1;
            dfc_gpu_arena_free(live[s].p, live[s].n);
            live[s].p = NULL;
            continue;
        }
        size_t n = 1 + (size_t)(rnd64() % (6 * GRAN));
        void *p = dfc_gpu_arena_alloc(n);
        size_t k = (n + GRAN - 1) / GRAN, free_run = 0, best = 0;
        for (int i = 0; i < NG; i++) {
            free_run = owner[i] < 0 ? free_run + 1 : 0;
            if (free_run > best) best = free_run;
        }
        CHECK(p || best < k, "step %d: %zu bytes refused with a free run of %zu granules", step, n,
              best);
        if (!p) continue;
        size_t g = granule_of(p);
        if ((unsigned char *)p != mem + g * GRAN || g + k > NG) {
            FAIL("step %d: misplaced at byte %td", step, (unsigned char *)p - mem);
            return;
        }
        for (size_t i = g; i < g + k; i++) {
            CHECK(owner[i] < 0, "step %d: granule %zu given twice", step, i);
            owner[i] = s;
        }
        memset(p, s + 1, n);
        live[s].p = p, live[s].n = n;
    }
}

int main(void)
{
    dfc_gpu_arena_use(mem, sizeof mem);
    if (!dfc_gpu_arena_size()) { /* built without CUDA */
        CHECK(dfc_gpu_arena_alloc(1) == NULL, "an arena without CUDA must hold nothing");
        printf("test_arena: built without CUDA, nothing held; %d failures\n", failures);
        return failures != 0;
    }
    basic();
    wraps();
    random_steps();
    dfc_gpu_arena_finalize();
    printf("test_arena: %d failures\n", failures);
    return failures != 0;
}
