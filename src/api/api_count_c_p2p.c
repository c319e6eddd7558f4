/*
 * api_count_c_p2p.c - the large-count (_c) forms of the point-to-point calls beyond Send,
 * Recv, Isend and Irecv (api_count_c.c): the synchronous, buffered and ready sends, their
 * nonblocking and persistent forms, Recv_init, Mrecv, Imrecv and the Sendrecv family. Each
 * is the int form on the count as an int count of a datatype (api_count_c.h), so it has
 * the int form's checks, semantics and messages.
 */
#include "api/api_count_c.h"

int DFC_Ssend_c(const void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int tag,
                DFC_Comm comm)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc : dfc_api_big_done(&b, DFC_Ssend(buf, b.n, b.use, dest, tag, comm));
}

int DFC_Bsend_c(const void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int tag,
                DFC_Comm comm)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc : dfc_api_big_done(&b, DFC_Bsend(buf, b.n, b.use, dest, tag, comm));
}

int DFC_Rsend_c(const void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int tag,
                DFC_Comm comm)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc : dfc_api_big_done(&b, DFC_Rsend(buf, b.n, b.use, dest, tag, comm));
}

int DFC_Issend_c(const void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int tag,
                 DFC_Comm comm, DFC_Request *request)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc : dfc_api_big_done(&b, DFC_Issend(buf, b.n, b.use, dest, tag, comm, request));
}

int DFC_Ibsend_c(const void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int tag,
                 DFC_Comm comm, DFC_Request *request)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc : dfc_api_big_done(&b, DFC_Ibsend(buf, b.n, b.use, dest, tag, comm, request));
}

int DFC_Irsend_c(const void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int tag,
                 DFC_Comm comm, DFC_Request *request)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc : dfc_api_big_done(&b, DFC_Irsend(buf, b.n, b.use, dest, tag, comm, request));
}

int DFC_Send_init_c(const void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int tag,
                    DFC_Comm comm, DFC_Request *request)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc : dfc_api_big_done(&b, DFC_Send_init(buf, b.n, b.use, dest, tag, comm, request));
}

int DFC_Ssend_init_c(const void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int tag,
                     DFC_Comm comm, DFC_Request *request)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc
              : dfc_api_big_done(&b, DFC_Ssend_init(buf, b.n, b.use, dest, tag, comm, request));
}

int DFC_Bsend_init_c(const void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int tag,
                     DFC_Comm comm, DFC_Request *request)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc
              : dfc_api_big_done(&b, DFC_Bsend_init(buf, b.n, b.use, dest, tag, comm, request));
}

int DFC_Rsend_init_c(const void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int tag,
                     DFC_Comm comm, DFC_Request *request)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc
              : dfc_api_big_done(&b, DFC_Rsend_init(buf, b.n, b.use, dest, tag, comm, request));
}

int DFC_Recv_init_c(void *buf, DFC_Count count, DFC_Datatype datatype, int source, int tag,
                    DFC_Comm comm, DFC_Request *request)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc
              : dfc_api_big_done(&b, DFC_Recv_init(buf, b.n, b.use, source, tag, comm, request));
}

int DFC_Mrecv_c(void *buf, DFC_Count count, DFC_Datatype datatype, DFC_Message *message,
                DFC_Status *status)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc : dfc_api_big_done(&b, DFC_Mrecv(buf, b.n, b.use, message, status));
}

int DFC_Imrecv_c(void *buf, DFC_Count count, DFC_Datatype datatype, DFC_Message *message,
                 DFC_Request *request)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc : dfc_api_big_done(&b, DFC_Imrecv(buf, b.n, b.use, message, request));
}

int DFC_Sendrecv_replace_c(void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int sendtag,
                           int source, int recvtag, DFC_Comm comm, DFC_Status *status)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc
              : dfc_api_big_done(&b, DFC_Sendrecv_replace(buf, b.n, b.use, dest, sendtag, source,
                                                          recvtag, comm, status));
}

int DFC_Isendrecv_replace_c(void *buf, DFC_Count count, DFC_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, DFC_Comm comm,
                            DFC_Request *request)
{
    dfc_api_big_t b;
    int rc = dfc_api_big_type(count, datatype, &b);
    return rc ? rc
              : dfc_api_big_done(&b, DFC_Isendrecv_replace(buf, b.n, b.use, dest, sendtag, source,
                                                           recvtag, comm, request));
}

int DFC_Sendrecv_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, int dest,
                   int sendtag, void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype,
                   int source, int recvtag, DFC_Comm comm, DFC_Status *status)
{
    dfc_api_big_t s, r;
    int rc = dfc_api_big_type(sendcount, sendtype, &s);
    if (rc) return rc;
    if ((rc = dfc_api_big_type(recvcount, recvtype, &r))) return dfc_api_big_done(&s, rc);
    rc = DFC_Sendrecv(sendbuf, s.n, s.use, dest, sendtag, recvbuf, r.n, r.use, source, recvtag,
                      comm, status);
    return dfc_api_big_done(&s, dfc_api_big_done(&r, rc));
}

int DFC_Isendrecv_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype,
                    int source, int recvtag, DFC_Comm comm, DFC_Request *request)
{
    dfc_api_big_t s, r;
    int rc = dfc_api_big_type(sendcount, sendtype, &s);
    if (rc) return rc;
    if ((rc = dfc_api_big_type(recvcount, recvtype, &r))) return dfc_api_big_done(&s, rc);
    rc = DFC_Isendrecv(sendbuf, s.n, s.use, dest, sendtag, recvbuf, r.n, r.use, source, recvtag,
                       comm, request);
    return dfc_api_big_done(&s, dfc_api_big_done(&r, rc));
}
