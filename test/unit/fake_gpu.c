/*
 * fake_gpu.c - a stand-in CUDA runtime and NVML for check_dfc_info.sh, so that dfc_info's
 * GPU section runs on machines without GPUs. Built twice as a shared library: as the CUDA
 * runtime (DFC_CUDA_LIBRARY) and as libnvidia-ml.so.1 (LD_LIBRARY_PATH).
 *
 * Three GPUs: 0 and 1 joined by 4 direct NVLinks; 0 and 2 each with 2 links to NVSwitches;
 * 1 and 2 with nothing between them (PCIe) and no peer access.
 */
#include <stdio.h>
#include <string.h>

static const char *const busids[3] = {"0000:1B:00.0", "0000:43:00.0", "0000:9A:00.0"};
static const unsigned buses[3] = {0x1b, 0x43, 0x9a};

/* ---- CUDA runtime ---- */
int cudaGetDeviceCount(int *n)
{
    *n = 3;
    return 0;
}
int cudaDeviceGetPCIBusId(char *s, int len, int d)
{
    snprintf(s, len, "%s", busids[d]);
    return 0;
}
int cudaGetDeviceProperties_v2(void *p, int d)
{
    memset(p, 0, 1024);
    snprintf(p, 256, "Fake GPU %d", d);
    *(size_t *)((char *)p + 288) = (size_t)80 << 30; /* totalGlobalMem */
    return 0;
}
int cudaDeviceGetAttribute(int *v, int attr, int d)
{
    *v = attr == 75 ? 9 : 0;
    return attr == 75 || attr == 76 ? 0 : 1;
}
int cudaDeviceCanAccessPeer(int *ok, int a, int b)
{
    *ok = a + b != 3;
    return 0;
}

/* ---- NVML (handles are the GPU index + 1) ---- */
typedef struct {
    char legacy[16];
    unsigned domain, bus, device, id, subid;
    char busId[32];
} pci_t;
int nvmlInit_v2(void) { return 0; }
int nvmlDeviceGetHandleByPciBusId_v2(const char *s, void **h)
{
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, busids[i])) {
            *h = (void *)(long)(i + 1);
            return 0;
        }
    return 3; /* NVML_ERROR_NOT_FOUND... any error */
}
/* Which device link l of GPU g reaches: 0-2 a GPU, 9 a switch, -1 inactive. */
static int remote(void *h, unsigned l)
{
    int g = (int)(long)h - 1;
    if (g == 0) return l < 4 ? 1 : l < 6 ? 9 : -1;
    if (g == 1) return l < 4 ? 0 : -1;
    return l < 2 ? 9 : -1;
}
int nvmlDeviceGetNvLinkState(void *h, unsigned l, int *on)
{
    *on = remote(h, l) >= 0;
    return 0;
}
int nvmlDeviceGetNvLinkRemoteDeviceType(void *h, unsigned l, int *t)
{
    *t = remote(h, l) == 9 ? 2 : 0;
    return remote(h, l) >= 0 ? 0 : 1;
}
int nvmlDeviceGetNvLinkRemotePciInfo_v2(void *h, unsigned l, pci_t *p)
{
    int r = remote(h, l);
    if (r < 0 || r > 2) return 1;
    memset(p, 0, sizeof *p);
    p->bus = buses[r];
    return 0;
}
