/*
 * api_group.c - DFC_Group_*: argument checks, then one call into comm/group.c.
 * (DFC_Comm_group lives with the communicator entry points.)
 *
 * Groups belong to no communicator, so errors go to DFC_COMM_WORLD's error handler
 * (dfc_api_error(NULL, ...)), as MPI-4.1 section 9.3 prescribes for such calls.
 */
#include "api/dfc_api.h"


/* An array argument may be NULL only when it has no elements. */
static int check_array(const char *func, const char *argname, const void *p, int n)
{
    return n > 0 ? dfc_api_check_ptr(func, argname, p) : DFC_SUCCESS;
}

int DFC_Group_size(DFC_Group group, int *size)
{
    int rc = DFC_SUCCESS;
    dfc_group_t *g = NULL;
    DFC_API_ENTER();
    rc = dfc_group_check(group, __func__, "group", &g);
    if (rc) goto fn_fail;
    rc = dfc_api_check_ptr(__func__, "size", size);
    if (rc) goto fn_fail;
    *size = g->size;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Group_rank(DFC_Group group, int *rank)
{
    int rc = DFC_SUCCESS;
    dfc_group_t *g = NULL;
    DFC_API_ENTER();
    rc = dfc_group_check(group, __func__, "group", &g);
    if (rc) goto fn_fail;
    rc = dfc_api_check_ptr(__func__, "rank", rank);
    if (rc) goto fn_fail;
    *rank = g->rank;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

/* The four constructors from a list of ranks or ranges share their checks and publication;
 * `which` picks the algebra function. */
enum { FROM_INCL, FROM_EXCL, FROM_RANGE_INCL, FROM_RANGE_EXCL };

static int group_from_list(const char *func, int which, DFC_Group group, int n, const void *list,
                           DFC_Group *newgroup)
{
    int rc = DFC_SUCCESS;
    dfc_group_t *g = NULL, *result = NULL;
    const char *listname = which == FROM_INCL || which == FROM_EXCL ? "ranks" : "ranges";
    DFC_API_ENTER();
    rc = dfc_group_check(group, func, "group", &g);
    if (rc) goto fn_fail;
    if (n < 0) {
        rc = dfc_err(DFC_ERR_ARG, func, "invalid argument n: %d is negative", n);
        goto fn_fail;
    }
    rc = check_array(func, listname, list, n);
    if (rc) goto fn_fail;
    rc = dfc_api_check_ptr(func, "newgroup", newgroup);
    if (rc) goto fn_fail;

    switch (which) {
    case FROM_INCL: rc = dfc_group_incl(g, n, list, func, &result); break;
    case FROM_EXCL: rc = dfc_group_excl(g, n, list, func, &result); break;
    case FROM_RANGE_INCL: rc = dfc_group_range_incl(g, n, (int(*)[3])list, func, &result); break;
    default: rc = dfc_group_range_excl(g, n, (int(*)[3])list, func, &result); break;
    }
    if (rc) goto fn_fail;
    rc = dfc_group_publish(result, newgroup);
    if (rc) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Group_incl(DFC_Group group, int n, const int ranks[], DFC_Group *newgroup)
{
    return group_from_list(__func__, FROM_INCL, group, n, ranks, newgroup);
}

int DFC_Group_excl(DFC_Group group, int n, const int ranks[], DFC_Group *newgroup)
{
    return group_from_list(__func__, FROM_EXCL, group, n, ranks, newgroup);
}

int DFC_Group_range_incl(DFC_Group group, int n, int ranges[][3], DFC_Group *newgroup)
{
    return group_from_list(__func__, FROM_RANGE_INCL, group, n, ranges, newgroup);
}

int DFC_Group_range_excl(DFC_Group group, int n, int ranges[][3], DFC_Group *newgroup)
{
    return group_from_list(__func__, FROM_RANGE_EXCL, group, n, ranges, newgroup);
}

/* Union, intersection and difference share their checks and publication. */
enum { SET_UNION, SET_INTERSECTION, SET_DIFFERENCE };

static int group_set_op(const char *func, int which, DFC_Group group1, DFC_Group group2,
                        DFC_Group *newgroup)
{
    int rc = DFC_SUCCESS;
    dfc_group_t *a = NULL, *b = NULL, *result = NULL;
    DFC_API_ENTER();
    rc = dfc_group_check(group1, func, "group1", &a);
    if (rc) goto fn_fail;
    rc = dfc_group_check(group2, func, "group2", &b);
    if (rc) goto fn_fail;
    rc = dfc_api_check_ptr(func, "newgroup", newgroup);
    if (rc) goto fn_fail;

    switch (which) {
    case SET_UNION: rc = dfc_group_union(a, b, &result); break;
    case SET_INTERSECTION: rc = dfc_group_intersection(a, b, &result); break;
    default: rc = dfc_group_difference(a, b, &result); break;
    }
    if (rc) goto fn_fail;
    rc = dfc_group_publish(result, newgroup);
    if (rc) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Group_union(DFC_Group group1, DFC_Group group2, DFC_Group *newgroup)
{
    return group_set_op(__func__, SET_UNION, group1, group2, newgroup);
}

int DFC_Group_intersection(DFC_Group group1, DFC_Group group2, DFC_Group *newgroup)
{
    return group_set_op(__func__, SET_INTERSECTION, group1, group2, newgroup);
}

int DFC_Group_difference(DFC_Group group1, DFC_Group group2, DFC_Group *newgroup)
{
    return group_set_op(__func__, SET_DIFFERENCE, group1, group2, newgroup);
}

int DFC_Group_translate_ranks(DFC_Group group1, int n, const int ranks1[], DFC_Group group2,
                              int ranks2[])
{
    int rc = DFC_SUCCESS;
    dfc_group_t *a = NULL, *b = NULL;
    DFC_API_ENTER();
    rc = dfc_group_check(group1, __func__, "group1", &a);
    if (rc) goto fn_fail;
    rc = dfc_group_check(group2, __func__, "group2", &b);
    if (rc) goto fn_fail;
    if (n < 0) {
        rc = DFC_ERR(DFC_ERR_ARG, "invalid argument n: %d is negative", n);
        goto fn_fail;
    }
    rc = check_array(__func__, "ranks1", ranks1, n);
    if (rc) goto fn_fail;
    rc = check_array(__func__, "ranks2", ranks2, n);
    if (rc) goto fn_fail;
    rc = dfc_group_translate_ranks(a, n, ranks1, b, __func__, ranks2);
    if (rc) goto fn_fail;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Group_compare(DFC_Group group1, DFC_Group group2, int *result)
{
    int rc = DFC_SUCCESS;
    dfc_group_t *a = NULL, *b = NULL;
    DFC_API_ENTER();
    rc = dfc_group_check(group1, __func__, "group1", &a);
    if (rc) goto fn_fail;
    rc = dfc_group_check(group2, __func__, "group2", &b);
    if (rc) goto fn_fail;
    rc = dfc_api_check_ptr(__func__, "result", result);
    if (rc) goto fn_fail;
    *result = dfc_group_compare(a, b);
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Group_free(DFC_Group *group)
{
    int rc = DFC_SUCCESS;
    dfc_group_t *g = NULL;
    DFC_API_ENTER();
    rc = dfc_api_check_ptr(__func__, "group", group);
    if (rc) goto fn_fail;
    rc = dfc_group_check(*group, __func__, "group", &g);
    if (rc) goto fn_fail;
    /* MPI-4.1 allows freeing DFC_GROUP_EMPTY: the handle becomes null, the object stays. */
    dfc_group_release(g);
    *group = DFC_GROUP_NULL;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}
