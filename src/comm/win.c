/*
 * win.c - windows: creation and destruction, the shared segment of SHM windows, attributes,
 * info, and the window's own small collectives (dfc_win.h says how the engine is split).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "comm/dfc_win.h"

dfc_htable_t dfc_win_table;
dfc_list_t dfc_win_list;
int dfc_win_count;

#define WIN_TAG_BARRIER 0x40000001
#define WIN_TAG_ALLGATHER 0x40000002

int dfc_win_init(void)
{
    dfc_htable_init(&dfc_win_table, DFC_KIND_WIN, 1);
    dfc_list_init(&dfc_win_list);
    dfc_win_count = 0;
    return DFC_SUCCESS;
}

void dfc_win_finalize(void)
{
    dfc_list_init(&dfc_win_list);
    dfc_win_count = 0;
    dfc_win_progress_hook = NULL;
    dfc_win_report_hook = NULL;
    dfc_htable_destroy(&dfc_win_table);
}

int dfc_win_check(DFC_Win h, const char *func, const char *argname, dfc_win_t **out)
{
    dfc_win_t *w = dfc_win_get(h);
    if (!w) {
        if (h == DFC_WIN_NULL)
            return dfc_err(DFC_ERR_WIN, func, "invalid argument %s: DFC_WIN_NULL", argname);
        return dfc_err(DFC_ERR_WIN, func, "invalid argument %s: 0x%x is not a window", argname,
                       (unsigned)h);
    }
    *out = w;
    return DFC_SUCCESS;
}

/* ---- The window's collectives, on the collective context of its private communicator ---- */
static int exchange(dfc_win_t *w, int to, const void *sbuf, int from, void *rbuf, size_t bytes,
                    int tag)
{
    dfc_req_t s, r;
    dfc_req_init_internal(&s, w->comm);
    dfc_req_init_internal(&r, w->comm);
    int rc = dfc_p2p_irecv(w->comm, 1, rbuf, bytes, from, tag, &r);
    if (!rc) rc = dfc_p2p_isend(w->comm, 1, sbuf, bytes, to, tag, 0, &s);
    if (!rc) rc = dfc_progress_until(&r.complete);
    if (!rc) rc = dfc_progress_until(&s.complete);
    if (!rc) rc = r.status.DFC_ERROR ? r.status.DFC_ERROR : s.status.DFC_ERROR;
    return rc;
}

/* Dissemination: ceil(log2 n) rounds of one message each way. */
int dfc_win_barrier(dfc_win_t *w)
{
    char s = 0, r;
    for (int d = 1; d < w->size; d *= 2) {
        int rc = exchange(w, (w->rank + d) % w->size, &s, (w->rank - d + w->size) % w->size, &r, 1,
                          WIN_TAG_BARRIER);
        if (rc) return rc;
    }
    return DFC_SUCCESS;
}

/* Ring: n-1 steps, each passing on the block received in the step before. */
int dfc_win_allgather(dfc_win_t *w, const void *mine, size_t bytes, void *all)
{
    int n = w->size, me = w->rank;
    memcpy((char *)all + (size_t)me * bytes, mine, bytes);
    for (int k = 0; k < n - 1; k++) {
        int sblk = (me - k + n) % n, rblk = (me - k - 1 + n) % n;
        int rc = exchange(w, (me + 1) % n, (char *)all + (size_t)sblk * bytes, (me - 1 + n) % n,
                          (char *)all + (size_t)rblk * bytes, bytes, WIN_TAG_ALLGATHER);
        if (rc) return rc;
    }
    return DFC_SUCCESS;
}

/* ---- SHM windows: one segment holding the control words and every member's memory -------- */
typedef struct shm_info {
    int64_t size;
    int32_t disp_unit;
    int32_t node;
    char name[64];         /* rank 0's segment name */
    dfc_win_devinfo_t dev; /* device memory (win_dev.c) */
} shm_info_t;

static int all_on_one_node(const shm_info_t *all, int n)
{
    for (int i = 1; i < n; i++)
        if (all[i].node != all[0].node) return 0;
    return 1;
}

