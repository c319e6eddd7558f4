/*
 * dfc.h - the public interface of DFC, a deadlock-free message-passing library.
 *
 * Every name mirrors MPI-4.1 with DFC_ in place of MPI_: same argument order, same roles,
 * same corner cases. Where MPI leaves a choice, DFC does what MPICH does (for instance,
 * handles are integers, as in MPICH, so that a freed or foreign handle is detected instead
 * of dereferenced). Names beyond MPI are marked "DFC extension" and documented in man3.
 */
#ifndef DFC_H
#define DFC_H

#include <stddef.h>
#include <stdint.h>
#include "dfc_version.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DFC_VERSION 4
#define DFC_SUBVERSION 1

/* ---- Handles ------------------------------------------------------------------------ */
/* A handle is (kind << 24) | index. Index 0 is the kind's null handle. */
typedef int DFC_Comm;
typedef int DFC_Group;
typedef int DFC_Datatype;
typedef int DFC_Op;
typedef int DFC_Request;
typedef int DFC_Info;
typedef int DFC_Errhandler;

typedef intptr_t DFC_Aint;
typedef int64_t DFC_Offset;
typedef int64_t DFC_Count;

#define DFC_COMM_NULL ((DFC_Comm)0x01000000)
#define DFC_COMM_WORLD ((DFC_Comm)0x01000001)
#define DFC_COMM_SELF ((DFC_Comm)0x01000002)

#define DFC_GROUP_NULL ((DFC_Group)0x02000000)
#define DFC_GROUP_EMPTY ((DFC_Group)0x02000001)

#define DFC_DATATYPE_NULL ((DFC_Datatype)0x03000000)
#define DFC_CHAR ((DFC_Datatype)0x03000001)
#define DFC_SIGNED_CHAR ((DFC_Datatype)0x03000002)
#define DFC_UNSIGNED_CHAR ((DFC_Datatype)0x03000003)
#define DFC_BYTE ((DFC_Datatype)0x03000004)
#define DFC_SHORT ((DFC_Datatype)0x03000005)
#define DFC_UNSIGNED_SHORT ((DFC_Datatype)0x03000006)
#define DFC_INT ((DFC_Datatype)0x03000007)
#define DFC_UNSIGNED ((DFC_Datatype)0x03000008)
#define DFC_LONG ((DFC_Datatype)0x03000009)
#define DFC_UNSIGNED_LONG ((DFC_Datatype)0x0300000a)
#define DFC_LONG_LONG_INT ((DFC_Datatype)0x0300000b)
#define DFC_LONG_LONG DFC_LONG_LONG_INT
#define DFC_UNSIGNED_LONG_LONG ((DFC_Datatype)0x0300000c)
#define DFC_FLOAT ((DFC_Datatype)0x0300000d)
#define DFC_DOUBLE ((DFC_Datatype)0x0300000e)
#define DFC_LONG_DOUBLE ((DFC_Datatype)0x0300000f)
#define DFC_INT8_T ((DFC_Datatype)0x03000010)
#define DFC_INT16_T ((DFC_Datatype)0x03000011)
#define DFC_INT32_T ((DFC_Datatype)0x03000012)
#define DFC_INT64_T ((DFC_Datatype)0x03000013)
#define DFC_UINT8_T ((DFC_Datatype)0x03000014)
#define DFC_UINT16_T ((DFC_Datatype)0x03000015)
#define DFC_UINT32_T ((DFC_Datatype)0x03000016)
#define DFC_UINT64_T ((DFC_Datatype)0x03000017)
#define DFC_C_BOOL ((DFC_Datatype)0x03000018)
#define DFC_WCHAR ((DFC_Datatype)0x03000019)
#define DFC_BFLOAT16 ((DFC_Datatype)0x0300001a) /* DFC extension */
#define DFC_FLOAT16 ((DFC_Datatype)0x0300001b)  /* DFC extension (IEEE binary16) */
#define DFC_AINT ((DFC_Datatype)0x0300001c)
#define DFC_OFFSET ((DFC_Datatype)0x0300001d)
#define DFC_COUNT ((DFC_Datatype)0x0300001e)
#define DFC_PACKED ((DFC_Datatype)0x0300001f)
#define DFC_FLOAT_INT ((DFC_Datatype)0x03000020)
#define DFC_DOUBLE_INT ((DFC_Datatype)0x03000021)
#define DFC_LONG_INT ((DFC_Datatype)0x03000022)
#define DFC_2INT ((DFC_Datatype)0x03000023)
#define DFC_SHORT_INT ((DFC_Datatype)0x03000024)
#define DFC_LONG_DOUBLE_INT ((DFC_Datatype)0x03000025)
/* Complex types (issue 17, dtype): C's _Complex and Fortran's COMPLEX layouts. */
#define DFC_C_FLOAT_COMPLEX ((DFC_Datatype)0x03000026)
#define DFC_C_COMPLEX DFC_C_FLOAT_COMPLEX
#define DFC_C_DOUBLE_COMPLEX ((DFC_Datatype)0x03000027)
#define DFC_C_LONG_DOUBLE_COMPLEX ((DFC_Datatype)0x03000028)
#define DFC_COMPLEX ((DFC_Datatype)0x03000029)
#define DFC_DOUBLE_COMPLEX ((DFC_Datatype)0x0300002a)
#define DFC_DATATYPE_BUILTIN_MAX 0x2a /* highest predefined index */

#define DFC_OP_NULL ((DFC_Op)0x04000000)
#define DFC_MAX ((DFC_Op)0x04000001)
#define DFC_MIN ((DFC_Op)0x04000002)
#define DFC_SUM ((DFC_Op)0x04000003)
#define DFC_PROD ((DFC_Op)0x04000004)
#define DFC_LAND ((DFC_Op)0x04000005)
#define DFC_BAND ((DFC_Op)0x04000006)
#define DFC_LOR ((DFC_Op)0x04000007)
#define DFC_BOR ((DFC_Op)0x04000008)
#define DFC_LXOR ((DFC_Op)0x04000009)
#define DFC_BXOR ((DFC_Op)0x0400000a)
#define DFC_MAXLOC ((DFC_Op)0x0400000b)
#define DFC_MINLOC ((DFC_Op)0x0400000c)
#define DFC_REPLACE ((DFC_Op)0x0400000d)
#define DFC_NO_OP ((DFC_Op)0x0400000e)
#define DFC_OP_BUILTIN_MAX 0x0e

#define DFC_REQUEST_NULL ((DFC_Request)0x05000000)

#define DFC_INFO_NULL ((DFC_Info)0x06000000)
#define DFC_INFO_ENV ((DFC_Info)0x06000001)

#define DFC_ERRHANDLER_NULL ((DFC_Errhandler)0x07000000)
#define DFC_ERRORS_ARE_FATAL ((DFC_Errhandler)0x07000001)
#define DFC_ERRORS_RETURN ((DFC_Errhandler)0x07000002)
#define DFC_ERRORS_ABORT ((DFC_Errhandler)0x07000003)

/* ---- Status ------------------------------------------------------------------------- */
typedef struct DFC_Status {
    int count_lo;               /* private: low 32 bits of the byte count */
    int count_hi_and_cancelled; /* private: high 31 bits, then the cancelled bit */
    int DFC_SOURCE;
    int DFC_TAG;
    int DFC_ERROR;
} DFC_Status;

/* One marker object for both, so that DFC_STATUS_IGNORE == DFC_STATUSES_IGNORE (as MPI-4.1
 * allows and MPICH does) and compilers see a real object rather than address 1. */
extern DFC_Status dfc_status_ignore_marker[1];
#define DFC_STATUS_IGNORE (&dfc_status_ignore_marker[0])
#define DFC_STATUSES_IGNORE (&dfc_status_ignore_marker[0])

/* ---- Constants ---------------------------------------------------------------------- */
#define DFC_PROC_NULL (-1)
#define DFC_ANY_SOURCE (-2)
#define DFC_ROOT (-3)
#define DFC_ANY_TAG (-1)
#define DFC_UNDEFINED (-32766)
#define DFC_TAG_UB_VALUE 0x7fffffff /* largest valid tag (the value of attribute DFC_TAG_UB) */

#define DFC_IN_PLACE ((void *)-1)
#define DFC_BOTTOM ((void *)0)

#define DFC_IDENT 0
#define DFC_CONGRUENT 1
#define DFC_SIMILAR 2
#define DFC_UNEQUAL 3

#define DFC_COMM_TYPE_SHARED 1

#define DFC_THREAD_SINGLE 0
#define DFC_THREAD_FUNNELED 1
#define DFC_THREAD_SERIALIZED 2
#define DFC_THREAD_MULTIPLE 3

#define DFC_MAX_PROCESSOR_NAME 256
#define DFC_MAX_ERROR_STRING 512
#define DFC_MAX_OBJECT_NAME 128
#define DFC_MAX_INFO_KEY 255
#define DFC_MAX_INFO_VAL 1024
#define DFC_MAX_LIBRARY_VERSION_STRING 8192
#define DFC_MAX_TRANSPORT_NAME 16 /* DFC extension */

#define DFC_COMBINER_NAMED 1
#define DFC_COMBINER_DUP 2
#define DFC_COMBINER_CONTIGUOUS 3
/* Derived datatypes (issue 17, dtype): the rest of MPI-4.1's combiners and constants. */
#define DFC_COMBINER_VECTOR 4
#define DFC_COMBINER_HVECTOR 5
#define DFC_COMBINER_INDEXED 6
#define DFC_COMBINER_HINDEXED 7
#define DFC_COMBINER_INDEXED_BLOCK 8
#define DFC_COMBINER_HINDEXED_BLOCK 9
#define DFC_COMBINER_STRUCT 10
#define DFC_COMBINER_SUBARRAY 11
#define DFC_COMBINER_DARRAY 12
#define DFC_COMBINER_RESIZED 16
/* MPI-4.1's parameterized predefined types (DFC_Type_create_f90_*), MPICH's values */
#define DFC_COMBINER_F90_REAL 13
#define DFC_COMBINER_F90_COMPLEX 14
#define DFC_COMBINER_F90_INTEGER 15
#define DFC_ORDER_C 56
#define DFC_ORDER_FORTRAN 57
#define DFC_DISTRIBUTE_BLOCK 121
#define DFC_DISTRIBUTE_CYCLIC 122
#define DFC_DISTRIBUTE_NONE 123
#define DFC_DISTRIBUTE_DFLT_DARG (-49767)

