/* mpi_fint.c - libmpi's functions that have no DFC_ twin (declared in src/mpi/mpi_extra.h):
 * Fortran handle and status conversions and MPI_Pcontrol (the ready sends,
 * MPI_Comm_test_inter and MPI_Get_address are generated from dfc.h now). As for the generated
 * ones, PMPI_x is the definition and MPI_x a weak alias, so that a profiling tool may replace
 * MPI_x. */
#include <stdarg.h>
#include <string.h>

#include "mpi.h"

#define DFC_MPI_PRAGMA(x) _Pragma(#x)
#define DFC_MPI_WEAK(name) DFC_MPI_PRAGMA(weak MPI_##name = PMPI_##name)

/* c2f/f2c of one handle type: the identity, since handles are integers. */
#define DFC_MPI_HANDLE_CONV(Kind, Ctype)                        \
    MPI_Fint PMPI_##Kind##_c2f(Ctype h) { return (MPI_Fint)h; } \
    Ctype PMPI_##Kind##_f2c(MPI_Fint h) { return (Ctype)h; }    \
    DFC_MPI_WEAK(Kind##_c2f)                                    \
    DFC_MPI_WEAK(Kind##_f2c)

DFC_MPI_HANDLE_CONV(Comm, MPI_Comm)
DFC_MPI_HANDLE_CONV(Group, MPI_Group)
DFC_MPI_HANDLE_CONV(Type, MPI_Datatype)
DFC_MPI_HANDLE_CONV(Op, MPI_Op)
DFC_MPI_HANDLE_CONV(Request, MPI_Request)
DFC_MPI_HANDLE_CONV(Info, MPI_Info)
DFC_MPI_HANDLE_CONV(Errhandler, MPI_Errhandler)
DFC_MPI_HANDLE_CONV(Message, MPI_Message) /* mpi4py's test_fortran round-trips these */
DFC_MPI_HANDLE_CONV(Win, MPI_Win)
DFC_MPI_HANDLE_CONV(File, MPI_File)

/* A Fortran status is MPI_F_STATUS_SIZE integers; the C status is the same five ints in the
 * same order (the two count words, then MPI_SOURCE, MPI_TAG, MPI_ERROR). */
_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint), "status layout");

int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    if (!c_status || !f_status || c_status == MPI_STATUS_IGNORE) return MPI_ERR_ARG;
    memcpy(f_status, c_status, sizeof *c_status);
    return MPI_SUCCESS;
}
DFC_MPI_WEAK(Status_c2f)

int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    if (!c_status || !f_status || c_status == MPI_STATUS_IGNORE) return MPI_ERR_ARG;
    memcpy(c_status, f_status, sizeof *c_status);
    return MPI_SUCCESS;
}
DFC_MPI_WEAK(Status_f2c)


int PMPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}
DFC_MPI_WEAK(Pcontrol)
