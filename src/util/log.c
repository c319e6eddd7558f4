/*
 * log.c - debug logging to stderr, off unless DFC_DEBUG asks for it, and fatal errors.
 *
 * DFC_DEBUG="<level>[:<subsys>,<subsys>...]": level 1 errors, 2 info, 3 trace; without a
 * subsystem list every subsystem logs. Subsystems: init, boot, tl, shm, tcp, p2p, coll,
 * sched, gpu, stage, error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/dfc_util.h"

int dfc_log_level;
static char log_subsystems[256];
static int log_rank = -1;

static void default_abort(int code, const char *msg)
{
    (void)msg;
    (void)code;
    abort();
}
void (*dfc_abort_hook)(int code, const char *msg) = default_abort;

void dfc_log_init(int world_rank)
{
    const char *s = dfc_env_str(
        "DFC_DEBUG", "0", "debug log to stderr: level[:subsys,...], 1 errors, 2 info, 3 trace");
    log_rank = world_rank;
    dfc_log_level = atoi(s);
    const char *colon = strchr(s, ':');
    log_subsystems[0] = 0;
    if (colon) snprintf(log_subsystems, sizeof log_subsystems, ",%s,", colon + 1);
}

int dfc_log_enabled(int level, const char *subsys)
{
    if (dfc_log_level < level) return 0;
    if (!log_subsystems[0]) return 1;
    char needle[40];
    snprintf(needle, sizeof needle, ",%s,", subsys);
    return strstr(log_subsystems, needle) != NULL;
}

void dfc_log_write(const char *subsys, const char *fmt, ...)
{
    char line[1024];
    int n = snprintf(line, sizeof line, "[dfc %d:%d %.6f %s] ", log_rank, (int)getpid(),
                     dfc_time_now(), subsys);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && n < (int)sizeof line) vsnprintf(line + n, sizeof line - n, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", line);
}

void dfc_fatal(const char *fmt, ...)
{
    char msg[DFC_MAX_ERROR_STRING + 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "[dfc rank %d] fatal: %s\n", log_rank, msg);
    fflush(stderr);
    dfc_abort_hook(1, msg);
    abort(); /* the hook should not return */
}
