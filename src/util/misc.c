/* misc.c - time and memory wrappers. */
#include <stdlib.h>
#include <time.h>

#include "util/dfc_util.h"

double dfc_time_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

uint64_t dfc_time_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void *dfc_malloc(size_t size) { return malloc(size ? size : 1); }
void *dfc_calloc(size_t n, size_t size) { return calloc(n ? n : 1, size ? size : 1); }
void *dfc_realloc(void *p, size_t size) { return realloc(p, size ? size : 1); }
void dfc_free(void *p) { free(p); }
