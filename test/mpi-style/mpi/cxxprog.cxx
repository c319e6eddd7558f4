// cxxprog.cxx - mpi.h from C++, built with DFC's mpicxx: the declarations are extern "C" and
// MPI's C types work with C++ containers. Rank 0 prints " No Errors" when every rank passed.
#include <mpi.h>
#include <cstdio>
#include <vector>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = -1, size = -1, errs = 0, total = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<double> in(100), out(100, -1.0);
    for (int i = 0; i < 100; i++) in[i] = rank * 0.5 + i;
    MPI_Allreduce(in.data(), out.data(), 100, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < 100; i++) {
        double want = 0.25 * size * (size - 1) + (double)i * size;
        if (out[i] != want && errs++ < 10)
            std::fprintf(stderr, "[%d] out[%d]=%g\n", rank, i, out[i]);
    }
    MPI_Reduce(&errs, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) std::printf(total ? " Found %d errors\n" : " No Errors\n", total);
    MPI_Finalize();
    return 0;
}
