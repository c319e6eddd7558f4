/* api_comm.c - communicator entry points. */
#include <stdio.h>
#include <string.h>

#include "api/dfc_api.h"

/* Hands a new communicator to the user (or DFC_COMM_NULL for non-members). */
static int give_handle(dfc_comm_t *nc, DFC_Comm *newcomm)
{
    if (!nc) {
        *newcomm = DFC_COMM_NULL;
        return DFC_SUCCESS;
    }
    int h = dfc_htable_add(&dfc_comm_table, nc);
    if (!h) {
        dfc_comm_release(nc);
        return DFC_ERR(DFC_ERR_NO_MEM, "out of memory allocating a communicator handle");
    }
    nc->handle = h;
    *newcomm = h;
    return DFC_SUCCESS;
}

int dfc_api_comm_give_handle(dfc_comm_t *nc, DFC_Comm *newcomm) { return give_handle(nc, newcomm); }

int DFC_Comm_size(DFC_Comm comm, int *size)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c)) ||
        (rc = dfc_api_check_ptr(__func__, "size", size)))
        goto fn_fail;
    *size = c->size;
    API_FAIL_EXIT(c)
}

int DFC_Comm_rank(DFC_Comm comm, int *rank)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c)) ||
        (rc = dfc_api_check_ptr(__func__, "rank", rank)))
        goto fn_fail;
    *rank = c->rank;
    API_FAIL_EXIT(c)
}

static int check_info(DFC_Info info, const char *func, dfc_info_t **out)
{
    *out = NULL;
    if (info == DFC_INFO_NULL) return DFC_SUCCESS;
    *out = dfc_htable_get(&dfc_info_table, info);
    if (*out) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_INFO, func, "invalid argument info: 0x%x is not a valid info object",
                   (unsigned)info);
}

static int check_group(DFC_Group group, const char *func, dfc_group_t **out)
{
    *out = dfc_htable_get(&dfc_group_table, group);
    if (*out) return DFC_SUCCESS;
    return dfc_err(DFC_ERR_GROUP, func, "invalid argument group: 0x%x is not a valid group%s",
                   (unsigned)group, group == DFC_GROUP_NULL ? " (DFC_GROUP_NULL)" : "");
}

/* Dup, then the attributes' copy callbacks (MPI-4.1 7.7.2); a callback's error frees the
 * new communicator (after deleting what was copied) and is returned, as MPICH does. */
int dfc_api_comm_dup(dfc_comm_t *c, const dfc_info_t *inf, const char *func, DFC_Comm *newcomm)
{
    dfc_comm_t *nc = NULL;
    int rc = dfc_comm_dup(c, inf, &nc);
    if (rc || (rc = give_handle(nc, newcomm))) return rc;
    if ((rc = dfc_api_comm_attr_copy(c, nc, func))) {
        dfc_htable_remove(&dfc_comm_table, nc->handle);
        nc->handle = 0;
        dfc_comm_release(nc);
        *newcomm = DFC_COMM_NULL;
    }
    return rc;
}

int DFC_Comm_dup_with_info(DFC_Comm comm, DFC_Info info, DFC_Comm *newcomm)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_info_t *inf;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c)) ||
        (rc = check_info(info, __func__, &inf)) ||
        (rc = dfc_api_check_ptr(__func__, "newcomm", newcomm)) ||
        (rc = dfc_api_comm_dup(c, inf, __func__, newcomm)))
        goto fn_fail;
    API_FAIL_EXIT(c)
}

int DFC_Comm_dup(DFC_Comm comm, DFC_Comm *newcomm)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c)) ||
        (rc = dfc_api_check_ptr(__func__, "newcomm", newcomm)) ||
        (rc = dfc_api_comm_dup(c, NULL, __func__, newcomm)))
        goto fn_fail;
    API_FAIL_EXIT(c)
}

