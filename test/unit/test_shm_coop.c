/*
 * test_shm_coop - the shared pull's protocol (src/tl/shm_coop.h) in one process: the reader
 * is the main thread, whose pieces are memcpy; the sender is a second thread that calls
 * dfc_shm_coop_help without pause, pushing its pieces with process_vm_writev into this very
 * process (allowed on oneself). No shm segment, no peers.
 *   1. 2000 pulls of random sizes (1 byte to 1 MiB, biased to piece edges) with random
 *      pieces (4 KiB to 64 KiB): fresh data, poisoned destination, every byte checked; the
 *      helper must have copied some pieces (else this tested the reader alone);
 *   2. a second pull on a descriptor in use (from inside the first one's copy) returns
 *      DFC_TL_AGAIN and touches nothing;
 *   3. a piece that fails: the pull returns its error, and once it has returned nothing
 *      more is written (the destination, poisoned again, stays so while the helper runs);
 *   4. a helper whose writes fail (its reader's pid names no process): the reader pulls
 *      those pieces again, every byte right;
 *   5. a sender that claimed a piece and died: the pull returns io->alive's error, not
 *      hangs.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dfc.h"
#include "tl/dfc_tl.h"
#include "tl/shm_coop.h"
#include "unit_check.h"

#define MAXLEN (1u << 20)

static dfc_shm_coop_t desc;
static _Atomic int stop, helper_pid;
static _Atomic long helped_pieces;
static int fail_at = -1, pulls, reenter, steal_back, dead_sender, alive_calls;

static void *helper(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop))
        atomic_fetch_add(&helped_pieces, dfc_shm_coop_help(&desc, atomic_load(&helper_pid)));
    return NULL;
}

static int io_pull(void *arg, void *local, uint64_t remote, size_t len)
{
    (void)arg;
    if (pulls++ == fail_at) return DFC_ERR_OTHER;
    if (steal_back) {
        steal_back = 0;
        uint64_t c = atomic_load(&desc.claim);
        CHECK(atomic_compare_exchange_strong(&desc.claim, &c, c - 1), "the claim word moved");
    }
    if (reenter) {
        reenter = 0;
        char x = 0;
        int rc = dfc_shm_coop_pull(&desc, &x, remote, 1, 1, NULL);
        CHECK(rc == DFC_TL_AGAIN && x == 0, "a pull on a busy descriptor returned %d", rc);
    }
    memcpy(local, (const void *)(uintptr_t)remote, len);
    return DFC_SUCCESS;
}

static void io_notify(void *arg) { (void)arg; }

/* Case 5's sender dies (is seen gone at the second look); the others' live. */
static int io_alive(void *arg)
{
    (void)arg;
    return ++alive_calls >= 2 && dead_sender ? DFC_ERR_PROC_FAILED : DFC_SUCCESS;
}

static const dfc_shm_coop_io_t io = {io_pull, io_notify, io_alive, NULL};

/* One pull of len bytes in pieces of `piece`; returns its code, checks every byte on
 * success. */
static int pull_checked(unsigned char *src, unsigned char *dst, size_t len, size_t piece)
{
    for (size_t i = 0; i < len; i++) src[i] = (unsigned char)rnd64();
    memset(dst, 0xa5, len + 1);
    int rc = dfc_shm_coop_pull(&desc, dst, (uint64_t)(uintptr_t)src, len, piece, &io);
    if (rc != DFC_SUCCESS) return rc;
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < len; i++)
        if (dst[i] != src[i] && bad++ == 0) first = i;
    CHECK(!bad, "len %zu piece %zu: %zu bytes wrong, the first at %zu", len, piece, bad, first);
    CHECK(dst[len] == 0xa5, "len %zu: the byte after it was written", len);
    return rc;
}

static size_t random_len(size_t piece)
{
    uint64_t r = rnd64();
    size_t k = 1 + r % 40, edge = (r >> 8) % 3; /* k pieces, then -1, 0 or +1 */
    size_t len = r % 5 == 0 ? 1 + (r >> 16) % MAXLEN : k * piece + edge - 1;
    return len == 0 ? 1 : len > MAXLEN ? MAXLEN : len;
}

int main(void)
{
    unsigned char *src = malloc(MAXLEN + 1), *dst = malloc(MAXLEN + 1);
    pthread_t t;
    atomic_store(&helper_pid, getpid());
    pthread_create(&t, NULL, helper, NULL);

    /* 1 */
    for (int i = 0; i < 2000; i++) {
        size_t piece = (size_t)4096 << (rnd64() % 5);
        CHECK(pull_checked(src, dst, random_len(piece), piece) == DFC_SUCCESS, "pull %d", i);
    }
    long h = atomic_load(&helped_pieces);
    printf("test_shm_coop: the helper copied %ld pieces in 2000 pulls\n", h);
    CHECK(h > 0, "the helper never copied a piece");

    /* 2 */
    reenter = 1;
    CHECK(pull_checked(src, dst, 1 << 20, 4096) == DFC_SUCCESS, "the pull around the busy one");
    CHECK(!reenter, "the busy case did not run");

    /* 3 */
    for (int k = 0; k < 3; k++) {
        pulls = 0;
        fail_at = k;
        int rc = pull_checked(src, dst, MAXLEN, 4096);
        CHECK(rc == DFC_ERR_OTHER, "the failing piece %d: the pull returned %d", k, rc);
        memset(dst, 0x5a, MAXLEN);
        usleep(20000);
        size_t moved = 0;
        for (size_t i = 0; i < MAXLEN; i++) moved += dst[i] != 0x5a;
        CHECK(!moved, "%zu bytes written after the failed pull returned", moved);
    }
    fail_at = -1;

    /* 4 */
    pid_t gone = fork();
    if (gone == 0) _exit(0);
    waitpid(gone, NULL, 0);
    atomic_store(&helper_pid, gone);
    long before = atomic_load(&helped_pieces);
    for (int i = 0; i < 100; i++)
        CHECK(pull_checked(src, dst, 1 << 20, 4096) == DFC_SUCCESS, "pull %d of case 4", i);
    CHECK(atomic_load(&helped_pieces) > before, "no push failed: case 4 tested nothing");
    atomic_store(&stop, 1);
    pthread_join(t, NULL);

    /* 5: during the reader's first copy a "sender" claims the last piece (back - 1 on the
     * claim word, whose low 24 bits are back: shm_coop.h) and never finishes it */
    steal_back = dead_sender = 1;
    alive_calls = 0;
    int rc = pull_checked(src, dst, 4 * 4096, 4096);
    CHECK(!steal_back, "case 5 did not claim");
    CHECK(rc == DFC_ERR_PROC_FAILED, "a sender dead with a piece: the pull returned %d", rc);
    CHECK(alive_calls == 2, "alive was asked %d times, not 2", alive_calls);

    free(src);
    free(dst);
    printf(failures ? "test_shm_coop: %d failures\n" : "test_shm_coop: all passed\n", failures);
    return failures != 0;
}
