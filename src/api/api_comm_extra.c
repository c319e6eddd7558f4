/*
 * api_comm_extra.c - communicator and environment extras of MPI-4.1: Comm_test_inter,
 * Comm_idup(_with_info), Comm_create_from_group, Intercomm_create_from_groups, Pcontrol, Alloc_mem/Free_mem and
 * Info_create_env.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/dfc_api.h"

static int check_info(DFC_Info info, const char *func, dfc_info_t **out)
{
    *out = NULL;
    if (info == DFC_INFO_NULL || (*out = dfc_htable_get(&dfc_info_table, info))) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_INFO, func, "invalid argument info: 0x%x is not a valid info object",
                   (unsigned)info);
}

/* mpi4py asks before every collective. */
int DFC_Comm_test_inter(DFC_Comm comm, int *flag)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c)) ||
        (rc = dfc_api_check_ptr(__func__, "flag", flag)))
        goto fn_fail;
    *flag = c->remote != NULL;
    API_FAIL_EXIT(c)
}

/* The duplicate is made at once (it is collective like DFC_Comm_dup, so every member must
 * call it in the same order relative to other collectives on comm, which MPI requires of
 * Comm_idup too); the request returned is complete, and newcomm is usable at once. */
static int idup_common(DFC_Comm comm, DFC_Info info, DFC_Comm *newcomm, DFC_Request *request,
                       const char *func)
{
    dfc_comm_t *c = NULL;
    dfc_info_t *inf = NULL;
    int rc;
    if ((rc = dfc_comm_check(comm, func, "comm", &c)) || (rc = check_info(info, func, &inf)))
        return rc;
    if ((rc = dfc_api_check_ptr(func, "newcomm", newcomm)) ||
        (rc = dfc_api_check_ptr(func, "request", request)))
        return rc;
    dfc_req_t *r = dfc_req_new(DFC_REQ_COLL, c);
    if (!r) return dfc_err(DFC_ERR_NO_MEM, func, "out of memory allocating a request");
    if ((rc = dfc_api_comm_dup(c, inf, func, newcomm)) || (rc = dfc_req_handle(r, request))) {
        dfc_req_free(r);
        return rc;
    }
    dfc_req_complete(r);
    return DFC_SUCCESS;
}

int DFC_Comm_idup(DFC_Comm comm, DFC_Comm *newcomm, DFC_Request *request)
{
    int rc;
    DFC_API_ENTER();
    if ((rc = idup_common(comm, DFC_INFO_NULL, newcomm, request, __func__))) goto fn_fail;
    API_FAIL_EXIT(dfc_comm_get(comm))
}

int DFC_Comm_idup_with_info(DFC_Comm comm, DFC_Info info, DFC_Comm *newcomm, DFC_Request *request)
{
    int rc;
    DFC_API_ENTER();
    if ((rc = idup_common(comm, info, newcomm, request, __func__))) goto fn_fail;
    API_FAIL_EXIT(dfc_comm_get(comm))
}

/* The tag that keeps creations with different string tags apart: a hash of the string
 * (FNV-1a) within the user tag range. Creations are matched by (group, tag) over
 * DFC_COMM_WORLD's creation context, as DFC_Comm_create_group does. */
static int stringtag_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return (int)(h & DFC_TAG_UB_VALUE);
}

static int check_errhandler(DFC_Errhandler e, const char *func)
{
    if (e == DFC_ERRORS_ARE_FATAL || e == DFC_ERRORS_RETURN || e == DFC_ERRORS_ABORT ||
        e == DFC_ERRHANDLER_NULL || dfc_api_errhandler_is_user(e, 1))
        return DFC_SUCCESS;
    return dfc_err(DFC_ERR_ERRHANDLER, func,
                   "invalid argument errhandler: 0x%x is not an error handler", (unsigned)e);
}

int DFC_Comm_create_from_group(DFC_Group group, const char *stringtag, DFC_Info info,
                               DFC_Errhandler errhandler, DFC_Comm *newcomm)
{
    int rc;
    dfc_group_t *g = NULL;
    dfc_info_t *inf = NULL;
    dfc_comm_t *nc = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_group_check(group, __func__, "group", &g)) ||
        (rc = dfc_api_check_ptr(__func__, "stringtag", stringtag)) ||
        (rc = check_errhandler(errhandler, __func__)) ||
        (rc = dfc_api_check_ptr(__func__, "newcomm", newcomm)))
        goto fn_fail;
    if ((rc = check_info(info, __func__, &inf))) goto fn_fail;
    if (g->size == 0) { /* DFC_GROUP_EMPTY: no process is a member, nothing to agree on */
        *newcomm = DFC_COMM_NULL;
        goto fn_exit;
    }
    if (g->rank == DFC_UNDEFINED) {
        rc = DFC_ERR(DFC_ERR_GROUP, "invalid argument group: the calling process is not a member");
        goto fn_fail;
    }
    if ((rc = dfc_comm_create_from_group(dfc_comm_get(DFC_COMM_WORLD), g, inf,
                                         stringtag_hash(stringtag), &nc)))
        goto fn_fail;
    if (nc) nc->errhandler = errhandler == DFC_ERRHANDLER_NULL ? DFC_ERRORS_ARE_FATAL : errhandler;
    if ((rc = dfc_api_comm_give_handle(nc, newcomm))) goto fn_fail;
    API_FAIL_EXIT(NULL)
}