/* ---- Error classes ------------------------------------------------------------------ */
#define DFC_SUCCESS 0
#define DFC_ERR_BUFFER 1
#define DFC_ERR_COUNT 2
#define DFC_ERR_TYPE 3
#define DFC_ERR_TAG 4
#define DFC_ERR_COMM 5
#define DFC_ERR_RANK 6
#define DFC_ERR_ROOT 7
#define DFC_ERR_GROUP 8
#define DFC_ERR_OP 9
#define DFC_ERR_TOPOLOGY 10
#define DFC_ERR_DIMS 11
#define DFC_ERR_ARG 12
#define DFC_ERR_UNKNOWN 13
#define DFC_ERR_TRUNCATE 14
#define DFC_ERR_OTHER 15
#define DFC_ERR_INTERN 16
#define DFC_ERR_IN_STATUS 17
#define DFC_ERR_PENDING 18
#define DFC_ERR_REQUEST 19
#define DFC_ERR_INFO 20
#define DFC_ERR_INFO_KEY 21
#define DFC_ERR_INFO_VALUE 22
#define DFC_ERR_INFO_NOKEY 23
#define DFC_ERR_NO_MEM 24
#define DFC_ERR_UNSUPPORTED_OPERATION 25
#define DFC_ERR_NOT_SAME 26
#define DFC_ERR_ERRHANDLER 27
#define DFC_ERR_PROC_FAILED 28
#define DFC_ERR_INTERNAL_TRANSPORT 29 /* DFC extension: a transport failed */
#define DFC_ERR_KEYVAL 30
#define DFC_ERR_LASTCODE 63 /* the one-sided classes (DFC_ERR_WIN..) are 31-42, below */
/* The classes of families DFC does not have yet (MPI-4.1 9.4: I/O, dynamic processes,
 * sessions), so that MPI programs and mpi4py find them all, distinct (issue 21). Not
 * reported by this version. */
#define DFC_ERR_FILE 43
#define DFC_ERR_ACCESS 44
#define DFC_ERR_AMODE 45
#define DFC_ERR_BAD_FILE 46
#define DFC_ERR_CONVERSION 47
#define DFC_ERR_DUP_DATAREP 48
#define DFC_ERR_FILE_EXISTS 49
#define DFC_ERR_FILE_IN_USE 50
#define DFC_ERR_IO 51
#define DFC_ERR_NO_SPACE 52
#define DFC_ERR_NO_SUCH_FILE 53
#define DFC_ERR_QUOTA 54
#define DFC_ERR_READ_ONLY 55
#define DFC_ERR_UNSUPPORTED_DATAREP 56
#define DFC_ERR_NAME 57
#define DFC_ERR_PORT 58
#define DFC_ERR_SERVICE 59
#define DFC_ERR_SPAWN 60
#define DFC_ERR_SESSION 61
#define DFC_ERR_PROC_ABORTED 62
#define DFC_ERR_VALUE_TOO_LARGE 63

/* ---- Callback types ----------------------------------------------------------------- */
typedef void(DFC_User_function)(void *invec, void *inoutvec, int *len, DFC_Datatype *datatype);
/* DFC extension: called once when the operation of a request completes. */
typedef void(DFC_Request_callback)(DFC_Request request, const DFC_Status *status, void *arg);

/* ---- Environment -------------------------------------------------------------------- */
int DFC_Init(int *argc, char ***argv);
int DFC_Init_thread(int *argc, char ***argv, int required, int *provided);
int DFC_Initialized(int *flag);
int DFC_Finalized(int *flag);
int DFC_Finalize(void);
int DFC_Abort(DFC_Comm comm, int errorcode);
int DFC_Query_thread(int *provided);
int DFC_Is_thread_main(int *flag);
double DFC_Wtime(void);
double DFC_Wtick(void);
int DFC_Get_processor_name(char *name, int *resultlen);
int DFC_Get_version(int *version, int *subversion);
int DFC_Get_library_version(char *version, int *resultlen);

/* ---- Errors ------------------------------------------------------------------------- */
int DFC_Error_class(int errorcode, int *errorclass);
int DFC_Error_string(int errorcode, char *string, int *resultlen);
int DFC_Comm_set_errhandler(DFC_Comm comm, DFC_Errhandler errhandler);
int DFC_Comm_get_errhandler(DFC_Comm comm, DFC_Errhandler *errhandler);
int DFC_Errhandler_free(DFC_Errhandler *errhandler);

/* ---- Info --------------------------------------------------------------------------- */
int DFC_Info_create(DFC_Info *info);
int DFC_Info_set(DFC_Info info, const char *key, const char *value);
int DFC_Info_get(DFC_Info info, const char *key, int valuelen, char *value, int *flag);
int DFC_Info_get_string(DFC_Info info, const char *key, int *buflen, char *value, int *flag);
int DFC_Info_get_valuelen(DFC_Info info, const char *key, int *valuelen, int *flag);
int DFC_Info_delete(DFC_Info info, const char *key);
int DFC_Info_dup(DFC_Info info, DFC_Info *newinfo);
int DFC_Info_free(DFC_Info *info);
int DFC_Info_get_nkeys(DFC_Info info, int *nkeys);
int DFC_Info_get_nthkey(DFC_Info info, int n, char *key);

/* ---- Groups ------------------------------------------------------------------------- */
int DFC_Group_size(DFC_Group group, int *size);
int DFC_Group_rank(DFC_Group group, int *rank);
int DFC_Group_incl(DFC_Group group, int n, const int ranks[], DFC_Group *newgroup);
int DFC_Group_excl(DFC_Group group, int n, const int ranks[], DFC_Group *newgroup);
int DFC_Group_range_incl(DFC_Group group, int n, int ranges[][3], DFC_Group *newgroup);
int DFC_Group_range_excl(DFC_Group group, int n, int ranges[][3], DFC_Group *newgroup);
int DFC_Group_union(DFC_Group group1, DFC_Group group2, DFC_Group *newgroup);
int DFC_Group_intersection(DFC_Group group1, DFC_Group group2, DFC_Group *newgroup);
int DFC_Group_difference(DFC_Group group1, DFC_Group group2, DFC_Group *newgroup);
int DFC_Group_translate_ranks(DFC_Group group1, int n, const int ranks1[], DFC_Group group2,
                              int ranks2[]);
int DFC_Group_compare(DFC_Group group1, DFC_Group group2, int *result);
int DFC_Group_free(DFC_Group *group);

/* ---- Communicators ------------------------------------------------------------------ */
int DFC_Comm_size(DFC_Comm comm, int *size);
int DFC_Comm_rank(DFC_Comm comm, int *rank);
int DFC_Comm_dup(DFC_Comm comm, DFC_Comm *newcomm);
int DFC_Comm_dup_with_info(DFC_Comm comm, DFC_Info info, DFC_Comm *newcomm);
int DFC_Comm_split(DFC_Comm comm, int color, int key, DFC_Comm *newcomm);
int DFC_Comm_split_type(DFC_Comm comm, int split_type, int key, DFC_Info info, DFC_Comm *newcomm);
int DFC_Comm_create(DFC_Comm comm, DFC_Group group, DFC_Comm *newcomm);
int DFC_Comm_create_group(DFC_Comm comm, DFC_Group group, int tag, DFC_Comm *newcomm);
int DFC_Comm_free(DFC_Comm *comm);
int DFC_Comm_compare(DFC_Comm comm1, DFC_Comm comm2, int *result);
int DFC_Comm_group(DFC_Comm comm, DFC_Group *group);
int DFC_Comm_set_name(DFC_Comm comm, const char *comm_name);
int DFC_Comm_get_name(DFC_Comm comm, char *comm_name, int *resultlen);
int DFC_Comm_set_info(DFC_Comm comm, DFC_Info info);
int DFC_Comm_get_info(DFC_Comm comm, DFC_Info *info_used);
/* DFC extension: the transport that carries messages to `rank` ("self", "shm", "tcp"). */
int DFC_Comm_get_peer_transport(DFC_Comm comm, int rank, char *name, int *resultlen);

/* ---- Datatypes and operations ------------------------------------------------------- */
int DFC_Type_size(DFC_Datatype datatype, int *size);
int DFC_Type_size_c(DFC_Datatype datatype, DFC_Count *size);
int DFC_Type_get_extent(DFC_Datatype datatype, DFC_Aint *lb, DFC_Aint *extent);
int DFC_Type_dup(DFC_Datatype oldtype, DFC_Datatype *newtype);
int DFC_Type_contiguous(int count, DFC_Datatype oldtype, DFC_Datatype *newtype);
int DFC_Type_vector(int count, int blocklength, int stride, DFC_Datatype oldtype,
                    DFC_Datatype *newtype);
int DFC_Type_commit(DFC_Datatype *datatype);
int DFC_Type_free(DFC_Datatype *datatype);
int DFC_Type_get_envelope(DFC_Datatype datatype, int *num_integers, int *num_addresses,
                          int *num_datatypes, int *combiner);
int DFC_Get_count(const DFC_Status *status, DFC_Datatype datatype, int *count);
int DFC_Get_elements(const DFC_Status *status, DFC_Datatype datatype, int *count);

int DFC_Op_create(DFC_User_function *user_fn, int commute, DFC_Op *op);
int DFC_Op_free(DFC_Op *op);
int DFC_Op_commutative(DFC_Op op, int *commute);
int DFC_Reduce_local(const void *inbuf, void *inoutbuf, int count, DFC_Datatype datatype,
                     DFC_Op op);
/* Derived datatypes (issue 17, dtype) */
int DFC_Type_create_hvector(int count, int blocklength, DFC_Aint stride, DFC_Datatype oldtype,
                            DFC_Datatype *newtype);
int DFC_Type_indexed(int count, const int array_of_blocklengths[],
                     const int array_of_displacements[], DFC_Datatype oldtype,
                     DFC_Datatype *newtype);
int DFC_Type_create_hindexed(int count, const int array_of_blocklengths[],
                             const DFC_Aint array_of_displacements[], DFC_Datatype oldtype,
                             DFC_Datatype *newtype);
int DFC_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                  DFC_Datatype oldtype, DFC_Datatype *newtype);
int DFC_Type_create_hindexed_block(int count, int blocklength,
                                   const DFC_Aint array_of_displacements[], DFC_Datatype oldtype,
                                   DFC_Datatype *newtype);
int DFC_Type_create_struct(int count, const int array_of_blocklengths[],
                           const DFC_Aint array_of_displacements[],
                           const DFC_Datatype array_of_types[], DFC_Datatype *newtype);
int DFC_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, DFC_Datatype oldtype,
                             DFC_Datatype *newtype);
int DFC_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                           const int array_of_distribs[], const int array_of_dargs[],
                           const int array_of_psizes[], int order, DFC_Datatype oldtype,
                           DFC_Datatype *newtype);
int DFC_Type_create_resized(DFC_Datatype oldtype, DFC_Aint lb, DFC_Aint extent,
                            DFC_Datatype *newtype);
