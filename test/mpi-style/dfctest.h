/*
 * dfctest.h - helpers for MPI-style test programs (after MPICH's mtest).
 *
 * Convention: a test counts its errors; dfct_finalize() sums them over all ranks and rank 0
 * prints " No Errors" when the sum is 0 (" Found N errors" otherwise). Nothing else may be
 * printed on success: the runner fails a test that prints anything else.
 * Errors are reported on stderr with the rank, file and line, at most DFCT_MAX_REPORTS each.
 */
#ifndef DFCTEST_H
#define DFCTEST_H

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dfc.h"

static int dfct_errs;
static int dfct_rank;
static int dfct_reports;
#define DFCT_MAX_REPORTS 20

/* Bytes above every transport's eager limit (the largest default: ofi's DFC_OFI_EAGER_LIMIT,
 * 128 KiB), for a test whose messages must go by rendezvous. One place: when ofi's limit rose
 * from 64 KiB, tests sized by hand below it went eagerly over ofi, and bsend and cancel_send
 * failed in CI (stop 29). */
#define DFCT_ABOVE_EAGER_BYTES (140 * 1024)

/* Whether AddressSanitizer's runtime is in the process. test/run-sanitizers compiles the
 * test programs without instrumentation (the library they link has it), so
 * __SANITIZE_ADDRESS__ is not defined there; the runtime's entry point, a weak reference
 * that the sanitized link resolves, says it. */
extern void __asan_init(void) __attribute__((weak));
static inline int dfct_under_asan(void) { return __asan_init != NULL; }

/* -memtype=device asks for device buffers (the GPU issue); host is the default. */
static int dfct_memtype_device;

/* The value V of option -name=V among argv, or dflt. */
static inline const char *dfct_opt_str(int argc, char **argv, const char *name, const char *dflt)
{
    size_t n = strlen(name);
    for (int i = 1; i < argc; i++)
        if (argv[i][0] == '-' && !strncmp(argv[i] + 1, name, n) && argv[i][1 + n] == '=')
            return argv[i] + 2 + n;
    return dflt;
}

/* The same as a number (strtol, any base). */
static inline long dfct_opt_long(int argc, char **argv, const char *name, long dflt)
{
    const char *v = dfct_opt_str(argc, argv, name, NULL);
    return v ? strtol(v, NULL, 0) : dflt;
}

static inline void dfct_init(int *argc, char ***argv)
{
    DFC_Init(argc, argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &dfct_rank);
    for (int i = 1; argc && i < *argc; i++)
        if (!strcmp((*argv)[i], "-memtype=device")) dfct_memtype_device = 1;
}

/* A test that may hang arms a watchdog: -watchdog=S in argv (else `seconds`) raises SIGALRM
 * after S seconds, whose handler prints "watchdog: hang in NAME" and exits with status 3. */
static const char *dfct_watchdog_name = "?";
static inline void dfct_on_alarm(int sig)
{
    (void)sig;
    static const char pre[] = "watchdog: hang in ";
    if (write(2, pre, sizeof pre - 1) < 0 ||
        write(2, dfct_watchdog_name, strlen(dfct_watchdog_name)) < 0 || write(2, "\n", 1) < 0)
        _exit(3);
    _exit(3);
}
static inline void dfct_watchdog(int argc, char **argv, const char *name, int seconds)
{
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "-watchdog=", 10)) seconds = atoi(argv[i] + 10);
    dfct_watchdog_name = name;
    signal(SIGALRM, dfct_on_alarm);
    alarm((unsigned)seconds);
}

static inline void dfct_fail_at(const char *file, int line, const char *fmt, ...)
{
    dfct_errs++;
    if (dfct_reports++ >= DFCT_MAX_REPORTS) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[rank %d] %s:%d: ", dfct_rank, file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}
/* Records an error (with a printf-style reason) when cond is false. */
#define DFCT_CHECK(cond, ...)                                       \
    do {                                                            \
        if (!(cond)) dfct_fail_at(__FILE__, __LINE__, __VA_ARGS__); \
    } while (0)
/* Checks that a DFC call returned DFC_SUCCESS. */
#define DFCT_OK(call)                                                            \
    do {                                                                         \
        int dfct_rc_ = (call);                                                   \
        if (dfct_rc_ != DFC_SUCCESS) {                                           \
            char dfct_msg_[DFC_MAX_ERROR_STRING];                                \
            int dfct_len_;                                                       \
            DFC_Error_string(dfct_rc_, dfct_msg_, &dfct_len_);                   \
            dfct_fail_at(__FILE__, __LINE__, "%s failed: %s", #call, dfct_msg_); \
        }                                                                        \
    } while (0)
/* Checks that a call fails with error class `cls` and a message containing `needle`. */
#define DFCT_FAILS(call, cls, needle)                                                             \
    do {                                                                                          \
        int dfct_rc_ = (call), dfct_cls_ = -1, dfct_len_ = 0;                                     \
        char dfct_msg_[DFC_MAX_ERROR_STRING] = "";                                                \
        DFC_Error_class(dfct_rc_, &dfct_cls_);                                                    \
        DFC_Error_string(dfct_rc_, dfct_msg_, &dfct_len_);                                        \
        if (dfct_cls_ != (cls))                                                                   \
            dfct_fail_at(__FILE__, __LINE__, "%s: expected class %d, got %d (%s)", #call, (cls),  \
                         dfct_cls_, dfct_msg_);                                                   \
        else if ((needle) && !strstr(dfct_msg_, (needle)))                                        \
            dfct_fail_at(__FILE__, __LINE__, "%s: message \"%s\" lacks \"%s\"", #call, dfct_msg_, \
                         (needle));                                                               \
    } while (0)

/* DFC_Init_thread for a test that needs DFC_THREAD_MULTIPLE: sets dfct_rank, and counts an
 * error when the library provides less. */
static inline void dfct_init_multiple(int *argc, char ***argv)
{
    int provided = -1;
    DFC_Init_thread(argc, argv, DFC_THREAD_MULTIPLE, &provided);
    DFC_Comm_rank(DFC_COMM_WORLD, &dfct_rank);
    DFCT_CHECK(provided == DFC_THREAD_MULTIPLE, "provided %d, expected DFC_THREAD_MULTIPLE",
               provided);
}

/* Sums errors over all ranks, prints the verdict on rank 0, finalizes; returns exit code. */
static inline int dfct_finalize(void)
{
    int total = 0, size = 1;
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    if (size == 1) {
        total = dfct_errs;
    } else {
        /* Reduce with point-to-point only, so that tests of the foundation do not depend on
         * the collectives. */
        if (dfct_rank == 0) {
            total = dfct_errs;
            for (int r = 1; r < size; r++) {
                int e = 0;
                DFC_Recv(&e, 1, DFC_INT, r, 0x7ff0, DFC_COMM_WORLD, DFC_STATUS_IGNORE);
                total += e;
            }
        } else {
            DFC_Send(&dfct_errs, 1, DFC_INT, 0, 0x7ff0, DFC_COMM_WORLD);
        }
    }
    if (dfct_rank == 0) {
        if (total == 0) printf(" No Errors\n");
        else printf(" Found %d errors\n", total);
        fflush(stdout);
    }
    DFC_Finalize();
    return total ? 1 : 0;
}

/* A small deterministic generator, so that every rank can compute every rank's input. */
static inline unsigned dfct_rand(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return (*state >> 8) & 0xffffff;
}

#endif /* DFCTEST_H */
