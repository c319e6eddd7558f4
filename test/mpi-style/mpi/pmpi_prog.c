/* pmpi_prog.c - the program a profiling tool (pmpi_tool.c) watches. Each rank makes a number
 * of MPI_Send, MPI_Allreduce and MPI_Wait calls that depends on its rank (and other calls the
 * tool must not count: MPI_Isend, MPI_Reduce, MPI_Waitall, PMPI_Send), checks the data, then
 * checks that the tool saw exactly its own calls: the tool's MPI_ names won over libmpi's
 * and reached DFC through PMPI_.
 * Built three ways (Makefile.inc): pmpi_linked links libpmpitool.so ahead of libmpi;
 * pmpi_static links pmpi_tool.o with libmpi.a and libdfc.a; pmpi_preload is linked without
 * the tool and re-executes itself once with LD_PRELOAD naming libpmpitool.so (beside the
 * program), so that the launcher never runs with the tool preloaded. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

long pmpi_tool_count(const char *name) __attribute__((weak));

static void preload_tool(char **argv)
{
    char exe[4096], lib[4200];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (getenv("PMPI_PROG_PRELOADED") || n <= 0) return;
    exe[n] = 0;
    *strrchr(exe, '/') = 0;
    snprintf(lib, sizeof lib, "%s/libpmpitool.so", exe);
    setenv("LD_PRELOAD", lib, 1);
    setenv("PMPI_PROG_PRELOADED", "1", 1);
    execv("/proc/self/exe", argv);
    perror("pmpi_prog: execv");
    exit(1);
}

#define CHECK(cond, ...)                                            \
    do {                                                            \
        if (!(cond)) {                                              \
            errs++;                                                 \
            fprintf(stderr, "[rank %d] line %d: ", rank, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                           \
            fputc('\n', stderr);                                    \
        }                                                           \
    } while (0)

int main(int argc, char **argv)
{
    int rank, size, errs = 0, total = 0;
    if (argc > 1 && !strcmp(argv[1], "-preload")) preload_tool(argv);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int n_out = 2 + rank, n_in = 2 + left, in[64], out[64];
    MPI_Request req[64];
    long sends = 0, allreduces = 0, waits = 0;

    /* Rank r sends 2 + r messages to its right: one with PMPI_Send (not counted). */
    for (int k = 0; k < n_in; k++) {
        in[k] = -1;
        MPI_Irecv(&in[k], 1, MPI_INT, left, k, MPI_COMM_WORLD, &req[k]);
    }
    for (int k = 0; k < n_out; k++) {
        out[k] = rank * 100 + k;
        if (k == 0) PMPI_Send(&out[k], 1, MPI_INT, right, k, MPI_COMM_WORLD);
        else MPI_Send(&out[k], 1, MPI_INT, right, k, MPI_COMM_WORLD), sends++;
    }
    for (int k = 0; k < n_in; k++) {
        MPI_Wait(&req[k], MPI_STATUS_IGNORE), waits++;
        CHECK(in[k] == left * 100 + k, "message %d from %d: %d", k, left, in[k]);
    }
    /* Calls the tool does not intercept (Isend, Waitall, Reduce, PMPI_Allreduce). */
    MPI_Isend(&out[0], 1, MPI_INT, rank, 99, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&in[0], 1, MPI_INT, rank, 99, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    for (int k = 0; k < 4; k++) {
        int x = rank * 10 + k, y = -1;
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), allreduces++;
        CHECK(y == (size - 1) * 10 + k, "allreduce %d: %d", k, y);
        PMPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        CHECK(y == k, "PMPI_Allreduce %d: %d", k, y);
    }

    CHECK(pmpi_tool_count != NULL, "the tool is not loaded");
    if (pmpi_tool_count) {
        CHECK(pmpi_tool_count("MPI_Send") == sends, "MPI_Send: tool counted %ld, made %ld",
              pmpi_tool_count("MPI_Send"), sends);
        CHECK(pmpi_tool_count("MPI_Allreduce") == allreduces,
              "MPI_Allreduce: tool counted %ld, made %ld", pmpi_tool_count("MPI_Allreduce"),
              allreduces);
        CHECK(pmpi_tool_count("MPI_Wait") == waits, "MPI_Wait: tool counted %ld, made %ld",
              pmpi_tool_count("MPI_Wait"), waits);
    }
    MPI_Reduce(&errs, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total == 0) printf(" No Errors\n");
        else printf(" Found %d errors\n", total);
    }
    MPI_Finalize();
    return 0;
}
