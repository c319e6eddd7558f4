/*
 * api_count_c_coll.c - the large-count (_c) forms of the collectives whose counts are one
 * number per side (Bcast, Reduce, Allreduce, Allgather blocking are in api_count_c.c):
 * the nonblocking and persistent forms, Scan, Exscan, Reduce_scatter_block, Gather,
 * Scatter, Alltoall and Reduce_local. Each is the int form on the count as an int count of
 * a datatype (api_count_c.h): a count past INT_MAX becomes one item of a type of that many
 * items, whose extent places the blocks of the rooted and all-to-all forms as the count
 * would. The v and w forms (arrays of DFC_Count and DFC_Aint) are not here.
 */
#include "api/api_count_c.h"

int DFC_Ibcast_c(void *buffer, DFC_Count count, DFC_Datatype datatype, int root, DFC_Comm comm,
                 DFC_Request *request)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc : dfc_api_big_done(&b, DFC_Ibcast(buffer, b.n, b.use, root, comm, request));
}

int DFC_Bcast_init_c(void *buffer, DFC_Count count, DFC_Datatype datatype, int root, DFC_Comm comm,
                     DFC_Info info, DFC_Request *request)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc
              : dfc_api_big_done(&b, DFC_Bcast_init(buffer, b.n, b.use, root, comm, info, request));
}

int DFC_Ireduce_c(const void *sendbuf, void *recvbuf, DFC_Count count, DFC_Datatype datatype,
                  DFC_Op op, int root, DFC_Comm comm, DFC_Request *request)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc
              : dfc_api_big_done(&b, DFC_Ireduce(sendbuf, recvbuf, b.n, b.use, op, root, comm,
                                                 request));
}

int DFC_Reduce_init_c(const void *sendbuf, void *recvbuf, DFC_Count count, DFC_Datatype datatype,
                      DFC_Op op, int root, DFC_Comm comm, DFC_Info info, DFC_Request *request)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc
              : dfc_api_big_done(&b, DFC_Reduce_init(sendbuf, recvbuf, b.n, b.use, op, root, comm,
                                                     info, request));
}

int DFC_Iallreduce_c(const void *sendbuf, void *recvbuf, DFC_Count count, DFC_Datatype datatype,
                     DFC_Op op, DFC_Comm comm, DFC_Request *request)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc
              : dfc_api_big_done(&b,
                                 DFC_Iallreduce(sendbuf, recvbuf, b.n, b.use, op, comm, request));
}

int DFC_Allreduce_init_c(const void *sendbuf, void *recvbuf, DFC_Count count, DFC_Datatype datatype,
                         DFC_Op op, DFC_Comm comm, DFC_Info info, DFC_Request *request)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc
              : dfc_api_big_done(&b, DFC_Allreduce_init(sendbuf, recvbuf, b.n, b.use, op, comm,
                                                        info, request));
}

int DFC_Scan_c(const void *sendbuf, void *recvbuf, DFC_Count count, DFC_Datatype datatype,
               DFC_Op op, DFC_Comm comm)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc : dfc_api_big_done(&b, DFC_Scan(sendbuf, recvbuf, b.n, b.use, op, comm));
}

int DFC_Iscan_c(const void *sendbuf, void *recvbuf, DFC_Count count, DFC_Datatype datatype,
                DFC_Op op, DFC_Comm comm, DFC_Request *request)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc
              : dfc_api_big_done(&b, DFC_Iscan(sendbuf, recvbuf, b.n, b.use, op, comm, request));
}

int DFC_Scan_init_c(const void *sendbuf, void *recvbuf, DFC_Count count, DFC_Datatype datatype,
                    DFC_Op op, DFC_Comm comm, DFC_Info info, DFC_Request *request)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc
              : dfc_api_big_done(&b, DFC_Scan_init(sendbuf, recvbuf, b.n, b.use, op, comm, info,
                                                   request));
}

int DFC_Exscan_c(const void *sendbuf, void *recvbuf, DFC_Count count, DFC_Datatype datatype,
                 DFC_Op op, DFC_Comm comm)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc : dfc_api_big_done(&b, DFC_Exscan(sendbuf, recvbuf, b.n, b.use, op, comm));
}

int DFC_Iexscan_c(const void *sendbuf, void *recvbuf, DFC_Count count, DFC_Datatype datatype,
                  DFC_Op op, DFC_Comm comm, DFC_Request *request)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc
              : dfc_api_big_done(&b, DFC_Iexscan(sendbuf, recvbuf, b.n, b.use, op, comm, request));
}

