/*
 * tl_fakeboot.h - a stand-in for src/pmix (dfc_boot.h) so that transport unit tests run
 * their real init path in forked processes without a launcher or PMIx.
 *
 * Include it in exactly one test file. fb_setup(n) before forking creates a shared
 * anonymous mapping: a process-shared barrier of n (the fence) and a key-value table
 * (put is visible at once; PMIx makes it visible after the fence, which tests respect).
 * Each child calls fb_child(rank). Hostnames are "node<fb_node[rank]>" (default node0).
 * fb_after_fence, when set, runs in the calling process right after each fence: tests
 * use it to act between a transport's fence and its connection phase.
 * fb_run(n, fn) does it all: fb_setup, fork n children running fn(rank, n) (exit status =
 * its return value, 60 s alarm against hangs), wait; returns the number of failed children.
 */
#ifndef TL_FAKEBOOT_H
#define TL_FAKEBOOT_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dfc.h"
#include "pmix/dfc_boot.h"

#define FB_MAXKV 256

typedef struct fb_shared {
    pthread_barrier_t bar;
    pthread_mutex_t lock;
    int nkv;
    struct {
        int rank;
        char key[48];
        size_t len;
        char val[256];
    } kv[FB_MAXKV];
    int node[64];
    int counter; /* free for tests (__atomic builtins), e.g. a barrier without a dead rank */
} fb_shared_t;

static fb_shared_t *fb;
static int fb_rank;
static int fb_nfences;
static void (*fb_after_fence)(int nfence);

static void fb_setup(int n)
{
    if (fb) munmap(fb, sizeof(*fb));
    fb = mmap(NULL, sizeof(*fb), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (fb == MAP_FAILED) abort();
    pthread_barrierattr_t ba;
    pthread_barrierattr_init(&ba);
    pthread_barrierattr_setpshared(&ba, PTHREAD_PROCESS_SHARED);
    pthread_barrier_init(&fb->bar, &ba, (unsigned)n);
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
    pthread_mutex_init(&fb->lock, &ma);
}

static void fb_child(int rank)
{
    fb_rank = rank;
    fb_nfences = 0;
    fb_after_fence = NULL;
}

int dfc_boot_init(dfc_boot_info_t *info)
{
    (void)info;
    return DFC_SUCCESS;
}

int dfc_boot_put(const char *key, const void *value, size_t len)
{
    if (len > sizeof(fb->kv[0].val) || strlen(key) >= sizeof(fb->kv[0].key)) abort();
    pthread_mutex_lock(&fb->lock);
    if (fb->nkv == FB_MAXKV) abort();
    int i = fb->nkv++;
    fb->kv[i].rank = fb_rank;
    strcpy(fb->kv[i].key, key);
    fb->kv[i].len = len;
    memcpy(fb->kv[i].val, value, len);
    pthread_mutex_unlock(&fb->lock);
    return DFC_SUCCESS;
}

int dfc_boot_fence(void)
{
    pthread_barrier_wait(&fb->bar);
    fb_nfences++;
    if (fb_after_fence) fb_after_fence(fb_nfences);
    return DFC_SUCCESS;
}

int dfc_boot_get(int rank, const char *key, void **value, size_t *len)
{
    int rc = DFC_ERR_OTHER;
    pthread_mutex_lock(&fb->lock);
    for (int i = fb->nkv - 1; i >= 0; i--) /* newest first */
        if (fb->kv[i].rank == rank && !strcmp(fb->kv[i].key, key)) {
            *value = malloc(fb->kv[i].len ? fb->kv[i].len : 1);
            memcpy(*value, fb->kv[i].val, fb->kv[i].len);
            *len = fb->kv[i].len;
            rc = DFC_SUCCESS;
            break;
        }
    pthread_mutex_unlock(&fb->lock);
    return rc;
}

int dfc_boot_hostname(int rank, char *buf, size_t len)
{
    snprintf(buf, len, "node%d", rank >= 0 && rank < 64 ? fb->node[rank] : 0);
    return DFC_SUCCESS;
}

void dfc_boot_abort(int code, const char *msg)
{
    fprintf(stderr, "dfc_boot_abort(%d): %s\n", code, msg);
    abort();
}

int dfc_boot_finalize(void) { return DFC_SUCCESS; }

/* Open file descriptors of this process (to check that fini closes what init opened). */
#include <dirent.h>
static int fb_count_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    while (readdir(d)) n++;
    closedir(d);
    return n;
}

static int fb_run(int n, int (*fn)(int rank, int n))
{
    pid_t pids[64];
    int failed = 0;
    fb_setup(n);
    fflush(NULL);
    for (int r = 0; r < n; r++) {
        pids[r] = fork();
        if (pids[r] < 0) abort();
        if (pids[r] == 0) {
            fb_child(r);
            alarm(60);
            int rc = fn(r, n);
            fflush(NULL); /* _exit skips stdio */
            _exit(rc);
        }
    }
    for (int r = 0; r < n; r++) {
        int st;
        waitpid(pids[r], &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "rank %d of %d: %s %d\n", r, n,
                    WIFEXITED(st) ? "exit status" : "signal",
                    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
            failed++;
        }
    }
    return failed;
}

#endif /* TL_FAKEBOOT_H */
