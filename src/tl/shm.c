/*
 * shm.c - the shared-memory transport: processes on the same node.
 *
 * One segment per node per job, created by local rank 0 under a random name (seg_open_new:
 * another user who squats on predictable names cannot stop a job), published with its
 * cookie through the bootstrap, mapped by every local rank and unlinked as soon as all have
 * mapped it (after the second fence of init), so nothing stays in /dev/shm even if a rank
 * is killed later. The name carries the creator's pid and start time, so that a segment
 * left by a creator killed before that unlink is removed by the next job of the same user
 * on the node (clean_stale). It holds:
 *
 *   header | one doorbell per local rank | collective slots (shm_slots.h), DFC_SLOT_SETS
 *   per local rank | one shared-pull descriptor per ordered pair (reader, sender;
 *   shm_coop.h) | one ring per ordered pair (sender, receiver)
 *
 * A packet is one record (its header and payload, laid out by shm_wire.h) in the
 * sender->receiver ring (shm_ring.h: single producer, single consumer, so no locks and no
 * atomics beyond the positions).
 * The sender copies the payload into the ring and the receiver's deliver callback reads it
 * in place: two copies in total, the minimum for eager messages. Large messages skip the
 * ring: the receiver pulls them with process_vm_readv (rget, cross-memory attach): one copy.
 * From DFC_SHM_COOP_MIN bytes the sender helps: it pushes pieces of the message from the
 * back while the receiver pulls from the front (shm_coop.h), so two cores copy.
 *
 * Blocking waits (DESIGN.md 2.2: 8 ranks on 2 cores must not spin; dfc(7) "Waiting"):
 * each local rank has a doorbell, a futex word plus a count of its threads sleeping in
 * wait(). A waiter announces itself, re-checks its incoming rings (and the outgoing rings it
 * found full), and sleeps on the futex word; a sender that sees a waiter bumps the word and
 * wakes it, and so does a consumer that freed space in a ring whose producer asked for it
 * (shm_ring.h, space_wanted). The Dekker-style pairing (sender: publish, full fence, read
 * waiters; waiter: count itself, full fence, read rings) guarantees one of the two sees
 * the other, so no wakeup is lost, and a sender pays a fence but no system call and no
 * shared-line write while the receiver is awake. Threads of the same process ring it
 * through shm_wake.
 *
 * Asymmetric fences (issue 16): that fence made every send wait until its record left the
 * core (a cache-line round trip, about 0.1-0.2 us, paid per message in a window of small
 * sends), while a receiver sleeps only after hundreds of microseconds without a message.
 * So where the kernel offers membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED), every process
 * registers for it at init and the cost moves to the sleeper: after counting itself (and
 * after a full producer raised space_wanted) it runs that system-wide barrier, which
 * executes a full fence on every CPU running a registered process, before it re-reads the
 * rings; senders and consumers then need only a compiler barrier between their store and
 * their load (the pairing of membarrier(2) with barrier() that liburcu uses). A process
 * whose registration failed keeps the full fences; one whose kernel lacks the call entirely
 * cannot have peers that registered.
 *
 * Failure: a local peer that exits without a goodbye is found by a liveness check (its
 * /proc/<pid>/stat start time, read at init, must still match), run every
 * DFC_SHM_LIVENESS_MS; its ring is drained first, then progress reports it once and sends
 * to it fail with DFC_ERR_PROC_FAILED.
 *
 * Threads: the comm layer serializes send/progress/rget/fini (one lock); wait may run in
 * several threads at once: it copies what it watches under that lock, then drops it and
 * reads only shared positions and doorbells.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "pmix/dfc_boot.h"
#include "tl/dfc_tl.h"
#include "tl/shm_coop.h"
#include "tl/shm_ring.h"
#include "tl/shm_slots.h"
#include "tl/shm_wire.h"
#include "util/dfc_util.h"

#define SHM_MAGIC 0x314d48535f434644ull /* "DFC_SHM1" */

/* The segment header, written by the creator before the first fence, read-only after. */
typedef struct shm_seg_hdr {
    _Alignas(64) uint64_t magic;
    uint64_t cookie; /* random; the creator publishes it, attachers compare it */
    uint64_t local_size;
    uint64_t ring_size;   /* data bytes per ring */
    uint64_t ring_stride; /* bytes from one ring to the next */
    uint64_t rings_off;   /* offset of ring 0 */
    uint64_t slots_off;   /* offset of the collective slots (DFC_SLOT_SETS per local rank) */
    uint64_t coop_off;    /* offset of the shared-pull descriptors ([reader][sender]) */
} shm_seg_hdr_t;

typedef struct shm_bell {
    _Alignas(64) _Atomic uint32_t seq; /* futex word: bumped by senders that saw waiters */
    _Atomic uint32_t waiters;          /* owner's threads inside wait() */
    _Atomic uint32_t help;             /* bumped by readers that want the owner's help */
    _Atomic uint32_t pulling;          /* owner's threads inside a pull of coop_min or more */
    int32_t pid;                       /* owner's pid and start time, written before fence 2 */
    uint64_t starttime;
} shm_bell_t;

typedef struct shm_peer {
    int world, lrank;
    dfc_shm_ring_t *out, *in; /* me -> peer, peer -> me */
    shm_bell_t *bell;         /* the peer's doorbell */
    pid_t pid;
    uint64_t starttime;
    int watch;          /* liveness check possible (its /proc entry matched at init) */
    int dead;           /* to be reported: its process is gone (once its ring is
                               * drained) or its ring is corrupt (`corrupt` says why) */
    int failed;         /* reported: sends fail from now on */
    char corrupt[128];  /* malformed ring or packet: the message; "" if not */
    int blocked;        /* the last send found `out` full... */
    uint64_t room_seen; /* ...with head here (dfc_shm_ring_want_space) */
} shm_peer_t;

typedef struct shm {
    void *base;
    size_t seg_size;
    char name[64];
    int created; /* this process created the segment and has not unlinked it yet */
    int local_size, me;
    shm_bell_t *bell; /* mine */
    shm_peer_t *peers;
    int npeers;
    int *w2p; /* world rank -> index in peers, or -1 */
    int world_size;
    int world;      /* this process's world rank (the tiny wire form implies it) */
    int rr;         /* first peer polled by the next progress */
    int burst;      /* packets per peer per progress call */
    int cma;        /* rget allowed (DFC_SHM_CMA, cleared after EPERM/ENOSYS) */
    int ndead;      /* peers with dead set and failed not yet: progress reports one per call */
    unsigned calls; /* progress calls, to pace the liveness check */
    uint64_t live_every_ns, live_next_ns;
    int light;    /* registered for membarrier: stores need no full fence (see the top) */
    int barrier;  /* membarrier(GLOBAL_EXPEDITED) exists: a sleeper runs it first */
    int slots_on; /* DFC_SHM_SLOTS */
    dfc_shm_slots_t slots;
    int *slot_lrank;    /* world rank -> local rank, for slots */
    size_t coop_min;    /* DFC_SHM_COOP_MIN: shared pulls from this size; 0: never */
    uint32_t help_seen; /* my bell's help when I last served the requests */
} shm_t;

/* Asymmetric fences (see the top): what this kernel offers, and this process's registration. */
static void fences_init(shm_t *s)
{
#ifdef SYS_membarrier
    long q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    s->barrier = q > 0 && (q & MEMBARRIER_CMD_GLOBAL_EXPEDITED);
    s->light = s->barrier && (q & MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) &&
               syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) == 0;