int DFC_Exscan_init_c(const void *sendbuf, void *recvbuf, DFC_Count count, DFC_Datatype datatype,
                      DFC_Op op, DFC_Comm comm, DFC_Info info, DFC_Request *request)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc
              : dfc_api_big_done(&b, DFC_Exscan_init(sendbuf, recvbuf, b.n, b.use, op, comm, info,
                                                     request));
}

int DFC_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, DFC_Count recvcount,
                               DFC_Datatype datatype, DFC_Op op, DFC_Comm comm)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(recvcount, datatype, &b);
    return rc ? rc
              : dfc_api_big_done(&b,
                                 DFC_Reduce_scatter_block(sendbuf, recvbuf, b.n, b.use, op, comm));
}

int DFC_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, DFC_Count recvcount,
                                DFC_Datatype datatype, DFC_Op op, DFC_Comm comm,
                                DFC_Request *request)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(recvcount, datatype, &b);
    return rc ? rc
              : dfc_api_big_done(&b, DFC_Ireduce_scatter_block(sendbuf, recvbuf, b.n, b.use, op,
                                                               comm, request));
}

int DFC_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, DFC_Count recvcount,
                                    DFC_Datatype datatype, DFC_Op op, DFC_Comm comm, DFC_Info info,
                                    DFC_Request *request)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(recvcount, datatype, &b);
    return rc ? rc
              : dfc_api_big_done(&b, DFC_Reduce_scatter_block_init(sendbuf, recvbuf, b.n, b.use, op,
                                                                   comm, info, request));
}

int DFC_Reduce_local_c(const void *inbuf, void *inoutbuf, DFC_Count count, DFC_Datatype datatype,
                       DFC_Op op)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc : dfc_api_big_done(&b, DFC_Reduce_local(inbuf, inoutbuf, b.n, b.use, op));
}

int DFC_Gather_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, void *recvbuf,
                 DFC_Count recvcount, DFC_Datatype recvtype, int root, DFC_Comm comm)
{
    dfc_api_big_t s, r;
    int rc = dfc_api_big_type(sendcount, sendtype, &s);
    if (rc) return rc;
    if ((rc = dfc_api_big_type(recvcount, recvtype, &r))) return dfc_api_big_done(&s, rc);
    rc = DFC_Gather(sendbuf, s.n, s.use, recvbuf, r.n, r.use, root, comm);
    return dfc_api_big_done(&s, dfc_api_big_done(&r, rc));
}

int DFC_Igather_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, void *recvbuf,
                  DFC_Count recvcount, DFC_Datatype recvtype, int root, DFC_Comm comm,
                  DFC_Request *request)
{
    dfc_api_big_t s, r;
    int rc = dfc_api_big_type(sendcount, sendtype, &s);
    if (rc) return rc;
    if ((rc = dfc_api_big_type(recvcount, recvtype, &r))) return dfc_api_big_done(&s, rc);
    rc = DFC_Igather(sendbuf, s.n, s.use, recvbuf, r.n, r.use, root, comm, request);
    return dfc_api_big_done(&s, dfc_api_big_done(&r, rc));
}

int DFC_Gather_init_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                      void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype, int root,
                      DFC_Comm comm, DFC_Info info, DFC_Request *request)
{
    dfc_api_big_t s, r;
    int rc = dfc_api_big_type(sendcount, sendtype, &s);
    if (rc) return rc;
    if ((rc = dfc_api_big_type(recvcount, recvtype, &r))) return dfc_api_big_done(&s, rc);
    rc = DFC_Gather_init(sendbuf, s.n, s.use, recvbuf, r.n, r.use, root, comm, info, request);
    return dfc_api_big_done(&s, dfc_api_big_done(&r, rc));
}

int DFC_Scatter_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, void *recvbuf,
                  DFC_Count recvcount, DFC_Datatype recvtype, int root, DFC_Comm comm)
{
    dfc_api_big_t s, r;
    int rc = dfc_api_big_type(sendcount, sendtype, &s);
    if (rc) return rc;
    if ((rc = dfc_api_big_type(recvcount, recvtype, &r))) return dfc_api_big_done(&s, rc);
    rc = DFC_Scatter(sendbuf, s.n, s.use, recvbuf, r.n, r.use, root, comm);
    return dfc_api_big_done(&s, dfc_api_big_done(&r, rc));
}