/* Rank 0 creates the segment under a fresh random name; the others open it after the
 * allgather that carried the name; all unlink it once everyone has mapped it (the barrier),
 * so nothing outlives the job. */
static int shm_map(dfc_win_t *w, shm_info_t *all)
{
    size_t ctl_bytes = ((size_t)w->size * sizeof(dfc_win_ctl_t) + 4095) & ~(size_t)4095;
    /* Win_allocate's parts start on cache lines, as malloc'd memory would; the parts of
     * Win_allocate_shared follow one another exactly (MPI's default contiguous layout). */
    size_t align = w->flavor == DFC_WIN_FLAVOR_ALLOCATE ? 64 : 1, data = 0;
    for (int i = 0; i < w->size; i++) data += ((size_t)all[i].size + align - 1) / align * align;
    w->seg_bytes = ctl_bytes + (data ? data : 1);
    int fd = shm_open(all[0].name, O_RDWR | O_CLOEXEC, 0);
    if (fd < 0)
        return DFC_ERR(DFC_ERR_RMA_SHARED, "shm_open(%s): %s", all[0].name, strerror(errno));
    if (w->rank == 0 && ftruncate(fd, (off_t)w->seg_bytes) != 0) {
        close(fd);
        return DFC_ERR(DFC_ERR_NO_MEM, "cannot size a %zu-byte window segment: %s", w->seg_bytes,
                       strerror(errno));
    }
    int rc = dfc_win_barrier(w); /* sized before anyone maps it */
    if (rc) {
        close(fd);
        return rc;
    }
    w->seg = mmap(NULL, w->seg_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (w->seg == MAP_FAILED) {
        w->seg = NULL;
        return DFC_ERR(DFC_ERR_NO_MEM, "cannot map a %zu-byte window segment: %s", w->seg_bytes,
                       strerror(errno));
    }
    w->ctl = (dfc_win_ctl_t *)w->seg;
    size_t off = ctl_bytes;
    for (int i = 0; i < w->size; i++) {
        w->bases[i] = (char *)w->seg + off;
        off += ((size_t)all[i].size + align - 1) / align * align;
    }
    rc = dfc_win_barrier(w);
    if (w->rank == 0) shm_unlink(all[0].name);
    return rc;
}

static int shm_name_new(char *name, size_t len)
{
    uint64_t rnd;
    for (int i = 0; i < 16; i++) {
        if (getrandom(&rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) rnd = dfc_time_ns() + i;
        snprintf(name, len, "/dfc-win-%d-%016llx", (int)getpid(), (unsigned long long)rnd);
        int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
        if (fd >= 0) {
            close(fd);
            return DFC_SUCCESS;
        }
        if (errno != EEXIST) break;
    }
    return DFC_ERR(DFC_ERR_RMA_SHARED, "cannot create a shared segment %s: %s", name,
                   strerror(errno));
}

/* ---- Parameters (dfc_env(7)) ---------------------------------------------------------- */
static long param_shm(void)
{
    return dfc_env_long("DFC_RMA_SHM", 1,
                        "1: windows of Win_allocate whose processes share a node live in shared "
                        "memory, accessed by loads and stores; 0: they use messages, as "
                        "Win_create's (Win_allocate_shared always shares)");
}

static long param_progress_thread(void)
{
    return dfc_env_long("DFC_RMA_PROGRESS_THREAD", 1,
                        "1: the first window reached by messages (Win_create, "
                        "Win_create_dynamic, a window across nodes) starts the progress thread, "
                        "so that passive-target operations complete while the target computes; "
                        "0: they complete only inside the target's DFC calls");
}

void dfc_win_register_params(void)
{
    param_shm();
    param_progress_thread();
}

/* ---- Creation ----------------------------------------------------------------------------- */
static dfc_win_t *win_new(int flavor, dfc_comm_t *dup)
{
    dfc_win_t *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->flavor = flavor;
    w->model = DFC_WIN_UNIFIED;
    w->comm = dup;
    w->rank = dup->rank;
    w->size = dup->size;
    w->errhandler = DFC_ERRORS_ARE_FATAL;
    w->excl_holder = -1;
    dfc_list_init(&w->recs);
    dfc_list_init(&w->inbox);
    dfc_list_init(&w->replies);
    dfc_list_init(&w->waiters);
    dfc_list_init(&w->devops);
    int n = w->size;
    w->sizes = calloc(n, sizeof *w->sizes);
    w->disp_units = calloc(n, sizeof *w->disp_units);
    w->bases = calloc(n, sizeof *w->bases);
    w->locked = calloc(n, sizeof *w->locked);
    w->posts_seen = calloc(n, sizeof *w->posts_seen);
    w->dones_seen = calloc(n, sizeof *w->dones_seen);
    w->pending = calloc(n, sizeof *w->pending);
    w->touched = calloc(n, sizeof *w->touched);
    w->held = calloc(n, sizeof *w->held);
    return w;
}

static void win_destroy(dfc_win_t *w)
{
    if (w->seg) munmap(w->seg, w->seg_bytes);
    free(w->own_alloc);
    free(w->sizes);
    free(w->disp_units);
    free(w->bases);
    free(w->locked);
    free(w->posts_seen);
    free(w->dones_seen);
    free(w->pending);
    free(w->touched);
    free(w->held); /* empty: Win_free waited for every operation, held ones sent */
    free(w->regions);
    free(w->ipc);
    if (w->info) dfc_info_destroy(w->info);
    dfc_attr_drop_all(&w->attrs); /* Win_free deleted them; this frees what is left */
    if (w->comm) dfc_comm_release(w->comm);
    free(w);
}

/* Where the memory lives (dfc_win.h): SHM when the flavor allocates and every member is on
 * this node, unless DFC_RMA_SHM=0 asks for messages everywhere. */
static int choose_backend(dfc_win_t *w, shm_info_t *all, const char *func)
{
    int one_node = all_on_one_node(all, w->size);
    if (w->flavor == DFC_WIN_FLAVOR_SHARED && !one_node)
        return dfc_err(DFC_ERR_RMA_SHARED, func,
                       "invalid argument comm: its processes are on more than one node, so "
                       "they cannot share memory (use DFC_Comm_split_type with "
                       "DFC_COMM_TYPE_SHARED)");
    int allocating = w->flavor == DFC_WIN_FLAVOR_ALLOCATE || w->flavor == DFC_WIN_FLAVOR_SHARED;
    long use_shm = param_shm();
    w->backend = allocating && one_node && (use_shm || w->flavor == DFC_WIN_FLAVOR_SHARED)
                     ? DFC_WIN_BACKEND_SHM
                     : DFC_WIN_BACKEND_AM;
    return DFC_SUCCESS;
}

static int setup_memory(dfc_win_t *w, void *base, DFC_Aint size, shm_info_t *all, void *baseptr)
{
    for (int i = 0; i < w->size; i++) {
        w->sizes[i] = (DFC_Aint)all[i].size;
        w->disp_units[i] = all[i].disp_unit;
    }
    w->size_bytes = size;
    w->disp_unit = all[w->rank].disp_unit;
    if (w->backend == DFC_WIN_BACKEND_SHM) {
        int rc = shm_map(w, all);
        if (rc) return rc;
        w->base = size ? w->bases[w->rank] : NULL;
    } else if (w->flavor == DFC_WIN_FLAVOR_ALLOCATE) {
        if (size && posix_memalign(&w->own_alloc, 64, (size_t)size))
            return DFC_ERR(DFC_ERR_NO_MEM, "out of memory allocating a %lld-byte window",
                           (long long)size);
        w->base = w->own_alloc;
    } else w->base = base;
    if (baseptr) *(void **)baseptr = w->base;
    return DFC_SUCCESS;
}

/* Device memory (win_dev.c): the members' handles, laid out as win_dev.c takes them. */
static int setup_device(dfc_win_t *w, const shm_info_t *all)
{
    dfc_win_devinfo_t *dev = calloc((size_t)w->size, sizeof *dev);
    if (!dev) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory creating a window");
    for (int i = 0; i < w->size; i++) dev[i] = all[i].dev;
    int rc = dfc_win_dev_setup(w, dev);
    free(dev);
    return rc;
}

int dfc_win_create(int flavor, void *base, DFC_Aint size, int disp_unit, const dfc_info_t *info,
                   dfc_comm_t *comm, void *baseptr, DFC_Win *out)
{
    dfc_comm_t *dup = NULL;
    int rc = dfc_comm_dup(comm, NULL, &dup);
    if (rc) return rc;
    dfc_win_t *w = win_new(flavor, dup);
    if (!w || !w->sizes || !w->disp_units || !w->bases || !w->locked || !w->posts_seen ||
        !w->dones_seen || !w->pending || !w->touched || !w->held) {
        if (w) win_destroy(w);
        else dfc_comm_release(dup);
        return DFC_ERR(DFC_ERR_NO_MEM, "out of memory creating a window");
    }
    shm_info_t mine = {0}, *all = calloc(w->size, sizeof *all);
    mine.size = size;
    mine.disp_unit = disp_unit;
    mine.node = dfc_node_of ? dfc_node_of[comm->world[comm->rank]] : 0;
    dfc_win_dev_mine(w, base, size, &mine.dev);
    mine.dev.node = mine.node;
    if (!all) rc = DFC_ERR(DFC_ERR_NO_MEM, "out of memory creating a window");
    /* Rank 0 names a segment whenever one might be used; unused, it is unlinked below. */
    int maybe_shm = flavor == DFC_WIN_FLAVOR_ALLOCATE || flavor == DFC_WIN_FLAVOR_SHARED;
    if (!rc && w->rank == 0 && maybe_shm) rc = shm_name_new(mine.name, sizeof mine.name);
    if (!rc) rc = dfc_win_allgather(w, &mine, sizeof mine, all);
    const char *func = flavor == DFC_WIN_FLAVOR_SHARED     ? "DFC_Win_allocate_shared"
                       : flavor == DFC_WIN_FLAVOR_ALLOCATE ? "DFC_Win_allocate"
                       : flavor == DFC_WIN_FLAVOR_DYNAMIC  ? "DFC_Win_create_dynamic"
                                                           : "DFC_Win_create";
    if (!rc) rc = choose_backend(w, all, func);
    if (!rc) rc = setup_memory(w, base, size, all, baseptr);
    if (!rc) rc = setup_device(w, all);
    if (w->rank == 0 && maybe_shm && all && all[0].name[0] &&
        (rc || w->backend != DFC_WIN_BACKEND_SHM))
        shm_unlink(all[0].name);
    free(all);
    if (!rc && info && !(w->info = dfc_info_copy(info)))
        rc = DFC_ERR(DFC_ERR_NO_MEM, "out of memory copying the window's info");
    if (!rc && !(w->handle = dfc_htable_add(&dfc_win_table, w)))
        rc = DFC_ERR(DFC_ERR_NO_MEM, "out of memory allocating a window handle");
    if (!rc && w->backend == DFC_WIN_BACKEND_AM && param_progress_thread())
        rc = dfc_progress_thread_ensure();
    if (rc) {
        if (w->handle) dfc_htable_remove(&dfc_win_table, w->handle);
        win_destroy(w);
        return rc;
    }
    dfc_list_insert_tail(&dfc_win_list, &w->link);
    dfc_win_count++;
    dfc_win_progress_hook = dfc_win_progress;
    dfc_win_report_hook = dfc_win_report;
    *out = w->handle;
    return DFC_SUCCESS;
}

static int target_quiet(void *arg)
{
    dfc_win_t *w = arg;
    return dfc_list_empty(&w->replies) && dfc_list_empty(&w->inbox);
}

int dfc_win_free(dfc_win_t *w, int *kept)
{
    /* The user's attributes first (MPI-4.1 7.7.3): a delete callback's error stops the free,
     * the window still there. */
    int rc = dfc_attr_delete_all(&w->attrs, w->handle);
    if ((*kept = rc != DFC_SUCCESS)) return rc;
    rc = dfc_win_dev_drain(w, -1); /* direct copies, before the barrier lets targets go */
    if (rc) return rc;
    /* Our operations are complete at every target and every member's at ours (their sync
     * calls waited for our acknowledgements) once all members pass the barrier. */
    rc = dfc_win_am_wait_target(w, -1);
    if (!rc) rc = dfc_win_barrier(w);
    if (!rc) rc = dfc_progress_wait(target_quiet, w); /* our replies sent, requests applied */
    dfc_list_remove(&w->link);
    if (--dfc_win_count == 0) {
        dfc_win_progress_hook = NULL;
        dfc_win_report_hook = NULL;
    }
    dfc_htable_remove(&dfc_win_table, w->handle);
    if (w->start_group) dfc_group_release(w->start_group);
    if (w->post_group) dfc_group_release(w->post_group);
    win_destroy(w);
    return rc;
}

int dfc_win_shared_query(dfc_win_t *w, int rank, DFC_Aint *size, int *disp_unit, void *baseptr)
{
    if (rank == DFC_PROC_NULL) /* the first member with memory */
        for (rank = 0; rank < w->size - 1 && w->sizes[rank] == 0; rank++) continue;
    int shared = w->backend == DFC_WIN_BACKEND_SHM;
    *size = shared ? w->sizes[rank] : 0;
    *disp_unit = w->disp_units[rank];
    *(void **)baseptr = shared && w->sizes[rank] ? w->bases[rank] : NULL;
    return DFC_SUCCESS;
}

int dfc_win_attach(dfc_win_t *w, void *base, DFC_Aint size)
{
    dfc_win_region_t *r = realloc(w->regions, (w->nregions + 1) * sizeof *r);
    if (!r) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory attaching memory");
    w->regions = r;
    r[w->nregions].base = (uintptr_t)base;
    r[w->nregions].size = (size_t)size;
    r[w->nregions].dev = dfc_gpu_is_device_ptr(base); /* the memory-type cache, once */
    w->nregions++;
    return DFC_SUCCESS;
}

int dfc_win_detach(dfc_win_t *w, const void *base)
{
    for (int i = 0; i < w->nregions; i++)
        if (w->regions[i].base == (uintptr_t)base) {
            w->regions[i] = w->regions[--w->nregions];
            return DFC_SUCCESS;
        }
    return dfc_err(DFC_ERR_RMA_ATTACH, "DFC_Win_detach",
                   "invalid argument base: %p is not the base of memory attached to the window",
                   base);
}

/* MPI's attribute_val receives a pointer to the value, which lives in the window; for a
 * user key, the value set. */
int dfc_win_get_attr(dfc_win_t *w, int keyval, void *attribute_val, int *flag)
{
    void *v;
    if (!dfc_keyval_predefined(keyval)) {
        int rc = dfc_attr_get_key(w->attrs, DFC_KIND_WIN, keyval, "DFC_Win_get_attr", "win_keyval",
                                  &v, flag);
        if (!rc && *flag) *(void **)attribute_val = v;
        return rc;
    }
    switch (keyval) {
    case DFC_WIN_BASE:
        *(void **)attribute_val = w->base;
        *flag = 1;
        return DFC_SUCCESS;
    case DFC_WIN_SIZE: v = &w->size_bytes; break;
    case DFC_WIN_DISP_UNIT: v = &w->disp_unit; break;
    case DFC_WIN_CREATE_FLAVOR: v = &w->flavor; break;
    case DFC_WIN_MODEL: v = &w->model; break;
    default:
        return dfc_err(DFC_ERR_ARG, "DFC_Win_get_attr",
                       "invalid argument win_keyval: %d is not a window attribute", keyval);
    }
    *(void **)attribute_val = v;
    *flag = 1;
    return DFC_SUCCESS;
}

int dfc_win_get_group(dfc_win_t *w, DFC_Group *group)
{
    return dfc_group_new_handle(w->comm->size, w->comm->world, "DFC_Win_get_group", group);
}

int dfc_win_set_info(dfc_win_t *w, const dfc_info_t *info)
{
    dfc_info_t *copy = info ? dfc_info_copy(info) : NULL;
    if (info && !copy) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory copying info");
    if (w->info) dfc_info_destroy(w->info);
    w->info = copy;
    return DFC_SUCCESS;
}

int dfc_win_get_info(dfc_win_t *w, DFC_Info *info_used)
{
    return dfc_info_dup_handle(w->info, "DFC_Win_get_info", info_used);
}