int DFC_Comm_split(DFC_Comm comm, int color, int key, DFC_Comm *newcomm)
{
    int rc;
    dfc_comm_t *c = NULL, *nc = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c)) ||
        (rc = dfc_comm_intra_check(c, __func__, "comm")) ||
        (rc = dfc_api_check_ptr(__func__, "newcomm", newcomm)))
        goto fn_fail;
    if (color < 0 && color != DFC_UNDEFINED) {
        rc = DFC_ERR(DFC_ERR_ARG, "invalid argument color: %d is negative and not DFC_UNDEFINED",
                     color);
        goto fn_fail;
    }
    if ((rc = dfc_comm_split(c, color, key, &nc)) || (rc = give_handle(nc, newcomm))) goto fn_fail;
    API_FAIL_EXIT(c)
}

int DFC_Comm_split_type(DFC_Comm comm, int split_type, int key, DFC_Info info, DFC_Comm *newcomm)
{
    int rc;
    dfc_comm_t *c = NULL, *nc = NULL;
    dfc_info_t *inf;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c)) ||
        (rc = dfc_comm_intra_check(c, __func__, "comm")) ||
        (rc = check_info(info, __func__, &inf)) ||
        (rc = dfc_api_check_ptr(__func__, "newcomm", newcomm)))
        goto fn_fail;
    if (split_type != DFC_COMM_TYPE_SHARED && split_type != DFC_UNDEFINED) {
        rc = DFC_ERR(DFC_ERR_ARG,
                     "invalid argument split_type: %d (DFC_COMM_TYPE_SHARED or DFC_UNDEFINED)",
                     split_type);
        goto fn_fail;
    }
    if ((rc = dfc_comm_split_type(c, split_type, key, inf, &nc)) || (rc = give_handle(nc, newcomm)))
        goto fn_fail;
    API_FAIL_EXIT(c)
}

/* A group passed to create must hold only members of comm. */
static int check_subset(const dfc_comm_t *c, const dfc_group_t *g, const char *func)
{
    for (int i = 0; i < g->size; i++)
        if (dfc_group_rank_of(c->group, g->world[i]) == DFC_UNDEFINED)
            return dfc_err(DFC_ERR_GROUP, func,
                           "invalid argument group: its member %d is not in comm", i);
    return DFC_SUCCESS;
}

int DFC_Comm_create(DFC_Comm comm, DFC_Group group, DFC_Comm *newcomm)
{
    int rc;
    dfc_comm_t *c = NULL, *nc = NULL;
    dfc_group_t *g;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c)) ||
        (rc = dfc_comm_intra_check(c, __func__, "comm")) ||
        (rc = check_group(group, __func__, &g)) ||
        (rc = dfc_api_check_ptr(__func__, "newcomm", newcomm)) ||
        (rc = check_subset(c, g, __func__)) || (rc = dfc_comm_create(c, g, &nc)) ||
        (rc = give_handle(nc, newcomm)))
        goto fn_fail;
    API_FAIL_EXIT(c)
}

int DFC_Comm_create_group(DFC_Comm comm, DFC_Group group, int tag, DFC_Comm *newcomm)
{
    int rc;
    dfc_comm_t *c = NULL, *nc = NULL;
    dfc_group_t *g;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c)) ||
        (rc = dfc_comm_intra_check(c, __func__, "comm")) ||
        (rc = check_group(group, __func__, &g)) ||
        (rc = dfc_api_check_ptr(__func__, "newcomm", newcomm)) ||
        (rc = dfc_api_check_tag(__func__, "tag", tag, 0)) || (rc = check_subset(c, g, __func__)))
        goto fn_fail;
    if (g->rank == DFC_UNDEFINED) {
        rc = DFC_ERR(DFC_ERR_GROUP, "invalid argument group: the calling process is not a member");
        goto fn_fail;
    }
    if ((rc = dfc_comm_create_group(c, g, tag, &nc)) || (rc = give_handle(nc, newcomm)))
        goto fn_fail;
    API_FAIL_EXIT(c)
}

