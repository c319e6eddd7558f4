/*
 * dfc_place.h - where a helper thread of a rank runs (the progress thread of
 * DFC_ASYNC_PROGRESS=1, issue 16): a core of the rank's binding that its main thread does not
 * use, chosen with hwloc.
 *
 * The rule (dfc_place_pick), over the processors the calling thread may run on ("allowed"):
 *   - two cores or more: a core other than the one the calling thread runs on, taken from
 *     the end of the list and spread by local rank, so that ranks sharing one binding
 *     (mpirun --bind-to none) put their threads on different cores, away from the low cores
 *     a launcher fills first; the thread may run on every processor of that core;
 *   - one core of several processors (hyperthreads; mpirun --bind-to core on such a
 *     machine): the core's processors other than the calling thread's;
 *   - one processor: no binding (the thread shares it and moves operations only when the
 *     rank waits or is preempted).
 * A thread that shares a core with the computation slows it: the overlap benchmark's compute
 * loop and the thread's passes then compete for one core's pipelines.
 */
#ifndef DFC_PLACE_H
#define DFC_PLACE_H

#include <sched.h>
#include <stddef.h>

/* Chooses the processors for a helper thread that the calling thread is about to start, by
 * the rule above, on this machine's topology. Returns 1 and fills *out when the thread
 * should be bound, 0 when it should inherit the caller's binding (one processor, no hwloc,
 * or a topology that cannot be read); `why` (may be NULL) receives a line for the log. */
int dfc_place_helper_thread(int local_rank, cpu_set_t *out, char *why, size_t whylen);

#ifdef HAVE_HWLOC
#include <hwloc.h>

/* The rule on a given topology (the unit test passes synthetic ones): `allowed` the
 * processors the caller may use, `main_pu` the OS index of the one it runs on (-1: unknown),
 * `local_rank` this process's rank on the node. Returns 1 and sets `out` (allocated by the
 * caller) to the chosen processors, or 0 for "do not bind". */
int dfc_place_pick(hwloc_topology_t topo, hwloc_const_cpuset_t allowed, int main_pu, int local_rank,
                   hwloc_cpuset_t out);
#endif

#endif