#else
    s->barrier = s->light = 0;
#endif
}

/* The store-then-load fence of a sender or consumer (see the top). */
static inline void fence_light_side(const shm_t *s)
{
    if (s->light) atomic_signal_fence(memory_order_seq_cst);
    else atomic_thread_fence(memory_order_seq_cst);
}

/* What local rank 0 publishes (dfc.shm.seg): the segment's name and cookie; cookie 0 means
 * it could not create one. */
typedef struct shm_seg_pub {
    uint64_t cookie;
    char name[64];
} shm_seg_pub_t;

static shm_bell_t *seg_bell(const shm_t *s, int lrank)
{
    return (shm_bell_t *)((char *)s->base + sizeof(shm_seg_hdr_t)) + lrank;
}

static dfc_shm_coop_t *seg_coop(const shm_t *s, int reader, int sender)
{
    const shm_seg_hdr_t *h = s->base;
    return (dfc_shm_coop_t *)((char *)s->base + h->coop_off) +
           ((size_t)reader * s->local_size + sender);
}

static dfc_shm_ring_t *seg_ring(const shm_t *s, int from, int to)
{
    const shm_seg_hdr_t *h = s->base;
    return (dfc_shm_ring_t *)((char *)s->base + h->rings_off +
                              ((size_t)from * s->local_size + to) * h->ring_stride);
}

static long futex(_Atomic uint32_t *addr, int op, uint32_t val, const struct timespec *ts)
{
    /* Not FUTEX_PRIVATE_FLAG: the word is shared between processes. */
    return syscall(SYS_futex, (uint32_t *)addr, op, val, ts, NULL, 0);
}

/* Reads state and start time (field 22) of /proc/<pid>/stat. Returns 0 on success. */
static int proc_stat(pid_t pid, char *state, uint64_t *starttime)
{
    char path[64], buf[1024];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = '\0';
    char *p = strrchr(buf, ')'); /* the command name may contain spaces and parentheses */
    if (!p || p[1] != ' ') return -1;
    p += 2;
    *state = *p;
    for (int field = 3; field < 22; field++) {
        p = strchr(p, ' ');
        if (!p) return -1;
        p++;
    }
    *starttime = strtoull(p, NULL, 10);
    return 0;
}

/* ---- init ------------------------------------------------------------------------------- */

/* The parameters of shm, read in this one place: by shm_init, and through
 * dfc_tl_shm_register_params by dfc_info, since a singleton never starts shm. */
typedef struct shm_params {
    long ring_bytes, max_payload, burst, cma, cma_max, coop_min, eager_limit, live_ms, slots;
} shm_params_t;

static void read_params(shm_params_t *p)
{
    p->ring_bytes =
        dfc_env_long("DFC_SHM_RING_BYTES", 0,
                     "shm: bytes per ring (one per ordered pair of local ranks; rounded "
                     "up to a power of two); 0: 256 KiB, scaled down above 16 local ranks");
    p->max_payload = dfc_env_long("DFC_SHM_MAX_PAYLOAD", 32768,
                                  "shm: largest packet payload in bytes (at most 1/8 of the ring "
                                  "unless set, and always below half of it)");
    p->burst = dfc_env_long("DFC_SHM_BURST", 16,
                            "shm: packets taken from one peer per progress call (fairness)");
    p->cma = dfc_env_long("DFC_SHM_CMA", 1,
                          "shm: 1 lets receivers pull large messages with process_vm_readv "
                          "(cross-memory attach), 0 sends them as packets");
    p->cma_max = dfc_env_long(
        "DFC_SHM_CMA_MAX", 0,
        "shm: largest message a receiver pulls with cross-memory attach; larger ones come as "
        "packets through the ring (0, the default: no limit)");
    p->coop_min = dfc_env_long(
        "DFC_SHM_COOP_MIN", DFC_SHM_COOP_MIN_DEFAULT,
        "shm: messages a receiver pulls by cross-memory attach from this many bytes are copied "
        "by both ends at once, the sender pushing pieces from the back (0: the receiver alone)");
    p->eager_limit = dfc_env_long(
        "DFC_SHM_EAGER_LIMIT", 4096,
        "shm: largest message sent eagerly to a local peer while receivers pull larger ones "
        "with cross-memory attach (DFC_SHM_CMA); 0, or without it: DFC_EAGER_LIMIT");
    p->live_ms = dfc_env_long("DFC_SHM_LIVENESS_MS", 100,
                              "shm: how often (ms) to check that local peers are alive");
    p->slots = dfc_env_long("DFC_SHM_SLOTS", 1,
                            "shm: 1 runs small allreduces, bcasts, alltoalls and barriers through "
                            "per-rank slots in the shared segment on communicators whose ranks "
                            "are all on one node (must be the same on every rank); 0: messages");
}

void dfc_tl_shm_register_params(void)
{
    shm_params_t p;
    read_params(&p);
}

/* DFC_SHM_COOP_MIN (v), or 0 with more local ranks than processors: no core is idle to help
 * then, and a reader may wait for a piece whose writer lost its core (4 ranks on the 2-core
 * VM: up to 1.6x slower). */
static size_t coop_min_param(long v, int local_size)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    return v > 0 && (ncpu <= 0 || local_size <= ncpu) ? (size_t)v : 0;
}

/* Ring data bytes: DFC_SHM_RING_BYTES (v), or by default 256 KiB up to 16 local ranks and
 * less beyond (rings grow with the square of the local size), never below 64 KiB. */
static size_t ring_size_param(int local_size, long v)
{
    size_t want;
    if (v > 0) {
        want = (size_t)v;
    } else {
        want = 262144;
        while (want > 65536 && (size_t)local_size * local_size * want > ((size_t)64 << 20))
            want /= 2;
    }
    if (want < 4096) want = 4096;
    if (want > ((size_t)1 << 30)) want = (size_t)1 << 30;
    size_t size = 4096;
    while (size < want) size *= 2;
    return size;
}

/* Segment names: "/dfc-<pid>-<start time>-<64 random bits>" (SEG_FMT), the creator's. */
#define SEG_PREFIX "dfc-"
#define SEG_TRIES 16

/* Unlinks this user's segments whose creator is gone: killed between creating a segment
 * and unlinking it after the second fence. Others' segments cannot be unlinked (the sticky
 * /dev/shm), and a live creator's are in use. */
static void clean_stale(void)
{
    DIR *d = opendir("/dev/shm");
    struct dirent *e;
    if (!d) return;
    while ((e = readdir(d)) != NULL) {
        int pid, end = 0;
        unsigned long long start, rnd;
        struct stat st;
        char state, name[300];
        uint64_t now_start;
        if (strncmp(e->d_name, SEG_PREFIX, strlen(SEG_PREFIX)) != 0 ||
            sscanf(e->d_name, SEG_PREFIX "%d-%llu-%llx%n", &pid, &start, &rnd, &end) != 3 ||
            e->d_name[end] != '\0' || pid <= 0)
            continue;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid != geteuid())
            continue;
        if (proc_stat(pid, &state, &now_start) == 0 && now_start == start && state != 'Z')
            continue; /* its creator lives */
        snprintf(name, sizeof(name), "/%s", e->d_name);
        if (shm_unlink(name) == 0)
            DFC_LOG(DFC_LOG_INFO, "shm", "removed %s, left by a killed job", name);
    }
    closedir(d);
}

/* Creates a segment under a fresh random name (retried while the name exists: nobody can
 * predict it, but anyone may have created it). Returns the fd, or -1 with errno set. */
