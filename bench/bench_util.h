/*
 * bench_util.h - small helpers both benchmark drivers share (dfc_bench.c on host buffers,
 * dfc_bench_gpu.c on device buffers).
 */
#ifndef DFC_BENCH_UTIL_H
#define DFC_BENCH_UTIL_H

#include <stdlib.h>
#include <string.h>

/* A size argument: a number with an optional K, M or G suffix (powers of 1024). */
static inline long bench_parse_size(const char *s)
{
    char *end;
    double x = strtod(s, &end);
    if (*end == 'k' || *end == 'K') x *= 1024;
    else if (*end == 'm' || *end == 'M') x *= 1024 * 1024;
    else if (*end == 'g' || *end == 'G') x *= 1024.0 * 1024 * 1024;
    return (long)x;
}

/* Is `name` one of the comma-separated words of `list`? (alltoall is not in "alltoallv".) */
static inline int bench_in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)); p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == 0)) return 1;
    return 0;
}

#endif
