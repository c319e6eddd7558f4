/*
 * ofi_fabric.h - libfabric's headers, as every DFC file includes them.
 *
 * libdfc does not link libfabric: it loads it at first use (ofi_dl.c says why). The five
 * functions of libfabric that DFC calls (everything else in these headers is inline,
 * through the ops tables of the objects they return) are renamed here, before the headers
 * are read, to DFC's own forwarders in ofi_dl.c. The renaming reaches the headers' inline
 * functions too (fi_allocinfo calls fi_dupinfo). So libdfc, shared or static, defines no
 * symbol of libfabric's, and a program may link libdfc beside its own libfabric, shared or
 * static (test/unit/check_needed.sh checks both libraries).
 *
 * Include this, never <rdma/...> directly: a file that did would call libfabric itself,
 * which is not linked.
 */
#ifndef DFC_OFI_FABRIC_H
#define DFC_OFI_FABRIC_H

#define fi_getinfo dfc_ofi_getinfo
#define fi_freeinfo dfc_ofi_freeinfo
#define fi_dupinfo dfc_ofi_dupinfo
#define fi_fabric dfc_ofi_fabric
#define fi_strerror dfc_ofi_strerror

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

#endif /* DFC_OFI_FABRIC_H */
