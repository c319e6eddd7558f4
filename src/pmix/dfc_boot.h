/*
 * dfc_boot.h - bootstrap: who am I, who else is there, and a key-value exchange.
 *
 * Backed by an OpenPMIx client (srun --mpi=pmix, mpirun, prterun). Started without a
 * launcher, the process is a singleton (size 1) and put/get work locally.
 * Depends on util only. Only init/finalize (src/comm/init.c) and transports' init call it.
 */
#ifndef DFC_BOOT_H
#define DFC_BOOT_H

#include <stddef.h>

typedef struct dfc_boot_info {
    int rank, size;             /* in the job (DFC_COMM_WORLD) */
    int local_rank, local_size; /* on this node */
    int singleton;              /* 1 when no launcher was found */
    char nspace[256];           /* PMIx namespace (job id); "singleton.<pid>" otherwise */
    char hostname[256];         /* this node's name as the launcher knows it */
    int appnum;                 /* PMIX_APPNUM, or -1 when the launcher does not say */
    int universe_size;          /* PMIX_UNIV_SIZE, or -1 when the launcher does not say */
} dfc_boot_info_t;

/* Connects to the launcher. Returns DFC_SUCCESS or an error code (never aborts). */
int dfc_boot_init(dfc_boot_info_t *info);
/* Publishes `len` bytes under `key` for every process of the job (visible after fence). */
int dfc_boot_put(const char *key, const void *value, size_t len);
/* Commits puts and waits until every process of the job has reached the fence. */
int dfc_boot_fence(void);
/* The same among the n world ranks listed (the live ones after a failure: a launcher may
 * never complete a fence that waits for a dead process). */
int dfc_boot_fence_among(const int *ranks, int n);
/* Fetches a peer's value; *value is malloc'ed and owned by the caller. */
int dfc_boot_get(int rank, const char *key, void **value, size_t *len);
/* The hostname of `rank` (PMIX_HOSTNAME); copies at most len bytes. */
int dfc_boot_hostname(int rank, char *buf, size_t len);
/* Aborts the whole job with a message; does not return. */
void dfc_boot_abort(int code, const char *msg) __attribute__((noreturn));
int dfc_boot_finalize(void);
/* Failure events from the launcher (PMIx event notification), where it sends them. The
 * handler runs in PMIx's thread and only queues the rank; progress polls: pending() is a
 * cheap check, next_failed() returns a failed world rank not returned before, or -1. */
int dfc_boot_failed_pending(void);
int dfc_boot_next_failed(void);

#endif /* DFC_BOOT_H */