static int seg_open_new(shm_t *s)
{
    char state;
    uint64_t start = 0;
    proc_stat(getpid(), &state, &start);
    clean_stale();
    for (int i = 0; i < SEG_TRIES; i++) {
        uint64_t rnd;
        if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) return -1;
        snprintf(s->name, sizeof(s->name), "/" SEG_PREFIX "%d-%llu-%016llx", (int)getpid(),
                 (unsigned long long)start, (unsigned long long)rnd);
        int fd = shm_open(s->name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST) return fd;
        DFC_LOG(DFC_LOG_INFO, "shm", "segment name %s exists; trying another", s->name);
    }
    errno = EEXIST;
    return -1;
}

static int seg_create(shm_t *s, size_t ring_size)
{
    shm_seg_hdr_t hdr = {0};
    hdr.magic = SHM_MAGIC;
    hdr.local_size = (uint64_t)s->local_size;
    hdr.ring_size = ring_size;
    hdr.ring_stride = (dfc_shm_ring_footprint(ring_size) + 63) & ~(size_t)63;
    hdr.slots_off = (sizeof(shm_seg_hdr_t) + s->local_size * sizeof(shm_bell_t) + 63) & ~(size_t)63;
    hdr.coop_off = (hdr.slots_off + s->local_size * DFC_SLOT_SETS * sizeof(dfc_slot_rank_t) + 63) &
                   ~(size_t)63;
    hdr.rings_off = (hdr.coop_off + (size_t)s->local_size * s->local_size * sizeof(dfc_shm_coop_t) +
                     4095) &
                    ~(size_t)4095;
    while (hdr.cookie == 0)
        if (getrandom(&hdr.cookie, sizeof(hdr.cookie), 0) != sizeof(hdr.cookie))
            hdr.cookie = ((uint64_t)getpid() << 32) ^ dfc_time_ns();
    s->seg_size = hdr.rings_off + (size_t)s->local_size * s->local_size * hdr.ring_stride;

    int fd = seg_open_new(s);
    if (fd < 0)
        return DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "shm_open(%s, O_CREAT|O_EXCL): %s%s", s->name,
                       strerror(errno), errno == EEXIST ? " (every random name tried exists)" : "");
    s->created = 1;
    int rc = DFC_SUCCESS;
    if (ftruncate(fd, (off_t)s->seg_size) != 0) {
        rc = DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "ftruncate(%s, %zu): %s", s->name, s->seg_size,
                     strerror(errno));
        goto out_close;
    }
    /* Reserve the pages now: on a full /dev/shm a sparse segment would SIGBUS at first
     * touch, in the middle of a send. */
    int e = posix_fallocate(fd, 0, (off_t)s->seg_size);
    if (e != 0 && e != EOPNOTSUPP && e != EINVAL) {
        rc = DFC_ERR(DFC_ERR_NO_MEM,
                     "cannot reserve %zu bytes in /dev/shm for %d local ranks: %s (lower "
                     "DFC_SHM_RING_BYTES or enlarge /dev/shm)",
                     s->seg_size, s->local_size, strerror(e));
        goto out_close;
    }
    s->base = mmap(NULL, s->seg_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (s->base == MAP_FAILED) {
        s->base = NULL;
        rc = DFC_ERR(DFC_ERR_NO_MEM, "mmap(%s, %zu): %s", s->name, s->seg_size, strerror(errno));
        goto out_close;
    }
    memcpy(s->base, &hdr, sizeof(hdr));
    /* The segment is new (O_EXCL) and ftruncate filled it with zeroes. */
    for (int i = 0; i < s->local_size; i++)
        for (int j = 0; j < s->local_size; j++)
            if (i != j) dfc_shm_ring_init(seg_ring(s, i, j), ring_size, 1);
out_close:
    close(fd);
    return rc;
}

static int seg_attach(shm_t *s, uint64_t cookie)
{
    int fd = shm_open(s->name, O_RDWR | O_CLOEXEC, 0);
    if (fd < 0)
        return DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "shm_open(%s): %s", s->name, strerror(errno));
    int rc = DFC_SUCCESS;
    struct stat st;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(shm_seg_hdr_t)) {
        rc = DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT, "segment %s is truncated", s->name);
        goto out_close;
    }
    s->seg_size = (size_t)st.st_size;
    s->base = mmap(NULL, s->seg_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (s->base == MAP_FAILED) {
        s->base = NULL;
        rc = DFC_ERR(DFC_ERR_NO_MEM, "mmap(%s, %zu): %s", s->name, s->seg_size, strerror(errno));
        goto out_close;
    }
    const shm_seg_hdr_t *h = s->base;
    if (h->magic != SHM_MAGIC || h->cookie != cookie || h->local_size != (uint64_t)s->local_size ||
        h->rings_off + (size_t)s->local_size * s->local_size * h->ring_stride != s->seg_size)
        rc = DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT,
                     "segment %s is not the one local rank 0 created for this job", s->name);
out_close:
    close(fd);
    return rc;
}

/* Maps the segment local rank 0 created and published (name and cookie, dfc.shm.seg). */
static int seg_join(shm_t *s, const dfc_tl_job_t *job)
{
    void *val = NULL;
    size_t len = 0;
    uint64_t cookie = 0;
    shm_seg_pub_t pub;
    int rc = dfc_boot_get(job->local_ranks[0], "dfc.shm.seg", &val, &len);
    if (rc == DFC_SUCCESS && len == sizeof(pub)) {
        memcpy(&pub, val, sizeof(pub));
        /* Only a name of ours: the value comes from local rank 0, but is checked anyway. */
        if (memchr(pub.name, '\0', sizeof(pub.name)) &&
            !strncmp(pub.name, "/" SEG_PREFIX, strlen(SEG_PREFIX) + 1) &&
            !strchr(pub.name + 1, '/')) {
            cookie = pub.cookie;
            snprintf(s->name, sizeof(s->name), "%s", pub.name);
        }
    }
    free(val);
    if (rc == DFC_SUCCESS && cookie == 0)
        rc = DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT,
                     "local rank 0 (world rank %d) could not create the shared segment",
                     job->local_ranks[0]);
    return rc == DFC_SUCCESS ? seg_attach(s, cookie) : rc;
}

static int setup_peers(shm_t *s, const dfc_tl_job_t *job)
{
    s->peers = dfc_calloc(job->npeers, sizeof(*s->peers));
    s->w2p = dfc_malloc((size_t)job->size * sizeof(int));
    if (!s->peers || !s->w2p)
        return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for %d peers", job->npeers);
    s->world_size = job->size;
    s->world = job->rank;
    for (int w = 0; w < job->size; w++) s->w2p[w] = -1;
    for (int i = 0; i < job->npeers; i++) {
        shm_peer_t *p = &s->peers[i];
        p->world = job->peers[i];
        p->lrank = -1;
        for (int l = 0; l < job->local_size; l++)
            if (job->local_ranks[l] == p->world) p->lrank = l;
        if (p->lrank < 0 || p->lrank == s->me || p->world < 0 || p->world >= job->size)
            return DFC_ERR(DFC_ERR_INTERN, "world rank %d is not another rank on this node",
                           p->world);
        p->out = seg_ring(s, s->me, p->lrank);
        p->in = seg_ring(s, p->lrank, s->me);
        p->bell = seg_bell(s, p->lrank);
        p->pid = p->bell->pid;
        p->starttime = p->bell->starttime;
        char state;
        uint64_t st;
        /* Different pid namespaces (a container per rank) show another process or none
         * under this pid: then neither liveness checks nor CMA can be trusted. */
        p->watch = p->pid > 0 && proc_stat(p->pid, &state, &st) == 0 && st == p->starttime;
        s->w2p[p->world] = i;
        s->npeers++;
    }
    return DFC_SUCCESS;
}