int DFC_Iscatter_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, void *recvbuf,
                   DFC_Count recvcount, DFC_Datatype recvtype, int root, DFC_Comm comm,
                   DFC_Request *request)
{
    dfc_api_big_t s, r;
    int rc = dfc_api_big_type(sendcount, sendtype, &s);
    if (rc) return rc;
    if ((rc = dfc_api_big_type(recvcount, recvtype, &r))) return dfc_api_big_done(&s, rc);
    rc = DFC_Iscatter(sendbuf, s.n, s.use, recvbuf, r.n, r.use, root, comm, request);
    return dfc_api_big_done(&s, dfc_api_big_done(&r, rc));
}

int DFC_Scatter_init_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                       void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype, int root,
                       DFC_Comm comm, DFC_Info info, DFC_Request *request)
{
    dfc_api_big_t s, r;
    int rc = dfc_api_big_type(sendcount, sendtype, &s);
    if (rc) return rc;
    if ((rc = dfc_api_big_type(recvcount, recvtype, &r))) return dfc_api_big_done(&s, rc);
    rc = DFC_Scatter_init(sendbuf, s.n, s.use, recvbuf, r.n, r.use, root, comm, info, request);
    return dfc_api_big_done(&s, dfc_api_big_done(&r, rc));
}

int DFC_Iallgather_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, void *recvbuf,
                     DFC_Count recvcount, DFC_Datatype recvtype, DFC_Comm comm,
                     DFC_Request *request)
{
    dfc_api_big_t s, r;
    int rc = dfc_api_big_type(sendcount, sendtype, &s);
    if (rc) return rc;
    if ((rc = dfc_api_big_type(recvcount, recvtype, &r))) return dfc_api_big_done(&s, rc);
    rc = DFC_Iallgather(sendbuf, s.n, s.use, recvbuf, r.n, r.use, comm, request);
    return dfc_api_big_done(&s, dfc_api_big_done(&r, rc));
}

int DFC_Allgather_init_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                         void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype, DFC_Comm comm,
                         DFC_Info info, DFC_Request *request)
{
    dfc_api_big_t s, r;
    int rc = dfc_api_big_type(sendcount, sendtype, &s);
    if (rc) return rc;
    if ((rc = dfc_api_big_type(recvcount, recvtype, &r))) return dfc_api_big_done(&s, rc);
    rc = DFC_Allgather_init(sendbuf, s.n, s.use, recvbuf, r.n, r.use, comm, info, request);
    return dfc_api_big_done(&s, dfc_api_big_done(&r, rc));
}

int DFC_Alltoall_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, void *recvbuf,
                   DFC_Count recvcount, DFC_Datatype recvtype, DFC_Comm comm)
{
    dfc_api_big_t s, r;
    int rc = dfc_api_big_type(sendcount, sendtype, &s);
    if (rc) return rc;
    if ((rc = dfc_api_big_type(recvcount, recvtype, &r))) return dfc_api_big_done(&s, rc);
    rc = DFC_Alltoall(sendbuf, s.n, s.use, recvbuf, r.n, r.use, comm);
    return dfc_api_big_done(&s, dfc_api_big_done(&r, rc));
}

int DFC_Ialltoall_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, void *recvbuf,
                    DFC_Count recvcount, DFC_Datatype recvtype, DFC_Comm comm, DFC_Request *request)
{
    dfc_api_big_t s, r;
    int rc = dfc_api_big_type(sendcount, sendtype, &s);
    if (rc) return rc;
    if ((rc = dfc_api_big_type(recvcount, recvtype, &r))) return dfc_api_big_done(&s, rc);
    rc = DFC_Ialltoall(sendbuf, s.n, s.use, recvbuf, r.n, r.use, comm, request);
    return dfc_api_big_done(&s, dfc_api_big_done(&r, rc));
}

int DFC_Alltoall_init_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                        void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype, DFC_Comm comm,
                        DFC_Info info, DFC_Request *request)
{
    dfc_api_big_t s, r;
    int rc = dfc_api_big_type(sendcount, sendtype, &s);
    if (rc) return rc;
    if ((rc = dfc_api_big_type(recvcount, recvtype, &r))) return dfc_api_big_done(&s, rc);
    rc = DFC_Alltoall_init(sendbuf, s.n, s.use, recvbuf, r.n, r.use, comm, info, request);
    return dfc_api_big_done(&s, dfc_api_big_done(&r, rc));
}
