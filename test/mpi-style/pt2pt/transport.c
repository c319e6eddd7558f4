/*
 * transport - DFC_Comm_get_peer_transport (DFC extension) names the transport that
 * carries messages to each peer: "self" for the calling process, "shm" for a peer on the
 * same host, "tcp" for a peer on another host. Hosts are compared by the processor names,
 * which the ranks exchange with sends. With DFC_TRANSPORT=tcp in the environment every
 * other peer must be "tcp"; with DFC_TEST_NODES=1 (set by the runner in its simulated
 * multi-node modes) at least one peer must be on another host and reached by tcp. With
 * DFC_TRANSPORT=ofi "ofi" replaces "tcp" in all of this (libfabric carries every pair). The
 * mapping follows communicator ranks (checked on a communicator in reverse order), and
 * every transport carries checked data. In a multi-node job with DFC_TRANSPORT and
 * DFC_OFI_PROVIDER unset, on a host whose kernel lists no fabric device, libfabric must not
 * be loaded at all (auto keeps tcp without asking it: ofi_prov.c).
 */
#include <dirent.h>

#include "../dfctest.h"

#define NAMELEN DFC_MAX_PROCESSOR_NAME

static int rank, size;
static const char *net = "tcp"; /* the between-nodes transport: "ofi" with DFC_TRANSPORT=ofi */

static const char *expected(int world_rank, const char *names, int force_tcp)
{
    if (world_rank == rank) return "self";
    if (!force_tcp && !strcmp(names + (size_t)world_rank * NAMELEN, names + (size_t)rank * NAMELEN))
        return "shm";
    return net;
}

/* Whether a directory the ofi transport looks in for fabric devices has an entry. */
static int fabric_device_listed(void)
{
    const char *dirs[] = {"/sys/class/infiniband", "/dev/infiniband", "/sys/class/cxi"};
    int found = 0;
    for (int i = 0; i < 3; i++) {
        DIR *d = opendir(dirs[i]);
        for (struct dirent *e; d && (e = readdir(d));) found |= e->d_name[0] != '.';
        if (d) closedir(d);
    }
    return found;
}

static int libfabric_mapped(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int found = 0;
    while (f && fgets(line, sizeof line, f)) found |= strstr(line, "/libfabric.so") != NULL;
    if (f) fclose(f);
    return found;
}