static void shm_fini(dfc_tl_t *tl);

static int setup_slots(shm_t *s, const dfc_tl_job_t *job)
{
    const shm_seg_hdr_t *h = s->base;
    s->slot_lrank = dfc_malloc((size_t)job->size * sizeof(int));
    uint64_t *need = dfc_calloc((size_t)DFC_SLOT_SETS * s->local_size, sizeof(uint64_t));
    if (!s->slot_lrank || !need) {
        dfc_free(need);
        return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for the collective slots");
    }
    for (int w = 0; w < job->size; w++) s->slot_lrank[w] = -1;
    s->slot_lrank[job->rank] = s->me;
    for (int i = 0; i < s->npeers; i++) s->slot_lrank[s->peers[i].world] = s->peers[i].lrank;
    s->slots = (dfc_shm_slots_t){.ranks = (dfc_slot_rank_t *)((char *)s->base + h->slots_off),
                                 .me = s->me,
                                 .nlocal = s->local_size,
                                 .lrank_of_world = s->slot_lrank,
                                 .need = need};
    return DFC_SUCCESS;
}

static inline dfc_slot_rank_t *slot_of(dfc_shm_slots_t *S, int lrank, unsigned set)
{
    return &S->ranks[(size_t)lrank * DFC_SLOT_SETS + set];
}

/* Opening sets this rank's `done` in the set to base: every stamp and `done` that the set
 * held before is <= base (shm_slots.h), so done never goes down. */
int dfc_tl_shm_slot_open(dfc_tl_t *tl, unsigned set, const int *members, int n, int me,
                         uint64_t base, dfc_tl_slot_comm_t **out)
{
    shm_t *s = tl ? tl->priv : NULL;
    *out = NULL;
    if (!s || !s->slots_on || !s->slots.ranks || set >= DFC_SLOT_SETS || n < 2) return DFC_SUCCESS;
    dfc_shm_slots_t *S = &s->slots;
    for (int r = 0; r < n; r++)
        if (members[r] < 0 || members[r] >= s->world_size || S->lrank_of_world[members[r]] < 0)
            return DFC_SUCCESS;
    dfc_tl_slot_comm_t *sc = dfc_calloc(1, sizeof *sc);
    void *mem = dfc_calloc((size_t)n, sizeof(void *) + sizeof(uint64_t) + sizeof(int));
    if (!sc || !mem) {
        dfc_free(sc);
        dfc_free(mem);
        return DFC_ERR(DFC_ERR_NO_MEM, "out of memory for a communicator's collective slots");
    }
    sc->slot = mem;
    sc->done_cache = (uint64_t *)(sc->slot + n);
    sc->lrank = (int *)(sc->done_cache + n);
    for (int r = 0; r < n; r++) {
        sc->lrank[r] = S->lrank_of_world[members[r]];
        sc->slot[r] = slot_of(S, sc->lrank[r], set);
        sc->done_cache[r] = base;
    }
    sc->n = n;
    sc->me = me;
    sc->set = set;
    sc->base = sc->seq = base;
    sc->need = S->need + (size_t)set * S->nlocal;
    for (int l = 0; l < S->nlocal; l++) sc->draining |= sc->need[l] != 0;
    atomic_store_explicit(&sc->slot[me]->ctrl.done, base, memory_order_release);
    DFC_LOG(DFC_LOG_INFO, "shm", "collective slots: set %u, %d members, stamps above %llu%s", set,
            n, (unsigned long long)base, sc->draining ? ", draining" : "");
    *out = sc;
    return DFC_SUCCESS;
}

/* Every other member may still read what this rank wrote in the set (a nonblocking
 * collective pending on a freed communicator): the set's next user waits for their `done`
 * to reach this communicator's last stamp first. After the transport's fini (tl->priv
 * NULL: a communicator destroyed late) it only frees. */
void dfc_tl_shm_slot_close(dfc_tl_t *tl, dfc_tl_slot_comm_t *sc)
{
    if (!sc) return;
    shm_t *s = tl->priv;
    if (s && sc->seq > sc->base)
        for (int r = 0; r < sc->n; r++)
            if (r != sc->me && sc->need[sc->lrank[r]] < sc->seq) sc->need[sc->lrank[r]] = sc->seq;
    if (s && sc->seq > s->slots.clock) s->slots.clock = sc->seq;
    dfc_free(sc->slot);
    dfc_free(sc);
}

uint64_t dfc_tl_shm_slot_clock(dfc_tl_t *tl)
{
    shm_t *s = tl ? tl->priv : NULL;
    return s ? s->slots.clock : 0;
}

int dfc_tl_shm_slot_waiting_for(const dfc_tl_slot_comm_t *sc, uint64_t stamp, int written,
                                int rooted, int root)
{
    for (int r = 0; sc && r < sc->n; r++) {
        if (r == sc->me || (written && rooted && r != root)) continue;
        if (written && atomic_load_explicit(&sc->slot[r]->buf[stamp % DFC_SLOT_NBUF].stamp,
                                            memory_order_acquire) != stamp)
            return r;
        if (!written && stamp > sc->base + DFC_SLOT_NBUF &&
            atomic_load_explicit(&sc->slot[r]->ctrl.done, memory_order_acquire) + DFC_SLOT_NBUF -
                    DFC_SLOT_SLACK <
                stamp)
            return r;
    }
    return -1;
}

/* The drain record of the set (shm_slots.h): 1 once every earlier reader has finished. */
static int slot_drained(dfc_shm_slots_t *S, dfc_tl_slot_comm_t *sc)
{
    for (int l = 0; l < S->nlocal; l++)
        if (sc->need[l] && atomic_load_explicit(&slot_of(S, l, sc->set)->ctrl.done,
                                                memory_order_acquire) < sc->need[l])
            return 0;
    for (int l = 0; l < S->nlocal; l++) sc->need[l] = 0;
    sc->draining = 0;
    return 1;
}

/* The slot exchange's WRITE (protocol in shm_slots.h): buffer b is free when every member,
 * this rank included (it reads its own contribution from there too), has finished the
 * exchange k - NBUF. */
static int slot_write(dfc_shm_slots_t *S, dfc_tl_slot_xchg_t *x)
{
    dfc_tl_slot_comm_t *sc = x->sc;
    uint64_t k = x->stamp;
    dfc_slot_rank_t *mine = sc->slot[sc->me];
    if (x->rooted && x->root != x->me) { /* a rooted exchange: only the root writes */
        x->phase = DFC_TL_SLOT_READ;
        return DFC_SUCCESS;
    }
    if (k > sc->base + DFC_SLOT_NBUF) {
        if (atomic_load_explicit(&mine->ctrl.done, memory_order_relaxed) + DFC_SLOT_NBUF < k)
            return DFC_TL_AGAIN;
        for (int r = 0; r < sc->n; r++) {
            if (r == sc->me || sc->done_cache[r] + DFC_SLOT_NBUF >= k) continue;
            sc->done_cache[r] = atomic_load_explicit(&sc->slot[r]->ctrl.done, memory_order_acquire);
            if (sc->done_cache[r] + DFC_SLOT_NBUF - DFC_SLOT_SLACK < k) return DFC_TL_AGAIN;
        }
    } else if (DFC_UNLIKELY(sc->draining) && !slot_drained(S, sc)) {
        return DFC_TL_AGAIN;
    }
    dfc_slot_buf_t *sb = &mine->buf[k % DFC_SLOT_NBUF];
    if (x->skip_len) { /* the bytes before the skipped part, then those after it */
        uint64_t after = x->skip_off + x->skip_len;
        memcpy(sb->data, x->src, x->skip_off);
        memcpy(sb->data + after, (const char *)x->src + after, x->bytes - after);
    } else if (x->bytes) {
        memcpy(sb->data, x->src, x->bytes);
    }
    atomic_store_explicit(&sb->stamp, k, memory_order_release);
    x->phase = DFC_TL_SLOT_READ;
    return DFC_SUCCESS;
}