/* A rank of group g (a leader argument), DFC_ERR_RANK naming argname otherwise. */
static int check_leader(const char *func, const char *argname, int r, const dfc_group_t *g,
                        const char *gname)
{
    if (r >= 0 && r < g->size) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_RANK, func, "invalid argument %s: %d is not a rank of %s (size %d)",
                   argname, r, gname, g->size);
}

/* MPI-4.0: both groups from DFC_COMM_WORLD's processes (sessions are not provided). Every
 * process knows both groups, so no leaders exchange anything: local_leader is checked (the
 * same on every member), remote_leader is not used, and a bad one at the local leader alone
 * is not reported (failing there alone would leave its group waiting). */
int DFC_Intercomm_create_from_groups(DFC_Group local_group, int local_leader,
                                     DFC_Group remote_group, int remote_leader,
                                     const char *stringtag, DFC_Info info,
                                     DFC_Errhandler errhandler, DFC_Comm *newintercomm)
{
    int rc;
    dfc_group_t *lg = NULL, *rg = NULL;
    dfc_info_t *inf = NULL;
    dfc_comm_t *nc = NULL;
    const char *f = __func__;
    DFC_API_ENTER();
    if ((rc = dfc_group_check(local_group, f, "local_group", &lg)) ||
        (rc = dfc_group_check(remote_group, f, "remote_group", &rg)) ||
        (rc = dfc_api_check_ptr(f, "stringtag", stringtag)) ||
        (rc = check_errhandler(errhandler, f)) || (rc = check_info(info, f, &inf)) ||
        (rc = dfc_api_check_ptr(f, "newintercomm", newintercomm)))
        goto fn_fail;
    if (lg->rank == DFC_UNDEFINED || rg->size == 0) {
        rc = dfc_err(DFC_ERR_GROUP, f, "invalid argument %s",
                     rg->size == 0 ? "remote_group: empty"
                                   : "local_group: the calling process is not a member");
        goto fn_fail;
    }
    (void)remote_leader; /* significant at the local leader only, where nothing uses it */
    if ((rc = check_leader(f, "local_leader", local_leader, lg, "local_group"))) goto fn_fail;
    if ((rc = dfc_intercomm_from_groups(lg, rg, inf, stringtag_hash(stringtag), f, &nc)))
        goto fn_fail;
    nc->errhandler = errhandler == DFC_ERRHANDLER_NULL ? DFC_ERRORS_ARE_FATAL : errhandler;
    if ((rc = dfc_api_comm_give_handle(nc, newintercomm))) goto fn_fail;
    API_FAIL_EXIT(NULL)
}

/* DFC has no profiling levels: the call is accepted and does nothing, before DFC_Init too. */
int DFC_Pcontrol(const int level, ...)
{
    (void)level;
    return DFC_SUCCESS;
}

/* Plain host memory, 64-byte aligned; the transports need no registration (shm copies,
 * tcp sends from any address), so no info key changes what is returned. */
int DFC_Alloc_mem(DFC_Aint size, DFC_Info info, void *baseptr)
{
    int rc;
    void *p = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "baseptr", baseptr))) goto fn_fail;
    if (size < 0) {
        rc = DFC_ERR(DFC_ERR_ARG, "invalid argument size: %ld is negative", (long)size);
        goto fn_fail;
    }
    dfc_info_t *inf;
    if ((rc = check_info(info, __func__, &inf))) goto fn_fail;
    if (posix_memalign(&p, 64, size ? (size_t)size : 1)) {
        rc = DFC_ERR(DFC_ERR_NO_MEM, "cannot allocate %ld bytes", (long)size);
        goto fn_fail;
    }
    *(void **)baseptr = p;
    API_FAIL_EXIT(NULL)
}

int DFC_Free_mem(void *base)
{
    DFC_API_ENTER();
    free(base);
    DFC_API_EXIT();
    return DFC_SUCCESS;
}

/* DFC_INFO_ENV's keys, with "command" and "argv" from argc/argv (MPI-4.1 11.4.1). */
int DFC_Info_create_env(int argc, char *argv[], DFC_Info *info)
{
    int rc;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "info", info))) goto fn_fail;
    if (argc < 0 || (argc > 0 && !argv)) {
        rc = DFC_ERR(DFC_ERR_ARG, "invalid argument %s: %s", argc < 0 ? "argc" : "argv",
                     argc < 0 ? "negative" : "NULL with argc > 0");
        goto fn_fail;
    }
    if ((rc = dfc_info_create_env(argc, argv, __func__, info))) goto fn_fail;
    API_FAIL_EXIT(NULL)
}