int DFC_Type_get_true_extent(DFC_Datatype datatype, DFC_Aint *true_lb, DFC_Aint *true_extent);
int DFC_Type_get_extent_x(DFC_Datatype datatype, DFC_Count *lb, DFC_Count *extent);
int DFC_Type_get_true_extent_x(DFC_Datatype datatype, DFC_Count *true_lb, DFC_Count *true_extent);
int DFC_Type_size_x(DFC_Datatype datatype, DFC_Count *size);
int DFC_Type_get_contents(DFC_Datatype datatype, int max_integers, int max_addresses,
                          int max_datatypes, int array_of_integers[], DFC_Aint array_of_addresses[],
                          DFC_Datatype array_of_datatypes[]);
int DFC_Type_set_name(DFC_Datatype datatype, const char *type_name);
int DFC_Type_get_name(DFC_Datatype datatype, char *type_name, int *resultlen);
int DFC_Get_address(const void *location, DFC_Aint *address);
DFC_Aint DFC_Aint_add(DFC_Aint base, DFC_Aint disp);
DFC_Aint DFC_Aint_diff(DFC_Aint addr1, DFC_Aint addr2);
int DFC_Get_elements_x(const DFC_Status *status, DFC_Datatype datatype, DFC_Count *count);
int DFC_Pack(const void *inbuf, int incount, DFC_Datatype datatype, void *outbuf, int outsize,
             int *position, DFC_Comm comm);
int DFC_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               DFC_Datatype datatype, DFC_Comm comm);
int DFC_Pack_size(int incount, DFC_Datatype datatype, DFC_Comm comm, int *size);
int DFC_Pack_external(const char datarep[], const void *inbuf, int incount, DFC_Datatype datatype,
                      void *outbuf, DFC_Aint outsize, DFC_Aint *position);
int DFC_Unpack_external(const char datarep[], const void *inbuf, DFC_Aint insize,
                        DFC_Aint *position, void *outbuf, int outcount, DFC_Datatype datatype);
int DFC_Pack_external_size(const char datarep[], int incount, DFC_Datatype datatype,
                           DFC_Aint *size);
/* DFC_Type_match_size (issue 21): the predefined type of a class and size (MPICH's values). */
#define DFC_TYPECLASS_REAL 1
#define DFC_TYPECLASS_INTEGER 2
#define DFC_TYPECLASS_COMPLEX 3
int DFC_Type_match_size(int typeclass, int size, DFC_Datatype *datatype);

/* ---- Point-to-point ----------------------------------------------------------------- */
int DFC_Send(const void *buf, int count, DFC_Datatype datatype, int dest, int tag, DFC_Comm comm);
int DFC_Ssend(const void *buf, int count, DFC_Datatype datatype, int dest, int tag, DFC_Comm comm);
int DFC_Recv(void *buf, int count, DFC_Datatype datatype, int source, int tag, DFC_Comm comm,
             DFC_Status *status);
int DFC_Isend(const void *buf, int count, DFC_Datatype datatype, int dest, int tag, DFC_Comm comm,
              DFC_Request *request);
int DFC_Issend(const void *buf, int count, DFC_Datatype datatype, int dest, int tag, DFC_Comm comm,
               DFC_Request *request);
int DFC_Irecv(void *buf, int count, DFC_Datatype datatype, int source, int tag, DFC_Comm comm,
              DFC_Request *request);
int DFC_Sendrecv(const void *sendbuf, int sendcount, DFC_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, DFC_Datatype recvtype, int source, int recvtag,
                 DFC_Comm comm, DFC_Status *status);
int DFC_Sendrecv_replace(void *buf, int count, DFC_Datatype datatype, int dest, int sendtag,
                         int source, int recvtag, DFC_Comm comm, DFC_Status *status);
int DFC_Probe(int source, int tag, DFC_Comm comm, DFC_Status *status);
int DFC_Iprobe(int source, int tag, DFC_Comm comm, int *flag, DFC_Status *status);
int DFC_Send_init(const void *buf, int count, DFC_Datatype datatype, int dest, int tag,
                  DFC_Comm comm, DFC_Request *request);
int DFC_Ssend_init(const void *buf, int count, DFC_Datatype datatype, int dest, int tag,
                   DFC_Comm comm, DFC_Request *request);
int DFC_Recv_init(void *buf, int count, DFC_Datatype datatype, int source, int tag, DFC_Comm comm,
                  DFC_Request *request);

/* ---- Requests ----------------------------------------------------------------------- */
int DFC_Start(DFC_Request *request);
int DFC_Startall(int count, DFC_Request array_of_requests[]);
int DFC_Wait(DFC_Request *request, DFC_Status *status);
int DFC_Test(DFC_Request *request, int *flag, DFC_Status *status);
int DFC_Waitany(int count, DFC_Request array_of_requests[], int *index, DFC_Status *status);
int DFC_Testany(int count, DFC_Request array_of_requests[], int *index, int *flag,
                DFC_Status *status);
int DFC_Waitall(int count, DFC_Request array_of_requests[], DFC_Status array_of_statuses[]);
int DFC_Testall(int count, DFC_Request array_of_requests[], int *flag,
                DFC_Status array_of_statuses[]);
int DFC_Waitsome(int incount, DFC_Request array_of_requests[], int *outcount,
                 int array_of_indices[], DFC_Status array_of_statuses[]);
int DFC_Testsome(int incount, DFC_Request array_of_requests[], int *outcount,
                 int array_of_indices[], DFC_Status array_of_statuses[]);
int DFC_Request_free(DFC_Request *request);
int DFC_Request_get_status(DFC_Request request, int *flag, DFC_Status *status);
int DFC_Cancel(DFC_Request *request);
int DFC_Test_cancelled(const DFC_Status *status, int *flag);
/* DFC extension: run `fn(request, status, arg)` once when the operation completes. */
int DFC_Request_set_callback(DFC_Request request, DFC_Request_callback *fn, void *arg);
/* DFC extension: how many times this process's scheduler preempted a collective that was
 * waiting on a peer (the deadlock-freedom machinery at work). */
int DFC_Get_preemption_count(DFC_Count *count);
/* DFC extension: the CUDA device this process's GPU daemon runs on (-1: none, device
 * buffers are staged through host memory) and how many times its kernel was launched. */
int DFC_Get_gpu_daemon_info(int *device, DFC_Count *launches);

/* ---- Collectives: blocking, nonblocking (I...) and persistent (..._init) ------------ */
int DFC_Barrier(DFC_Comm comm);
int DFC_Ibarrier(DFC_Comm comm, DFC_Request *request);
int DFC_Barrier_init(DFC_Comm comm, DFC_Info info, DFC_Request *request);

int DFC_Bcast(void *buffer, int count, DFC_Datatype datatype, int root, DFC_Comm comm);
int DFC_Ibcast(void *buffer, int count, DFC_Datatype datatype, int root, DFC_Comm comm,
               DFC_Request *request);
int DFC_Bcast_init(void *buffer, int count, DFC_Datatype datatype, int root, DFC_Comm comm,
                   DFC_Info info, DFC_Request *request);

int DFC_Reduce(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op,
               int root, DFC_Comm comm);
int DFC_Ireduce(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op,
                int root, DFC_Comm comm, DFC_Request *request);
int DFC_Reduce_init(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op,
                    int root, DFC_Comm comm, DFC_Info info, DFC_Request *request);

int DFC_Allreduce(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op,
                  DFC_Comm comm);
int DFC_Iallreduce(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op,
                   DFC_Comm comm, DFC_Request *request);
int DFC_Allreduce_init(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype,
                       DFC_Op op, DFC_Comm comm, DFC_Info info, DFC_Request *request);

int DFC_Gather(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
               int recvcount, DFC_Datatype recvtype, int root, DFC_Comm comm);
int DFC_Igather(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                int recvcount, DFC_Datatype recvtype, int root, DFC_Comm comm,
                DFC_Request *request);
int DFC_Gather_init(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                    int recvcount, DFC_Datatype recvtype, int root, DFC_Comm comm, DFC_Info info,
                    DFC_Request *request);

int DFC_Gatherv(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], DFC_Datatype recvtype, int root,
                DFC_Comm comm);
int DFC_Igatherv(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], DFC_Datatype recvtype, int root,
                 DFC_Comm comm, DFC_Request *request);
int DFC_Gatherv_init(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], DFC_Datatype recvtype, int root,
                     DFC_Comm comm, DFC_Info info, DFC_Request *request);

int DFC_Scatter(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                int recvcount, DFC_Datatype recvtype, int root, DFC_Comm comm);
int DFC_Iscatter(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                 int recvcount, DFC_Datatype recvtype, int root, DFC_Comm comm,
                 DFC_Request *request);
int DFC_Scatter_init(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                     int recvcount, DFC_Datatype recvtype, int root, DFC_Comm comm, DFC_Info info,
                     DFC_Request *request);

int DFC_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 DFC_Datatype sendtype, void *recvbuf, int recvcount, DFC_Datatype recvtype,
                 int root, DFC_Comm comm);
int DFC_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  DFC_Datatype sendtype, void *recvbuf, int recvcount, DFC_Datatype recvtype,
                  int root, DFC_Comm comm, DFC_Request *request);
int DFC_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                      DFC_Datatype sendtype, void *recvbuf, int recvcount, DFC_Datatype recvtype,
                      int root, DFC_Comm comm, DFC_Info info, DFC_Request *request);

int DFC_Allgather(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                  int recvcount, DFC_Datatype recvtype, DFC_Comm comm);
int DFC_Iallgather(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                   int recvcount, DFC_Datatype recvtype, DFC_Comm comm, DFC_Request *request);
int DFC_Allgather_init(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                       int recvcount, DFC_Datatype recvtype, DFC_Comm comm, DFC_Info info,
                       DFC_Request *request);

int DFC_Allgatherv(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], DFC_Datatype recvtype,
                   DFC_Comm comm);
int DFC_Iallgatherv(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], DFC_Datatype recvtype,
                    DFC_Comm comm, DFC_Request *request);
int DFC_Allgatherv_init(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], DFC_Datatype recvtype,
                        DFC_Comm comm, DFC_Info info, DFC_Request *request);

int DFC_Alltoall(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                 int recvcount, DFC_Datatype recvtype, DFC_Comm comm);
int DFC_Ialltoall(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                  int recvcount, DFC_Datatype recvtype, DFC_Comm comm, DFC_Request *request);
int DFC_Alltoall_init(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                      int recvcount, DFC_Datatype recvtype, DFC_Comm comm, DFC_Info info,
                      DFC_Request *request);

int DFC_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  DFC_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                  DFC_Datatype recvtype, DFC_Comm comm);
int DFC_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   DFC_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], DFC_Datatype recvtype, DFC_Comm comm, DFC_Request *request);
int DFC_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       DFC_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int rdispls[], DFC_Datatype recvtype, DFC_Comm comm, DFC_Info info,
                       DFC_Request *request);

