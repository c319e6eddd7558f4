/*
 * fake_cuda_driver.c - a stand-in CUDA driver (soname libcuda.so.1) for test_memtype on
 * machines without GPUs: cuPointerGetAttributes answers from a table of ranges the test sets
 * (fake_cu_set), and counts its calls, so the test can tell which pointers reached the driver.
 * check_memtype.sh builds it as a shared library.
 */
#include <stdint.h>
#include <string.h>

#define NRANGES 16
static struct {
    uintptr_t base, size;
    unsigned type; /* 1 host (registered), 2 device */
    int managed, ordinal;
} ranges[NRANGES];
static int initialized;
unsigned long fake_cu_calls;

void fake_cu_init(int on) { initialized = on; }

/* Range i: [base, base + size) of the given type; size 0 removes it (cudaFree). */
void fake_cu_set(int i, void *base, size_t size, unsigned type, int managed, int ordinal)
{
    ranges[i].base = (uintptr_t)base;
    ranges[i].size = size;
    ranges[i].type = type;
    ranges[i].managed = managed;
    ranges[i].ordinal = ordinal;
}

int cuPointerGetAttributes(unsigned n, int *attrs, void **data, unsigned long long ptr)
{
    fake_cu_calls++;
    if (!initialized) return 3; /* CUDA_ERROR_NOT_INITIALIZED */
    int hit = -1;
    for (int i = 0; i < NRANGES; i++)
        if (ranges[i].size && ptr >= ranges[i].base && ptr < ranges[i].base + ranges[i].size)
            hit = i;
    for (unsigned k = 0; k < n; k++) switch (attrs[k]) {
        case 2: *(unsigned *)data[k] = hit < 0 ? 0 : ranges[hit].type; break;
        case 8: *(unsigned char *)data[k] = hit < 0 ? 0 : (unsigned char)ranges[hit].managed; break;
        case 9: *(int *)data[k] = hit < 0 ? -2 : ranges[hit].ordinal; break;
        case 7: *(unsigned long long *)data[k] = hit < 0 ? 0 : (unsigned long long)hit + 1; break;
        default: return 1; /* CUDA_ERROR_INVALID_VALUE */
        }
    return 0;
}
