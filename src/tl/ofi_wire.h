/*
 * ofi_wire.h - the ofi transport's message format (internal to src/tl; apart from ofi.c and
 * free of libfabric so that test/fuzz/fuzz_ofi_wire.c can check it on any build).
 *
 * Every libfabric message of the transport is one tagged send (tag DFC_OFI_TAG) holding a
 * dfc_ofi_wire_t, then by kind:
 *   HELLO   the 16-byte job secret and the world size: the first message to each peer;
 *           nothing else from a peer is accepted before a HELLO with the right secret.
 *   PKT     a dfc_pkt_t and its payload_len bytes of payload (8-byte aligned). With
 *           flag DFC_OFI_WF_RKEY (an RTS of host data, no payload), a dfc_ofi_rkey_t follows:
 *           the key and base of the registration the receiver may read the message from.
 *   CREDIT  nothing: `credits` gives send credits back (PKT carries credits too).
 *   BEAT    nothing: keeps the peer's silence rule quiet (keepalive).
 * Host byte order, as tcp's (the cluster is assumed homogeneous). Providers match messages
 * in order (FI_ORDER_SAS) but may complete receives out of order (a large message that the
 * provider moves by its own rendezvous completes after a small one behind it), so the
 * receiver puts them back in order by `seq`.
 */
#ifndef DFC_OFI_WIRE_H
#define DFC_OFI_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "tl/dfc_tl.h"

#define DFC_OFI_MAGIC 0x4f434644u /* "DFCO" */
#define DFC_OFI_SECRET_LEN 16
#define DFC_OFI_TAG 0x0dfc0dfcull

enum { DFC_OFI_HELLO = 1, DFC_OFI_PKT = 2, DFC_OFI_CREDIT = 3, DFC_OFI_BEAT = 4 };

typedef struct dfc_ofi_wire {
    uint32_t magic;
    uint16_t kind;
    uint16_t flags;     /* DFC_OFI_WF_*; 0 on every kind but PKT */
    uint32_t src_world; /* sender's world rank */
    uint32_t credits;   /* send credits returned to the receiver of this message */
    uint32_t seq;       /* per (sender, receiver): 0 for the HELLO, then +1 per message */
    uint32_t reserved2; /* keeps the dfc_pkt_t behind it 8-byte aligned */
} dfc_ofi_wire_t;

#define DFC_OFI_WF_RKEY 0x1 /* PKT: an RTS with a dfc_ofi_rkey_t after the packet */

typedef struct dfc_ofi_rkey {
    uint64_t key;  /* the registration's remote key */
    uint64_t base; /* its first byte's address: reads address offsets from it where the
                      provider has no FI_MR_VIRT_ADDR */
} dfc_ofi_rkey_t;

typedef struct dfc_ofi_hello {
    dfc_ofi_wire_t w;
    uint32_t size; /* world size, as the sender knows it */
    uint32_t reserved;
    uint8_t secret[DFC_OFI_SECRET_LEN];
} dfc_ofi_hello_t;

/* Bytes of a PKT message with payload_len bytes of payload. */
static inline size_t dfc_ofi_pkt_len(uint32_t payload_len)
{
    return sizeof(dfc_ofi_wire_t) + sizeof(dfc_pkt_t) + payload_len;
}

void dfc_ofi_hello_build(dfc_ofi_hello_t *h, int rank, int size,
                         const uint8_t secret[DFC_OFI_SECRET_LEN]);

/* Checks a received message of `len` bytes at buf (8-byte aligned) from a job of `size`
 * ranks. Returns its kind, or -1 with a static reason in *why: too short, wrong magic,
 * unknown kind, sender out of range, a length that does not match the kind, a PKT whose
 * header is not deliverable (type, payload_len > max_payload, src_world differing from the
 * wire's, a key trailer on anything but an RTS without payload, unknown flags), a HELLO with another world size or the wrong secret (compared in constant time). */
int dfc_ofi_wire_check(const void *buf, size_t len, int size, size_t max_payload,
                       const uint8_t secret[DFC_OFI_SECRET_LEN], const char **why);

#endif /* DFC_OFI_WIRE_H */
