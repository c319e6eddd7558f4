/*
 * disconnect.c - Comm_disconnect (MPI-4.1 11.10.4): collective over the communicator; waits
 * for every pending operation on it, then frees it.
 *
 * It lives in the coll layer because of its barrier: after the local wait, each process
 * knows its own operations are over, but a peer may still be completing a send to it (an
 * eager message already counted complete on this side). The barrier, as in Open MPI, keeps
 * anyone from freeing the context id while a member still uses it. On an intercommunicator
 * the barrier spans both groups.
 */
#include "coll/dfc_coll.h"

int dfc_coll_comm_disconnect(const char *func, dfc_comm_t *c)
{
    int rc = dfc_req_wait_comm(c);
    if (rc) return rc;
    if (c->remote) {
        rc = dfc_coll_inter_barrier(func, c);
    } else {
        dfc_coll_call_t call = {func, DFC_MODE_BLOCKING, DFC_INFO_NULL, NULL};
        dfc_coll_args_t a = {.kind = DFC_COLL_BARRIER};
        rc = dfc_coll_run(&call, c, &a, NULL, NULL, NULL, NULL);
    }
    return rc ? rc : dfc_comm_free(c);
}