int DFC_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             DFC_Datatype datatype, DFC_Op op, DFC_Comm comm);
int DFC_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              DFC_Datatype datatype, DFC_Op op, DFC_Comm comm,
                              DFC_Request *request);
int DFC_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                  DFC_Datatype datatype, DFC_Op op, DFC_Comm comm, DFC_Info info,
                                  DFC_Request *request);

int DFC_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       DFC_Datatype datatype, DFC_Op op, DFC_Comm comm);
int DFC_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        DFC_Datatype datatype, DFC_Op op, DFC_Comm comm, DFC_Request *request);
int DFC_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                            DFC_Datatype datatype, DFC_Op op, DFC_Comm comm, DFC_Info info,
                            DFC_Request *request);

int DFC_Scan(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op,
             DFC_Comm comm);
int DFC_Iscan(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op,
              DFC_Comm comm, DFC_Request *request);
int DFC_Scan_init(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op,
                  DFC_Comm comm, DFC_Info info, DFC_Request *request);

int DFC_Exscan(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op,
               DFC_Comm comm);
int DFC_Iexscan(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op,
                DFC_Comm comm, DFC_Request *request);
int DFC_Exscan_init(const void *sendbuf, void *recvbuf, int count, DFC_Datatype datatype, DFC_Op op,
                    DFC_Comm comm, DFC_Info info, DFC_Request *request);


/* ---- Process topologies and neighborhood collectives -------------------------------- */
#define DFC_GRAPH 1 /* Topo_test results (DFC_UNDEFINED: no topology), as MPICH */
#define DFC_CART 2
#define DFC_DIST_GRAPH 3

/* Weights of Dist_graph_create(_adjacent): markers, not arrays (as the status markers). */
extern int dfc_unweighted_marker[1];
extern int dfc_weights_empty_marker[1];
#define DFC_UNWEIGHTED (&dfc_unweighted_marker[0])
#define DFC_WEIGHTS_EMPTY (&dfc_weights_empty_marker[0])

int DFC_Cart_create(DFC_Comm comm_old, int ndims, const int dims[], const int periods[],
                    int reorder, DFC_Comm *comm_cart);
int DFC_Cart_get(DFC_Comm comm, int maxdims, int dims[], int periods[], int coords[]);
int DFC_Cartdim_get(DFC_Comm comm, int *ndims);
int DFC_Cart_rank(DFC_Comm comm, const int coords[], int *rank);
int DFC_Cart_coords(DFC_Comm comm, int rank, int maxdims, int coords[]);
int DFC_Cart_shift(DFC_Comm comm, int direction, int disp, int *rank_source, int *rank_dest);
int DFC_Cart_sub(DFC_Comm comm, const int remain_dims[], DFC_Comm *newcomm);
int DFC_Cart_map(DFC_Comm comm, int ndims, const int dims[], const int periods[], int *newrank);
int DFC_Dims_create(int nnodes, int ndims, int dims[]);
int DFC_Graph_create(DFC_Comm comm_old, int nnodes, const int index[], const int edges[],
                     int reorder, DFC_Comm *comm_graph);
int DFC_Graph_get(DFC_Comm comm, int maxindex, int maxedges, int index[], int edges[]);
int DFC_Graphdims_get(DFC_Comm comm, int *nnodes, int *nedges);
int DFC_Graph_neighbors_count(DFC_Comm comm, int rank, int *nneighbors);
int DFC_Graph_neighbors(DFC_Comm comm, int rank, int maxneighbors, int neighbors[]);
int DFC_Graph_map(DFC_Comm comm, int nnodes, const int index[], const int edges[], int *newrank);
int DFC_Dist_graph_create_adjacent(DFC_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[], DFC_Info info,
                                   int reorder, DFC_Comm *comm_dist_graph);
int DFC_Dist_graph_create(DFC_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], DFC_Info info, int reorder,
                          DFC_Comm *comm_dist_graph);
int DFC_Dist_graph_neighbors_count(DFC_Comm comm, int *indegree, int *outdegree, int *weighted);
int DFC_Dist_graph_neighbors(DFC_Comm comm, int maxindegree, int sources[], int sourceweights[],
                             int maxoutdegree, int destinations[], int destweights[]);
int DFC_Topo_test(DFC_Comm comm, int *status);

int DFC_Neighbor_allgather(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                           int recvcount, DFC_Datatype recvtype, DFC_Comm comm);
int DFC_Ineighbor_allgather(const void *sendbuf, int sendcount, DFC_Datatype sendtype,
                            void *recvbuf, int recvcount, DFC_Datatype recvtype, DFC_Comm comm,
                            DFC_Request *request);
int DFC_Neighbor_allgather_init(const void *sendbuf, int sendcount, DFC_Datatype sendtype,
                                void *recvbuf, int recvcount, DFC_Datatype recvtype, DFC_Comm comm,
                                DFC_Info info, DFC_Request *request);

int DFC_Neighbor_allgatherv(const void *sendbuf, int sendcount, DFC_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            DFC_Datatype recvtype, DFC_Comm comm);
int DFC_Ineighbor_allgatherv(const void *sendbuf, int sendcount, DFC_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             DFC_Datatype recvtype, DFC_Comm comm, DFC_Request *request);
int DFC_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, DFC_Datatype sendtype,
                                 void *recvbuf, const int recvcounts[], const int displs[],
                                 DFC_Datatype recvtype, DFC_Comm comm, DFC_Info info,
                                 DFC_Request *request);

int DFC_Neighbor_alltoall(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                          int recvcount, DFC_Datatype recvtype, DFC_Comm comm);
int DFC_Ineighbor_alltoall(const void *sendbuf, int sendcount, DFC_Datatype sendtype, void *recvbuf,
                           int recvcount, DFC_Datatype recvtype, DFC_Comm comm,
                           DFC_Request *request);
int DFC_Neighbor_alltoall_init(const void *sendbuf, int sendcount, DFC_Datatype sendtype,
                               void *recvbuf, int recvcount, DFC_Datatype recvtype, DFC_Comm comm,
                               DFC_Info info, DFC_Request *request);

int DFC_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           DFC_Datatype sendtype, void *recvbuf, const int recvcounts[],
                           const int rdispls[], DFC_Datatype recvtype, DFC_Comm comm);
int DFC_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            DFC_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], DFC_Datatype recvtype, DFC_Comm comm,
                            DFC_Request *request);
int DFC_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                DFC_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                const int rdispls[], DFC_Datatype recvtype, DFC_Comm comm,
                                DFC_Info info, DFC_Request *request);

int DFC_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const DFC_Aint sdispls[],
                           const DFC_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const DFC_Aint rdispls[], const DFC_Datatype recvtypes[], DFC_Comm comm);
int DFC_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const DFC_Aint sdispls[],
                            const DFC_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const DFC_Aint rdispls[], const DFC_Datatype recvtypes[], DFC_Comm comm,
                            DFC_Request *request);
int DFC_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                const DFC_Aint sdispls[], const DFC_Datatype sendtypes[],
                                void *recvbuf, const int recvcounts[], const DFC_Aint rdispls[],
                                const DFC_Datatype recvtypes[], DFC_Comm comm, DFC_Info info,
                                DFC_Request *request);

/* ---- Attributes (caching), error extensions and communicator extras ----------------- */
/* Keyvals are handles of their own kind; the predefined ones name attributes of every
 * communicator (values from the launcher where it has them: DFC_APPNUM, DFC_UNIVERSE_SIZE). */
#define DFC_KEYVAL_INVALID 0x0c000000
#define DFC_TAG_UB 0x0c000001
#define DFC_HOST 0x0c000002
#define DFC_IO 0x0c000003
#define DFC_WTIME_IS_GLOBAL 0x0c000004
#define DFC_APPNUM 0x0c000005
#define DFC_UNIVERSE_SIZE 0x0c000006
#define DFC_LASTUSEDCODE 0x0c000007

typedef int(DFC_Comm_copy_attr_function)(DFC_Comm oldcomm, int comm_keyval, void *extra_state,
                                         void *attribute_val_in, void *attribute_val_out,
                                         int *flag);
typedef int(DFC_Comm_delete_attr_function)(DFC_Comm comm, int comm_keyval, void *attribute_val,
                                           void *extra_state);
typedef int(DFC_Type_copy_attr_function)(DFC_Datatype oldtype, int type_keyval, void *extra_state,
                                         void *attribute_val_in, void *attribute_val_out,
                                         int *flag);
typedef int(DFC_Type_delete_attr_function)(DFC_Datatype datatype, int type_keyval,
                                           void *attribute_val, void *extra_state);
typedef void(DFC_Comm_errhandler_function)(DFC_Comm *comm, int *error_code, ...);

/* The predefined callbacks, inline so that every program (linked with libdfc or libmpi) has
 * them; handles are integers, so one function serves communicators and datatypes. */
static inline int dfc_attr_null_copy_fn(int oldobj, int keyval, void *extra_state, void *in,
                                        void *out, int *flag)
{
    (void)oldobj, (void)keyval, (void)extra_state, (void)in, (void)out;
    *flag = 0;
    return DFC_SUCCESS;
}
static inline int dfc_attr_dup_fn(int oldobj, int keyval, void *extra_state, void *in, void *out,
                                  int *flag)
{
    (void)oldobj, (void)keyval, (void)extra_state;
    *(void **)out = in;
    *flag = 1;
    return DFC_SUCCESS;
}
static inline int dfc_attr_null_delete_fn(int obj, int keyval, void *val, void *extra_state)
{
    (void)obj, (void)keyval, (void)val, (void)extra_state;
    return DFC_SUCCESS;
}
#define DFC_COMM_NULL_COPY_FN dfc_attr_null_copy_fn
#define DFC_COMM_DUP_FN dfc_attr_dup_fn
#define DFC_COMM_NULL_DELETE_FN dfc_attr_null_delete_fn
#define DFC_TYPE_NULL_COPY_FN dfc_attr_null_copy_fn
#define DFC_TYPE_DUP_FN dfc_attr_dup_fn
#define DFC_TYPE_NULL_DELETE_FN dfc_attr_null_delete_fn

int DFC_Comm_create_keyval(DFC_Comm_copy_attr_function *comm_copy_attr_fn,
                           DFC_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                           void *extra_state);
int DFC_Comm_free_keyval(int *comm_keyval);
int DFC_Comm_set_attr(DFC_Comm comm, int comm_keyval, void *attribute_val);
int DFC_Comm_get_attr(DFC_Comm comm, int comm_keyval, void *attribute_val, int *flag);
int DFC_Comm_delete_attr(DFC_Comm comm, int comm_keyval);
int DFC_Type_create_keyval(DFC_Type_copy_attr_function *type_copy_attr_fn,
                           DFC_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                           void *extra_state);