int main(int argc, char **argv)
{
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    const char *tr = getenv("DFC_TRANSPORT"), *nodes = getenv("DFC_TEST_NODES");
    if (tr && !strcmp(tr, "ofi")) net = "ofi";
    int force_tcp = tr && (!strcmp(tr, "tcp") || !strcmp(tr, "ofi")),
        multinode = nodes && !strcmp(nodes, "1");

    /* Everyone's processor name, by point-to-point. */
    char *names = calloc(size, NAMELEN);
    int len = -1;
    DFCT_OK(DFC_Get_processor_name(names + (size_t)rank * NAMELEN, &len));
    DFCT_CHECK(len > 0 && len == (int)strlen(names + (size_t)rank * NAMELEN),
               "Get_processor_name: length %d", len);
    DFC_Request *reqs = malloc(2 * size * sizeof *reqs);
    int nr = 0;
    for (int r = 0; r < size; r++) {
        if (r == rank) continue;
        DFCT_OK(DFC_Irecv(names + (size_t)r * NAMELEN, NAMELEN, DFC_CHAR, r, 1, DFC_COMM_WORLD,
                          &reqs[nr++]));
        DFCT_OK(DFC_Isend(names + (size_t)rank * NAMELEN, NAMELEN, DFC_CHAR, r, 1, DFC_COMM_WORLD,
                          &reqs[nr++]));
    }
    DFCT_OK(DFC_Waitall(nr, reqs, DFC_STATUSES_IGNORE));

    /* The transport of each world peer. */
    int remote = 0, remote_tcp = 0;
    for (int r = 0; r < size; r++) {
        char name[DFC_MAX_TRANSPORT_NAME];
        memset(name, 0, sizeof name);
        len = -1;
        DFCT_OK(DFC_Comm_get_peer_transport(DFC_COMM_WORLD, r, name, &len));
        DFCT_CHECK(len == (int)strlen(name) && len > 0 && len < DFC_MAX_TRANSPORT_NAME,
                   "peer %d: resultlen %d for \"%s\"", r, len, name);
        const char *want = expected(r, names, force_tcp);
        DFCT_CHECK(!strcmp(name, want),
                   "peer %d (host %s, mine %s%s): transport \"%s\", expected \"%s\"", r,
                   names + (size_t)r * NAMELEN, names + (size_t)rank * NAMELEN,
                   force_tcp ? ", DFC_TRANSPORT=tcp" : "", name, want);
        if (r != rank && strcmp(names + (size_t)r * NAMELEN, names + (size_t)rank * NAMELEN)) {
            remote++;
            if (!strcmp(name, net)) remote_tcp++;
        }
    }
    if (multinode && size > 1) {
        /* Ranks are spread round-robin over the simulated nodes: each has a remote peer. */
        DFCT_CHECK(remote > 0, "DFC_TEST_NODES=1 but all %d peers share my host %s", size - 1,
                   names + (size_t)rank * NAMELEN);
        DFCT_CHECK(remote_tcp > 0, "DFC_TEST_NODES=1 but no peer on another host is reached by %s",
                   net);
        if (!tr && !getenv("DFC_OFI_PROVIDER") && !fabric_device_listed())
            DFCT_CHECK(!libfabric_mapped(),
                       "DFC_TRANSPORT=auto loaded libfabric on a host that lists no fabric device");
    }

    /* COMM_SELF: its only rank is this process. */
    {
        char name[DFC_MAX_TRANSPORT_NAME];
        DFCT_OK(DFC_Comm_get_peer_transport(DFC_COMM_SELF, 0, name, &len));
        DFCT_CHECK(!strcmp(name, "self"), "COMM_SELF rank 0: \"%s\"", name);
    }

    /* A communicator in reverse order: rank r there is world rank size-1-r. */
    DFC_Comm rev;
    DFCT_OK(DFC_Comm_split(DFC_COMM_WORLD, 0, size - rank, &rev));
    for (int r = 0; r < size; r++) {
        char name[DFC_MAX_TRANSPORT_NAME];
        DFCT_OK(DFC_Comm_get_peer_transport(rev, r, name, &len));
        const char *want = expected(size - 1 - r, names, force_tcp);
        DFCT_CHECK(!strcmp(name, want), "reversed comm rank %d (world %d): \"%s\", expected \"%s\"",
                   r, size - 1 - r, name, want);
    }
    DFCT_OK(DFC_Comm_free(&rev));

    /* Data over every pair (eager and rendezvous): each transport carries it. */
    static const int lens[] = {3, 100000};
    for (int l = 0; l < 2; l++) {
        int n = lens[l];
        int **in = malloc(size * sizeof *in), *out = malloc(n * sizeof(int));
        for (int k = 0; k < n; k++) out[k] = rank * 1000003 + k + l;
        nr = 0;
        for (int r = 0; r < size; r++) {
            in[r] = malloc(n * sizeof(int));
            DFCT_OK(DFC_Irecv(in[r], n, DFC_INT, r, 2, DFC_COMM_WORLD, &reqs[nr++]));
            DFCT_OK(DFC_Isend(out, n, DFC_INT, r, 2, DFC_COMM_WORLD, &reqs[nr++]));
        }
        DFCT_OK(DFC_Waitall(nr, reqs, DFC_STATUSES_IGNORE));
        for (int r = 0; r < size; r++) {
            for (int k = 0; k < n; k++)
                if (in[r][k] != r * 1000003 + k + l) {
                    DFCT_CHECK(0, "data from %d (%d ints): element %d is %d", r, n, k, in[r][k]);
                    break;
                }
            free(in[r]);
        }
        free(in);
        free(out);
    }
    free(reqs);
    free(names);
    return dfct_finalize();
}
