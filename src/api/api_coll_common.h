/*
 * api_coll_common.h - what the collective entry points share (api_coll.c, api_coll_move.c).
 *
 * Every collective exists in three forms with one body: blocking (start, then wait),
 * nonblocking (start, return the request) and persistent (build once, return an inactive
 * request that DFC_Start runs). The entry points check the arguments, then make one call
 * inward, dfc_coll_run (src/coll/run.c), with the call's context (dfc_coll_call_t).
 */
#ifndef DFC_API_COLL_COMMON_H
#define DFC_API_COLL_COMMON_H

#include "api/dfc_api.h"
#include "coll/dfc_coll.h"

/* Checks the arguments common to all forms: comm, and request/info by mode. */
int dfc_coll_check_call(const dfc_coll_call_t *call, DFC_Comm comm, dfc_comm_t **c);
/* Checks a root argument. */
int dfc_coll_check_root(const char *func, const dfc_comm_t *c, int root);
/* Checks a (buffer, count, datatype) triple; buf may be DFC_IN_PLACE when in_place_ok. */
int dfc_coll_check_buf(const char *func, const char *bufname, const void *buf, int count,
                       DFC_Datatype dt, int in_place_ok, dfc_dtype_t **d);
/* Checks a counts array (and displacements, may be NULL) of comm size. */
int dfc_coll_check_counts(const char *func, const char *name, const int *counts, const int *displs,
                          int n);

/* The call context of the entry point where these are written (__func__ names it). */
#define DFC_BLOCKING_CALL ((dfc_coll_call_t){__func__, DFC_MODE_BLOCKING, DFC_INFO_NULL, NULL})
#define DFC_NONBLOCKING_CALL(req) \
    ((dfc_coll_call_t){__func__, DFC_MODE_NONBLOCKING, DFC_INFO_NULL, (req)})
#define DFC_PERSISTENT_CALL(info, req) \
    ((dfc_coll_call_t){__func__, DFC_MODE_PERSISTENT, (info), (req)})

/* Sends: (sendbuf, sendcount, sendtype); receives: (recvbuf, recvcount or counts/displs,
 * recvtype). `rooted`: only the root's receive side (gather) or send side (scatter)
 * matters. Each form fills a dfc_coll_args_t and shares one body. */
typedef struct move_desc {
    dfc_coll_kind_t kind;
    const void *sendbuf;
    int sendcount;
    const int *sendcounts, *sdispls;
    DFC_Datatype sendtype;
    void *recvbuf;
    int recvcount;
    const int *recvcounts, *rdispls;
    DFC_Datatype recvtype;
    int vsend, vrecv; /* the v forms: that side is described by counts and displacements */
    int rooted;       /* gather and scatter forms */
    int root;
} move_desc_t;

/* Intercommunicators (api_intercomm.c): comm's object when it is one (else NULL), and the
 * intercommunicator forms that the collective entry points hand such a comm to. */
dfc_comm_t *dfc_api_inter_of(DFC_Comm comm);
int dfc_api_inter_barrier(const dfc_coll_call_t *call, dfc_comm_t *c);
int dfc_api_inter_bcast(const dfc_coll_call_t *call, dfc_comm_t *c, void *buffer, int count,
                        DFC_Datatype datatype, int root);
int dfc_api_inter_allreduce(const dfc_coll_call_t *call, dfc_comm_t *c, const void *sendbuf,
                            void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op);
int dfc_api_inter_allgather(const dfc_coll_call_t *call, dfc_comm_t *c, const void *sendbuf,
                            int sendcount, DFC_Datatype sendtype, void *recvbuf, int recvcount,
                            DFC_Datatype recvtype);
/* The rest (api_inter_coll.c): every other form MPI defines on an intercommunicator. */
int dfc_api_inter_move(const dfc_coll_call_t *call, dfc_comm_t *c, const move_desc_t *m);
int dfc_api_inter_reduction(const dfc_coll_call_t *call, dfc_comm_t *c, dfc_coll_kind_t kind,
                            const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype,
                            DFC_Op op, int root);
int dfc_api_inter_reduce_scatter(const dfc_coll_call_t *call, dfc_comm_t *c, const void *sendbuf,
                                 void *recvbuf, int vform, int recvcount, const int *recvcounts,
                                 DFC_Datatype datatype, DFC_Op op);
int dfc_api_inter_alltoallw(const dfc_coll_call_t *call, dfc_comm_t *c, const void *sendbuf,
                            const int *sendcounts, const int *sdispls,
                            const DFC_Datatype *sendtypes, void *recvbuf, const int *recvcounts,
                            const int *rdispls, const DFC_Datatype *recvtypes);
/* Refuses a NULL request (nonblocking and persistent forms) and an invalid info. */
int dfc_api_inter_mode_check(const dfc_coll_call_t *call);
/* Checks an intercommunicator root: DFC_ROOT, DFC_PROC_NULL or a rank of the remote group. */
int dfc_api_inter_root_check(const char *func, const dfc_comm_t *c, int root);

#endif
