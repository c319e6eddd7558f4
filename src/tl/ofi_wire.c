/* ofi_wire.c - building and checking the ofi transport's messages (ofi_wire.h). */
#include "config.h"

#include <string.h>

#include "tl/ofi_wire.h"

void dfc_ofi_hello_build(dfc_ofi_hello_t *h, int rank, int size,
                         const uint8_t secret[DFC_OFI_SECRET_LEN])
{
    memset(h, 0, sizeof(*h));
    h->w = (dfc_ofi_wire_t){.magic = DFC_OFI_MAGIC,
                            .kind = DFC_OFI_HELLO,
                            .src_world = (uint32_t)rank};
    h->size = (uint32_t)size;
    memcpy(h->secret, secret, DFC_OFI_SECRET_LEN);
}

static int ct_equal(const uint8_t *a, const uint8_t *b, size_t n)
{
    uint8_t d = 0;
    for (size_t i = 0; i < n; i++) d |= (uint8_t)(a[i] ^ b[i]);
    return d == 0;
}

static int pkt_check(const void *buf, size_t len, size_t max_payload, const char **why)
{
    const dfc_ofi_wire_t *w = buf;
    if (len < dfc_ofi_pkt_len(0)) {
        *why = "packet shorter than its header";
        return -1;
    }
    const dfc_pkt_t *p = (const dfc_pkt_t *)(w + 1);
    if (p->type == 0 || p->type >= DFC_PKT_TYPE_MAX || p->type == DFC_PKT_HELLO) {
        *why = "packet of an unknown type";
        return -1;
    }
    if (w->flags & ~DFC_OFI_WF_RKEY) {
        *why = "unknown flags";
        return -1;
    }
    size_t extra = 0;
    if (w->flags & DFC_OFI_WF_RKEY) {
        if (p->type != DFC_PKT_RTS || p->payload_len != 0 || (p->flags & DFC_PKT_FLAG_DEV)) {
            *why = "a memory key on a packet other than a host RTS";
            return -1;
        }
        extra = sizeof(dfc_ofi_rkey_t);
    }
    if (p->payload_len > max_payload || len != dfc_ofi_pkt_len(p->payload_len) + extra) {
        *why = "payload length does not match the message";
        return -1;
    }
    if (p->src_world != w->src_world) {
        *why = "packet names another sender";
        return -1;
    }
    return DFC_OFI_PKT;
}

int dfc_ofi_wire_check(const void *buf, size_t len, int size, size_t max_payload,
                       const uint8_t secret[DFC_OFI_SECRET_LEN], const char **why)
{
    const dfc_ofi_wire_t *w = buf;
    if (len < sizeof(*w)) {
        *why = "message shorter than the wire header";
        return -1;
    }
    if (w->magic != DFC_OFI_MAGIC) {
        *why = "wrong magic";
        return -1;
    }
    if (size <= 0 || w->src_world >= (uint32_t)size) {
        *why = "sender outside the job";
        return -1;
    }
    switch (w->kind) {
    case DFC_OFI_PKT: return pkt_check(buf, len, max_payload, why);
    case DFC_OFI_HELLO: {
        const dfc_ofi_hello_t *h = buf;
        if (len != sizeof(*h) || w->flags) {
            *why = "hello of the wrong length or with flags";
            return -1;
        }
        if (h->size != (uint32_t)size) {
            *why = "hello from a job of another size";
            return -1;
        }
        if (!ct_equal(h->secret, secret, DFC_OFI_SECRET_LEN)) {
            *why = "hello with the wrong job secret";
            return -1;
        }
        return DFC_OFI_HELLO;
    }
    case DFC_OFI_CREDIT:
    case DFC_OFI_BEAT:
        if (len != sizeof(*w) || w->flags) {
            *why = "control message of the wrong length";
            return -1;
        }
        return w->kind;
    default: *why = "unknown message kind"; return -1;
    }
}
