/*
 * envcheck - DFC_Init checks the environment (dfc_env(7), "CHECKS"): a DFC_ variable that is
 * no parameter draws exactly one warning line, from rank 0 only, naming it and the nearest
 * parameter; the source tree's script variables (DFC_LAUNCHERS, DFC_TEST_NODES) and valid
 * parameters draw none. The variables are set here, before DFC_Init. Its standard error goes
 * through a pipe to a thread that keeps the text and passes on every line but the expected
 * warning, so that anything else (a fatal message) still reaches the runner.
 * A bad value ends the job instead: the testlist runs initfin with bad values and expects
 * DFC_Init's fatal message (see init/testlist).
 */
#include <pthread.h>
#include <unistd.h>

#include "../dfctest.h"

#define WARNING                                                                    \
    "[dfc rank 0] warning: DFC_EAGER_LIMT is set, but DFC has no such parameter; " \
    "did you mean DFC_EAGER_LIMIT? (see dfc_env(7))\n"

static char text[8192];
static size_t ntext;
static int real_stderr;

static void *tee(void *arg)
{
    int fd = *(int *)arg;
    char line[2048];
    size_t n = 0;
    char c;
    while (read(fd, &c, 1) == 1) {
        if (ntext < sizeof text - 1) text[ntext++] = c;
        if (n < sizeof line) line[n++] = c;
        if (c != '\n') continue;
        if (n != strlen(WARNING) || memcmp(line, WARNING, n)) /* pass on what is unexpected */
            if (write(real_stderr, line, n) < 0) break;
        n = 0;
    }
    if (n && write(real_stderr, line, n) < 0) n = 0;
    return NULL;
}

int main(int argc, char **argv)
{
    setenv("DFC_EAGER_LIMT", "4096", 1); /* the typo */
    setenv("DFC_EAGER_LIMIT", "64k", 1);
    setenv("DFC_LAUNCHERS", "mpirun", 1);
    if (!getenv("DFC_TEST_NODES")) setenv("DFC_TEST_NODES", "0", 1);

    int p[2];
    pthread_t th;
    fflush(stderr);
    if (pipe(p) || (real_stderr = dup(2)) < 0 || dup2(p[1], 2) < 0) {
        perror("envcheck: pipe, dup or dup2");
        return 1;
    }
    close(p[1]);
    pthread_create(&th, NULL, tee, &p[0]);
    dfct_init(&argc, &argv);
    fflush(stderr);
    dup2(real_stderr, 2); /* closes the pipe's last write end: the thread sees its end */
    pthread_join(th, NULL);
    close(p[0]);

    text[ntext] = 0;
    if (dfct_rank == 0)
        DFCT_CHECK(!strcmp(text, WARNING), "DFC_Init wrote \"%s\", expected \"%s\"", text, WARNING);
    else
        DFCT_CHECK(ntext == 0, "rank %d: DFC_Init wrote \"%s\", expected nothing", dfct_rank, text);
    return dfct_finalize();
}
