/*
 * api_count_c.c - the large-count forms (MPI-4.1 5.2.1: "_c", DFC_Count counts) of Send,
 * Recv, Isend, Irecv, Bcast, Reduce, Allreduce, Allgather and Get_count (Type_size_c is in
 * api_type.c).
 *
 * A count that fits an int goes to the int form as it is. A larger one becomes one item of
 * a derived type holding `count` items of the datatype, made of public calls as MPICH's
 * large-count support makes it: a contiguous type of 2^30 items repeated count / 2^30
 * times, and the remaining items behind it in a struct. The engine moves bytes in 64 bits
 * and that type is dense for every predefined datatype, so it moves in place like the
 * original, and reductions take it (a type built from one predefined type). Statuses count
 * bytes, so Get_count_c with the original datatype gives the large count back. The wrappers
 * hold no lock around the inner calls (those take it themselves). The other large-count
 * forms, made the same way, are in api_count_c_p2p.c and api_count_c_coll.c.
 */
#include <limits.h>

#include "api/api_count_c.h"

#define CHUNK (1 << 30)

int dfc_api_big_type(DFC_Count count, DFC_Datatype dt, dfc_api_big_t *b)
{
    int rc;
    DFC_Aint lb, ext;
    DFC_Datatype blk = DFC_DATATYPE_NULL, body = DFC_DATATYPE_NULL;
    b->tmp = DFC_DATATYPE_NULL;
    b->use = dt;
    b->n = count < 0 ? (count >= INT_MIN ? (int)count : -1) : (int)count; /* int form checks */
    if (count <= INT_MAX) return DFC_SUCCESS;
    DFC_Count q = count / CHUNK, r = count % CHUNK;
    if (q > INT_MAX) q = INT_MAX, r = 0; /* past 2^61 items: no memory holds them anyway */
    if ((rc = DFC_Type_get_extent(dt, &lb, &ext)) || (rc = DFC_Type_contiguous(CHUNK, dt, &blk)) ||
        (rc = DFC_Type_contiguous((int)q, blk, &body)))
        goto out;
    int bl[2] = {1, (int)r};
    DFC_Aint disp[2] = {0, (DFC_Aint)q * CHUNK * ext};
    DFC_Datatype types[2] = {body, dt};
    if ((rc = DFC_Type_create_struct(2, bl, disp, types, &b->tmp)) ||
        (rc = DFC_Type_commit(&b->tmp)))
        goto out;
    b->n = 1;
    b->use = b->tmp;
out:
    if (blk != DFC_DATATYPE_NULL) DFC_Type_free(&blk);
    if (body != DFC_DATATYPE_NULL) DFC_Type_free(&body);
    return rc;
}

int dfc_api_big_done(dfc_api_big_t *b, int rc)
{
    if (b->tmp != DFC_DATATYPE_NULL) DFC_Type_free(&b->tmp);
    return rc;
}

int DFC_Send_c(const void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int tag,
               DFC_Comm comm)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc : dfc_api_big_done(&b, DFC_Send(buf, b.n, b.use, dest, tag, comm));
}

int DFC_Recv_c(void *buf, DFC_Count count, DFC_Datatype datatype, int source, int tag,
               DFC_Comm comm, DFC_Status *status)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc : dfc_api_big_done(&b, DFC_Recv(buf, b.n, b.use, source, tag, comm, status));
}

/* The request holds what it needs of the type, so the type may go at once. */
int DFC_Isend_c(const void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int tag,
                DFC_Comm comm, DFC_Request *request)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc : dfc_api_big_done(&b, DFC_Isend(buf, b.n, b.use, dest, tag, comm, request));
}

int DFC_Irecv_c(void *buf, DFC_Count count, DFC_Datatype datatype, int source, int tag,
                DFC_Comm comm, DFC_Request *request)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc : dfc_api_big_done(&b, DFC_Irecv(buf, b.n, b.use, source, tag, comm, request));
}

int DFC_Bcast_c(void *buffer, DFC_Count count, DFC_Datatype datatype, int root, DFC_Comm comm)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc : dfc_api_big_done(&b, DFC_Bcast(buffer, b.n, b.use, root, comm));
}

int DFC_Reduce_c(const void *sendbuf, void *recvbuf, DFC_Count count, DFC_Datatype datatype,
                 DFC_Op op, int root, DFC_Comm comm)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc : dfc_api_big_done(&b, DFC_Reduce(sendbuf, recvbuf, b.n, b.use, op, root, comm));
}

int DFC_Allreduce_c(const void *sendbuf, void *recvbuf, DFC_Count count, DFC_Datatype datatype,
                    DFC_Op op, DFC_Comm comm)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc : dfc_api_big_done(&b, DFC_Allreduce(sendbuf, recvbuf, b.n, b.use, op, comm));
}

int DFC_Allgather_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, void *recvbuf,
                    DFC_Count recvcount, DFC_Datatype recvtype, DFC_Comm comm)
{
    dfc_api_big_t s, r;
    int rc = dfc_api_big_type(sendcount, sendtype, &s);
    if (rc) return rc;
    if ((rc = dfc_api_big_type(recvcount, recvtype, &r))) return dfc_api_big_done(&s, rc);
    rc = DFC_Allgather(sendbuf, s.n, s.use, recvbuf, r.n, r.use, comm);
    return dfc_api_big_done(&s, dfc_api_big_done(&r, rc));
}

int DFC_Get_count_c(const DFC_Status *status, DFC_Datatype datatype, DFC_Count *count)
{
    int rc = DFC_SUCCESS;
    dfc_dtype_t *dt = NULL;
    DFC_API_ENTER();
    if (!status || status == DFC_STATUS_IGNORE) {
        rc = dfc_err(DFC_ERR_ARG, __func__, "invalid argument status: %s",
                     status ? "DFC_STATUS_IGNORE" : "NULL pointer");
        goto fn_fail;
    }
    if ((rc = dfc_dtype_check(datatype, __func__, "datatype", &dt)) ||
        (rc = dfc_api_check_ptr(__func__, "count", count)))
        goto fn_fail;
    /* As Get_count: bytes as the engine moves them, dt->size per item. */
    uint64_t bytes = dfc_status_bytes(status);
    if (dt->size == 0) *count = bytes ? DFC_UNDEFINED : 0;
    else *count = bytes % dt->size ? DFC_UNDEFINED : (DFC_Count)(bytes / dt->size);
    API_FAIL_EXIT(NULL)
}
