/*
 * tcpaddr - on simulated nodes whose host names resolve to 127.0.1.1 (as on Debian), tcp
 * still connects by the interface chosen (issue 25): the address the host name resolves to
 * is skipped when it is a loopback one, DFC_TCP_IF picks an interface by name.
 *
 * Run by the testlist in mode mpirun-nodes with SIM_HOSTS_LOOPBACK=1 (test/launch/
 * rsh-agent gives each node an /etc/hosts mapping its name to 127.0.1.1). Each rank
 *  - checks the premise: its host name resolves to 127.0.1.1;
 *  - works out the address tcp must use: DFC_TCP_IF's interface, else the first interface
 *    up and not loopback (127.0.0.1 if there is none);
 *  - counts its established TCP connections whose both ends have that address (from
 *    /proc/net/tcp and its own socket inodes): at least one per peer on another node. With
 *    the old choice (the host name's 127.0.1.1, listening on every address) there were none:
 *    a real multi-host job would have connected each process to itself.
 * Then a ring exchange checks that the connections carry data.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <unistd.h>

#include "../dfctest.h"

static int expected_addr(struct in_addr *out)
{
    const char *want = getenv("DFC_TCP_IF");
    struct ifaddrs *ifs = NULL;
    int found = 0;
    inet_pton(AF_INET, "127.0.0.1", out);
    if (getifaddrs(&ifs) != 0) return 0;
    for (struct ifaddrs *i = ifs; i && !found; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
        if (want ? strcmp(i->ifa_name, want) != 0
                 : !(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK))
            continue;
        *out = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
        found = 1;
    }
    freeifaddrs(ifs);
    return 1;
}

/* Established TCP connections of this process with both ends at address a. */
static int count_conns(struct in_addr a)
{
    unsigned long inodes[4096];
    int ni = 0, n = 0;
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    while (d && (e = readdir(d)) && ni < 4096) {
        char path[300], link[64];
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t k = readlink(path, link, sizeof link - 1);
        if (k <= 0) continue;
        link[k] = '\0';
        if (sscanf(link, "socket:[%lu]", &inodes[ni]) == 1) ni++;
    }
    if (d) closedir(d);
    FILE *f = fopen("/proc/net/tcp", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        unsigned la, lp, ra, rp, st;
        unsigned long inode;
        if (sscanf(line, " %*d: %x:%x %x:%x %x %*s %*s %*s %*s %*s %lu", &la, &lp, &ra, &rp, &st,
                   &inode) != 6 ||
            st != 1 /* ESTABLISHED */)
            continue;
        for (int i = 0; i < ni; i++)
            if (inodes[i] == inode && la == a.s_addr && ra == a.s_addr) n++;
    }
    if (f) fclose(f);
    return n;
}

int main(int argc, char **argv)
{
    int rank, size;
    dfct_init(&argc, &argv);
    DFC_Comm_rank(DFC_COMM_WORLD, &rank);
    DFC_Comm_size(DFC_COMM_WORLD, &size);
    char host[256] = "", want[64];
    gethostname(host, sizeof host - 1);
    struct addrinfo hints = {.ai_family = AF_INET}, *res = NULL;
    DFCT_CHECK(getaddrinfo(host, NULL, &hints, &res) == 0 && res &&
                   ((struct sockaddr_in *)res->ai_addr)->sin_addr.s_addr == htonl(0x7f000101),
               "premise: host name %s does not resolve to 127.0.1.1 (SIM_HOSTS_LOOPBACK)", host);
    if (res) freeaddrinfo(res);
    struct in_addr a;
    DFCT_CHECK(expected_addr(&a), "getifaddrs failed");
    inet_ntop(AF_INET, &a, want, sizeof want);
    /* mpirun-nodes: rank r on node r mod min(size, 4) */
    int k = size < 4 ? size : 4, remote = 0;
    for (int r = 0; r < size; r++) remote += r % k != rank % k;
    int n = count_conns(a);
    DFCT_CHECK(n >= remote,
               "%d tcp connections from %s to %s, expected one per peer on another "
               "node (%d)",
               n, want, want, remote);
    int buf[256], got[256], right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < 256; i++) buf[i] = rank * 7919 + i, got[i] = -1;
    DFCT_OK(DFC_Sendrecv(buf, 256, DFC_INT, right, 1, got, 256, DFC_INT, left, 1, DFC_COMM_WORLD,
                         DFC_STATUS_IGNORE));
    for (int i = 0; i < 256; i++)
        DFCT_CHECK(got[i] == left * 7919 + i, "got[%d] = %d from rank %d", i, got[i], left);
    dfct_finalize();
    return 0;
}
