/*
 * boot.c - the bootstrap over an OpenPMIx client, with a singleton fallback.
 *
 * Launchers that provide PMIx (srun --mpi=pmix, mpirun, prterun) set PMIX_NAMESPACE and
 * PMIX_RANK in the environment of the processes they start. Without them the process runs
 * alone: we do not call PMIx_Init at all, so that a plain ./prog neither searches for a
 * server nor prints anything.
 */
#include <pmix.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmix/dfc_boot.h"
#include "util/dfc_util.h"

static pmix_proc_t my_proc;
static int boot_active;    /* PMIx_Init succeeded */
static int boot_singleton; /* no launcher */
static dfc_boot_info_t boot_info;

/* Singleton key-value store: a process can still put and get its own keys. */
typedef struct local_kv {
    struct local_kv *next;
    char *key;
    void *val;
    size_t len;
} local_kv_t;
static local_kv_t *local_store;

static int pmix_error(const char *what, pmix_status_t rc)
{
    return dfc_err(DFC_ERR_OTHER, "DFC_Init", "PMIx %s failed: %s", what, PMIx_Error_string(rc));
}

/* Reads a value of `proc` under `key`; the caller releases it with PMIX_VALUE_RELEASE. */
static pmix_status_t get_value(const pmix_proc_t *proc, const char *key, pmix_value_t **val)
{
    return PMIx_Get(proc, key, NULL, 0, val);
}

static int get_uint(const pmix_proc_t *proc, const char *key, unsigned *out)
{
    pmix_value_t *val = NULL;
    pmix_status_t rc = get_value(proc, key, &val);
    if (rc != PMIX_SUCCESS) return pmix_error(key, rc);
    switch (val->type) {
    case PMIX_UINT32: *out = val->data.uint32; break;
    case PMIX_UINT16: *out = val->data.uint16; break;
    case PMIX_INT: *out = (unsigned)val->data.integer; break;
    case PMIX_UINT64: *out = (unsigned)val->data.uint64; break;
    case PMIX_PROC_RANK: *out = val->data.rank; break;
    default:
        PMIX_VALUE_RELEASE(val);
        return dfc_err(DFC_ERR_OTHER, "DFC_Init", "PMIx key %s has an unexpected type", key);
    }
    PMIX_VALUE_RELEASE(val);
    return DFC_SUCCESS;
}

/* ---- Failure events ----------------------------------------------------------------------
 * Measured on Debian 12 (OpenPMIx 4.2.2): Open MPI 4.1's mpirun with --enable-recovery
 * delivers no event when a rank is killed (its server logs BAD-PARAM instead), and Slurm
 * 22.05's pmix plugin cancels the whole step on any server-side event, so the transports
 * remain the detector there; launchers built on PRRTE send PMIX_PROC_TERMINATED-class
 * events with PMIX_EVENT_AFFECTED_PROC, which this handler takes. */
static _Atomic(unsigned char) *failed_flag; /* per world rank: 1 event seen, 2 reported */
static atomic_int failed_events;
static int failed_polled, failed_size;

static void note_failed(const pmix_proc_t *p)
{
    if (!p || !PMIX_CHECK_NSPACE(p->nspace, my_proc.nspace) || p->rank >= (pmix_rank_t)failed_size)
        return;
    unsigned char zero = 0;
    if (atomic_compare_exchange_strong(&failed_flag[p->rank], &zero, 1))
        atomic_fetch_add(&failed_events, 1);
}

static void failure_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
                          pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                          pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)status, (void)source, (void)results, (void)nresults;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) && info[i].value.type == PMIX_PROC)
            note_failed(info[i].value.data.proc);
        else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROCS) &&
                 info[i].value.type == PMIX_DATA_ARRAY && info[i].value.data.darray &&
                 info[i].value.data.darray->type == PMIX_PROC)
            for (size_t k = 0; k < info[i].value.data.darray->size; k++)
                note_failed((pmix_proc_t *)info[i].value.data.darray->array + k);
    }
    if (cbfunc) cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata); /* let other handlers run */
}

static void register_failure_events(int size)
{
    pmix_status_t codes[] = {PMIX_PROC_TERMINATED,         PMIX_EVENT_PROC_TERMINATED,
                             PMIX_ERR_PROC_ABORTED_BY_SIG, PMIX_ERR_PROC_TERM_WO_SYNC,
                             PMIX_ERR_PROC_KILLED_BY_CMD,  PMIX_ERR_EXIT_NONZERO_TERM};
    failed_flag = calloc((size_t)size, sizeof *failed_flag);
    if (!failed_flag) return; /* the transports still detect failures */
    failed_size = size;
    /* NULL callback: a blocking registration, which returns the handler id or an error. An
     * error only means no events: nothing depends on them. */
    pmix_status_t rc = PMIx_Register_event_handler(codes, sizeof codes / sizeof codes[0], NULL, 0,
                                                   failure_event, NULL, NULL);
    if (rc < 0) DFC_LOG(DFC_LOG_INFO, "boot", "no PMIx failure events: %s", PMIx_Error_string(rc));
}