int DFC_Type_free_keyval(int *type_keyval);
int DFC_Type_set_attr(DFC_Datatype datatype, int type_keyval, void *attribute_val);
int DFC_Type_get_attr(DFC_Datatype datatype, int type_keyval, void *attribute_val, int *flag);
int DFC_Type_delete_attr(DFC_Datatype datatype, int type_keyval);

int DFC_Add_error_class(int *errorclass);
int DFC_Add_error_code(int errorclass, int *errorcode);
int DFC_Add_error_string(int errorcode, const char *string);
int DFC_Remove_error_class(int errorclass);
int DFC_Remove_error_code(int errorcode);
int DFC_Remove_error_string(int errorcode);
int DFC_Comm_create_errhandler(DFC_Comm_errhandler_function *comm_errhandler_fn,
                               DFC_Errhandler *errhandler);
int DFC_Comm_call_errhandler(DFC_Comm comm, int errorcode);

int DFC_Comm_test_inter(DFC_Comm comm, int *flag);
int DFC_Comm_idup(DFC_Comm comm, DFC_Comm *newcomm, DFC_Request *request);
int DFC_Comm_idup_with_info(DFC_Comm comm, DFC_Info info, DFC_Comm *newcomm, DFC_Request *request);
int DFC_Comm_create_from_group(DFC_Group group, const char *stringtag, DFC_Info info,
                               DFC_Errhandler errhandler, DFC_Comm *newcomm);
int DFC_Pcontrol(const int level, ...);
int DFC_Alloc_mem(DFC_Aint size, DFC_Info info, void *baseptr);
int DFC_Free_mem(void *base);
int DFC_Info_create_env(int argc, char *argv[], DFC_Info *info);
/* ---- Point-to-point and requests completed (issue 17, part 3) ----------------------- */
/* Matched probe: a message handle names one message taken off the matching queue. */
typedef int DFC_Message;
#define DFC_MESSAGE_NULL ((DFC_Message)0x0b000000)
#define DFC_MESSAGE_NO_PROC ((DFC_Message)0x0b000001) /* Mprobe(DFC_PROC_NULL) */
int DFC_Mprobe(int source, int tag, DFC_Comm comm, DFC_Message *message, DFC_Status *status);
int DFC_Improbe(int source, int tag, DFC_Comm comm, int *flag, DFC_Message *message,
                DFC_Status *status);
int DFC_Mrecv(void *buf, int count, DFC_Datatype datatype, DFC_Message *message,
              DFC_Status *status);
int DFC_Imrecv(void *buf, int count, DFC_Datatype datatype, DFC_Message *message,
               DFC_Request *request);

/* Ready sends. */
int DFC_Rsend(const void *buf, int count, DFC_Datatype datatype, int dest, int tag, DFC_Comm comm);
int DFC_Irsend(const void *buf, int count, DFC_Datatype datatype, int dest, int tag, DFC_Comm comm,
               DFC_Request *request);
int DFC_Rsend_init(const void *buf, int count, DFC_Datatype datatype, int dest, int tag,
                   DFC_Comm comm, DFC_Request *request);

/* Buffered sends: each message takes its size plus DFC_BSEND_OVERHEAD bytes of the buffer. */
#define DFC_BSEND_OVERHEAD 64
#define DFC_BUFFER_AUTOMATIC ((void *)-2)
int DFC_Bsend(const void *buf, int count, DFC_Datatype datatype, int dest, int tag, DFC_Comm comm);
int DFC_Ibsend(const void *buf, int count, DFC_Datatype datatype, int dest, int tag, DFC_Comm comm,
               DFC_Request *request);
int DFC_Bsend_init(const void *buf, int count, DFC_Datatype datatype, int dest, int tag,
                   DFC_Comm comm, DFC_Request *request);
int DFC_Buffer_attach(void *buffer, int size);
int DFC_Buffer_detach(void *buffer_addr, int *size);
int DFC_Buffer_flush(void);
int DFC_Buffer_iflush(DFC_Request *request);
int DFC_Comm_attach_buffer(DFC_Comm comm, void *buffer, int size);
int DFC_Comm_detach_buffer(DFC_Comm comm, void *buffer_addr, int *size);
int DFC_Comm_flush_buffer(DFC_Comm comm);
int DFC_Comm_iflush_buffer(DFC_Comm comm, DFC_Request *request);

/* Nonblocking send-receive. */
int DFC_Isendrecv(const void *sendbuf, int sendcount, DFC_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, DFC_Datatype recvtype, int source, int recvtag,
                  DFC_Comm comm, DFC_Request *request);
int DFC_Isendrecv_replace(void *buf, int count, DFC_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, DFC_Comm comm, DFC_Request *request);

/* Generalized requests. */
typedef int(DFC_Grequest_query_function)(void *extra_state, DFC_Status *status);
typedef int(DFC_Grequest_free_function)(void *extra_state);
typedef int(DFC_Grequest_cancel_function)(void *extra_state, int complete);
int DFC_Grequest_start(DFC_Grequest_query_function *query_fn, DFC_Grequest_free_function *free_fn,
                       DFC_Grequest_cancel_function *cancel_fn, void *extra_state,
                       DFC_Request *request);
int DFC_Grequest_complete(DFC_Request request);

/* Request and status inspection. */
int DFC_Request_get_status_all(int count, const DFC_Request array_of_requests[], int *flag,
                               DFC_Status array_of_statuses[]);
int DFC_Request_get_status_any(int count, const DFC_Request array_of_requests[], int *index,
                               int *flag, DFC_Status *status);
int DFC_Request_get_status_some(int incount, const DFC_Request array_of_requests[], int *outcount,
                                int array_of_indices[], DFC_Status array_of_statuses[]);
int DFC_Status_set_elements(DFC_Status *status, DFC_Datatype datatype, int count);
int DFC_Status_set_elements_x(DFC_Status *status, DFC_Datatype datatype, DFC_Count count);
int DFC_Status_set_cancelled(DFC_Status *status, int flag);
int DFC_Status_get_source(const DFC_Status *status, int *source);
int DFC_Status_set_source(DFC_Status *status, int source);
int DFC_Status_get_tag(const DFC_Status *status, int *tag);
int DFC_Status_set_tag(DFC_Status *status, int tag);
int DFC_Status_get_error(const DFC_Status *status, int *err);
int DFC_Status_set_error(DFC_Status *status, int err);

/* Alltoallw: per-peer counts, byte displacements and datatypes. */
int DFC_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const DFC_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const DFC_Datatype recvtypes[], DFC_Comm comm);
int DFC_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const DFC_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const DFC_Datatype recvtypes[], DFC_Comm comm,
                   DFC_Request *request);
int DFC_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       const DFC_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                       const int rdispls[], const DFC_Datatype recvtypes[], DFC_Comm comm,
                       DFC_Info info, DFC_Request *request);
/* ---- end of issue 17, part 3 -------------------------------------------------------- */

/* ---- Intercommunicators (issue 17) -------------------------------------------------- */
/* Two disjoint groups; point-to-point ranks name the remote group. Every collective MPI
 * defines on one takes one (roots: DFC_ROOT / DFC_PROC_NULL / a remote rank), blocking,
 * nonblocking and persistent. */
int DFC_Intercomm_create(DFC_Comm local_comm, int local_leader, DFC_Comm peer_comm,
                         int remote_leader, int tag, DFC_Comm *newintercomm);
int DFC_Intercomm_merge(DFC_Comm intercomm, int high, DFC_Comm *newintracomm);
int DFC_Comm_remote_size(DFC_Comm comm, int *size);
int DFC_Comm_remote_group(DFC_Comm comm, DFC_Group *group);
/* MPI-4.0: from two disjoint groups of DFC_COMM_WORLD's processes, matched by stringtag. */
int DFC_Intercomm_create_from_groups(DFC_Group local_group, int local_leader,
                                     DFC_Group remote_group, int remote_leader,
                                     const char *stringtag, DFC_Info info,
                                     DFC_Errhandler errhandler, DFC_Comm *newintercomm);
/* ---- end of intercommunicators -------------------------------------------------------- */

/* ---- Large-count forms (issue 17) ----------------------------------------------------- */
int DFC_Send_c(const void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int tag,
               DFC_Comm comm);
int DFC_Recv_c(void *buf, DFC_Count count, DFC_Datatype datatype, int source, int tag,
               DFC_Comm comm, DFC_Status *status);
int DFC_Isend_c(const void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int tag,
                DFC_Comm comm, DFC_Request *request);
int DFC_Irecv_c(void *buf, DFC_Count count, DFC_Datatype datatype, int source, int tag,
                DFC_Comm comm, DFC_Request *request);
int DFC_Bcast_c(void *buffer, DFC_Count count, DFC_Datatype datatype, int root, DFC_Comm comm);
int DFC_Reduce_c(const void *sendbuf, void *recvbuf, DFC_Count count, DFC_Datatype datatype,
                 DFC_Op op, int root, DFC_Comm comm);
int DFC_Allreduce_c(const void *sendbuf, void *recvbuf, DFC_Count count, DFC_Datatype datatype,
                    DFC_Op op, DFC_Comm comm);
int DFC_Allgather_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, void *recvbuf,
                    DFC_Count recvcount, DFC_Datatype recvtype, DFC_Comm comm);
int DFC_Get_count_c(const DFC_Status *status, DFC_Datatype datatype, DFC_Count *count);
/* More large-count forms (api_count_c_p2p.c, api_count_c_coll.c; DFC_Ssend_c(3)). */
int DFC_Ssend_c(const void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int tag,
                DFC_Comm comm);
int DFC_Bsend_c(const void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int tag,
                DFC_Comm comm);
int DFC_Rsend_c(const void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int tag,
                DFC_Comm comm);
int DFC_Issend_c(const void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int tag,
                 DFC_Comm comm, DFC_Request *request);
int DFC_Ibsend_c(const void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int tag,
                 DFC_Comm comm, DFC_Request *request);
int DFC_Irsend_c(const void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int tag,
                 DFC_Comm comm, DFC_Request *request);
int DFC_Send_init_c(const void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int tag,
                    DFC_Comm comm, DFC_Request *request);
int DFC_Ssend_init_c(const void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int tag,
                     DFC_Comm comm, DFC_Request *request);
int DFC_Bsend_init_c(const void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int tag,
                     DFC_Comm comm, DFC_Request *request);
int DFC_Rsend_init_c(const void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int tag,
                     DFC_Comm comm, DFC_Request *request);
int DFC_Recv_init_c(void *buf, DFC_Count count, DFC_Datatype datatype, int source, int tag,
                    DFC_Comm comm, DFC_Request *request);
int DFC_Mrecv_c(void *buf, DFC_Count count, DFC_Datatype datatype, DFC_Message *message,
                DFC_Status *status);