int dfc_api_comm_releasable(const char *func, const DFC_Comm *comm, const char *what,
                            dfc_comm_t **out)
{
    int rc;
    if ((rc = dfc_api_check_ptr(func, "comm", comm)) ||
        (rc = dfc_comm_check(*comm, func, "comm", out)))
        return rc;
    if ((*out)->is_world || (*out)->is_self)
        return dfc_err(DFC_ERR_COMM, func, "invalid argument comm: %s cannot be %s", (*out)->name,
                       what);
    return DFC_SUCCESS;
}

int DFC_Comm_free(DFC_Comm *comm)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_api_comm_releasable(__func__, comm, "freed", &c)) || (rc = dfc_comm_free(c)))
        goto fn_fail;
    *comm = DFC_COMM_NULL;
    c = NULL;
    API_FAIL_EXIT(c)
}

int DFC_Comm_compare(DFC_Comm comm1, DFC_Comm comm2, int *result)
{
    int rc;
    dfc_comm_t *a = NULL, *b = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm1, __func__, "comm1", &a)) ||
        (rc = dfc_comm_check(comm2, __func__, "comm2", &b)) ||
        (rc = dfc_api_check_ptr(__func__, "result", result)))
        goto fn_fail;
    *result = dfc_comm_compare(a, b);
    API_FAIL_EXIT(a)
}

int DFC_Comm_group(DFC_Comm comm, DFC_Group *group)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c)) ||
        (rc = dfc_api_check_ptr(__func__, "group", group)))
        goto fn_fail;
    /* Each call returns a new reference the user frees, so each gets its own object. */
    if ((rc = dfc_group_new_handle(c->size, c->world, __func__, group))) goto fn_fail;
    API_FAIL_EXIT(c)
}

int DFC_Comm_set_name(DFC_Comm comm, const char *comm_name)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c)) ||
        (rc = dfc_api_check_ptr(__func__, "comm_name", comm_name)))
        goto fn_fail;
    snprintf(c->name, sizeof c->name, "%s",
             comm_name); /* longer names are truncated, as MPI allows */
    API_FAIL_EXIT(c)
}

int DFC_Comm_get_name(DFC_Comm comm, char *comm_name, int *resultlen)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c)) ||
        (rc = dfc_api_check_ptr(__func__, "comm_name", comm_name)) ||
        (rc = dfc_api_check_ptr(__func__, "resultlen", resultlen)))
        goto fn_fail;
    strcpy(comm_name, c->name);
    *resultlen = (int)strlen(c->name);
    API_FAIL_EXIT(c)
}

int DFC_Comm_set_info(DFC_Comm comm, DFC_Info info)
{
    int rc;
    dfc_comm_t *c = NULL;
    dfc_info_t *inf;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c)) ||
        (rc = check_info(info, __func__, &inf)))
        goto fn_fail;
    if (inf) dfc_comm_apply_info(c, inf);
    API_FAIL_EXIT(c)
}

int DFC_Comm_get_info(DFC_Comm comm, DFC_Info *info_used)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c)) ||
        (rc = dfc_api_check_ptr(__func__, "info_used", info_used)))
        goto fn_fail;
    if ((rc = dfc_info_dup_handle(c->info, __func__, info_used))) goto fn_fail;
    API_FAIL_EXIT(c)
}

int DFC_Comm_get_peer_transport(DFC_Comm comm, int rank, char *name, int *resultlen)
{
    int rc;
    dfc_comm_t *c = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_comm_check(comm, __func__, "comm", &c)) ||
        (rc = dfc_api_check_ptr(__func__, "name", name)) ||
        (rc = dfc_api_check_ptr(__func__, "resultlen", resultlen)))
        goto fn_fail;
    if (rank < 0 || rank >= c->size) {
        rc = DFC_ERR(DFC_ERR_RANK,
                     "invalid argument rank: %d is out of range for a communicator of size %d",
                     rank, c->size);
        goto fn_fail;
    }
    snprintf(name, DFC_MAX_TRANSPORT_NAME, "%s", dfc_comm_peer_transport(c, rank));
    *resultlen = (int)strlen(name);
    API_FAIL_EXIT(c)
}
