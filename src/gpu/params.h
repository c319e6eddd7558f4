/*
 * params.h - the GPU daemon's environment parameters (DFC_GPU_*), read in one place
 * (params.c) so that they are registered with dfc_env even on a machine without a GPU,
 * where the daemon never starts: dfc_info lists them all the same.
 */
#ifndef DFC_GPU_PARAMS_H
#define DFC_GPU_PARAMS_H

/* The values as read, before any clamping (the daemon clamps them where it uses them). */
typedef struct dfc_gpu_params {
    long device;            /* DFC_GPU_DEVICE, -1: local rank modulo the device count */
    long channels;          /* DFC_GPU_CHANNELS */
    long slots;             /* DFC_GPU_SLOTS */
    long chunk;             /* DFC_GPU_CHUNK, bytes */
    long depth;             /* DFC_GPU_FIFO_DEPTH, entries */
    long fifo_mib;          /* DFC_GPU_FIFO_MEMORY, MiB */
    long daemon;            /* DFC_GPU_DAEMON, 0 or 1 */
    double relaunch_us;     /* DFC_GPU_RELAUNCH_US */
    long idle_us;           /* DFC_GPU_IDLE_US */
    long linger_us;         /* DFC_GPU_LINGER_US */
    long channel_min_bytes; /* DFC_GPU_CHANNEL_MIN_BYTES */
    long spin_budget;       /* DFC_GPU_SPIN_BUDGET */
    long spin_budget_min;   /* DFC_GPU_SPIN_BUDGET_MIN */
    long spin_budget_max;   /* DFC_GPU_SPIN_BUDGET_MAX */
    long trace;             /* DFC_GPU_TRACE, 0 or 1 */
    long rendezvous;        /* DFC_GPU_RENDEZVOUS, 0 or 1 */
    long fault_launch;      /* DFC_GPU_FAULT_LAUNCH (tests) */
    int proxy;              /* DFC_GPU_PROXY: DFC_GPU_PROXY_OFF, _AUTO or _FORCE */
    long peers_max;         /* DFC_GPU_PEERS_MAX (tests), 2 .. DFC_GPU_MAX_LOCAL */
    long proxy_stage_max;   /* DFC_GPU_PROXY_STAGE_MAX, bytes */
} dfc_gpu_params_t;

enum { DFC_GPU_PROXY_OFF, DFC_GPU_PROXY_AUTO, DFC_GPU_PROXY_FORCE };

/* Reads every DFC_GPU_* parameter (and so registers it); p may be NULL to register only. */
void dfc_gpu_params_read(dfc_gpu_params_t *p);

#endif /* DFC_GPU_PARAMS_H */
