/*
 * stderrcap.h - for tests of what the library prints on stderr (the hang report): point
 * stderr at a temporary file around a call, read back what was written, look for a line.
 * Used by coll/hangreport (host collectives and point-to-point), gpu/devproto -case=hang
 * (collectives in the GPU daemon) and gpu/devstuck (which watches the file as it grows).
 */
#ifndef STDERRCAP_H
#define STDERRCAP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dfctest.h"

/* Points stderr at a fresh temporary file; returns the saved descriptor (-1 on failure,
 * counted as an error). */
static inline int capture_stderr(FILE **tmp)
{
    fflush(stderr);
    int saved = dup(2);
    *tmp = tmpfile();
    DFCT_CHECK(saved >= 0 && *tmp, "cannot redirect stderr");
    if (saved < 0 || !*tmp) return -1;
    dup2(fileno(*tmp), 2);
    return saved;
}

/* Restores stderr and returns what was written (malloc'ed, NUL-terminated). */
static inline char *restore_stderr(int saved, FILE *tmp)
{
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    long n = lseek(fileno(tmp), 0, SEEK_END);
    char *text = calloc(1, n > 0 ? (size_t)n + 1 : 1);
    if (n > 0) {
        lseek(fileno(tmp), 0, SEEK_SET);
        ssize_t got = read(fileno(tmp), text, (size_t)n);
        text[got > 0 ? got : 0] = 0;
    }
    fclose(tmp);
    return text;
}

/* What was written so far, stderr staying captured (malloc'ed, NUL-terminated). pread: the
 * file offset is shared with descriptor 2, which goes on writing at it. */
static inline char *peek_stderr(FILE *tmp)
{
    fflush(stderr);
    long n = lseek(fileno(tmp), 0, SEEK_END); /* where descriptor 2 writes next */
    char *text = calloc(1, n > 0 ? (size_t)n + 1 : 1);
    if (n > 0) {
        ssize_t got = pread(fileno(tmp), text, (size_t)n, 0);
        text[got > 0 ? got : 0] = 0;
    }
    return text;
}

/* Is there a line holding all of a, b and c? */
static inline int has_line(const char *text, const char *a, const char *b, const char *c)
{
    const char *line = text;
    while (line && *line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char *l = strndup(line, len);
        int ok = strstr(l, a) && strstr(l, b) && strstr(l, c);
        free(l);
        if (ok) return 1;
        line = end ? end + 1 : NULL;
    }
    return 0;
}

#endif /* STDERRCAP_H */
