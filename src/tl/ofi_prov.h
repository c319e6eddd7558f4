/*
 * ofi_prov.h - which libfabric provider the ofi transport uses (ofi_prov.c).
 *
 * Candidates are the providers fi_getinfo lists for FI_EP_RDM with FI_TAGGED and
 * FI_ORDER_SAS. DFC_OFI_PROVIDER names one ("tcp;ofi_rxm", "verbs;ofi_rxm", "efa", ...);
 * unset, the first one that is not a socket provider is chosen (verbs, efa, cxi, psm3 ...
 * in libfabric's own order), and DFC_TRANSPORT=ofi falls back to libfabric's tcp path with a
 * native RDM endpoint (net in 1.17; tcp alone from 1.18, where net's code became tcp), else
 * to the first candidate (tcp;ofi_rxm on older libfabric). Socket providers are those whose name has a
 * component tcp, udp, sockets, net or shm (shm reaches one node only).
 */
#ifndef DFC_OFI_PROV_H
#define DFC_OFI_PROV_H

#include <stddef.h>

struct fi_info;

/* 1 when the provider name is a socket provider (see above). */
int dfc_ofi_prov_is_socket(const char *name);

/* 1 when the rendezvous may read from the provider's RMA (ofi_rma.c), given FI_RMA: not over
 * the sockets provider, whose progress thread leaves a read's response unsent for seconds
 * when peers read from each other at once (ofi_prov.c says what was measured). */
int dfc_ofi_prov_reads_ok(const char *name);

/* 1 when the provider's fi_trywait does not prepare its completion queue's wait fd for
 * sleeping, so the transport sleeps on a wait set of its own (ofi.c, ofi_wait). libfabric
 * 1.17's net provider (native FI_EP_RDM over tcp; the tcp provider has its code from 1.18,
 * with the same trywait until 1.20, hence tcp too): its fabric's trywait returns success
 * without looking at the queue, and the wait object's signal, set by the first completion,
 * is reset only inside util's own wait code (fi_wait, fi_trywait of other providers); the
 * fd stayed readable for good, and a rank waiting 2 s for a message used 1.9 s of CPU.
 * fi_wait(set, 0) runs that code: it resets the signal and says whether the queue has
 * entries. */
int dfc_ofi_prov_needs_waitset(const char *name);

/* Sets environment variable name to value unless the environment already has it (the
 * user's choice stands, even an empty one). Returns 1 when it set it. */
int dfc_ofi_prov_env_default(const char *name, unsigned long value);

/* Over rxm (prov_name contains ofi_rxm): FI_OFI_RXM_EAGER_LIMIT defaults to largest_msg, the
 * longest message the transport sends (a full packet), unless the user set it. rxm over the
 * tcp provider (dynamic receive buffers) sends a message up to that limit as one tcp
 * message straight into the receiver's posted buffer; above it (16 KiB by default, its
 * buffer size) it used its own rendezvous: a request, an RMA read served only inside the
 * sender's libfabric calls, and an acknowledgement, for each DFC packet of 16 to 64 KiB
 * (ping-pong 32 KiB 40 us against 12 with the limit raised; BENCHMARKS.md). rxm reads the
 * variable when it opens an endpoint, so this runs before fi_endpoint. Other providers (and
 * rxm over verbs) ignore it. Returns 1 when it set it. */
int dfc_ofi_prov_rxm_defaults(const char *prov_name, size_t largest_msg);

/* The fi_info to open (the caller frees it with fi_freeinfo), or NULL with an error
 * recorded. want: DFC_OFI_PROVIDER or NULL; any_ok: a socket provider may be chosen; rma:
 * the chosen provider's entry with FI_RMA, FI_READ and FI_REMOTE_READ where it has one (the
 * choice of provider does not depend on it). */
int dfc_ofi_prov_choose(const char *want, int any_ok, int rma, struct fi_info **out);
/* 1 when the provider of i reports FI_HMEM (device memory registration) on its domain.
 * Which device kinds (FI_HMEM_CUDA ...) it covers shows only when such memory is
 * registered, which DFC does not do yet (dfc_tl_ofi(7)). */
int dfc_ofi_prov_hmem(const struct fi_info *i);
/* NULL once libfabric is loaded (ofi_dl.c: loading it now if it was not tried), else why it
 * could not be. */
const char *dfc_tl_ofi_load_error(void);

#endif /* DFC_OFI_PROV_H */
