/*
 * launcher_lost - a rank of a job whose launcher died (check_launcher_lost.sh runs it).
 *
 * Each rank writes its pid to DIR/pid.RANK, then both wait in DFC_Recv for a message the other
 * never sends. The script kills the launcher; the PMIx client then reports the lost server and
 * each rank must exit by itself. Exit status 3: a receive returned, which nothing here allows.
 */
#include <stdio.h>
#include <unistd.h>

#include "dfc.h"

int main(int argc, char **argv)
{
    int rank = -1, x = 0;
    if (argc != 2 || DFC_Init(&argc, &argv) != DFC_SUCCESS) return 2;
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    char path[4096];
    snprintf(path, sizeof path, "%s/pid.%d", argv[1], rank);
    FILE *f = fopen(path, "w");
    if (!f) return 2;
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
    DFC_Recv(&x, 1, DFC_INT, 1 - rank, 0, DFC_COMM_WORLD, DFC_STATUS_IGNORE);
    return 3;
}
