/*
 * ofi_prov.h - which libfabric provider the ofi transport uses (ofi_prov.c).
 *
 * Candidates are the providers fi_getinfo lists for FI_EP_RDM with FI_TAGGED and
 * FI_ORDER_SAS. DFC_OFI_PROVIDER names one ("tcp;ofi_rxm", "verbs;ofi_rxm", "efa", ...);
 * unset, the first one that is not a socket provider is chosen (verbs, efa, cxi, psm3 ...
 * in libfabric's own order), and DFC_TRANSPORT=ofi falls back to the first candidate (on
 * machines with only sockets: tcp;ofi_rxm). Socket providers are those whose name has a
 * component tcp, udp, sockets, net or shm (shm reaches one node only).
 */
#ifndef DFC_OFI_PROV_H
#define DFC_OFI_PROV_H

#include <stddef.h>

struct fi_info;

/* 1 when the provider name is a socket provider (see above). */
int dfc_ofi_prov_is_socket(const char *name);

/* The fi_info to open (the caller frees it with fi_freeinfo), or NULL with an error
 * recorded. want: DFC_OFI_PROVIDER or NULL; any_ok: a socket provider may be chosen. */
int dfc_ofi_prov_choose(const char *want, int any_ok, struct fi_info **out);

#endif /* DFC_OFI_PROV_H */
