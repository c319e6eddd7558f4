/* api_init.c - DFC_Init and friends: the environment of a DFC program. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "api/dfc_api.h"
#include "coll/dfc_coll.h"
#include "gpu/dfc_gpu.h"
#include "pmix/dfc_boot.h"

/* The layers above comm (coll), brought up after it and down before it. The GPU daemon is
 * brought up by the comm layer's init, beside the transports (src/comm/init.c), through the
 * hooks that init_common fills in; the CUDA loader by comm itself. */
static int dfc_upper_layers_init(void)
{
    int rc = dfc_coll_layer_init();
    return rc ? rc : dfc_progress_thread_start(); /* last: it drives every layer */
}
static void dfc_upper_layers_finalize(void)
{
    dfc_progress_thread_stop();
    dfc_coll_layer_finalize();
    dfc_gpu_finalize();
}

static int init_common(int required, int *provided)
{
    if (dfc_proc.initialized || dfc_proc.finalized)
        dfc_fatal("DFC_Init: DFC is already %s", dfc_proc.finalized ? "finalized" : "initialized");
    dfc_comm_gpu_hooks = (dfc_comm_gpu_hooks_t){.publish = dfc_gpu_daemon_publish,
                                                .connect = dfc_gpu_daemon_connect,
                                                .finalize = dfc_gpu_daemon_finalize,
                                                .busy = dfc_gpu_busy};
    int rc = dfc_comm_layer_init(required, provided);
    if (!rc) rc = dfc_upper_layers_init();
    if (rc) {
        char msg[DFC_MAX_ERROR_STRING];
        dfc_err_message(rc, msg, sizeof msg);
        dfc_fatal("DFC_Init failed: %s", msg);
    }
    return DFC_SUCCESS;
}

int DFC_Init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return init_common(DFC_THREAD_SINGLE, NULL);
}

int DFC_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc;
    (void)argv;
    if (!provided) dfc_fatal("DFC_Init_thread: invalid argument provided: NULL pointer");
    if (required < DFC_THREAD_SINGLE || required > DFC_THREAD_MULTIPLE)
        dfc_fatal("DFC_Init_thread: invalid argument required: %d is not a thread level", required);
    return init_common(required, provided);
}

int DFC_Initialized(int *flag)
{
    if (!flag) return DFC_ERR(DFC_ERR_ARG, "invalid argument flag: NULL pointer");
    *flag = dfc_proc.initialized;
    return DFC_SUCCESS;
}

int DFC_Finalized(int *flag)
{
    if (!flag) return DFC_ERR(DFC_ERR_ARG, "invalid argument flag: NULL pointer");
    *flag = dfc_proc.finalized;
    return DFC_SUCCESS;
}

int DFC_Finalize(void)
{
    DFC_API_ENTER();
    /* Attribute callbacks first, while everything still works (MPI-4.1 11.2.2). One that
     * fails meets DFC_COMM_WORLD's error handler now; finalization goes on regardless, since
     * the other processes wait for this one at the finalize fence. */
    int rc_attr = dfc_api_attr_finalize();
    if (rc_attr) rc_attr = dfc_api_error(NULL, rc_attr);
    dfc_api_type_attr_finalize();
    dfc_upper_layers_finalize();
    int rc = dfc_comm_layer_finalize();
    dfc_api_errhandler_finalize();
    DFC_UNLOCK();
    return rc ? dfc_api_error(NULL, rc) : rc_attr;
}

/* Says on stderr who ended the job and how, as MPICH and Open MPI do, then ends it with the
 * code. The communicator is looked up without the library lock: another thread may hold it
 * in a call that will never return, and the process ends anyway. */
int DFC_Abort(DFC_Comm comm, int errorcode)
{
    char who[DFC_MAX_OBJECT_NAME + 512], msg[DFC_MAX_OBJECT_NAME + 640];
    int code = errorcode ? errorcode : 1;
    dfc_comm_t *c = dfc_proc.initialized && !dfc_proc.finalized ? dfc_comm_get(comm) : NULL;
    if (c && c->is_world)
        snprintf(who, sizeof who, "rank %d in communicator %s (host %s)", c->rank, c->name,
                 dfc_proc.hostname);
    else if (c)
        snprintf(who, sizeof who, "rank %d in communicator %s (world rank %d, host %s)", c->rank,
                 c->name[0] ? c->name : "(unnamed)", dfc_proc.world_rank, dfc_proc.hostname);
    else if (dfc_proc.initialized)
        snprintf(who, sizeof who, "world rank %d (host %s) on an invalid communicator 0x%x",
                 dfc_proc.world_rank, dfc_proc.hostname, (unsigned)comm);
    else snprintf(who, sizeof who, "a process outside DFC_Init/DFC_Finalize");
    snprintf(msg, sizeof msg, "DFC_Abort was called by %s with error code %d", who, errorcode);
    fprintf(stderr, "%s: the job ends with exit status %d\n", msg, code);
    fflush(stderr);
    dfc_boot_abort(code, msg);
}

int DFC_Query_thread(int *provided)
{
    int rc = DFC_SUCCESS;
    DFC_API_ENTER();
    rc = dfc_api_check_ptr(__func__, "provided", provided);
    if (rc) goto fn_fail;
    *provided = dfc_proc.thread_level;
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Is_thread_main(int *flag)
{
    int rc = DFC_SUCCESS;
    DFC_API_ENTER();
    rc = dfc_api_check_ptr(__func__, "flag", flag);
    if (rc) goto fn_fail;
    *flag = pthread_equal(pthread_self(), dfc_proc.main_thread);
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

double DFC_Wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double DFC_Wtick(void)
{
    struct timespec ts;
    clock_getres(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int DFC_Get_processor_name(char *name, int *resultlen)
{
    int rc = DFC_SUCCESS;
    DFC_API_ENTER();
    if ((rc = dfc_api_check_ptr(__func__, "name", name)) ||
        (rc = dfc_api_check_ptr(__func__, "resultlen", resultlen)))
        goto fn_fail;
    snprintf(name, DFC_MAX_PROCESSOR_NAME, "%s", dfc_proc.hostname);
    *resultlen = (int)strlen(name);
fn_exit:
    DFC_API_EXIT();
    return rc;
fn_fail:
    rc = dfc_api_error(NULL, rc);
    goto fn_exit;
}

int DFC_Get_version(int *version, int *subversion)
{
    if (!version || !subversion) return DFC_ERR(DFC_ERR_ARG, "invalid argument: NULL pointer");
    *version = DFC_VERSION;
    *subversion = DFC_SUBVERSION;
    return DFC_SUCCESS;
}

int DFC_Get_library_version(char *version, int *resultlen)
{
    if (!version || !resultlen) return DFC_ERR(DFC_ERR_ARG, "invalid argument: NULL pointer");
    int n = snprintf(
        version, DFC_MAX_LIBRARY_VERSION_STRING,
        "DFC %s (MPI %d.%d interface; transports self, shm, tcp; device buffers staged through host)",
        DFC_VERSION_STRING, DFC_VERSION, DFC_SUBVERSION);
    *resultlen = n;
    return DFC_SUCCESS;
}
