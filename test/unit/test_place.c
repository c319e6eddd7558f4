/*
 * test_place.c - where the progress thread runs (src/util/place.c, the rule in dfc_place.h),
 * on synthetic hwloc topologies, so that every machine shape is tried on any machine:
 *
 *   - 8 cores x 2 hardware threads, all allowed (mpirun --bind-to none): a core other than
 *     the main thread's, never its sibling; ranks 0-3 sharing the binding get four different
 *     cores, none of them a main thread's;
 *   - the same, bound to one core (--bind-to core with hyperthreads): the sibling only;
 *   - bound to two cores (--map-by ppr:N:node:pe=2): the other core, both its threads;
 *   - one processor: no binding;
 *   - 4 cores x 1 thread, main thread unknown (-1): a core, still one per local rank;
 *   - 2 packages x 4 cores x 2 threads, bound to package 1: a core of package 1.
 * Then dfc_place_helper_thread on this machine: a binding (if any) that excludes the
 * processor the caller runs on and lies within its allowed set.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_check.h"
#include "util/dfc_place.h"

#ifdef HAVE_HWLOC
static hwloc_topology_t topo_of(const char *desc)
{
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) || hwloc_topology_set_synthetic(t, desc) ||
        hwloc_topology_load(t)) {
        FAIL("synthetic topology '%s' could not be loaded", desc);
        return NULL;
    }
    return t;
}

/* The choice as a list string ("" for "no binding"). */
static void pick(hwloc_topology_t t, const char *allowed_list, int main_pu, int lrank, char *out,
                 size_t len)
{
    hwloc_bitmap_t allowed = hwloc_bitmap_alloc(), got = hwloc_bitmap_alloc();
    hwloc_bitmap_list_sscanf(allowed, allowed_list);
    out[0] = 0;
    if (dfc_place_pick(t, allowed, main_pu, lrank, got)) {
        CHECK(hwloc_bitmap_isincluded(got, allowed), "allowed %s, main %d: %s is outside",
              allowed_list, main_pu, out);
        hwloc_bitmap_list_snprintf(out, len, got);
    }
    hwloc_bitmap_free(allowed);
    hwloc_bitmap_free(got);
}

static void expect(hwloc_topology_t t, const char *allowed, int main_pu, int lrank,
                   const char *want)
{
    char got[64];
    pick(t, allowed, main_pu, lrank, got, sizeof got);
    CHECK(!strcmp(got, want), "allowed %s, main on %d, local rank %d: got '%s', want '%s'", allowed,
          main_pu, lrank, got, want);
}

static void synthetic_cases(void)
{
    hwloc_topology_t t = topo_of("core:8 pu:2"); /* core c holds PUs 2c and 2c+1 */
    if (t) {
        expect(t, "0-15", 0, 0, "14-15");  /* the last core */
        expect(t, "0-15", 14, 0, "12-13"); /* ... unless the main thread is on it */
        expect(t, "0-15", 15, 0, "12-13"); /* its sibling counts as the same core */
        expect(t, "0-15", 0, 1, "12-13");  /* spread by local rank */
        char seen[4][64];
        for (int r = 0; r < 4; r++) { /* mains on cores 0-3, threads elsewhere, all apart */
            pick(t, "0-15", 2 * r, r, seen[r], sizeof seen[r]);
            int first = -1;
            sscanf(seen[r], "%d", &first);
            CHECK(first >= 8, "rank %d: thread on %s, among the mains' cores", r, seen[r]);
            for (int q = 0; q < r; q++)
                CHECK(strcmp(seen[q], seen[r]), "ranks %d and %d share %s", q, r, seen[r]);
        }
        expect(t, "6-7", 6, 0, "7");       /* one core, two threads: the sibling */
        expect(t, "6-7", 7, 3, "6");       /* whatever the local rank */
        expect(t, "4-7", 5, 0, "6-7");     /* two cores: the other one, whole */
        expect(t, "4-7", 6, 1, "4-5");     /* spread over one candidate: the same */
        expect(t, "9", 9, 0, "");          /* one processor: no binding */
        expect(t, "0-15", -1, 0, "14-15"); /* main unknown: every core is a candidate */
        hwloc_topology_destroy(t);
    }
    if ((t = topo_of("core:4 pu:1"))) {
        expect(t, "0-3", -1, 0, "3");
        expect(t, "0-3", 3, 0, "2");
        expect(t, "0-3", 1, 2, "0"); /* candidates 3, 2, 0: the third from the end */
        expect(t, "0-3", 1, 3, "3"); /* wraps around to the first */
        hwloc_topology_destroy(t);
    }
    if ((t = topo_of("package:2 core:4 pu:2"))) { /* package 1: PUs 8-15 */
        expect(t, "8-15", 8, 0, "14-15");
        expect(t, "8-15", 8, 3, "14-15"); /* candidates 14-15 12-13 10-11: wraps */
        expect(t, "8-15", 8, 2, "10-11");
        hwloc_topology_destroy(t);
    }
}
#endif

/* This machine: whatever it binds must leave the caller's processor and stay in its set. */
static void this_machine(void)
{
    cpu_set_t mine, chosen;
    char why[200];
    CHECK(!sched_getaffinity(0, sizeof mine, &mine), "sched_getaffinity failed");
    int bound = dfc_place_helper_thread(0, &chosen, why, sizeof why);
    CHECK(why[0], "no reason given for the choice");
    if (bound) {
        CHECK(CPU_COUNT(&chosen) > 0, "an empty binding: %s", why);
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &chosen)) CHECK(CPU_ISSET(c, &mine), "CPU %d outside: %s", c, why);
        /* Where the caller ran when the choice was made (it may have moved since). */
        const char *at = strstr(why, "main thread on ");
        int main_pu = at ? atoi(at + strlen("main thread on ")) : -1;
        CHECK(main_pu < 0 || !CPU_ISSET(main_pu, &chosen), "the main thread's CPU %d chosen: %s",
              main_pu, why);
    } else {
        CHECK(CPU_COUNT(&mine) == 1 || strstr(why, "hwloc") || strstr(why, "could not"),
              "%d processors allowed but no binding: %s", CPU_COUNT(&mine), why);
    }
    printf("test_place: this machine: %s\n", why);
}

int main(void)
{
#ifdef HAVE_HWLOC
    synthetic_cases();
#else
    printf("test_place: built without hwloc, synthetic cases not run\n");
#endif
    this_machine();
    printf("test_place: %d failures\n", failures);
    return failures != 0;
}
