/* pmpi_tool.c - a minimal profiling tool, as mpiP or Score-P are built: it defines MPI_Send,
 * MPI_Allreduce and MPI_Wait, counts the calls and forwards them to PMPI_Send,
 * PMPI_Allreduce and PMPI_Wait. Built as libpmpitool.so (linked into pmpi_linked, preloaded
 * into pmpi_preload) and as an object linked statically into pmpi_static, where it only
 * links because libmpi's MPI_ names are weak. pmpi_tool_count() reads the counters. */
#include <mpi.h>
#include <string.h>

static long n_send, n_allreduce, n_wait;

long pmpi_tool_count(const char *name)
{
    if (!strcmp(name, "MPI_Send")) return n_send;
    if (!strcmp(name, "MPI_Allreduce")) return n_allreduce;
    if (!strcmp(name, "MPI_Wait")) return n_wait;
    return -1;
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    n_send++;
    return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm)
{
    n_allreduce++;
    return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    n_wait++;
    return PMPI_Wait(request, status);
}
