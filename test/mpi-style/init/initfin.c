/*
 * initfin - the environment: DFC_Initialized/DFC_Finalized before, during and after the
 * library's life (MPI-4.1 11.2: Initialized stays true after Finalize), Get_version and
 * Get_library_version (usable before Init), Get_processor_name, Wtime monotonic with a
 * positive Wtick, the thread level that DFC_Init gives, Is_thread_main.
 *
 * The checks after DFC_Finalize cannot be counted by dfct_finalize; a failure there is
 * printed on stderr and makes the exit code non-zero, which the runner treats as failure.
 */
#include <time.h>

#include "../dfctest.h"

int main(int argc, char **argv)
{
    int flag = -1, version = -1, subversion = -1, len = -1, early_errs = 0;
    char lib[DFC_MAX_LIBRARY_VERSION_STRING];

    /* Before Init. */
    if (DFC_Initialized(&flag) != DFC_SUCCESS || flag != 0) {
        fprintf(stderr, "DFC_Initialized before DFC_Init: flag %d\n", flag);
        early_errs++;
    }
    flag = -1;
    if (DFC_Finalized(&flag) != DFC_SUCCESS || flag != 0) {
        fprintf(stderr, "DFC_Finalized before DFC_Init: flag %d\n", flag);
        early_errs++;
    }
    if (DFC_Get_version(&version, &subversion) != DFC_SUCCESS || version != 4 || subversion != 1) {
        fprintf(stderr, "DFC_Get_version before DFC_Init: %d.%d\n", version, subversion);
        early_errs++;
    }
    if (DFC_Get_library_version(lib, &len) != DFC_SUCCESS || len <= 0 || len != (int)strlen(lib)) {
        fprintf(stderr, "DFC_Get_library_version before DFC_Init: len %d\n", len);
        early_errs++;
    }

    dfct_init(&argc, &argv);
    dfct_errs += early_errs;

    flag = -1;
    DFCT_OK(DFC_Initialized(&flag));
    DFCT_CHECK(flag == 1, "DFC_Initialized after DFC_Init: %d", flag);
    flag = -1;
    DFCT_OK(DFC_Finalized(&flag));
    DFCT_CHECK(flag == 0, "DFC_Finalized after DFC_Init: %d", flag);

    DFCT_OK(DFC_Get_version(&version, &subversion));
    DFCT_CHECK(version == DFC_VERSION && subversion == DFC_SUBVERSION && version == 4 &&
                   subversion == 1,
               "Get_version %d.%d, header says %d.%d", version, subversion, DFC_VERSION,
               DFC_SUBVERSION);

    memset(lib, 'x', sizeof lib);
    len = -1;
    DFCT_OK(DFC_Get_library_version(lib, &len));
    DFCT_CHECK(len > 0 && len < DFC_MAX_LIBRARY_VERSION_STRING && len == (int)strlen(lib),
               "Get_library_version: resultlen %d, strlen %zu", len, strnlen(lib, sizeof lib));
    DFCT_CHECK(strstr(lib, "DFC") != NULL, "Get_library_version \"%s\" does not name DFC", lib);

    char name[DFC_MAX_PROCESSOR_NAME];
    memset(name, 'x', sizeof name);
    len = -1;
    DFCT_OK(DFC_Get_processor_name(name, &len));
    DFCT_CHECK(len > 0 && len < DFC_MAX_PROCESSOR_NAME && len == (int)strnlen(name, sizeof name),
               "Get_processor_name: resultlen %d, strlen %zu", len, strnlen(name, sizeof name));

    /* Wtime never goes back; a 20 ms sleep shows as at least ~20 ms; Wtick in (0, 1). */
    double tick = DFC_Wtick(), t0 = DFC_Wtime(), prev = t0;
    DFCT_CHECK(tick > 0 && tick < 1, "Wtick %g", tick);
    for (int i = 0; i < 100000; i++) {
        double t = DFC_Wtime();
        if (t < prev) {
            DFCT_CHECK(0, "Wtime went back from %.9f to %.9f", prev, t);
            break;
        }
        prev = t;
    }
    struct timespec ts = {0, 20 * 1000 * 1000};
    double before = DFC_Wtime();
    nanosleep(&ts, NULL);
    double slept = DFC_Wtime() - before;
    DFCT_CHECK(slept >= 0.019, "Wtime measured %g s over a 20 ms sleep", slept);

    /* DFC_Init is DFC_Init_thread with DFC_THREAD_SINGLE; the level is a valid one. */
    int provided = -1;
    DFCT_OK(DFC_Query_thread(&provided));
    DFCT_CHECK(provided >= DFC_THREAD_SINGLE && provided <= DFC_THREAD_MULTIPLE, "Query_thread %d",
               provided);
    flag = -1;
    DFCT_OK(DFC_Is_thread_main(&flag));
    DFCT_CHECK(flag == 1, "Is_thread_main in main: %d", flag);

    int rc = dfct_finalize();

    /* After Finalize: Finalized is true, Initialized stays true (MPI-4.1 11.2.1, as MPICH). */
    flag = -1;
    if (DFC_Finalized(&flag) != DFC_SUCCESS || flag != 1) {
        fprintf(stderr, "[rank %d] DFC_Finalized after DFC_Finalize: %d, expected 1\n", dfct_rank,
                flag);
        rc = 1;
    }
    flag = -1;
    if (DFC_Initialized(&flag) != DFC_SUCCESS || flag != 1) {
        fprintf(stderr,
                "[rank %d] DFC_Initialized after DFC_Finalize: %d, expected 1 (MPI-4.1 11.2.1)\n",
                dfct_rank, flag);
        rc = 1;
    }
    if (DFC_Get_version(&version, &subversion) != DFC_SUCCESS || version != 4) {
        fprintf(stderr, "[rank %d] DFC_Get_version after DFC_Finalize failed\n", dfct_rank);
        rc = 1;
    }
    return rc;
}
