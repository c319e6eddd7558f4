/*
 * mpi_extra.h - the part of mpi.h that dfc.h does not give: MPI_Fint and the conversions of
 * handles to and from Fortran, the Fortran view of a status, MPI_Pcontrol, and the handful
 * of MPI constants that name DFC's fixed behaviour. src/mpi/gen-mpi.sh appends everything
 * below this comment to mpi.h and adds a PMPI_ prototype for each function (one prototype a
 * line here, so that it finds them). Defined in src/mpi/mpi_fint.c.
 */
typedef int MPI_Fint;
#define MPI_F_STATUS_SIZE 5
#define MPI_F_SOURCE 2
#define MPI_F_TAG 3
#define MPI_F_ERROR 4
#define MPI_MAX_PORT_NAME 256
#define MPI_STATUS_SIZE MPI_F_STATUS_SIZE

/* DFC handles are integers, so a Fortran handle is the C handle (as in MPICH). */
MPI_Fint MPI_Comm_c2f(MPI_Comm comm);
MPI_Comm MPI_Comm_f2c(MPI_Fint comm);
MPI_Fint MPI_Group_c2f(MPI_Group group);
MPI_Group MPI_Group_f2c(MPI_Fint group);
MPI_Fint MPI_Type_c2f(MPI_Datatype datatype);
MPI_Datatype MPI_Type_f2c(MPI_Fint datatype);
MPI_Fint MPI_Op_c2f(MPI_Op op);
MPI_Op MPI_Op_f2c(MPI_Fint op);
MPI_Fint MPI_Request_c2f(MPI_Request request);
MPI_Request MPI_Request_f2c(MPI_Fint request);
MPI_Fint MPI_Info_c2f(MPI_Info info);
MPI_Info MPI_Info_f2c(MPI_Fint info);
MPI_Fint MPI_Errhandler_c2f(MPI_Errhandler errhandler);
MPI_Errhandler MPI_Errhandler_f2c(MPI_Fint errhandler);
MPI_Fint MPI_Message_c2f(MPI_Message message);
MPI_Message MPI_Message_f2c(MPI_Fint message);
MPI_Fint MPI_Win_c2f(MPI_Win win);
MPI_Win MPI_Win_f2c(MPI_Fint win);
MPI_Fint MPI_File_c2f(MPI_File file);
MPI_File MPI_File_f2c(MPI_Fint file);
int MPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status);
int MPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status);
/* The profiling interface's control call: DFC has no profiling levels, so it does nothing
 * (DFC_Pcontrol is variadic, so the generator cannot pass it on: spelled here). */
int MPI_Pcontrol(const int level, ...);
