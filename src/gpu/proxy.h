/*
 * proxy.h - the GPU daemon's host proxy (issue 15): carries the mailbox writes between a
 * process's kernel and the kernels of peers on other nodes.
 *
 * The kernel writes what is meant for a remote peer P into an outbound pair region and reads
 * what P wrote for it from an inbound pair region (daemon_abi.h, "Peers on other nodes"), both
 * in host memory. The proxy polls the outbound regions (only the channels whose kick word
 * changed), sends every new chunk with its flag, every new ack value and every changed
 * invitation entry to P's proxy over the host transport (point-to-point on a private context,
 * a shadow of DFC_COMM_WORLD), and writes what P's proxy sent into the
 * inbound region: the data, a full barrier, the flag's ident and size, a barrier, its
 * sequence number (an invitation's ordinal before its ident), the release order that
 * src/gpu/PROTOCOL.md sections 4 and 5 require. It needs nothing of CUDA: the CI test
 * (test/mpi-style/pt2pt/proxyfake.c) drives it with host threads in the kernel's part.
 */
#ifndef DFC_GPU_PROXY_H
#define DFC_GPU_PROXY_H

#include "gpu/daemon_abi.h"

typedef struct dfc_gpu_proxy dfc_gpu_proxy_t;

/* n daemon processes, this one at index me; world_of[i]: world rank of daemon index i;
 * out[i], in[i]: the pair regions (dfc_gpu_pair_bytes each, zeroed) of remote peer i, NULL
 * for a peer of this node and for me. Posts the receives. Needs DFC_COMM_WORLD (after
 * the comm layer's init). */
int dfc_gpu_proxy_create(const dfc_gpu_geom_t *g, int me, int n, const int *world_of,
                         char *const *out, char *const *in, dfc_gpu_proxy_t **p);
/* One pass: drops failed peers, applies what arrived, forwards what the kernel wrote.
 * Returns the number of events. Called under the library lock (dfc_gpu_progress). */
int dfc_gpu_proxy_pass(dfc_gpu_proxy_t *p);
/* 1 while sends are in flight or something moved recently (the progress thread polls on). */
int dfc_gpu_proxy_busy(dfc_gpu_proxy_t *p);
/* Keeps the proxy polling for a while (the daemon has work that may write for peers). */
void dfc_gpu_proxy_touch(dfc_gpu_proxy_t *p);
/* 1 when the proxy has dropped peer i (its transport failed). */
int dfc_gpu_proxy_peer_failed(const dfc_gpu_proxy_t *p, int i);
/* Counters since create: chunk records sent and received, bytes of chunk data sent. */
void dfc_gpu_proxy_stats(const dfc_gpu_proxy_t *p, uint64_t *chunks_out, uint64_t *chunks_in,
                         uint64_t *bytes_out);
/* Cancels the receives, lets the sends finish (bounded), frees everything. */
void dfc_gpu_proxy_destroy(dfc_gpu_proxy_t *p);

#endif /* DFC_GPU_PROXY_H */