int DFC_Imrecv_c(void *buf, DFC_Count count, DFC_Datatype datatype, DFC_Message *message,
                 DFC_Request *request);
int DFC_Sendrecv_replace_c(void *buf, DFC_Count count, DFC_Datatype datatype, int dest, int sendtag,
                           int source, int recvtag, DFC_Comm comm, DFC_Status *status);
int DFC_Isendrecv_replace_c(void *buf, DFC_Count count, DFC_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, DFC_Comm comm,
                            DFC_Request *request);
int DFC_Sendrecv_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, int dest,
                   int sendtag, void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype,
                   int source, int recvtag, DFC_Comm comm, DFC_Status *status);
int DFC_Isendrecv_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype,
                    int source, int recvtag, DFC_Comm comm, DFC_Request *request);
int DFC_Ibcast_c(void *buffer, DFC_Count count, DFC_Datatype datatype, int root, DFC_Comm comm,
                 DFC_Request *request);
int DFC_Bcast_init_c(void *buffer, DFC_Count count, DFC_Datatype datatype, int root, DFC_Comm comm,
                     DFC_Info info, DFC_Request *request);
int DFC_Ireduce_c(const void *sendbuf, void *recvbuf, DFC_Count count, DFC_Datatype datatype,
                  DFC_Op op, int root, DFC_Comm comm, DFC_Request *request);
int DFC_Reduce_init_c(const void *sendbuf, void *recvbuf, DFC_Count count, DFC_Datatype datatype,
                      DFC_Op op, int root, DFC_Comm comm, DFC_Info info, DFC_Request *request);
int DFC_Iallreduce_c(const void *sendbuf, void *recvbuf, DFC_Count count, DFC_Datatype datatype,
                     DFC_Op op, DFC_Comm comm, DFC_Request *request);
int DFC_Allreduce_init_c(const void *sendbuf, void *recvbuf, DFC_Count count, DFC_Datatype datatype,
                         DFC_Op op, DFC_Comm comm, DFC_Info info, DFC_Request *request);
int DFC_Scan_c(const void *sendbuf, void *recvbuf, DFC_Count count, DFC_Datatype datatype,
               DFC_Op op, DFC_Comm comm);
int DFC_Iscan_c(const void *sendbuf, void *recvbuf, DFC_Count count, DFC_Datatype datatype,
                DFC_Op op, DFC_Comm comm, DFC_Request *request);
int DFC_Scan_init_c(const void *sendbuf, void *recvbuf, DFC_Count count, DFC_Datatype datatype,
                    DFC_Op op, DFC_Comm comm, DFC_Info info, DFC_Request *request);
int DFC_Exscan_c(const void *sendbuf, void *recvbuf, DFC_Count count, DFC_Datatype datatype,
                 DFC_Op op, DFC_Comm comm);
int DFC_Iexscan_c(const void *sendbuf, void *recvbuf, DFC_Count count, DFC_Datatype datatype,
                  DFC_Op op, DFC_Comm comm, DFC_Request *request);
int DFC_Exscan_init_c(const void *sendbuf, void *recvbuf, DFC_Count count, DFC_Datatype datatype,
                      DFC_Op op, DFC_Comm comm, DFC_Info info, DFC_Request *request);
int DFC_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, DFC_Count recvcount,
                               DFC_Datatype datatype, DFC_Op op, DFC_Comm comm);
int DFC_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, DFC_Count recvcount,
                                DFC_Datatype datatype, DFC_Op op, DFC_Comm comm,
                                DFC_Request *request);
int DFC_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, DFC_Count recvcount,
                                    DFC_Datatype datatype, DFC_Op op, DFC_Comm comm, DFC_Info info,
                                    DFC_Request *request);
int DFC_Reduce_local_c(const void *inbuf, void *inoutbuf, DFC_Count count, DFC_Datatype datatype,
                       DFC_Op op);
int DFC_Gather_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, void *recvbuf,
                 DFC_Count recvcount, DFC_Datatype recvtype, int root, DFC_Comm comm);
int DFC_Igather_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, void *recvbuf,
                  DFC_Count recvcount, DFC_Datatype recvtype, int root, DFC_Comm comm,
                  DFC_Request *request);
int DFC_Gather_init_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                      void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype, int root,
                      DFC_Comm comm, DFC_Info info, DFC_Request *request);
int DFC_Scatter_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, void *recvbuf,
                  DFC_Count recvcount, DFC_Datatype recvtype, int root, DFC_Comm comm);
int DFC_Iscatter_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, void *recvbuf,
                   DFC_Count recvcount, DFC_Datatype recvtype, int root, DFC_Comm comm,
                   DFC_Request *request);
int DFC_Scatter_init_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                       void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype, int root,
                       DFC_Comm comm, DFC_Info info, DFC_Request *request);
int DFC_Iallgather_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, void *recvbuf,
                     DFC_Count recvcount, DFC_Datatype recvtype, DFC_Comm comm,
                     DFC_Request *request);
int DFC_Allgather_init_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                         void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype, DFC_Comm comm,
                         DFC_Info info, DFC_Request *request);
int DFC_Alltoall_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, void *recvbuf,
                   DFC_Count recvcount, DFC_Datatype recvtype, DFC_Comm comm);
int DFC_Ialltoall_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, void *recvbuf,
                    DFC_Count recvcount, DFC_Datatype recvtype, DFC_Comm comm,
                    DFC_Request *request);
int DFC_Alltoall_init_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                        void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype, DFC_Comm comm,
                        DFC_Info info, DFC_Request *request);
/* The large-count v and w collectives and neighborhood collectives (api_count_c_v.c,
 * api_count_c_nbr.c): counts DFC_Count, displacements DFC_Aint; DFC_Gatherv_c(3). */
int DFC_Gatherv_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, void *recvbuf,
                  const DFC_Count recvcounts[], const DFC_Aint displs[], DFC_Datatype recvtype,
                  int root, DFC_Comm comm);
int DFC_Igatherv_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, void *recvbuf,
                   const DFC_Count recvcounts[], const DFC_Aint displs[], DFC_Datatype recvtype,
                   int root, DFC_Comm comm, DFC_Request *request);
int DFC_Gatherv_init_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                       void *recvbuf, const DFC_Count recvcounts[], const DFC_Aint displs[],
                       DFC_Datatype recvtype, int root, DFC_Comm comm, DFC_Info info,
                       DFC_Request *request);
int DFC_Scatterv_c(const void *sendbuf, const DFC_Count sendcounts[], const DFC_Aint displs[],
                   DFC_Datatype sendtype, void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype,
                   int root, DFC_Comm comm);
int DFC_Iscatterv_c(const void *sendbuf, const DFC_Count sendcounts[], const DFC_Aint displs[],
                    DFC_Datatype sendtype, void *recvbuf, DFC_Count recvcount,
                    DFC_Datatype recvtype, int root, DFC_Comm comm, DFC_Request *request);
int DFC_Scatterv_init_c(const void *sendbuf, const DFC_Count sendcounts[], const DFC_Aint displs[],
                        DFC_Datatype sendtype, void *recvbuf, DFC_Count recvcount,
                        DFC_Datatype recvtype, int root, DFC_Comm comm, DFC_Info info,
                        DFC_Request *request);
int DFC_Allgatherv_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype, void *recvbuf,
                     const DFC_Count recvcounts[], const DFC_Aint displs[], DFC_Datatype recvtype,
                     DFC_Comm comm);
int DFC_Iallgatherv_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                      void *recvbuf, const DFC_Count recvcounts[], const DFC_Aint displs[],
                      DFC_Datatype recvtype, DFC_Comm comm, DFC_Request *request);
int DFC_Allgatherv_init_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                          void *recvbuf, const DFC_Count recvcounts[], const DFC_Aint displs[],
                          DFC_Datatype recvtype, DFC_Comm comm, DFC_Info info,
                          DFC_Request *request);
int DFC_Alltoallv_c(const void *sendbuf, const DFC_Count sendcounts[], const DFC_Aint sdispls[],
                    DFC_Datatype sendtype, void *recvbuf, const DFC_Count recvcounts[],
                    const DFC_Aint rdispls[], DFC_Datatype recvtype, DFC_Comm comm);
int DFC_Ialltoallv_c(const void *sendbuf, const DFC_Count sendcounts[], const DFC_Aint sdispls[],
                     DFC_Datatype sendtype, void *recvbuf, const DFC_Count recvcounts[],
                     const DFC_Aint rdispls[], DFC_Datatype recvtype, DFC_Comm comm,
                     DFC_Request *request);
int DFC_Alltoallv_init_c(const void *sendbuf, const DFC_Count sendcounts[],
                         const DFC_Aint sdispls[], DFC_Datatype sendtype, void *recvbuf,
                         const DFC_Count recvcounts[], const DFC_Aint rdispls[],
                         DFC_Datatype recvtype, DFC_Comm comm, DFC_Info info, DFC_Request *request);
int DFC_Alltoallw_c(const void *sendbuf, const DFC_Count sendcounts[], const DFC_Aint sdispls[],
                    const DFC_Datatype sendtypes[], void *recvbuf, const DFC_Count recvcounts[],
                    const DFC_Aint rdispls[], const DFC_Datatype recvtypes[], DFC_Comm comm);
int DFC_Ialltoallw_c(const void *sendbuf, const DFC_Count sendcounts[], const DFC_Aint sdispls[],
                     const DFC_Datatype sendtypes[], void *recvbuf, const DFC_Count recvcounts[],
                     const DFC_Aint rdispls[], const DFC_Datatype recvtypes[], DFC_Comm comm,
                     DFC_Request *request);
int DFC_Alltoallw_init_c(const void *sendbuf, const DFC_Count sendcounts[],
                         const DFC_Aint sdispls[], const DFC_Datatype sendtypes[], void *recvbuf,
                         const DFC_Count recvcounts[], const DFC_Aint rdispls[],
                         const DFC_Datatype recvtypes[], DFC_Comm comm, DFC_Info info,
                         DFC_Request *request);
int DFC_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const DFC_Count recvcounts[],
                         DFC_Datatype datatype, DFC_Op op, DFC_Comm comm);
int DFC_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const DFC_Count recvcounts[],
                          DFC_Datatype datatype, DFC_Op op, DFC_Comm comm, DFC_Request *request);
int DFC_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const DFC_Count recvcounts[],
                              DFC_Datatype datatype, DFC_Op op, DFC_Comm comm, DFC_Info info,
                              DFC_Request *request);
int DFC_Neighbor_allgather_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                             void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype,
                             DFC_Comm comm);
int DFC_Ineighbor_allgather_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                              void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype,
                              DFC_Comm comm, DFC_Request *request);
int DFC_Neighbor_allgather_init_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                                  void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype,
                                  DFC_Comm comm, DFC_Info info, DFC_Request *request);