/* A reader of a rooted exchange asks for the root's next two buffers (the lines the same
 * size would fill) as it finishes one: a root that runs ahead has written them already, and
 * the next exchange then finds them here instead of waiting for a miss per line (issue 16:
 * 2-rank 8-byte bcast). A buffer not yet written is only fetched once more when it is. */
static inline void slot_read_ahead(const dfc_slot_rank_t *root, uint64_t k, uint64_t bytes)
{
    size_t end = offsetof(dfc_slot_buf_t, data) + (bytes < 256 ? bytes : 256);
    const char *b1 = (const char *)&root->buf[(k + 1) % DFC_SLOT_NBUF];
    const char *b2 = (const char *)&root->buf[(k + 2) % DFC_SLOT_NBUF];
    for (size_t off = 0; off < end; off += 64) {
        __builtin_prefetch(b1 + off);
        __builtin_prefetch(b2 + off);
    }
}

/* A reader about to copy a piece of a long bcast or allgather out of the other members'
 * slots, when the next exchange is the next piece (x->more), asks first for the buffers of
 * it that their writers have already published, so that their lines travel while this copy
 * runs: the copy alone waits for one line transfer from the writer's core after another, a
 * few at a time (issue 16: about 1 us per 4 KiB piece on 16 cores; this took a 4-rank bcast
 * from 16 KiB to 4 MiB to 0.85-0.91x its time, BENCHMARKS.md stop 43, call H). Unpublished
 * buffers are left alone: a read would only have to be invalidated by their writer. Not after
 * the last piece: what comes next may read other bytes, or none (a two-exchange allreduce). */
static void slot_prefetch_next(const dfc_tl_slot_comm_t *sc, const dfc_tl_slot_xchg_t *x,
                               uint64_t k)
{
    unsigned nb = (unsigned)((k + 1) % DFC_SLOT_NBUF);
    for (int r = 0; r < sc->n; r++) {
        if (r == sc->me || (x->rooted && r != x->root)) continue;
        const dfc_slot_buf_t *b = &sc->slot[r]->buf[nb];
        if (atomic_load_explicit(&b->stamp, memory_order_relaxed) != k + 1) continue;
        for (size_t off = 0; off < x->bytes; off += 64) __builtin_prefetch(b->data + off);
    }
}

/* The slot exchange's READ: in order (the exchanges before this one have finished reading
 * here), every other member's contribution carries stamp k. */
static int slot_read(dfc_shm_slots_t *S, dfc_tl_slot_xchg_t *x)
{
    dfc_tl_slot_comm_t *sc = x->sc;
    uint64_t k = x->stamp;
    unsigned b = (unsigned)(k % DFC_SLOT_NBUF);
    dfc_slot_rank_t *mine = sc->slot[sc->me];
    if (atomic_load_explicit(&mine->ctrl.done, memory_order_relaxed) != k - 1) return DFC_TL_AGAIN;
    const void *in[sc->n];
    if (x->rooted) { /* the root's buffer alone (dfc_tl.h: only in[root] is set) */
        dfc_slot_buf_t *sb = &sc->slot[x->root]->buf[b];
        if (x->root != sc->me && atomic_load_explicit(&sb->stamp, memory_order_acquire) != k)
            return DFC_TL_AGAIN;
        in[x->root] = sb->data;
    } else {
        for (int r = 0; r < sc->n; r++) {
            dfc_slot_buf_t *sb = &sc->slot[r]->buf[b];
            if (r != sc->me && atomic_load_explicit(&sb->stamp, memory_order_acquire) != k)
                return DFC_TL_AGAIN;
            in[r] = sb->data;
        }
    }
    if (x->more) slot_prefetch_next(sc, x, k);
    x->reduce(x->ctx, in, sc->n);
    atomic_store_explicit(&mine->ctrl.done, k, memory_order_release);
    if (x->rooted && x->root != sc->me) slot_read_ahead(sc->slot[x->root], k, x->bytes);
    S->inflight--;
    x->phase = DFC_TL_SLOT_DONE;
    return DFC_SUCCESS;
}

/* dfc_tl_ops_t.slot_xchg. An exchange counts in `inflight` from BEGIN to DONE, so that
 * shm_wait yields instead of sleeping meanwhile (stamps ring no doorbell). */
static int shm_slot_xchg(dfc_tl_t *tl, dfc_tl_slot_xchg_t *x)
{
    shm_t *s = tl->priv;
    dfc_shm_slots_t *S = &s->slots;
    int rc;
    switch (x->phase) {
    case DFC_TL_SLOT_BEGIN:
    case DFC_TL_SLOT_RUN:
        if (!s->slots_on || !S->ranks || !x->sc)
            return DFC_ERR(DFC_ERR_INTERN, "the shm collective slots are off");
        x->stamp = ++x->sc->seq;
        S->inflight++;
        int begin_only = x->phase == DFC_TL_SLOT_BEGIN;
        x->phase = DFC_TL_SLOT_WRITE;
        if (begin_only) return DFC_SUCCESS;
        /* fall through */
    case DFC_TL_SLOT_WRITE:
        if ((rc = slot_write(S, x))) return rc;
        return slot_read(S, x);
    case DFC_TL_SLOT_READ: return slot_read(S, x);
    case DFC_TL_SLOT_CANCEL:
        S->inflight--;
        x->phase = DFC_TL_SLOT_DONE;
        return DFC_SUCCESS;
    default: return DFC_ERR(DFC_ERR_INTERN, "slot exchange in phase %d", x->phase);
    }
}


