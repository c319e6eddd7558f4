/*
 * api_dynproc.c - the two functions of MPI's process-creation family (MPI-4.1 11) that are
 * complete without spawning: DFC cannot start processes (no Comm_spawn, Comm_accept or
 * Comm_connect), so no process has a parent, and Comm_disconnect serves every communicator
 * DFC can make.
 */
#include "api/dfc_api.h"
#include "coll/dfc_coll.h"

int DFC_Comm_get_parent(DFC_Comm *parent)
{
    int rc;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "parent", parent))) goto fn_fail;
    *parent = DFC_COMM_NULL; /* no process was spawned */
    API_FAIL_EXIT(NULL)
}

int DFC_Comm_disconnect(DFC_Comm *comm)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_api_comm_releasable(__func__, comm, "disconnected", &c)) ||
        (rc = dfc_coll_comm_disconnect(__func__, c)))
        goto fn_fail;
    *comm = DFC_COMM_NULL;
    c = NULL;
    API_FAIL_EXIT(c)
}