int DFC_Neighbor_alltoall_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                            void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype,
                            DFC_Comm comm);
int DFC_Ineighbor_alltoall_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                             void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype,
                             DFC_Comm comm, DFC_Request *request);
int DFC_Neighbor_alltoall_init_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                                 void *recvbuf, DFC_Count recvcount, DFC_Datatype recvtype,
                                 DFC_Comm comm, DFC_Info info, DFC_Request *request);
int DFC_Neighbor_allgatherv_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                              void *recvbuf, const DFC_Count recvcounts[], const DFC_Aint displs[],
                              DFC_Datatype recvtype, DFC_Comm comm);
int DFC_Ineighbor_allgatherv_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                               void *recvbuf, const DFC_Count recvcounts[], const DFC_Aint displs[],
                               DFC_Datatype recvtype, DFC_Comm comm, DFC_Request *request);
int DFC_Neighbor_allgatherv_init_c(const void *sendbuf, DFC_Count sendcount, DFC_Datatype sendtype,
                                   void *recvbuf, const DFC_Count recvcounts[],
                                   const DFC_Aint displs[], DFC_Datatype recvtype, DFC_Comm comm,
                                   DFC_Info info, DFC_Request *request);
int DFC_Neighbor_alltoallv_c(const void *sendbuf, const DFC_Count sendcounts[],
                             const DFC_Aint sdispls[], DFC_Datatype sendtype, void *recvbuf,
                             const DFC_Count recvcounts[], const DFC_Aint rdispls[],
                             DFC_Datatype recvtype, DFC_Comm comm);
int DFC_Ineighbor_alltoallv_c(const void *sendbuf, const DFC_Count sendcounts[],
                              const DFC_Aint sdispls[], DFC_Datatype sendtype, void *recvbuf,
                              const DFC_Count recvcounts[], const DFC_Aint rdispls[],
                              DFC_Datatype recvtype, DFC_Comm comm, DFC_Request *request);
int DFC_Neighbor_alltoallv_init_c(const void *sendbuf, const DFC_Count sendcounts[],
                                  const DFC_Aint sdispls[], DFC_Datatype sendtype, void *recvbuf,
                                  const DFC_Count recvcounts[], const DFC_Aint rdispls[],
                                  DFC_Datatype recvtype, DFC_Comm comm, DFC_Info info,
                                  DFC_Request *request);
int DFC_Neighbor_alltoallw_c(const void *sendbuf, const DFC_Count sendcounts[],
                             const DFC_Aint sdispls[], const DFC_Datatype sendtypes[],
                             void *recvbuf, const DFC_Count recvcounts[], const DFC_Aint rdispls[],
                             const DFC_Datatype recvtypes[], DFC_Comm comm);
int DFC_Ineighbor_alltoallw_c(const void *sendbuf, const DFC_Count sendcounts[],
                              const DFC_Aint sdispls[], const DFC_Datatype sendtypes[],
                              void *recvbuf, const DFC_Count recvcounts[], const DFC_Aint rdispls[],
                              const DFC_Datatype recvtypes[], DFC_Comm comm, DFC_Request *request);
int DFC_Neighbor_alltoallw_init_c(const void *sendbuf, const DFC_Count sendcounts[],
                                  const DFC_Aint sdispls[], const DFC_Datatype sendtypes[],
                                  void *recvbuf, const DFC_Count recvcounts[],
                                  const DFC_Aint rdispls[], const DFC_Datatype recvtypes[],
                                  DFC_Comm comm, DFC_Info info, DFC_Request *request);
int DFC_Get_elements_c(const DFC_Status *status, DFC_Datatype datatype, DFC_Count *count);
/* ---- end of large-count forms --------------------------------------------------------- */

/* ---- One-sided communication (RMA windows) ------------------------------------------- */
typedef int DFC_Win;
#define DFC_WIN_NULL ((DFC_Win)0x0a000000)

/* Error classes of one-sided communication (MPI-4.1 9.4); 30 is DFC_ERR_KEYVAL on main. */
#define DFC_ERR_WIN 31
#define DFC_ERR_BASE 32
#define DFC_ERR_SIZE 33
#define DFC_ERR_DISP 34
#define DFC_ERR_LOCKTYPE 35
#define DFC_ERR_ASSERT 36
#define DFC_ERR_RMA_CONFLICT 37
#define DFC_ERR_RMA_SYNC 38
#define DFC_ERR_RMA_RANGE 39
#define DFC_ERR_RMA_ATTACH 40
#define DFC_ERR_RMA_SHARED 41
#define DFC_ERR_RMA_FLAVOR 42

/* Window attributes (Win_get_attr keyvals): predefined keys of the keyval kind (0x0c), after
 * the communicator ones (DFC_TAG_UB...DFC_LASTUSEDCODE are 0x0c000001-7 on main). */
#define DFC_WIN_BASE 0x0c000008
#define DFC_WIN_SIZE 0x0c000009
#define DFC_WIN_DISP_UNIT 0x0c00000a
#define DFC_WIN_CREATE_FLAVOR 0x0c00000b
#define DFC_WIN_MODEL 0x0c00000c
/* Values of DFC_WIN_CREATE_FLAVOR and DFC_WIN_MODEL. */
#define DFC_WIN_FLAVOR_CREATE 1
#define DFC_WIN_FLAVOR_ALLOCATE 2
#define DFC_WIN_FLAVOR_DYNAMIC 3
#define DFC_WIN_FLAVOR_SHARED 4
#define DFC_WIN_SEPARATE 1
#define DFC_WIN_UNIFIED 2

/* Lock types and assertions. */
#define DFC_LOCK_EXCLUSIVE 234
#define DFC_LOCK_SHARED 235
#define DFC_MODE_NOCHECK 1024
#define DFC_MODE_NOSTORE 2048
#define DFC_MODE_NOPUT 4096
#define DFC_MODE_NOPRECEDE 8192
#define DFC_MODE_NOSUCCEED 16384

int DFC_Win_create(void *base, DFC_Aint size, int disp_unit, DFC_Info info, DFC_Comm comm,
                   DFC_Win *win);
int DFC_Win_allocate(DFC_Aint size, int disp_unit, DFC_Info info, DFC_Comm comm, void *baseptr,
                     DFC_Win *win);
int DFC_Win_allocate_shared(DFC_Aint size, int disp_unit, DFC_Info info, DFC_Comm comm,
                            void *baseptr, DFC_Win *win);
int DFC_Win_shared_query(DFC_Win win, int rank, DFC_Aint *size, int *disp_unit, void *baseptr);
int DFC_Win_create_dynamic(DFC_Info info, DFC_Comm comm, DFC_Win *win);
int DFC_Win_attach(DFC_Win win, void *base, DFC_Aint size);
int DFC_Win_detach(DFC_Win win, const void *base);
int DFC_Win_free(DFC_Win *win);

int DFC_Put(const void *origin_addr, int origin_count, DFC_Datatype origin_datatype,
            int target_rank, DFC_Aint target_disp, int target_count, DFC_Datatype target_datatype,
            DFC_Win win);
int DFC_Get(void *origin_addr, int origin_count, DFC_Datatype origin_datatype, int target_rank,
            DFC_Aint target_disp, int target_count, DFC_Datatype target_datatype, DFC_Win win);
int DFC_Accumulate(const void *origin_addr, int origin_count, DFC_Datatype origin_datatype,
                   int target_rank, DFC_Aint target_disp, int target_count,
                   DFC_Datatype target_datatype, DFC_Op op, DFC_Win win);
int DFC_Get_accumulate(const void *origin_addr, int origin_count, DFC_Datatype origin_datatype,
                       void *result_addr, int result_count, DFC_Datatype result_datatype,
                       int target_rank, DFC_Aint target_disp, int target_count,
                       DFC_Datatype target_datatype, DFC_Op op, DFC_Win win);
int DFC_Fetch_and_op(const void *origin_addr, void *result_addr, DFC_Datatype datatype,
                     int target_rank, DFC_Aint target_disp, DFC_Op op, DFC_Win win);
int DFC_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                         DFC_Datatype datatype, int target_rank, DFC_Aint target_disp, DFC_Win win);
int DFC_Rput(const void *origin_addr, int origin_count, DFC_Datatype origin_datatype,
             int target_rank, DFC_Aint target_disp, int target_count, DFC_Datatype target_datatype,
             DFC_Win win, DFC_Request *request);
int DFC_Rget(void *origin_addr, int origin_count, DFC_Datatype origin_datatype, int target_rank,
             DFC_Aint target_disp, int target_count, DFC_Datatype target_datatype, DFC_Win win,
             DFC_Request *request);
int DFC_Raccumulate(const void *origin_addr, int origin_count, DFC_Datatype origin_datatype,
                    int target_rank, DFC_Aint target_disp, int target_count,
                    DFC_Datatype target_datatype, DFC_Op op, DFC_Win win, DFC_Request *request);
int DFC_Rget_accumulate(const void *origin_addr, int origin_count, DFC_Datatype origin_datatype,
                        void *result_addr, int result_count, DFC_Datatype result_datatype,
                        int target_rank, DFC_Aint target_disp, int target_count,
                        DFC_Datatype target_datatype, DFC_Op op, DFC_Win win, DFC_Request *request);

int DFC_Win_fence(int assert, DFC_Win win);
int DFC_Win_lock(int lock_type, int rank, int assert, DFC_Win win);
int DFC_Win_unlock(int rank, DFC_Win win);
int DFC_Win_lock_all(int assert, DFC_Win win);
int DFC_Win_unlock_all(DFC_Win win);
int DFC_Win_flush(int rank, DFC_Win win);
int DFC_Win_flush_all(DFC_Win win);
int DFC_Win_flush_local(int rank, DFC_Win win);
int DFC_Win_flush_local_all(DFC_Win win);
int DFC_Win_sync(DFC_Win win);
int DFC_Win_post(DFC_Group group, int assert, DFC_Win win);
int DFC_Win_start(DFC_Group group, int assert, DFC_Win win);
int DFC_Win_complete(DFC_Win win);
int DFC_Win_wait(DFC_Win win);
int DFC_Win_test(DFC_Win win, int *flag);

int DFC_Win_get_attr(DFC_Win win, int win_keyval, void *attribute_val, int *flag);
int DFC_Win_get_group(DFC_Win win, DFC_Group *group);
int DFC_Win_set_name(DFC_Win win, const char *win_name);
int DFC_Win_get_name(DFC_Win win, char *win_name, int *resultlen);
int DFC_Win_set_info(DFC_Win win, DFC_Info info);
int DFC_Win_get_info(DFC_Win win, DFC_Info *info_used);
int DFC_Win_set_errhandler(DFC_Win win, DFC_Errhandler errhandler);
int DFC_Win_get_errhandler(DFC_Win win, DFC_Errhandler *errhandler);

