/*
 * kernelmates - the job's processes on one kernel are counted across hostnames (init.c):
 * each rank reads the kernel's boot id itself, the ranks gather them, and the library's
 * dfc_proc.kernel_size must equal the number of ranks with this rank's id, whatever the
 * launcher said of nodes (on the simulated nodes of test/launch every rank has its own
 * hostname and the same kernel). dfc_progress_oversubscribed() must then say whether that
 * count exceeds the online processors: with 4 ranks on the 2-core CI machine it must, on
 * simulated nodes too (before, the node map's local size of 1 said no, and the ranks spun
 * against each other: BENCHMARKS.md stop 38).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../dfctest.h"
#include "comm/dfc_comm.h"

#define ID_LEN 36

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    int size;
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    char id[ID_LEN + 1] = {0}, *all = calloc((size_t)size, ID_LEN);
    if (!all) return 2;
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    DFCT_CHECK(f && fread(id, 1, ID_LEN, f) == ID_LEN, "cannot read the kernel's boot id");
    if (f) fclose(f);
    DFCT_OK(DFC_Allgather(id, ID_LEN, DFC_CHAR, all, ID_LEN, DFC_CHAR, DFC_COMM_WORLD));
    int mates = 0;
    for (int r = 0; r < size; r++) mates += !memcmp(all + (size_t)r * ID_LEN, id, ID_LEN);
    DFCT_CHECK(dfc_proc.kernel_size == mates, "kernel_size %d, but %d ranks share my kernel",
               dfc_proc.kernel_size, mates);
    DFCT_CHECK(dfc_proc.kernel_size >= dfc_proc.local_size, "kernel_size %d < local_size %d",
               dfc_proc.kernel_size, dfc_proc.local_size);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    DFCT_CHECK(dfc_progress_oversubscribed() == (mates > ncpu),
               "oversubscribed says %d with %d ranks on this kernel and %ld processors",
               dfc_progress_oversubscribed(), mates, ncpu);
    free(all);
    return dfct_finalize();
}
