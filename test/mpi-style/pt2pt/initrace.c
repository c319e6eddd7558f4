/*
 * initrace - every rank talks to every other right after DFC_Init while half of the ranks
 * come out of each of init's fences late (issue 18: the ofi transport's init race).
 *
 * The ofi transport publishes its endpoint names, meets the others in a fence, inserts their
 * names into its address vector, and only then (after a second fence) sends its HELLOs. Over
 * the sockets provider a connection that arrives before the receiver inserted its sender
 * reports FI_ADDR_NOTAVAIL as the source of every message on it, for good, so without the
 * second fence a rank that was slow between the first fence and its insertion dropped its
 * faster peers' messages and the job hung. Scheduling made that slowness happen by chance
 * (pt2pt/transport hung now and then); here odd ranks sleep 300 ms after each PMIx_Fence
 * during DFC_Init, which makes it happen every time. The program defines PMIx_Fence itself:
 * libdfc's calls bind to it (the executable comes first in symbol lookup) and it calls the
 * real one (dlsym RTLD_NEXT). Any transport passes; the testlist runs it over ofi with the
 * sockets provider, where the race was seen.
 * Then each rank sends a fresh eager message and a rendezvous message to every other; every
 * element is checked in buffers poisoned beforehand.
 */
#include <dlfcn.h>
#include <pmix.h>
#include <time.h>

#include "../dfctest.h"

static int in_init; /* the delay applies to DFC_Init's fences only */

pmix_status_t PMIx_Fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                         size_t ninfo)
{
    static pmix_status_t (*real)(const pmix_proc_t[], size_t, const pmix_info_t[], size_t);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "PMIx_Fence");
    if (!real) return PMIX_ERR_NOT_FOUND;
    pmix_status_t rc = real(procs, nprocs, info, ninfo);
    const char *r = getenv("PMIX_RANK");
    if (in_init && r && atoi(r) % 2 == 1) {
        struct timespec ts = {0, 300 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return rc;
}

#define SMALL 16
#define LARGE (256 * 1024 / 4) /* ints: above every transport's eager limit */

static int value(int from, int to, int k) { return from * 1000003 + to * 7919 + k; }

int main(int argc, char **argv)
{
    in_init = 1;
    dfct_init(&argc, &argv);
    in_init = 0;
    int rank, size;
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    static const int lens[] = {SMALL, LARGE};
    for (int l = 0; l < 2; l++) {
        int n = lens[l];
        int *out = malloc((size_t)size * n * sizeof(int)),
            *in = malloc((size_t)size * n * sizeof(int));
        DFC_Request *reqs = malloc(2 * (size_t)size * sizeof(*reqs));
        for (int r = 0; r < size; r++)
            for (int k = 0; k < n; k++) {
                out[(size_t)r * n + k] = value(rank, r, k);
                in[(size_t)r * n + k] = -1;
            }
        int nr = 0;
        for (int r = 0; r < size; r++) {
            if (r == rank) continue;
            DFCT_OK(DFC_Irecv(in + (size_t)r * n, n, DFC_INT, r, l, DFC_COMM_WORLD, &reqs[nr++]));
            DFCT_OK(DFC_Isend(out + (size_t)r * n, n, DFC_INT, r, l, DFC_COMM_WORLD, &reqs[nr++]));
        }
        DFCT_OK(DFC_Waitall(nr, reqs, DFC_STATUSES_IGNORE));
        for (int r = 0; r < size; r++) {
            if (r == rank) continue;
            for (int k = 0; k < n; k++)
                if (in[(size_t)r * n + k] != value(r, rank, k)) {
                    DFCT_CHECK(0, "%d ints from %d: element %d is %d, expected %d", n, r, k,
                               in[(size_t)r * n + k], value(r, rank, k));
                    break;
                }
        }
        free(reqs);
        free(in);
        free(out);
    }
    return dfct_finalize();
}