/* Window attributes of the user (keyvals of their own, as for communicators and datatypes;
 * DFC_Win_get_attr answers the predefined DFC_WIN_BASE ... DFC_WIN_MODEL too) and window
 * error handlers. Windows are never duplicated, so copy callbacks are kept but not called. */
typedef int(DFC_Win_copy_attr_function)(DFC_Win oldwin, int win_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int(DFC_Win_delete_attr_function)(DFC_Win win, int win_keyval, void *attribute_val,
                                          void *extra_state);
typedef void(DFC_Win_errhandler_function)(DFC_Win *win, int *error_code, ...);
#define DFC_WIN_NULL_COPY_FN dfc_attr_null_copy_fn
#define DFC_WIN_DUP_FN dfc_attr_dup_fn
#define DFC_WIN_NULL_DELETE_FN dfc_attr_null_delete_fn
int DFC_Win_create_keyval(DFC_Win_copy_attr_function *win_copy_attr_fn,
                          DFC_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                          void *extra_state);
int DFC_Win_free_keyval(int *win_keyval);
int DFC_Win_set_attr(DFC_Win win, int win_keyval, void *attribute_val);
int DFC_Win_delete_attr(DFC_Win win, int win_keyval);
int DFC_Win_create_errhandler(DFC_Win_errhandler_function *win_errhandler_fn,
                              DFC_Errhandler *errhandler);
int DFC_Win_call_errhandler(DFC_Win win, int errorcode);

/* ---- Parallel I/O (MPI-IO, MPI-4.1 chapter 14; src/io, DFC_File_open(3)) -------------- */
typedef int DFC_File;
#define DFC_FILE_NULL ((DFC_File)0x0d000000)
/* Access modes (MPICH's values). */
#define DFC_MODE_CREATE 1
#define DFC_MODE_RDONLY 2
#define DFC_MODE_WRONLY 4
#define DFC_MODE_RDWR 8
#define DFC_MODE_DELETE_ON_CLOSE 16
#define DFC_MODE_UNIQUE_OPEN 32
#define DFC_MODE_EXCL 64
#define DFC_MODE_APPEND 128
#define DFC_MODE_SEQUENTIAL 256
#define DFC_SEEK_SET 600
#define DFC_SEEK_CUR 602
#define DFC_SEEK_END 604
#define DFC_DISPLACEMENT_CURRENT (-54278278)
#define DFC_MAX_DATAREP_STRING 128
typedef void(DFC_File_errhandler_function)(DFC_File *file, int *error_code, ...);

int DFC_File_open(DFC_Comm comm, const char *filename, int amode, DFC_Info info, DFC_File *fh);
int DFC_File_close(DFC_File *fh);
int DFC_File_delete(const char *filename, DFC_Info info);
int DFC_File_set_size(DFC_File fh, DFC_Offset size);
int DFC_File_preallocate(DFC_File fh, DFC_Offset size);
int DFC_File_get_size(DFC_File fh, DFC_Offset *size);
int DFC_File_get_group(DFC_File fh, DFC_Group *group);
int DFC_File_get_amode(DFC_File fh, int *amode);
int DFC_File_set_info(DFC_File fh, DFC_Info info);
int DFC_File_get_info(DFC_File fh, DFC_Info *info_used);
int DFC_File_set_view(DFC_File fh, DFC_Offset disp, DFC_Datatype etype, DFC_Datatype filetype,
                      const char *datarep, DFC_Info info);
int DFC_File_get_view(DFC_File fh, DFC_Offset *disp, DFC_Datatype *etype, DFC_Datatype *filetype,
                      char *datarep);
int DFC_File_get_type_extent(DFC_File fh, DFC_Datatype datatype, DFC_Aint *extent);
int DFC_File_set_atomicity(DFC_File fh, int flag);
int DFC_File_get_atomicity(DFC_File fh, int *flag);
int DFC_File_sync(DFC_File fh);
int DFC_File_read_at(DFC_File fh, DFC_Offset offset, void *buf, int count, DFC_Datatype datatype,
                     DFC_Status *status);
int DFC_File_read_at_all(DFC_File fh, DFC_Offset offset, void *buf, int count,
                         DFC_Datatype datatype, DFC_Status *status);
int DFC_File_write_at(DFC_File fh, DFC_Offset offset, const void *buf, int count,
                      DFC_Datatype datatype, DFC_Status *status);
int DFC_File_write_at_all(DFC_File fh, DFC_Offset offset, const void *buf, int count,
                          DFC_Datatype datatype, DFC_Status *status);
int DFC_File_iread_at(DFC_File fh, DFC_Offset offset, void *buf, int count, DFC_Datatype datatype,
                      DFC_Request *request);
int DFC_File_iread_at_all(DFC_File fh, DFC_Offset offset, void *buf, int count,
                          DFC_Datatype datatype, DFC_Request *request);
int DFC_File_iwrite_at(DFC_File fh, DFC_Offset offset, const void *buf, int count,
                       DFC_Datatype datatype, DFC_Request *request);
int DFC_File_iwrite_at_all(DFC_File fh, DFC_Offset offset, const void *buf, int count,
                           DFC_Datatype datatype, DFC_Request *request);
int DFC_File_read(DFC_File fh, void *buf, int count, DFC_Datatype datatype, DFC_Status *status);
int DFC_File_read_all(DFC_File fh, void *buf, int count, DFC_Datatype datatype, DFC_Status *status);
int DFC_File_write(DFC_File fh, const void *buf, int count, DFC_Datatype datatype,
                   DFC_Status *status);
int DFC_File_write_all(DFC_File fh, const void *buf, int count, DFC_Datatype datatype,
                       DFC_Status *status);
int DFC_File_iread(DFC_File fh, void *buf, int count, DFC_Datatype datatype, DFC_Request *request);
int DFC_File_iread_all(DFC_File fh, void *buf, int count, DFC_Datatype datatype,
                       DFC_Request *request);
int DFC_File_iwrite(DFC_File fh, const void *buf, int count, DFC_Datatype datatype,
                    DFC_Request *request);
int DFC_File_iwrite_all(DFC_File fh, const void *buf, int count, DFC_Datatype datatype,
                        DFC_Request *request);
int DFC_File_seek(DFC_File fh, DFC_Offset offset, int whence);
int DFC_File_get_position(DFC_File fh, DFC_Offset *offset);
int DFC_File_get_byte_offset(DFC_File fh, DFC_Offset offset, DFC_Offset *disp);
int DFC_File_read_shared(DFC_File fh, void *buf, int count, DFC_Datatype datatype,
                         DFC_Status *status);
int DFC_File_write_shared(DFC_File fh, const void *buf, int count, DFC_Datatype datatype,
                          DFC_Status *status);
int DFC_File_iread_shared(DFC_File fh, void *buf, int count, DFC_Datatype datatype,
                          DFC_Request *request);
int DFC_File_iwrite_shared(DFC_File fh, const void *buf, int count, DFC_Datatype datatype,
                           DFC_Request *request);
int DFC_File_read_ordered(DFC_File fh, void *buf, int count, DFC_Datatype datatype,
                          DFC_Status *status);
int DFC_File_write_ordered(DFC_File fh, const void *buf, int count, DFC_Datatype datatype,
                           DFC_Status *status);
int DFC_File_seek_shared(DFC_File fh, DFC_Offset offset, int whence);
int DFC_File_get_position_shared(DFC_File fh, DFC_Offset *offset);
int DFC_File_read_at_all_begin(DFC_File fh, DFC_Offset offset, void *buf, int count,
                               DFC_Datatype datatype);
int DFC_File_read_at_all_end(DFC_File fh, void *buf, DFC_Status *status);
int DFC_File_write_at_all_begin(DFC_File fh, DFC_Offset offset, const void *buf, int count,
                                DFC_Datatype datatype);
int DFC_File_write_at_all_end(DFC_File fh, const void *buf, DFC_Status *status);
int DFC_File_read_all_begin(DFC_File fh, void *buf, int count, DFC_Datatype datatype);
int DFC_File_read_all_end(DFC_File fh, void *buf, DFC_Status *status);
int DFC_File_write_all_begin(DFC_File fh, const void *buf, int count, DFC_Datatype datatype);
int DFC_File_write_all_end(DFC_File fh, const void *buf, DFC_Status *status);
int DFC_File_read_ordered_begin(DFC_File fh, void *buf, int count, DFC_Datatype datatype);
int DFC_File_read_ordered_end(DFC_File fh, void *buf, DFC_Status *status);
int DFC_File_write_ordered_begin(DFC_File fh, const void *buf, int count, DFC_Datatype datatype);
int DFC_File_write_ordered_end(DFC_File fh, const void *buf, DFC_Status *status);
int DFC_File_create_errhandler(DFC_File_errhandler_function *file_errhandler_fn,
                               DFC_Errhandler *errhandler);
int DFC_File_set_errhandler(DFC_File file, DFC_Errhandler errhandler);
int DFC_File_get_errhandler(DFC_File file, DFC_Errhandler *errhandler);
int DFC_File_call_errhandler(DFC_File fh, int errorcode);

/* MPI-4.1 f90 types, value-index pairs and hardware info (issues 17, 21) */
int DFC_Type_create_f90_real(int p, int r, DFC_Datatype *newtype);
int DFC_Type_create_f90_complex(int p, int r, DFC_Datatype *newtype);
int DFC_Type_create_f90_integer(int r, DFC_Datatype *newtype);
int DFC_Type_get_value_index(DFC_Datatype value_type, DFC_Datatype index_type,
                             DFC_Datatype *pair_type);
int DFC_Get_hw_resource_info(DFC_Info *hw_info);

/* ---- Partitioned communication (issue 17, MPI-4.1 chapter 4; DFC_Psend_init(3)) ------- */
int DFC_Psend_init(const void *buf, int partitions, DFC_Count count, DFC_Datatype datatype,
                   int dest, int tag, DFC_Comm comm, DFC_Info info, DFC_Request *request);
int DFC_Precv_init(void *buf, int partitions, DFC_Count count, DFC_Datatype datatype, int source,
                   int tag, DFC_Comm comm, DFC_Info info, DFC_Request *request);
int DFC_Pready(int partition, DFC_Request request);
int DFC_Pready_range(int partition_low, int partition_high, DFC_Request request);
int DFC_Pready_list(int length, const int array_of_partitions[], DFC_Request request);
int DFC_Parrived(DFC_Request request, int partition, int *flag);

/* ---- Process creation without spawn (issue 21, MPI-4.1 11; DFC_Comm_get_parent(3)) ---- */
int DFC_Comm_get_parent(DFC_Comm *parent);
int DFC_Comm_disconnect(DFC_Comm *comm);

#ifdef __cplusplus
}
#endif
#endif /* DFC_H */
