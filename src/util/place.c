/*
 * place.c - the core of a rank's helper thread (dfc_place.h has the rule and why).
 *
 * hwloc is asked only here, once per thread started: a rank that starts no helper thread
 * never loads a topology. Without hwloc the thread inherits the caller's binding.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <string.h>

#include "util/dfc_place.h"

#ifdef HAVE_HWLOC
#include <hwloc/glibc-sched.h>

int dfc_place_pick(hwloc_topology_t topo, hwloc_const_cpuset_t allowed, int main_pu, int local_rank,
                   hwloc_cpuset_t out)
{
    int ncores = hwloc_get_nbobjs_inside_cpuset_by_type(topo, allowed, HWLOC_OBJ_CORE);
    if (ncores >= 2) {
        /* Candidates: the allowed cores without the caller's, counted from the end. */
        hwloc_obj_t cand[ncores];
        int ncand = 0;
        for (int i = ncores - 1; i >= 0; i--) {
            hwloc_obj_t c = hwloc_get_obj_inside_cpuset_by_type(topo, allowed, HWLOC_OBJ_CORE, i);
            if (!c || (main_pu >= 0 && hwloc_bitmap_isset(c->cpuset, (unsigned)main_pu))) continue;
            cand[ncand++] = c;
        }
        if (ncand == 0) return 0;
        hwloc_bitmap_and(out, cand[(local_rank < 0 ? 0 : local_rank) % ncand]->cpuset, allowed);
        return !hwloc_bitmap_iszero(out);
    }
    /* One core (or none known): its other processors, if it has any. */
    hwloc_bitmap_copy(out, allowed);
    if (main_pu >= 0 && hwloc_bitmap_isset(out, (unsigned)main_pu))
        hwloc_bitmap_clr(out, (unsigned)main_pu);
    else if (!hwloc_bitmap_iszero(out)) hwloc_bitmap_clr(out, (unsigned)hwloc_bitmap_first(out));
    return !hwloc_bitmap_iszero(out);
}

int dfc_place_helper_thread(int local_rank, cpu_set_t *out, char *why, size_t whylen)
{
    hwloc_topology_t topo;
    hwloc_bitmap_t allowed = hwloc_bitmap_alloc(), here = hwloc_bitmap_alloc(),
                   pick = hwloc_bitmap_alloc();
    int bound = 0;
    const char *what = "the topology could not be read";
    if (why && whylen) why[0] = 0;
    if (!allowed || !here || !pick || hwloc_topology_init(&topo)) goto out_bitmaps;
    if (hwloc_topology_load(topo)) goto out_topo;
    what = "its binding could not be read";
    if (hwloc_get_cpubind(topo, allowed, HWLOC_CPUBIND_THREAD)) goto out_topo;
    int main_pu = -1;
    if (!hwloc_get_last_cpu_location(topo, here, HWLOC_CPUBIND_THREAD))
        main_pu = hwloc_bitmap_first(here);
    hwloc_bitmap_and(allowed, allowed, hwloc_topology_get_allowed_cpuset(topo));
    what = "one processor: the thread shares it";
    if (dfc_place_pick(topo, allowed, main_pu, local_rank, pick)) {
        CPU_ZERO(out);
        bound = !hwloc_cpuset_to_glibc_sched_affinity(topo, pick, out, sizeof *out);
        what = bound ? "bound" : "the choice could not be converted";
    }
    if (why && whylen) {
        char list[128] = "";
        hwloc_bitmap_list_snprintf(list, sizeof list, bound ? pick : allowed);
        snprintf(why, whylen, "%s: CPUs %s (main thread on %d)", what, list, main_pu);
    }
out_topo:
    hwloc_topology_destroy(topo);
out_bitmaps:
    if (!bound && why && whylen && !why[0]) snprintf(why, whylen, "%s", what);
    hwloc_bitmap_free(allowed);
    hwloc_bitmap_free(here);
    hwloc_bitmap_free(pick);
    return bound;
}

#else

int dfc_place_helper_thread(int local_rank, cpu_set_t *out, char *why, size_t whylen)
{
    (void)local_rank;
    (void)out;
    if (why && whylen) snprintf(why, whylen, "built without hwloc: the caller's binding");
    return 0;
}

#endif
