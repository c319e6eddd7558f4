/*
 * params.c - the GPU daemon's parameters, read in one place (see params.h). The daemon
 * reads them here when it starts; dfc_env_register_all reads them here on any machine.
 */
#include <stddef.h>
#include <string.h>

#include "gpu/dfc_gpu.h"
#include "gpu/params.h"
#include "util/dfc_util.h"

/* The host proxy's parameters (issue 15). */
static void read_proxy(dfc_gpu_params_t *p)
{
    const char *proxy = dfc_env_str(
        "DFC_GPU_PROXY", "auto",
        "auto: the GPU daemon reaches peers on other nodes through a host proxy (mapped host "
        "memory and the host transport): every process of a job of at most 16, its rail or its "
        "rail's ring neighbours in a larger job of equal nodes; force: "
        "every other process counts as remote, also on this node (testing); off: device "
        "collectives with a member on another node are staged through host memory");
    p->peers_max = dfc_env_long(
        "DFC_GPU_PEERS_MAX", DFC_GPU_MAX_LOCAL,
        "testing: the most processes a GPU daemon connects, itself included (2 to 16, the size "
        "of its peer tables), so that rail and ring jobs can be made of few processes; the same "
        "on every process");
    if (p->peers_max < 2 || p->peers_max > DFC_GPU_MAX_LOCAL) p->peers_max = DFC_GPU_MAX_LOCAL;
    p->proxy_stage_max = dfc_env_long(
        "DFC_GPU_PROXY_STAGE_MAX", 524288,
        "an allreduce, reduce or bcast on device buffers of at most this many bytes whose "
        "communicator spans nodes is staged through host memory instead of running in the GPU "
        "daemon through its host proxy (0: never; the same on every process)");
    p->proxy = !strcmp(proxy, "off")     ? DFC_GPU_PROXY_OFF
               : !strcmp(proxy, "force") ? DFC_GPU_PROXY_FORCE
                                         : DFC_GPU_PROXY_AUTO;
}

void dfc_gpu_params_read(dfc_gpu_params_t *out)
{
    dfc_gpu_params_t p;
    p.device = dfc_env_long(
        "DFC_GPU_DEVICE", -1,
        "CUDA device of this process (-1: the local rank modulo the number of devices)");
    p.channels = dfc_env_long(
        "DFC_GPU_CHANNELS", 32,
        "thread blocks of the GPU daemon kernel; each moves one slice of every collective");
    p.slots = dfc_env_long(
        "DFC_GPU_SLOTS", 2,
        "mailbox FIFOs per pair of GPUs and channel (collectives in flight between a pair "
        "without sharing one)");
    p.chunk = dfc_env_long(
        "DFC_GPU_CHUNK", 0,
        "bytes of one mailbox chunk (one FIFO entry); 0: the largest power of two up to 256 KiB "
        "with which the mailboxes fit DFC_GPU_FIFO_MEMORY");
    p.fifo_mib = dfc_env_long(
        "DFC_GPU_FIFO_MEMORY", 256,
        "MiB of device memory per GPU for mailboxes and spill chunks, when DFC_GPU_CHUNK is 0");
    p.depth = dfc_env_long(
        "DFC_GPU_FIFO_DEPTH", 4,
        "entries of one mailbox FIFO: chunks a sender may have in flight to a peer per channel and slot");
    p.daemon =
        dfc_env_long("DFC_GPU_DAEMON", 1,
                     "1: collectives on device buffers run in the GPU daemon kernel where every "
                     "rank of the communicator has its own GPU on one node; 0: they are staged "
                     "through host memory");
    p.relaunch_us = dfc_env_double(
        "DFC_GPU_RELAUNCH_US", 50,
        "microseconds after the daemon kernel left before the host launches it again while work is pending");
    p.idle_us = dfc_env_long(
        "DFC_GPU_IDLE_US", 1000,
        "the daemon kernel exits when nothing it holds has moved for this many microseconds");
    p.linger_us = dfc_env_long(
        "DFC_GPU_LINGER_US", 200,
        "an idle daemon block (empty queue) waits this many microseconds for work before it exits");
    p.channel_min_bytes = dfc_env_long(
        "DFC_GPU_CHANNEL_MIN_BYTES", 65536,
        "a transfer is split over at most bytes/this channels (so small ones use one)");
    p.spin_budget = dfc_env_long(
        "DFC_GPU_SPIN_BUDGET", 8,
        "sweeps the daemon's head collective may spend waiting on a peer before it is preempted");
    p.spin_budget_min = dfc_env_long("DFC_GPU_SPIN_BUDGET_MIN", 4,
                                     "smallest adaptive GPU spin budget");
    p.spin_budget_max = dfc_env_long("DFC_GPU_SPIN_BUDGET_MAX", 4096,
                                     "largest adaptive GPU spin budget");
    p.trace = dfc_env_long(
        "DFC_GPU_TRACE", 0,
        "1: the daemon records when each collective is admitted, loaded, first sends, first "
        "receives and completes, and DFC_Finalize prints the median of each phase to stderr; "
        "2: also where channel 0 spends its cycles");
    p.rendezvous = dfc_env_long(
        "DFC_GPU_RENDEZVOUS", 1,
        "1: a GPU daemon sender waits until the receiver has invited each step (no collective's "
        "chunks can block a FIFO shared with another, whatever the order of starts); 0: the "
        "earlier eager protocol, for comparison");
    p.fault_launch = dfc_env_long(
        "DFC_GPU_FAULT_LAUNCH", 0,
        "testing: n > 0 makes the n-th launch of the daemon kernel fail once, n < 0 every launch "
        "from the -n-th on (the launch is made with an invalid configuration)");
    read_proxy(&p);
    if (out) *out = p;
}