/* The launcher's PMIx server is gone (mpirun or prterun killed, its node lost): the job is
 * over, and a rank waiting for a peer that is itself orphaned would wait forever (measured:
 * both ranks of a job stayed blocked in DFC_Recv after mpirun got SIGKILL; Open MPI's ranks
 * exit). The PMIx client reports it on its own thread; nothing of DFC's state can be trusted
 * to shut down from there, so the rank says why and exits at once, as Open MPI's do. */
static void launcher_lost(size_t id, pmix_status_t status, const pmix_proc_t *source,
                          pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                          pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    (void)cbfunc, (void)cbdata;
    fprintf(stderr,
            "[dfc rank %d] fatal: lost the connection to the launcher's PMIx server (%s): "
            "the job is over, exiting\n",
            (int)my_proc.rank, PMIx_Error_string(status));
    fflush(stderr);
    _exit(1);
}

static void register_launcher_lost(void)
{
    pmix_status_t code = PMIX_ERR_LOST_CONNECTION;
    pmix_status_t rc = PMIx_Register_event_handler(&code, 1, NULL, 0, launcher_lost, NULL, NULL);
    if (rc < 0)
        DFC_LOG(DFC_LOG_INFO, "boot", "no PMIx lost-connection event: %s", PMIx_Error_string(rc));
}

int dfc_boot_failed_pending(void)
{
    return failed_flag &&
           atomic_load_explicit(&failed_events, memory_order_relaxed) != failed_polled;
}

int dfc_boot_next_failed(void)
{
    for (int r = 0; failed_flag && r < failed_size; r++) {
        unsigned char one = 1;
        if (atomic_compare_exchange_strong(&failed_flag[r], &one, 2)) {
            failed_polled++;
            return r;
        }
    }
    return -1;
}

/* A key the launcher may lack (no error recorded): its value, or -1. */
static int get_optional(const pmix_proc_t *proc, const char *key)
{
    pmix_value_t *val = NULL;
    int out = -1;
    if (get_value(proc, key, &val) != PMIX_SUCCESS || !val) return -1;
    if (val->type == PMIX_UINT32) out = (int)val->data.uint32;
    else if (val->type == PMIX_INT) out = val->data.integer;
    else if (val->type == PMIX_UINT16) out = val->data.uint16;
    PMIX_VALUE_RELEASE(val);
    return out;
}

int dfc_boot_init(dfc_boot_info_t *info)
{
    memset(&boot_info, 0, sizeof boot_info);
    boot_info.appnum = boot_info.universe_size = -1;
    if (!getenv("PMIX_NAMESPACE") || !getenv("PMIX_RANK")) {
        boot_singleton = 1;
        boot_info.rank = 0;
        boot_info.size = 1;
        boot_info.local_rank = 0;
        boot_info.local_size = 1;
        boot_info.singleton = 1;
        boot_info.appnum = 0;
        boot_info.universe_size = 1;
        snprintf(boot_info.nspace, sizeof boot_info.nspace, "singleton.%d", (int)getpid());
        gethostname(boot_info.hostname, sizeof boot_info.hostname - 1);
        *info = boot_info;
        return DFC_SUCCESS;
    }
    pmix_status_t rc = PMIx_Init(&my_proc, NULL, 0);
    if (rc != PMIX_SUCCESS) return pmix_error("Init", rc);
    boot_active = 1;

    pmix_proc_t wildcard;
    PMIX_LOAD_PROCID(&wildcard, my_proc.nspace, PMIX_RANK_WILDCARD);
    unsigned size = 0, local_rank = 0, local_size = 0;
    int err = get_uint(&wildcard, PMIX_JOB_SIZE, &size);
    if (!err) err = get_uint(&my_proc, PMIX_LOCAL_RANK, &local_rank);
    if (!err) err = get_uint(&wildcard, PMIX_LOCAL_SIZE, &local_size);
    if (err) {
        PMIx_Finalize(NULL, 0);
        boot_active = 0;
        return err;
    }
    boot_info.rank = (int)my_proc.rank;
    boot_info.size = (int)size;
    boot_info.local_rank = (int)local_rank;
    boot_info.local_size = (int)local_size;
    snprintf(boot_info.nspace, sizeof boot_info.nspace, "%s", my_proc.nspace);
    if (dfc_boot_hostname(boot_info.rank, boot_info.hostname, sizeof boot_info.hostname))
        gethostname(boot_info.hostname, sizeof boot_info.hostname - 1);
    boot_info.appnum = get_optional(&my_proc, PMIX_APPNUM);
    boot_info.universe_size = get_optional(&wildcard, PMIX_UNIV_SIZE);
    register_failure_events((int)size);
    register_launcher_lost();
    *info = boot_info;
    return DFC_SUCCESS;
}

