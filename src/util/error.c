/*
 * error.c - error classes, their strings, and the ring of recorded messages.
 *
 * An error is recorded once, where it is detected, as "<function>: <reason>". The code
 * returned up the stack carries the class in its low byte and the message's ring slot
 * above it, so DFC_Error_string can show the specific message later, as MPICH does.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
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
    [DFC_ERR_KEYVAL] = "invalid attribute key",
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
    [DFC_ERR_FILE] = "invalid file handle",
    [DFC_ERR_ACCESS] = "permission denied",
    [DFC_ERR_AMODE] = "invalid access mode for opening a file",
    [DFC_ERR_BAD_FILE] = "invalid file name",
    [DFC_ERR_CONVERSION] = "error in a user-supplied data conversion function",
    [DFC_ERR_DUP_DATAREP] = "data representation identifier already registered",
    [DFC_ERR_FILE_EXISTS] = "file exists",
    [DFC_ERR_FILE_IN_USE] = "file is open by some process",
    [DFC_ERR_IO] = "other I/O error",
    [DFC_ERR_NO_SPACE] = "not enough space",
    [DFC_ERR_NO_SUCH_FILE] = "file does not exist",
    [DFC_ERR_QUOTA] = "quota exceeded",
    [DFC_ERR_READ_ONLY] = "read-only file or file system",
    [DFC_ERR_UNSUPPORTED_DATAREP] = "unsupported data representation",
    [DFC_ERR_NAME] = "invalid service name",
    [DFC_ERR_PORT] = "invalid port name",
    [DFC_ERR_SERVICE] = "invalid service name for unpublishing",
    [DFC_ERR_SPAWN] = "error in spawning processes",
    [DFC_ERR_SESSION] = "invalid session",
    [DFC_ERR_PROC_ABORTED] = "operation failed because a peer process has aborted",
    [DFC_ERR_VALUE_TOO_LARGE] = "value too large to store",
};

/* Added classes and codes (DFC_Add_error_*): counts, and the strings given to them. */
static int user_classes, user_codes, last_used = DFC_ERR_LASTCODE;
static char *user_class_str[256], *user_code_str[DFC_ERR_USER_CODES];
/* DFC_Remove_error_class/_code (MPI-4.1): removed ones are invalid; their numbers are not
 * given out again, so a stale value cannot name a new class or code. */
static unsigned char class_removed[256], code_removed[DFC_ERR_USER_CODES];
static unsigned char user_code_class[DFC_ERR_USER_CODES]; /* the class of each added code */

const char *dfc_err_class_string(int errclass)
{
    if (errclass > DFC_ERR_LASTCODE && errclass <= DFC_ERR_LASTCODE + user_classes)
        return class_removed[errclass]    ? NULL
               : user_class_str[errclass] ? user_class_str[errclass]
                                          : "";
    if (errclass < 0 || errclass > DFC_ERR_LASTCODE) return NULL;
    return class_strings[errclass];
}

static int user_code_index(int code) /* n for an added code, else -1 */
{
    unsigned slot = ((unsigned)code >> 8) & 0xffffff;
    if (code < 0 || slot < DFC_ERR_USER_SLOT || slot >= DFC_ERR_USER_SLOT + (unsigned)user_codes)
        return -1;
    return (int)(slot - DFC_ERR_USER_SLOT);
}

int dfc_err_valid(int code)
{
    if (code < 0 || !dfc_err_class_string(DFC_ERR_CLASS(code))) return 0;
    unsigned slot = ((unsigned)code >> 8) & 0xffffff;
    if (slot < DFC_ERR_RING) return 1;
    int n = user_code_index(code);
    return n >= 0 && !code_removed[n] &&
           ((DFC_ERR_USER_SLOT + (unsigned)n) << 8 | (unsigned)DFC_ERR_CLASS(code)) ==
               (unsigned)code;
}

