/*
 * daemon_reduce.cuh - block-wide copies and reductions of the daemon kernel.
 *
 * All loads use the L2 (ld.global.cg): a persistent kernel re-reads memory that other
 * blocks, other kernels and other GPUs (through NVLink) have written since, and L1 is not
 * coherent. Aligned ranges move in 16-byte vectors, four per thread in flight.
 * Reductions compute in = in (op) inout exactly as the host does (src/comm/op.c):
 * a = in, b = inout, "a > b ? a : b" for max; 16-bit floats widen to float and round back to
 * nearest-even, which is the correctly rounded result.
 */
#ifndef DFC_GPU_DAEMON_REDUCE_CUH
#define DFC_GPU_DAEMON_REDUCE_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "gpu/daemon_abi.h"

/* Threads t of B (by default the whole block) copy n bytes. */
__device__ static void block_copy(char *dst, const char *src, uint64_t n, uint64_t t = threadIdx.x,
                                  uint64_t B = blockDim.x)
{
    if ((((uintptr_t)dst | (uintptr_t)src) & 15) == 0) {
        const uint4 *s = (const uint4 *)src;
        uint4 *d = (uint4 *)dst;
        uint64_t nv = n / 16, k = t;
        for (; k + 3 * B < nv; k += 4 * B) {
            uint4 a = __ldcg(s + k), b = __ldcg(s + k + B), c = __ldcg(s + k + 2 * B),
                  e = __ldcg(s + k + 3 * B);
            d[k] = a;
            d[k + B] = b;
            d[k + 2 * B] = c;
            d[k + 3 * B] = e;
        }
        for (; k < nv; k += B) d[k] = __ldcg(s + k);
        for (k = nv * 16 + t; k < n; k += B) dst[k] = __ldcg((const signed char *)src + k);
    } else if ((((uintptr_t)dst | (uintptr_t)src | n) & 3) == 0) {
        for (uint64_t k = t; k < n / 4; k += B)
            ((uint32_t *)dst)[k] = __ldcg((const unsigned int *)src + k);
    } else {
        for (uint64_t k = t; k < n; k += B) dst[k] = __ldcg((const signed char *)src + k);
    }
}

/* Element traits: storage type S, computation in C. */
template <int TYPE> struct elem;
template <> struct elem<DFC_GPU_I32> {
    typedef int32_t S;
    typedef int32_t C;
};
template <> struct elem<DFC_GPU_U32> {
    typedef uint32_t S;
    typedef uint32_t C;
};
template <> struct elem<DFC_GPU_I64> {
    typedef long long S;
    typedef long long C;
};
template <> struct elem<DFC_GPU_U64> {
    typedef unsigned long long S;
    typedef unsigned long long C;
};
template <> struct elem<DFC_GPU_F32> {
    typedef float S;
    typedef float C;
};
template <> struct elem<DFC_GPU_F64> {
    typedef double S;
    typedef double C;
};
template <> struct elem<DFC_GPU_BF16> {
    typedef unsigned short S;
    typedef float C;
};
template <> struct elem<DFC_GPU_F16> {
    typedef unsigned short S;
    typedef float C;
};

template <int TYPE>
__device__ __forceinline__ typename elem<TYPE>::C widen(typename elem<TYPE>::S v)
{
    return v;
}
template <> __device__ __forceinline__ float widen<DFC_GPU_BF16>(unsigned short v)
{
    return __uint_as_float((uint32_t)v << 16);
}
template <> __device__ __forceinline__ float widen<DFC_GPU_F16>(unsigned short v)
{
    return __half2float(__ushort_as_half(v));
}
template <int TYPE>
__device__ __forceinline__ typename elem<TYPE>::S narrow(typename elem<TYPE>::C v)
{
    return v;
}
template <> __device__ __forceinline__ unsigned short narrow<DFC_GPU_BF16>(float v)
{
    return __bfloat16_as_ushort(__float2bfloat16_rn(v));
}
template <> __device__ __forceinline__ unsigned short narrow<DFC_GPU_F16>(float v)
{
    return __half_as_ushort(__float2half_rn(v));
}

template <int OP, typename C> __device__ __forceinline__ C apply(C a, C b)
{
    switch (OP) {
    case DFC_GPU_SUM: return a + b;
    case DFC_GPU_PROD: return a * b;
    case DFC_GPU_MIN: return a < b ? a : b;
    default: return a > b ? a : b; /* DFC_GPU_MAX */
    }
}
/* Logical and bitwise operations exist for integers only (MPI 6.9.2). */
template <int OP, typename C> __device__ __forceinline__ C apply_int(C a, C b)
{
    switch (OP) {
    case DFC_GPU_LAND: return (C)(a && b);
    case DFC_GPU_LOR: return (C)(a || b);
    case DFC_GPU_LXOR: return (C)(!a != !b);
    case DFC_GPU_BAND: return a & b;
    case DFC_GPU_BOR: return a | b;
    case DFC_GPU_BXOR: return a ^ b;
    default: return apply<OP, C>(a, b);
    }
}

template <int TYPE> __host__ __device__ constexpr bool is_float()
{
    return TYPE == DFC_GPU_F32 || TYPE == DFC_GPU_F64 || TYPE == DFC_GPU_BF16 ||
           TYPE == DFC_GPU_F16;
}

template <int TYPE, int OP>
__device__ __forceinline__ typename elem<TYPE>::S combine(typename elem<TYPE>::S a,
                                                          typename elem<TYPE>::S b)
{
    typedef typename elem<TYPE>::C C;
    if constexpr (is_float<TYPE>())
        return narrow<TYPE>(apply<OP, C>(widen<TYPE>(a), widen<TYPE>(b)));
    else return apply_int<OP, C>(a, b);
}

