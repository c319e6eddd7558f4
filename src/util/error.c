/*
 * error.c - error classes, their strings, and the ring of recorded messages.
 *
 * An error is recorded once, where it is detected, as "<function>: <reason>". The code
 * returned up the stack carries the class in its low byte and the message's ring slot
 * above it, so DFC_Error_string can show the specific message later, as MPICH does.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "util/dfc_util.h"

#define DFC_ERR_RING 256 /* messages kept; older codes fall back to the class string */

static char err_ring[DFC_ERR_RING][DFC_MAX_ERROR_STRING];
static unsigned err_next = 1; /* slot 0 means "no message" */
static pthread_mutex_t err_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const class_strings[DFC_ERR_LASTCODE + 1] = {
    [DFC_SUCCESS] = "no error",
    [DFC_ERR_BUFFER] = "invalid buffer pointer",
    [DFC_ERR_COUNT] = "invalid count argument",
    [DFC_ERR_TYPE] = "invalid datatype",
    [DFC_ERR_TAG] = "invalid tag",
    [DFC_ERR_COMM] = "invalid communicator",
    [DFC_ERR_RANK] = "invalid rank",
    [DFC_ERR_ROOT] = "invalid root",
    [DFC_ERR_GROUP] = "invalid group",
    [DFC_ERR_OP] = "invalid reduce operation",
    [DFC_ERR_TOPOLOGY] = "invalid topology",
    [DFC_ERR_DIMS] = "invalid dimension argument",
    [DFC_ERR_ARG] = "invalid argument of some other kind",
    [DFC_ERR_UNKNOWN] = "unknown error",
    [DFC_ERR_TRUNCATE] = "message truncated",
    [DFC_ERR_OTHER] = "known error not in this list",
    [DFC_ERR_INTERN] = "internal error",
    [DFC_ERR_IN_STATUS] = "error code is in status",
    [DFC_ERR_PENDING] = "pending request",
    [DFC_ERR_REQUEST] = "invalid request",
    [DFC_ERR_INFO] = "invalid info object",
    [DFC_ERR_INFO_KEY] = "invalid info key",
    [DFC_ERR_INFO_VALUE] = "invalid info value",
    [DFC_ERR_INFO_NOKEY] = "info key not found",
    [DFC_ERR_NO_MEM] = "out of memory",
    [DFC_ERR_UNSUPPORTED_OPERATION] = "unsupported operation",
    [DFC_ERR_NOT_SAME] = "collective arguments not identical on all processes",
    [DFC_ERR_ERRHANDLER] = "invalid error handler",
    [DFC_ERR_PROC_FAILED] = "a process in the operation has failed",
    [DFC_ERR_INTERNAL_TRANSPORT] = "transport failure",
    [DFC_ERR_WIN] = "invalid window",
    [DFC_ERR_BASE] = "invalid base address",
    [DFC_ERR_SIZE] = "invalid size argument",
    [DFC_ERR_DISP] = "invalid displacement argument",
    [DFC_ERR_LOCKTYPE] = "invalid lock type",
    [DFC_ERR_ASSERT] = "invalid assert argument",
    [DFC_ERR_RMA_CONFLICT] = "conflicting accesses to a window",
    [DFC_ERR_RMA_SYNC] = "wrong synchronization of one-sided calls",
    [DFC_ERR_RMA_RANGE] = "target memory is not part of the window",
    [DFC_ERR_RMA_ATTACH] = "memory cannot be attached",
    [DFC_ERR_RMA_SHARED] = "memory cannot be shared",
    [DFC_ERR_RMA_FLAVOR] = "passed window has the wrong flavor for the called function",
};

const char *dfc_err_class_string(int errclass)
{
    if (errclass < 0 || errclass > DFC_ERR_LASTCODE) return NULL;
    return class_strings[errclass];
}

int dfc_err(int errclass, const char *func, const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&err_lock);
    unsigned slot = err_next;
    err_next = err_next + 1 >= DFC_ERR_RING ? 1 : err_next + 1;
    int n = snprintf(err_ring[slot], DFC_MAX_ERROR_STRING, "%s: ", func ? func : "DFC");
    va_start(ap, fmt);
    if (n >= 0 && n < DFC_MAX_ERROR_STRING)
        vsnprintf(err_ring[slot] + n, DFC_MAX_ERROR_STRING - n, fmt, ap);
    va_end(ap);
    pthread_mutex_unlock(&err_lock);
    DFC_LOG(DFC_LOG_ERROR, "error", "%s", err_ring[slot]);
    return (int)(slot << 8) | (errclass & 0xff);
}

void dfc_err_message(int code, char *buf, size_t len)
{
    int cls = DFC_ERR_CLASS(code);
    unsigned slot = ((unsigned)code >> 8) & 0xffffff;
    const char *cs = dfc_err_class_string(cls);
    if (!cs) cs = "unknown error code";
    pthread_mutex_lock(&err_lock);
    if (slot > 0 && slot < DFC_ERR_RING && err_ring[slot][0])
        snprintf(buf, len, "%s (%s)", err_ring[slot], cs);
    else snprintf(buf, len, "%s", cs);
    pthread_mutex_unlock(&err_lock);
}