static int shm_init(dfc_tl_t *tl, const dfc_tl_job_t *job)
{
    shm_t *s = dfc_calloc(1, sizeof(*s));
    if (!s) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
    tl->priv = s;
    tl->max_payload = 0;
    s->local_size = job->local_size;
    s->me = job->local_rank;

    shm_params_t prm;
    read_params(&prm);
    size_t ring_size = ring_size_param(job->local_size, prm.ring_bytes);
    long maxp = prm.max_payload;
    if (maxp <= 0) maxp = 32768;
    if (!getenv("DFC_SHM_MAX_PAYLOAD") && (size_t)maxp > ring_size / 8)
        maxp = (long)(ring_size / 8);
    size_t cap = dfc_shm_ring_max_len(ring_size) - sizeof(dfc_pkt_t);
    tl->max_payload = DFC_MIN2((size_t)maxp, cap);
    s->burst = (int)prm.burst;
    if (s->burst < 1) s->burst = 1;
    s->cma = prm.cma != 0;
    /* Above a few KiB one copy by the receiver (process_vm_readv) beats two through the ring:
     * a 2-rank ping-pong of 8 and 16 KiB took 1.96 and 3.42 us eagerly, 1.34 and 1.69 us as
     * rendezvous on the 2-core VM (Open MPI 1.75 and 2.06; its sm transport switches at 4 KiB
     * too). Without cross-memory attach, rendezvous sends the data as packets: no gain. */
    tl->eager_limit = s->cma && prm.eager_limit > 0 ? (size_t)prm.eager_limit : 0;
    /* a pull of megabytes loses to packets only one way, out of cache (dfc_env(7)) */
    tl->rget_max = prm.cma_max > 0 ? (size_t)prm.cma_max : 0;
    s->coop_min = coop_min_param(prm.coop_min, job->local_size);
    s->slots_on = prm.slots != 0;
    fences_init(s);
    long live_ms = prm.live_ms;
    s->live_every_ns = (uint64_t)(live_ms > 0 ? live_ms : 100) * 1000000u;

    /* npeers is the same on every rank of a node (all its local ranks, or none when
     * DFC_TRANSPORT=tcp), so this decision is too. The fences are unconditional. */
    int use = job->npeers > 0 && job->local_size > 1;
    int rc = DFC_SUCCESS, frc;

    if (use && s->me == 0) {
        rc = seg_create(s, ring_size);
        shm_seg_pub_t pub = {0};
        pub.cookie = rc == DFC_SUCCESS ? ((shm_seg_hdr_t *)s->base)->cookie : 0;
        snprintf(pub.name, sizeof(pub.name), "%s", s->name);
        frc = dfc_boot_put("dfc.shm.seg", &pub, sizeof(pub));
        if (rc == DFC_SUCCESS) rc = frc;
    }
    frc = dfc_boot_fence(); /* fence 1: the segment exists */
    if (rc == DFC_SUCCESS) rc = frc;

    if (use && s->me != 0 && rc == DFC_SUCCESS) rc = seg_join(s, job);
    if (use && rc == DFC_SUCCESS) {
        shm_bell_t *b = seg_bell(s, s->me);
        char state;
        uint64_t st = 0;
        proc_stat(getpid(), &state, &st);
        b->pid = (int32_t)getpid();
        b->starttime = st;
        s->bell = b;
        /* Yama (ptrace_scope 1) forbids process_vm_readv between siblings unless the
         * target allows it; Open MPI does the same. */
        if (s->cma) prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    }
    frc = dfc_boot_fence(); /* fence 2: everyone has mapped it */
    if (rc == DFC_SUCCESS) rc = frc;
    if (s->created) {
        shm_unlink(s->name);
        s->created = 0;
    }
    if (use && rc == DFC_SUCCESS) rc = setup_peers(s, job);
    if (use && rc == DFC_SUCCESS) rc = setup_slots(s, job);
    if (rc != DFC_SUCCESS) {
        shm_fini(tl);
        return rc;
    }
    s->live_next_ns = dfc_time_ns() + s->live_every_ns;
    if (use)
        DFC_LOG(DFC_LOG_INFO, "shm",
                "segment %s: %d local ranks, %zu-byte rings, max payload %zu, cma %s", s->name,
                s->local_size, ring_size, tl->max_payload, s->cma ? "on" : "off");
    return DFC_SUCCESS;
}

/* ---- data path ------------------------------------------------------------------------- */

static int peer_failed_err(const char *func, const shm_peer_t *p)
{
    return dfc_err(DFC_ERR_PROC_FAILED, func, "local peer world rank %d (pid %d) is gone", p->world,
                   (int)p->pid);
}

static inline shm_peer_t *peer_of(shm_t *s, int world)
{
    if (DFC_UNLIKELY(world < 0 || world >= s->world_size || s->w2p[world] < 0)) return NULL;
    return &s->peers[s->w2p[world]];
}

/* Rings a doorbell: bumps its word and wakes whoever sleeps on it. */
static void bell_ring(shm_bell_t *b)
{
    atomic_fetch_add_explicit(&b->seq, 1, memory_order_seq_cst);
    futex(&b->seq, FUTEX_WAKE, INT_MAX, NULL);
}

static int shm_send(dfc_tl_t *tl, int peer, const dfc_pkt_t *pkt, const void *payload)
{
    shm_t *s = tl->priv;
    shm_peer_t *p = peer_of(s, peer);
    if (DFC_UNLIKELY(!p)) return DFC_ERR(DFC_ERR_INTERN, "world rank %d is not an shm peer", peer);
    if (DFC_UNLIKELY(p->failed)) return peer_failed_err(__func__, p);
    if (DFC_UNLIKELY(pkt->payload_len > tl->max_payload))
        return DFC_ERR(DFC_ERR_INTERN, "payload of %u bytes exceeds the maximum %zu",
                       pkt->payload_len, tl->max_payload);

    size_t len = dfc_shm_wire_len(pkt, (uint32_t)s->world);
    char *rec = dfc_shm_ring_reserve(p->out, len);
    if (!rec) { /* shm_wait sleeps until the consumer frees space (shm_ring.h) */
        p->blocked = 1;
        p->room_seen = dfc_shm_ring_want_space(p->out);
        return DFC_TL_AGAIN;
    }
    p->blocked = 0;
    dfc_shm_wire_put(rec, len, pkt, payload);
    dfc_shm_ring_commit(p->out);

    /* Pairs with the fence (or the system-wide barrier) in shm_wait (see the top). */
    fence_light_side(s);
    if (atomic_load_explicit(&p->bell->waiters, memory_order_relaxed)) bell_ring(p->bell);
    return DFC_SUCCESS;
}

/* 1 when p's process is gone or a zombie (its /proc entry, start time and state). */
static int process_gone(const shm_peer_t *p)
{
    char state;
    uint64_t st;
    return proc_stat(p->pid, &state, &st) != 0 || st != p->starttime || state == 'Z' ||
           state == 'X';
}

/* Marks peers whose process is gone (or is a zombie). Returns how many were found now. */
static int check_liveness(shm_t *s)
{
    int found = 0;
    for (int i = 0; i < s->npeers; i++) {
        shm_peer_t *p = &s->peers[i];
        if (!p->watch || p->dead || p->failed) continue; /* a failed peer stays reported */
        if (process_gone(p)) {
            p->dead = 1;
            s->ndead++;
            found++;
            DFC_LOG(DFC_LOG_INFO, "shm", "local peer world rank %d (pid %d) exited", p->world,
                    (int)p->pid);
        }
    }
    return found;
}

static int liveness_due(shm_t *s)
{
    uint64_t now = dfc_time_ns();
    if (now < s->live_next_ns) return 0;
    s->live_next_ns = now + s->live_every_ns;
    return 1;
}

/* Only memory corruption (or a peer gone wild) makes a ring or packet malformed: the peer
 * cannot be trusted any more. It is reported like a dead one, one failure per progress call,
 * so that two in one pass each name their own rank (dfc_tl.h). */
static void mark_corrupt(shm_t *s, shm_peer_t *p, const char *what)
{
    snprintf(p->corrupt, sizeof p->corrupt, "%s from local peer world rank %d", what, p->world);
    if (!p->dead) {
        p->dead = 1;
        s->ndead++;
    }
}

/* How much of a record drain_peer prefetches: beyond it, the copy's own stream does. */
#define DFC_SHM_PREFETCH_BYTES 1024

/* Rings the peer's doorbell if it asked to be told when its ring to us has room. */
static void space_freed(const shm_t *s, shm_peer_t *p)
{
    if (dfc_shm_ring_take_space_wanted(p->in, s->light) &&
        atomic_load_explicit(&p->bell->waiters, memory_order_seq_cst))
        bell_ring(p->bell);
}

