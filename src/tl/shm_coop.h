/*
 * shm_coop.h - a large cross-memory pull shared by both ends (issue 16: a 2-rank ping-pong
 * or bcast of 1-2 MiB was slower than Open MPI's, one core reading megabytes with
 * process_vm_readv while the sender's core sat in its wait for the FIN).
 *
 * The reader of a rendezvous (shm_rget) cuts the message into pieces and publishes a request
 * in the descriptor it owns for that sender; the sender, in its next progress call, pushes
 * pieces into the reader with process_vm_writev while the reader pulls the others: two cores
 * copy. Pieces are claimed from one word, the reader from the front and the sender from the
 * back, so a sender that is busy elsewhere (computing, or asleep) takes none and the reader
 * alone copies everything, as before: the request never waits for the sender to show up.
 * Measured on the 2-core VM (fork, process_vm_readv of everything against halves pulled and
 * pushed at once): 1 MiB 137 -> 71 us, 2 MiB 275 -> 138 us.
 *
 * The claim word holds (generation:16 | front:24 | back:24): pieces [0, front) are the
 * reader's, [back, n) the sender's, [front, back) unclaimed. The reader writes the request's
 * fields, then the word with a new generation (release); a claim is a compare-and-swap on it
 * (acquire), so the fields read after a successful claim are the request's. The reader does
 * not return (and so sends no FIN: the sender's buffer stays valid) until `helped` counts
 * every piece the sender claimed, and it reuses the descriptor only after that, so a sender
 * never copies a piece of an old request into a new one. Pieces the sender could not copy
 * (its write failed: `help_failed`) the reader pulls again itself. A sender that dies in the
 * middle of a piece is found by the reader's liveness check while it waits.
 */
#ifndef DFC_SHM_COOP_H
#define DFC_SHM_COOP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* From this many bytes a pull is shared (DFC_SHM_COOP_MIN), in pieces of at least
 * DFC_SHM_COOP_PIECE_MIN. */
#define DFC_SHM_COOP_MIN_DEFAULT (256 * 1024)
#define DFC_SHM_COOP_PIECE_MIN (64 * 1024)

/* One per ordered pair (reader, sender) of local ranks, in the segment. */
typedef struct dfc_shm_coop {
    _Alignas(64) _Atomic uint64_t claim; /* generation | front | back, see the top */
    _Atomic uint32_t helped;             /* pieces the sender finished (release) */
    _Atomic uint32_t help_failed;        /* 1: a sender's write failed; the reader redoes them */
    _Atomic uint32_t busy;               /* the reader's threads take the descriptor in turn */
    uint64_t dst;                        /* the request: reader's address... */
    uint64_t src;                        /* ...sender's address... */
    uint64_t len, piece;                 /* ...bytes and bytes per piece */
} dfc_shm_coop_t;

/* What the reader's side needs of the transport. */
typedef struct dfc_shm_coop_io {
    /* Copies one piece as the reader (process_vm_readv, shm.c's error handling): returns
     * DFC_SUCCESS or an error code with its message recorded. */
    int (*pull)(void *arg, void *local, uint64_t remote, size_t len);
    /* Tells the sender that a request is up (after it is published). Never blocks. */
    void (*notify)(void *arg);
    /* DFC_SUCCESS while the sender's process lives, else its failure (DFC_ERR_PROC_FAILED,
     * the message naming it). May be slow (reads /proc): called at most every millisecond
     * of waiting. */
    int (*alive)(void *arg);
    void *arg;
} dfc_shm_coop_io_t;

/* The reader's side: copies len bytes at `remote` (the sender's address space) to `local`,
 * the sender helping (see the top). Blocks until every byte is in place. Returns
 * DFC_SUCCESS; DFC_TL_AGAIN, having copied nothing, when another thread of this process
 * holds the descriptor (the caller pulls alone); or the first error of io->pull (then no
 * piece of the sender is still being written) or io->alive's error when the sender died
 * while it held a piece. */
int dfc_shm_coop_pull(dfc_shm_coop_t *d, void *local, uint64_t remote, size_t len, size_t piece,
                      const dfc_shm_coop_io_t *io);

/* The sender's side, from its progress: pushes pieces of d's open request into process
 * `reader` until none is left. Returns the number of pieces it copied. Never waits for the
 * reader; blocks only for its own copies. */
int dfc_shm_coop_help(dfc_shm_coop_t *d, pid_t reader);

/* The piece size for a message of len bytes: len / DFC_SHM_COOP_PIECES, rounded up to 4 KiB,
 * at least min_piece. */
size_t dfc_shm_coop_piece(size_t len, size_t min_piece);

#endif /* DFC_SHM_COOP_H */