int dfc_boot_put(const char *key, const void *value, size_t len)
{
    if (boot_singleton) {
        local_kv_t *kv = calloc(1, sizeof *kv);
        if (!kv || !(kv->key = strdup(key)) || !(kv->val = malloc(len ? len : 1))) {
            if (kv) free(kv->key);
            free(kv);
            return DFC_ERR(DFC_ERR_NO_MEM, "out of memory storing key %s", key);
        }
        memcpy(kv->val, value, len);
        kv->len = len;
        kv->next = local_store;
        local_store = kv;
        return DFC_SUCCESS;
    }
    pmix_value_t val;
    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = (char *)value;
    val.data.bo.size = len;
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &val);
    if (rc != PMIX_SUCCESS) return pmix_error("Put", rc);
    return DFC_SUCCESS;
}

int dfc_boot_fence(void) { return dfc_boot_fence_among(NULL, 0); }

int dfc_boot_fence_among(const int *ranks, int n)
{
    if (boot_singleton) return DFC_SUCCESS;
    pmix_proc_t *procs = NULL;
    if (ranks) {
        if (!(procs = calloc((size_t)n, sizeof *procs)))
            return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
        for (int i = 0; i < n; i++)
            PMIX_LOAD_PROCID(&procs[i], my_proc.nspace, (pmix_rank_t)ranks[i]);
    }
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) return pmix_error("Commit", rc);
    pmix_info_t info;
    bool collect = true;
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(procs, procs ? (size_t)n : 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    free(procs);
    if (rc != PMIX_SUCCESS) return pmix_error("Fence", rc);
    return DFC_SUCCESS;
}

int dfc_boot_get(int rank, const char *key, void **value, size_t *len)
{
    *value = NULL;
    *len = 0;
    if (boot_singleton) {
        for (local_kv_t *kv = local_store; kv; kv = kv->next) {
            if (strcmp(kv->key, key)) continue;
            if (!(*value = malloc(kv->len ? kv->len : 1)))
                return DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
            memcpy(*value, kv->val, kv->len);
            *len = kv->len;
            return DFC_SUCCESS;
        }
        return DFC_ERR(DFC_ERR_INTERN, "bootstrap key %s was never put", key);
    }
    pmix_proc_t proc;
    pmix_value_t *val = NULL;
    PMIX_LOAD_PROCID(&proc, my_proc.nspace, (pmix_rank_t)rank);
    pmix_status_t rc = get_value(&proc, key, &val);
    if (rc != PMIX_SUCCESS) return pmix_error("Get", rc);
    if (val->type != PMIX_BYTE_OBJECT) {
        PMIX_VALUE_RELEASE(val);
        return DFC_ERR(DFC_ERR_INTERN, "bootstrap key %s of rank %d has the wrong type", key, rank);
    }
    *len = val->data.bo.size;
    *value = malloc(*len ? *len : 1);
    if (*value) memcpy(*value, val->data.bo.bytes, *len);
    PMIX_VALUE_RELEASE(val);
    return *value ? DFC_SUCCESS : DFC_ERR(DFC_ERR_NO_MEM, "out of memory");
}

int dfc_boot_hostname(int rank, char *buf, size_t len)
{
    if (boot_singleton) {
        snprintf(buf, len, "%s", boot_info.hostname);
        return DFC_SUCCESS;
    }
    pmix_proc_t proc;
    pmix_value_t *val = NULL;
    PMIX_LOAD_PROCID(&proc, my_proc.nspace, (pmix_rank_t)rank);
    pmix_status_t rc = get_value(&proc, PMIX_HOSTNAME, &val);
    if (rc != PMIX_SUCCESS) return pmix_error("Get(PMIX_HOSTNAME)", rc);
    int ok = val->type == PMIX_STRING && val->data.string;
    if (ok) snprintf(buf, len, "%s", val->data.string);
    PMIX_VALUE_RELEASE(val);
    return ok ? DFC_SUCCESS
              : DFC_ERR(DFC_ERR_INTERN, "PMIX_HOSTNAME of rank %d is not a string", rank);
}

void dfc_boot_abort(int code, const char *msg)
{
    if (boot_active) PMIx_Abort(code, msg, NULL, 0);
    _exit(code ? code : 1);
}

int dfc_boot_finalize(void)
{
    while (local_store) {
        local_kv_t *kv = local_store;
        local_store = kv->next;
        free(kv->key);
        free(kv->val);
        free(kv);
    }
    if (boot_active) {
        boot_active = 0;
        pmix_status_t rc = PMIx_Finalize(NULL, 0);
        free((void *)failed_flag); /* the handler cannot run after PMIx_Finalize */
        failed_flag = NULL;
        failed_size = failed_polled = 0;
        atomic_store(&failed_events, 0);
        if (rc != PMIX_SUCCESS) return pmix_error("Finalize", rc);
    }
    return DFC_SUCCESS;
}