/* Delivers up to `burst` packets from one peer; returns how many. */
static int drain_peer(shm_t *s, shm_peer_t *p, dfc_tl_deliver_fn deliver)
{
    int n = 0;
    for (int b = 0; b < s->burst; b++) {
        size_t len;
        const char *rec = dfc_shm_ring_peek(p->in, &len);
        if (!rec) {
            if (DFC_UNLIKELY(len == DFC_SHM_RING_CORRUPT))
                mark_corrupt(s, p, "malformed record header in the ring");
            break;
        }
        /* Ask for the rest of the record's lines at once, so that they travel while the
         * header is checked and matched, not one miss after the other during the copy out
         * (issue 16: a 128-byte message took 0.08 us more than a 64-byte one). */
        for (size_t off = DFC_SHM_RING_LINE;
             off < len + sizeof(dfc_shm_rec_t) && off <= DFC_SHM_PREFETCH_BYTES;
             off += DFC_SHM_RING_LINE)
            __builtin_prefetch(rec + off);
        dfc_pkt_t scratch;
        const void *payload;
        const dfc_pkt_t *pkt = dfc_shm_wire_get(rec, len, &scratch, &payload, (uint32_t)p->world);
        if (DFC_UNLIKELY(!pkt)) {
            char what[64];
            snprintf(what, sizeof what, "malformed packet (type %u, %zu bytes)",
                     len ? (unsigned char)rec[0] : 0u, len);
            mark_corrupt(s, p, what);
            break;
        }
        deliver(pkt, payload);
        dfc_shm_ring_release(p->in);
        /* Freed space: the peer may sleep until it can send again (shm_ring.h). Told after
         * the first record already, so that its wake-up overlaps the rest of the burst. */
        if (++n == 1) space_freed(s, p);
    }
    if (n > 1) space_freed(s, p);
    return n;
}

/* Reports one peer to be reported: a corrupt ring at once, a dead process once everything
 * it sent before dying was delivered. Returns the error code or DFC_SUCCESS. */
static int report_one(dfc_tl_t *tl, shm_t *s)
{
    for (int i = 0; i < s->npeers; i++) {
        shm_peer_t *p = &s->peers[i];
        if (!p->dead || p->failed || (!p->corrupt[0] && dfc_shm_ring_pending(p->in))) continue;
        __atomic_store_n(&p->failed, 1, __ATOMIC_RELAXED); /* shm_rget reads it unlocked */
        s->ndead--;
        tl->failed_peer = p->world;
        if (p->corrupt[0]) return dfc_err(DFC_ERR_PROC_FAILED, "shm_progress", "%s", p->corrupt);
        return peer_failed_err("shm_progress", p);
    }
    return DFC_SUCCESS;
}

/* Pushes the pieces that readers asked this process to copy (shm_coop.h). The bell's count
 * is read before the descriptors, so a request that comes during the pass is served by the
 * next. */
static void serve_help(shm_t *s)
{
    uint32_t seen = atomic_load_explicit(&s->bell->help, memory_order_acquire);
    for (int i = 0; i < s->npeers; i++) {
        shm_peer_t *p = &s->peers[i];
        if (!p->failed) dfc_shm_coop_help(seg_coop(s, p->lrank, s->me), p->pid);
    }
    s->help_seen = seen;
}

static int shm_progress(dfc_tl_t *tl, dfc_tl_deliver_fn deliver)
{
    shm_t *s = tl->priv;
    int n = 0, rc = DFC_SUCCESS;
    if (!s || s->npeers == 0) return 0;
    /* Round robin from rr, without a division per peer (this runs on every empty poll). An
     * empty ring costs its two loads and nothing else (issue 16: with 15 peers the checks
     * and calls around them made an empty poll 617 instructions, 41 per peer); a failed
     * peer's ring is empty or not looked at, a corrupt one is caught by the flags after. */
    shm_peer_t *peers = s->peers;
    int np = s->npeers;
    for (int k = 0, i = s->rr; k < np; k++, i = i + 1 < np ? i + 1 : 0) {
        shm_peer_t *p = &peers[i];
        if (DFC_LIKELY(!dfc_shm_ring_pending(p->in)) || p->failed || p->corrupt[0]) continue;
        n += drain_peer(s, p, deliver);
    }
    s->rr = s->rr + 1 < np ? s->rr + 1 : 0;
    if (DFC_UNLIKELY(atomic_load_explicit(&s->bell->help, memory_order_relaxed) != s->help_seen))
        serve_help(s);

    /* Liveness is checked by time, but reading the clock on every empty poll was a third
     * of a waiting rank's cycles: look at the clock on one call in 64 only. */
    if ((++s->calls & 63) == 0 && liveness_due(s)) check_liveness(s);
    if (DFC_UNLIKELY(s->ndead)) rc = report_one(tl, s);
    return rc != DFC_SUCCESS ? -rc : n; /* dfc_tl.h: a failure is returned negated */
}

static void wait_release(dfc_tl_t *tl)
{
    if (tl->wait_release) tl->wait_release();
}

/* What a sleeping thread watches, copied under the caller's lock (the transport's state
 * changes under it; only ring positions and doorbells are read after it is dropped). */
typedef struct shm_watch {
    dfc_shm_ring_t *ring;
    uint64_t room_seen; /* an outgoing ring: wake when head moves from here */
} shm_watch_t;

/* Whether anything watched moved: data in, or room out. */
static int watch_ready(const shm_watch_t *w, int nin, int nout)
{
    for (int i = 0; i < nin; i++)
        if (dfc_shm_ring_pending(w[i].ring)) return 1;
    for (int i = nin; i < nin + nout; i++)
        if (dfc_shm_ring_room_freed(w[i].ring, w[i].room_seen)) return 1;
    return 0;
}

/* Sleeps on this process's doorbell (dfc(7), "Waiting"): peers ring it after publishing a
 * packet or freeing space this process waits for, threads of this process (shm_wake) after
 * changing *tl->wake_seq. Each announces itself before a full fence and then re-checks. */
static void shm_wait(dfc_tl_t *tl, long timeout_us)
{
    shm_t *s = tl->priv;
    struct timespec ts, *tsp = NULL;
    if (timeout_us == 0 || !s || s->npeers == 0) {
        wait_release(tl);
        if (timeout_us > 0) { /* nothing can arrive: just let the time pass */
            ts.tv_sec = timeout_us / 1000000;
            ts.tv_nsec = (timeout_us % 1000000) * 1000;
            nanosleep(&ts, NULL);
        }
        return;
    }
    /* A peer may have died while we were about to sleep on it: cap the sleep so the
     * liveness check keeps running. */
    if (timeout_us < 0 || timeout_us > (long)(s->live_every_ns / 1000))
        timeout_us = (long)(s->live_every_ns / 1000);
    ts.tv_sec = timeout_us / 1000000;
    ts.tv_nsec = (timeout_us % 1000000) * 1000;
    tsp = &ts;
    /* Snapshots under the lock. A slot collective in flight waits for stamps and counters
     * that ring no doorbell (writers pay no fence for them): yield instead of sleeping. A
     * peer to report: return, progress reports it. */
    int busy = s->slots.inflight || s->ndead;
    const _Atomic uint32_t *wseq = tl->wake_seq;
    uint32_t wseen = wseq ? atomic_load_explicit(wseq, memory_order_seq_cst) : 0;
    shm_watch_t w[s->npeers * 2];
    int nin = 0, nout = 0;
    for (int i = 0; !busy && i < s->npeers; i++)
        if (!s->peers[i].failed && !s->peers[i].corrupt[0]) w[nin++].ring = s->peers[i].in;
    for (int i = 0; !busy && i < s->npeers; i++) {
        const shm_peer_t *p = &s->peers[i];
        if (p->blocked && !p->failed) w[nin + nout++] = (shm_watch_t){p->out, p->room_seen};
    }
    shm_bell_t *b = s->bell;
    wait_release(tl);
    if (busy) {
        sched_yield();
        return;
    }
    atomic_fetch_add_explicit(&b->waiters, 1, memory_order_seq_cst);
    atomic_thread_fence(memory_order_seq_cst);
    /* The heavy side of the asymmetric fences (see the top): after this, a peer's record or
     * freed space published before its look at our count (or space_wanted) is visible. */
    if (s->barrier) syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0);
    uint32_t seq = atomic_load_explicit(&b->seq, memory_order_seq_cst);
    int woken = wseq && atomic_load_explicit(wseq, memory_order_seq_cst) != wseen;
    if (!woken && !watch_ready(w, nin, nout)) futex(&b->seq, FUTEX_WAIT, seq, tsp);
    atomic_fetch_sub_explicit(&b->waiters, 1, memory_order_relaxed);
}

