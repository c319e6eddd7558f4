/* iotest.h - what the io tests share: a temporary directory of their own, made by rank 0,
 * its name broadcast, removed at the end (with whatever a failed test left in it). */
#ifndef IOTEST_H
#define IOTEST_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../dfctest.h"

static char iot_dir[512];

static inline void iot_mkdir(void)
{
    int rank;
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    if (rank == 0) {
        const char *t = getenv("TMPDIR");
        snprintf(iot_dir, sizeof iot_dir, "%s/dfc-iotest.XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(iot_dir)) {
            perror("mkdtemp");
            DFC_Abort(DFC_COMM_WORLD, 1);
        }
    }
    DFC_Bcast(iot_dir, sizeof iot_dir, DFC_CHAR, 0, DFC_COMM_WORLD);
}

/* path of name in the test's directory (static storage: one at a time per call site). */
static inline const char *iot_path(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", iot_dir, name);
    return out;
}

static inline void iot_rmdir(void)
{
    int rank;
    DFC_Barrier(DFC_COMM_WORLD);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    if (rank != 0) return;
    DIR *d = opendir(iot_dir);
    struct dirent *e;
    char p[1024];
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            unlink(iot_path(p, sizeof p, e->d_name));
    if (d) closedir(d);
    rmdir(iot_dir);
}

#endif /* IOTEST_H */
