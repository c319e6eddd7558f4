/*
 * barrier - DFC_Barrier, DFC_Ibarrier and DFC_Barrier_init (+ Start several times) really
 * synchronize: no rank may leave a barrier before every rank has entered it.
 *
 * The observable is a message, not a clock: in each round one "late" rank sleeps, then
 * sends a small message to every other rank (on another communicator) just before it
 * enters the barrier. A rank that leaves the barrier must then find that message with
 * DFC_Iprobe promptly: it was sent before the late rank entered, and leaving requires (a
 * chain of messages from) the late rank's entry. A barrier that let ranks through early
 * would have them probe ~100 ms before the message exists. "Promptly" allows some polls and
 * 50 ms for delivery, far less than the sleep, so a slow machine cannot make it fail
 * falsely, only (at worst) hide a failure.
 * Then many back-to-back barriers in all forms, on several communicators at once.
 */
#include "colltest.h"

static DFC_Comm comm, side;

static void sleep_ms(int ms) { usleep((useconds_t)ms * 1000); }

static void round_with_late(int form, DFC_Request *req, int k, int late, int ms, int round)
{
    int token = round, tag = 100 + round % 1000;
    DFC_Request *sends = ct_malloc(ct_size * sizeof *sends);
    int nsend = 0;
    if (ct_rank == late) {
        sleep_ms(ms);
        for (int p = 0; p < ct_size; p++)
            if (p != late) DFCT_OK(DFC_Isend(&token, 1, DFC_INT, p, tag, side, &sends[nsend++]));
    }
    CT_RUN(form, k, *req, DFC_Barrier(comm), DFC_Ibarrier(comm, req),
           DFC_Barrier_init(comm, DFC_INFO_NULL, req));
    if (ct_rank != late) {
        int flag = 0, polls = 0;
        double t0 = DFC_Wtime();
        while (!flag) {
            DFCT_OK(DFC_Iprobe(late, tag, side, &flag, DFC_STATUS_IGNORE));
            if (!flag && ++polls >= 10 && DFC_Wtime() - t0 > 0.05) break;
        }
        DFCT_CHECK(
            flag,
            "%s barrier round %d: left the barrier before rank %d entered it (its message, sent "
            "just before entering, is not there)",
            ct_form_name[form], round, late);
        int got = -1;
        DFCT_OK(DFC_Recv(&got, 1, DFC_INT, late, tag, side, DFC_STATUS_IGNORE));
        DFCT_CHECK(got == token, "round %d: message %d, expected %d", round, got, token);
    } else {
        DFCT_OK(DFC_Waitall(nsend, sends, DFC_STATUSES_IGNORE));
    }
    free(sends);
}

int main(int argc, char **argv)
{
    ct_init(&argc, &argv);
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &comm));
    DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &side));
    int round = 0, n = ct_size;

    /* Late ranks per form: rank 0 (200 ms) first, then others (100 ms). */
    for (int form = 0; form < CT_NFORMS; form++) {
        DFC_Request req = DFC_REQUEST_NULL;
        int nrounds = form == CT_PERSISTENT ? 3 : 2;
        for (int k = 0; k < nrounds; k++, round++) {
            int late = k == 0 ? 0 : (k == 1 ? n - 1 : n / 2);
            round_with_late(form, &req, k, late, k == 0 ? 200 : 100, round);
        }
        CT_FREE(form, req);
    }

    /* Many barriers back to back in every form, and Ibarriers on three communicators in
     * flight together, completed in different orders on different ranks. */
    DFC_Comm c3[3];
    for (int i = 0; i < 3; i++) DFCT_OK(DFC_Comm_dup(DFC_COMM_WORLD, &c3[i]));
    DFC_Request preq;
    DFCT_OK(DFC_Barrier_init(comm, DFC_INFO_NULL, &preq));
    for (int it = 0; it < 50; it++) {
        DFCT_OK(DFC_Barrier(comm));
        DFC_Request r[3];
        for (int i = 0; i < 3; i++) DFCT_OK(DFC_Ibarrier(c3[i], &r[i]));
        DFCT_OK(DFC_Start(&preq));
        for (int i = 0; i < 3; i++) {
            int j = (i + ct_rank + it) % 3;
            DFCT_OK(DFC_Wait(&r[j], DFC_STATUS_IGNORE));
        }
        DFCT_OK(DFC_Wait(&preq, DFC_STATUS_IGNORE));
    }
    DFCT_OK(DFC_Request_free(&preq));
    for (int i = 0; i < 3; i++) DFCT_OK(DFC_Comm_free(&c3[i]));

    /* Barrier on DFC_COMM_WORLD and DFC_COMM_SELF. */
    DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    DFCT_OK(DFC_Barrier(DFC_COMM_SELF));
    DFCT_OK(DFC_Comm_free(&side));
    DFCT_OK(DFC_Comm_free(&comm));
    return dfct_finalize();
}