/* A thread of this process changed *tl->wake_seq: wake this process's sleepers. */
static void shm_wake(dfc_tl_t *tl)
{
    shm_t *s = tl->priv;
    if (s && s->bell) bell_ring(s->bell);
}

/* One process_vm_readv loop: len bytes at remote_addr of p into local. */
static int cma_read(dfc_tl_t *tl, shm_peer_t *p, void *local, uint64_t remote_addr, size_t len)
{
    shm_t *s = tl->priv;
    char *dst = local;
    while (len > 0) {
        struct iovec l = {dst, len}, r = {(void *)(uintptr_t)remote_addr, len};
        ssize_t n = process_vm_readv(p->pid, &l, 1, &r, 1, 0);
        if (n > 0) {
            dst += n;
            remote_addr += (uint64_t)n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EPERM || errno == ENOSYS || errno == EACCES)) {
            int e = errno; /* and the reason holds for every later call: */
            __atomic_store_n(&s->cma, 0, __ATOMIC_RELAXED);
            __atomic_store_n(&tl->eager_limit, 0, __ATOMIC_RELAXED); /* DFC_EAGER_LIMIT's */
            DFC_LOG(DFC_LOG_INFO, "shm", "process_vm_readv: %s; falling back to packets",
                    strerror(e));
            return DFC_ERR(DFC_ERR_UNSUPPORTED_OPERATION, "process_vm_readv: %s", strerror(e));
        }
        if (n < 0 && errno == ESRCH) return peer_failed_err("shm_rget", p);
        return DFC_ERR(DFC_ERR_INTERNAL_TRANSPORT,
                       "process_vm_readv(%zu bytes at 0x%llx of world rank %d): %s", len,
                       (unsigned long long)remote_addr, p->world,
                       n < 0 ? strerror(errno) : "no progress");
    }
    return DFC_SUCCESS;
}

/* The shared pull's view of this transport (shm_coop.h, dfc_shm_coop_io_t). */
typedef struct coop_arg {
    dfc_tl_t *tl;
    shm_peer_t *p;
} coop_arg_t;

static int coop_pull(void *arg, void *local, uint64_t remote, size_t len)
{
    coop_arg_t *a = arg;
    return cma_read(a->tl, a->p, local, remote, len);
}

static void coop_notify(void *arg)
{
    shm_bell_t *b = ((coop_arg_t *)arg)->p->bell;
    atomic_fetch_add_explicit(&b->help, 1, memory_order_seq_cst);
    if (atomic_load_explicit(&b->waiters, memory_order_seq_cst)) bell_ring(b); /* asleep */
}

static int coop_alive(void *arg)
{
    shm_peer_t *p = ((coop_arg_t *)arg)->p;
    if (!__atomic_load_n(&p->failed, __ATOMIC_RELAXED) && !process_gone(p)) return DFC_SUCCESS;
    return peer_failed_err("shm_rget", p);
}

/* Runs without the comm layer's lock (rget_unlocked, dfc_tl.h): it reads the peer's pid and
 * watch (fixed at init) and the flags failed and cma atomically, and writes only cma (and
 * tl->eager_limit with it, atomically: the comm layer reads it under its lock) and the
 * shared-pull descriptor this process owns for the peer (one thread at a time: its busy
 * flag). A peer found gone is reported by the return value; progress reports it once its
 * liveness check finds it. */
static int shm_rget(dfc_tl_t *tl, int peer, void *local, uint64_t remote_addr, size_t len,
                    unsigned flags)
{
    shm_t *s = tl->priv;
    shm_peer_t *p = peer_of(s, peer);
    if (!p) return DFC_ERR(DFC_ERR_INTERN, "world rank %d is not an shm peer", peer);
    if (__atomic_load_n(&p->failed, __ATOMIC_RELAXED)) return peer_failed_err(__func__, p);
    if (!__atomic_load_n(&s->cma, __ATOMIC_RELAXED) || !p->watch)
        return DFC_ERR(DFC_ERR_UNSUPPORTED_OPERATION, "cross-memory attach is off");
    if (!s->coop_min || len < s->coop_min) return cma_read(tl, p, local, remote_addr, len);
    /* A sender busy with a large pull of its own (both ends of an exchange) would help only
     * at its end, and the pieces it wrote would sit in its core's cache, not the reader's:
     * on the 2-core VM that made 2-rank allreduce and allgather of 256 KiB - 4 MiB 5-10 %
     * slower. So it is asked only while it pulls nothing large, and never for a pull whose
     * caller reads the data next (DFC_TL_RGET_ALONE: a reduction). */
    atomic_fetch_add_explicit(&s->bell->pulling, 1, memory_order_relaxed);
    int rc = DFC_TL_AGAIN;
    if (!(flags & DFC_TL_RGET_ALONE) &&
        !atomic_load_explicit(&p->bell->pulling, memory_order_relaxed)) {
        coop_arg_t a = {tl, p};
        dfc_shm_coop_io_t io = {coop_pull, coop_notify, coop_alive, &a};
        size_t piece = dfc_shm_coop_piece(len, DFC_SHM_COOP_PIECE_MIN);
        rc = dfc_shm_coop_pull(seg_coop(s, s->me, p->lrank), local, remote_addr, len, piece, &io);
    }
    if (rc == DFC_TL_AGAIN) rc = cma_read(tl, p, local, remote_addr, len);
    atomic_fetch_sub_explicit(&s->bell->pulling, 1, memory_order_relaxed);
    return rc;
}

static void shm_fini(dfc_tl_t *tl)
{
    shm_t *s = tl->priv;
    if (!s) return;
    if (s->created) shm_unlink(s->name);
    if (s->base) munmap(s->base, s->seg_size);
    dfc_free(s->peers);
    dfc_free(s->w2p);
    dfc_free(s->slot_lrank);
    dfc_free(s->slots.need);
    dfc_free(s);
    tl->priv = NULL;
}

const dfc_tl_ops_t dfc_tl_shm_ops = {
    .name = "shm",
    .init = shm_init,
    .send = shm_send,
    .rget = shm_rget,
    .rget_unlocked = 1,
    .slot_xchg = shm_slot_xchg,
    .progress = shm_progress,
    .wait = shm_wait,
    .wake = shm_wake,
    .fini = shm_fini,
};
