/* abort.c - MPI_Abort on one rank ends the job with its code and says so on stderr (which
 * rank, which communicator, which code), as MPICH and Open MPI do. Written against mpi.h
 * only, built with DFC's mpicc.
 * Arguments: "world" (the default) or "split": the last rank aborts on MPI_COMM_WORLD, or on
 * a communicator of its own named "abort-comm" (its rank there is 0). The testlist expects
 * the exit status 7 and the line naming rank, communicator and code. The other ranks wait
 * in a barrier that never completes: the abort must end them. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && !strcmp(argv[1], "split")) {
        MPI_Comm_split(MPI_COMM_WORLD, rank == size - 1, 0, &comm);
        if (rank == size - 1) MPI_Comm_set_name(comm, "abort-comm");
    }
    if (rank == size - 1) MPI_Abort(comm, 7);
    MPI_Barrier(MPI_COMM_WORLD);
    printf(" No Errors\n"); /* reached only if the abort did not end the job */
    MPI_Finalize();
    return 0;
}