int dfc_err_remove(int code, int what, const char *func)
{
    int n = user_code_index(code), cls = DFC_ERR_CLASS(code);
    int added = dfc_err_valid(code) && !dfc_err_is_predefined(code) && (n >= 0 || code == cls);
    const char *arg = what == DFC_ERR_REMOVE_CLASS ? "errorclass" : "errorcode";
    const char *kind = what == DFC_ERR_REMOVE_CLASS  ? "class added by DFC_Add_error_class"
                       : what == DFC_ERR_REMOVE_CODE ? "code added by DFC_Add_error_code"
                                                     : "class or code added by DFC_Add_error_*";
    if (!added || (what == DFC_ERR_REMOVE_CLASS && n >= 0) ||
        (what == DFC_ERR_REMOVE_CODE && n < 0))
        return dfc_err(DFC_ERR_ARG, func, "invalid argument %s: %d is not an error %s", arg, code,
                       kind);
    char **str = n >= 0 ? &user_code_str[n] : &user_class_str[cls];
    if (what == DFC_ERR_REMOVE_STRING) {
        if (!*str)
            return dfc_err(DFC_ERR_ARG, func, "invalid argument errorcode: %d has no string", code);
    } else if (what == DFC_ERR_REMOVE_CLASS) {
        for (int i = 0; i < user_codes; i++)
            if (!code_removed[i] && user_code_class[i] == cls)
                return dfc_err(DFC_ERR_ARG, func,
                               "invalid argument errorclass: %d still has error codes "
                               "(remove them first)",
                               code);
        class_removed[cls] = 1;
    } else {
        code_removed[n] = 1;
    }
    free(*str);
    *str = NULL;
    return DFC_SUCCESS;
}

int dfc_err_is_predefined(int code)
{
    return dfc_err_valid(code) && user_code_index(code) < 0 &&
           DFC_ERR_CLASS(code) <= DFC_ERR_LASTCODE;
}

int dfc_err_last_used(void) { return last_used; }

int dfc_err_add_class(int *errclass)
{
    if (DFC_ERR_LASTCODE + user_classes + 1 > 255)
        return DFC_ERR(DFC_ERR_OTHER, "all %d error classes that fit are taken",
                       255 - DFC_ERR_LASTCODE);
    *errclass = DFC_ERR_LASTCODE + ++user_classes;
    if (*errclass > last_used) last_used = *errclass;
    return DFC_SUCCESS;
}

int dfc_err_add_code(int errclass, int *code)
{
    if (user_codes >= DFC_ERR_USER_CODES)
        return DFC_ERR(DFC_ERR_OTHER, "all %d error codes are taken", DFC_ERR_USER_CODES);
    user_code_class[user_codes] = (unsigned char)errclass;
    *code = (int)((DFC_ERR_USER_SLOT + (unsigned)user_codes++) << 8 | (unsigned)errclass);
    if (*code > last_used) last_used = *code;
    return DFC_SUCCESS;
}

int dfc_err_add_string(int code, const char *str)
{
    char *copy = strdup(str), **slot;
    if (!copy) return DFC_ERR(DFC_ERR_NO_MEM, "out of memory copying the error string");
    int n = user_code_index(code);
    slot = n >= 0 ? &user_code_str[n] : &user_class_str[code];
    free(*slot);
    *slot = copy;
    return DFC_SUCCESS;
}

void dfc_err_user_reset(void)
{
    for (int i = 0; i < 256; i++) free(user_class_str[i]), user_class_str[i] = NULL;
    for (int i = 0; i < user_codes; i++) free(user_code_str[i]), user_code_str[i] = NULL;
    user_classes = user_codes = 0;
    last_used = DFC_ERR_LASTCODE;
    memset(class_removed, 0, sizeof class_removed);
    memset(code_removed, 0, sizeof code_removed);
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
    int n = user_code_index(code);
    if (n >= 0) {
        snprintf(buf, len, "%s", user_code_str[n] ? user_code_str[n] : "");
        return;
    }
    pthread_mutex_lock(&err_lock);
    if (slot > 0 && slot < DFC_ERR_RING && err_ring[slot][0])
        snprintf(buf, len, "%s (%s)", err_ring[slot], cs);
    else snprintf(buf, len, "%s", cs);
    pthread_mutex_unlock(&err_lock);
}