/* vb = va (op) vb element-wise over one 16-byte vector (vb (op) va with in_second). */
template <int TYPE, int OP>
__device__ __forceinline__ void combine_vec(const uint4 &va, uint4 &vb, int in_second)
{
    typedef typename elem<TYPE>::S S;
    const S *pa = (const S *)&va;
    S *pb = (S *)&vb;
#pragma unroll
    for (int j = 0; j < (int)(16 / sizeof(S)); j++)
        pb[j] = in_second ? combine<TYPE, OP>(pb[j], pa[j]) : combine<TYPE, OP>(pa[j], pb[j]);
}

/* io[i] = in[i] (op) io[i]; with in_second, io[i] = io[i] (op) in[i]. Aligned ranges go in
 * 16-byte vectors, four pairs of loads per thread in flight (as block_copy). */
template <int TYPE, int OP>
__device__ static void reduce_typed(const char *in_, char *io_, uint64_t count, int in_second,
                                    uint64_t t, uint64_t B)
{
    typedef typename elem<TYPE>::S S;
    const S *in = (const S *)in_;
    S *io = (S *)io_;
    const uint64_t V = 16 / sizeof(S);
    uint64_t nv = ((((uintptr_t)in | (uintptr_t)io) & 15) == 0) ? count / V : 0, k = t;
    const uint4 *vin = (const uint4 *)in;
    uint4 *vio = (uint4 *)io;
    for (; k + 3 * B < nv; k += 4 * B) {
        uint4 a[4], b[4];
#pragma unroll
        for (int u = 0; u < 4; u++) a[u] = __ldcg(vin + k + u * B);
#pragma unroll
        for (int u = 0; u < 4; u++) b[u] = __ldcg(vio + k + u * B);
#pragma unroll
        for (int u = 0; u < 4; u++) {
            combine_vec<TYPE, OP>(a[u], b[u], in_second);
            vio[k + u * B] = b[u];
        }
    }
    for (; k < nv; k += B) {
        uint4 va = __ldcg(vin + k), vb = __ldcg(vio + k);
        combine_vec<TYPE, OP>(va, vb, in_second);
        vio[k] = vb;
    }
    for (uint64_t k = nv * V + t; k < count; k += B) {
        S a = __ldcg(in + k), b = __ldcg(io + k);
        io[k] = in_second ? combine<TYPE, OP>(b, a) : combine<TYPE, OP>(a, b);
    }
}

template <int TYPE>
__device__ static void reduce_op(int op, const char *in, char *io, uint64_t count, int in_second,
                                 uint64_t t, uint64_t B)
{
    switch (op) {
    case DFC_GPU_SUM: reduce_typed<TYPE, DFC_GPU_SUM>(in, io, count, in_second, t, B); break;
    case DFC_GPU_PROD: reduce_typed<TYPE, DFC_GPU_PROD>(in, io, count, in_second, t, B); break;
    case DFC_GPU_MIN: reduce_typed<TYPE, DFC_GPU_MIN>(in, io, count, in_second, t, B); break;
    case DFC_GPU_MAX: reduce_typed<TYPE, DFC_GPU_MAX>(in, io, count, in_second, t, B); break;
    default:
        if constexpr (!is_float<TYPE>()) switch (op) {
            case DFC_GPU_LAND:
                reduce_typed<TYPE, DFC_GPU_LAND>(in, io, count, in_second, t, B);
                break;
            case DFC_GPU_LOR:
                reduce_typed<TYPE, DFC_GPU_LOR>(in, io, count, in_second, t, B);
                break;
            case DFC_GPU_LXOR:
                reduce_typed<TYPE, DFC_GPU_LXOR>(in, io, count, in_second, t, B);
                break;
            case DFC_GPU_BAND:
                reduce_typed<TYPE, DFC_GPU_BAND>(in, io, count, in_second, t, B);
                break;
            case DFC_GPU_BOR:
                reduce_typed<TYPE, DFC_GPU_BOR>(in, io, count, in_second, t, B);
                break;
            case DFC_GPU_BXOR:
                reduce_typed<TYPE, DFC_GPU_BXOR>(in, io, count, in_second, t, B);
                break;
            }
    }
}

/* Threads t of B (by default the whole block) reduce count items. */
__device__ static void block_reduce(int type, int op, const char *in, char *io, uint64_t count,
                                    int in_second, uint64_t t = threadIdx.x,
                                    uint64_t B = blockDim.x)
{
    switch (type) {
    case DFC_GPU_I32: reduce_op<DFC_GPU_I32>(op, in, io, count, in_second, t, B); break;
    case DFC_GPU_U32: reduce_op<DFC_GPU_U32>(op, in, io, count, in_second, t, B); break;
    case DFC_GPU_I64: reduce_op<DFC_GPU_I64>(op, in, io, count, in_second, t, B); break;
    case DFC_GPU_U64: reduce_op<DFC_GPU_U64>(op, in, io, count, in_second, t, B); break;
    case DFC_GPU_F32: reduce_op<DFC_GPU_F32>(op, in, io, count, in_second, t, B); break;
    case DFC_GPU_F64: reduce_op<DFC_GPU_F64>(op, in, io, count, in_second, t, B); break;
    case DFC_GPU_BF16: reduce_op<DFC_GPU_BF16>(op, in, io, count, in_second, t, B); break;
    case DFC_GPU_F16: reduce_op<DFC_GPU_F16>(op, in, io, count, in_second, t, B); break;
    }
}

#endif /* DFC_GPU_DAEMON_REDUCE_CUH */
