/*
 * lazycuda - a host-only program loads nothing of CUDA (issue 16, dfc(7) "Lazy start"):
 * after DFC_Init and collectives and point-to-point on host buffers (results checked), the
 * process maps no CUDA driver or runtime and no NVIDIA device file (a CUDA context maps
 * /dev/nvidiactl and /dev/nvidia<N>), and its resident memory grew by less than 64 MB, of
 * which the node's shared segment (/dev/shm/dfc-*) is at most 512 KiB + 32 KiB per ring: a
 * rank touches the rings' pages as far as its messages reach, not every ring of the node.
 * With -expect=cuda (run with DFC_GPU_INIT=eager on a GPU machine) it checks the opposite,
 * which shows that the check can see a context. Each rank prints what it found only on failure.
 */
#include <stdio.h>

#include "../dfctest.h"

/* What /proc/self/maps shows of CUDA: bit 0 libcuda, 1 libcudart, 2 an NVIDIA device file. */
static int cuda_mappings(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (strstr(line, "/libcuda.so")) found |= 1;
        if (strstr(line, "/libcudart.so")) found |= 2;
        if (strstr(line, "/dev/nvidia")) found |= 4;
    }
    if (f) fclose(f);
    return found;
}

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kib) == 1) break;
    if (f) fclose(f);
    return kib;
}

/* KiB of this process's resident memory in DFC's shared-memory segments. */
static long shm_segment_rss_kib(void)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[4096];
    long kib = 0, v;
    int in_segment = 0;
    while (f && fgets(line, sizeof line, f)) {
        char *sp = strchr(line, ' ');         /* a mapping's line starts "from-to perms"; */
        if (sp && sp > line && sp[-1] != ':') /* its fields' lines "Name:" */
            in_segment = strstr(line, "/dev/shm/dfc-") != NULL;
        if (in_segment && sscanf(line, "Rss: %ld", &v) == 1) kib += v;
    }
    if (f) fclose(f);
    return kib;
}

int main(int argc, char **argv)
{
    int expect_cuda = argc > 1 && !strcmp(argv[1], "-expect=cuda");
    long before = rss_kib();
    dfct_init(&argc, &argv);
    int size;
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    int in[64], out[64];
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 64; i++) in[i] = dfct_rank + i + round, out[i] = -1;
        DFCT_OK(DFC_Allreduce(in, out, 64, DFC_INT, DFC_SUM, DFC_COMM_WORLD));
        for (int i = 0; i < 64; i++)
            DFCT_CHECK(out[i] == size * (size - 1) / 2 + size * (i + round),
                       "allreduce element %d: %d", i, out[i]);
        out[0] = dfct_rank == 0 ? 1234 + round : -1;
        DFCT_OK(DFC_Bcast(out, 1, DFC_INT, 0, DFC_COMM_WORLD));
        DFCT_CHECK(out[0] == 1234 + round, "bcast gave %d", out[0]);
        DFCT_OK(DFC_Barrier(DFC_COMM_WORLD));
    }
    int next = (dfct_rank + 1) % size, prev = (dfct_rank + size - 1) % size;
    int got = -1;
    DFCT_OK(DFC_Sendrecv(&dfct_rank, 1, DFC_INT, next, 7, &got, 1, DFC_INT, prev, 7, DFC_COMM_WORLD,
                         DFC_STATUS_IGNORE));
    DFCT_CHECK(got == prev, "sendrecv gave %d, expected %d", got, prev);
    int found = cuda_mappings();
    long grew = rss_kib() - before;
    if (expect_cuda)
        DFCT_CHECK(found & 4, "no CUDA context under DFC_GPU_INIT=eager (maps %d)", found);
    else {
        DFCT_CHECK(!(found & 1), "the CUDA driver is loaded");
        DFCT_CHECK(!(found & 2), "the CUDA runtime is loaded");
        DFCT_CHECK(!(found & 4), "an NVIDIA device file is mapped (a CUDA context)");
        DFCT_CHECK(grew < 64 * 1024, "resident memory grew by %ld KiB", grew);
        long seg = shm_segment_rss_kib(), bound = 512 + 32L * size * (size - 1);
        DFCT_CHECK(seg <= bound, "%ld KiB of the shared segment resident (bound %ld)", seg, bound);
    }
    return dfct_finalize();
}
