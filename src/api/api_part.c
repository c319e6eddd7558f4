/* api_part.c - Pready and Parrived of partitioned communication (MPI-4.1 4.2, part.c); the
 * requests are made in api_p2p.c (DFC_Psend_init, DFC_Precv_init). */
#include "api/dfc_api.h"

static int get_part(const char *func, DFC_Request h, int want_send, dfc_req_t **r)
{
    *r = h == DFC_REQUEST_NULL ? NULL : dfc_req_get(h);
    if (!*r)
        return dfc_err(DFC_ERR_REQUEST, func,
                       "invalid argument request: 0x%x is not a valid request (null, freed or "
                       "never created)",
                       (unsigned)h);
    return dfc_part_check(*r, func, want_send);
}

/* [lo, hi] when is_list is 0, else list[0..n). */
static int ready_common(const char *func, int lo, int hi, int is_list, const int *list, int n,
                        DFC_Request request)
{
    int rc;
    dfc_req_t *r = NULL;
    DFC_API_ENTER();
    if ((rc = get_part(func, request, 1, &r))) goto fn_fail;
    if (!is_list && hi < lo) {
        rc = dfc_err(DFC_ERR_ARG, func,
                     "invalid argument partition_high: %d is less than partition_low %d", hi, lo);
        goto fn_fail;
    }
    if (is_list && n < 0) {
        rc = dfc_err(DFC_ERR_ARG, func, "invalid argument length: %d is negative", n);
        goto fn_fail;
    }
    if (is_list && n > 0 && (rc = dfc_api_check_ptr(func, "array_of_partitions", list)))
        goto fn_fail;
    if ((rc = dfc_part_ready(r, func, lo, hi, is_list ? list : NULL, n))) goto fn_fail;
    API_FAIL_EXIT(r ? r->comm : NULL)
}

int DFC_Pready(int partition, DFC_Request request)
{
    return ready_common(__func__, partition, partition, 0, NULL, 0, request);
}

int DFC_Pready_range(int partition_low, int partition_high, DFC_Request request)
{
    return ready_common(__func__, partition_low, partition_high, 0, NULL, 0, request);
}

int DFC_Pready_list(int length, const int array_of_partitions[], DFC_Request request)
{
    return ready_common(__func__, 0, 0, 1, array_of_partitions, length, request);
}

int DFC_Parrived(DFC_Request request, int partition, int *flag)
{
    int rc;
    dfc_req_t *r = NULL;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "flag", flag)) ||
        (rc = get_part(__func__, request, 0, &r)))
        goto fn_fail;
    if ((rc = dfc_part_arrived(r, partition, flag))) goto fn_fail;
    API_FAIL_EXIT(r ? r->comm : NULL)
}
