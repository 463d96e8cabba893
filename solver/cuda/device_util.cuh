/* Device-side helpers shared by the kernels: wide loads, block reductions
 * and the deterministic last-block reduction. */
#ifndef CGM_SOLVER_CUDA_DEVICE_UTIL_CUH
#define CGM_SOLVER_CUDA_DEVICE_UTIL_CUH

#include <stdint.h>
#include <string.h>

#include "solver/cuda/kernels.h"

namespace cgm {

/* Loads N consecutive elements with the widest aligned accesses (16 bytes
 * where the row allows). STREAM: data touched once (the matrix), evict-first;
 * otherwise through the read-only cache (the gathered vector). */
template <typename T, int N, bool STREAM>
__device__ __forceinline__ void load_row(const T *p, T (&out)[N]) {
  constexpr int B = N * (int)sizeof(T);
  if constexpr (B % 16 == 0) {
    const uint4 *q = reinterpret_cast<const uint4 *>(p);
#pragma unroll
    for (int i = 0; i < B / 16; i++) {
      uint4 w = STREAM ? __ldcs(q + i) : __ldg(q + i);
      memcpy(&out[i * (16 / (int)sizeof(T))], &w, 16);
    }
  } else if constexpr (B == 8) {
    uint2 w = STREAM ? __ldcs(reinterpret_cast<const uint2 *>(p))
                     : __ldg(reinterpret_cast<const uint2 *>(p));
    memcpy(&out[0], &w, 8);
  } else {
    static_assert(N == 1, "row of one element");
    out[0] = STREAM ? __ldcs(p) : __ldg(p);
  }
}

/* Sums NV doubles over the block; thread 0 gets the totals. */
template <int NV>
__device__ __forceinline__ void block_sum(double (&v)[NV]) {
  __shared__ double sh[NV][32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = (blockDim.x + 31) >> 5;
#pragma unroll
  for (int k = 0; k < NV; k++)
    for (int off = 16; off > 0; off >>= 1) v[k] += __shfl_xor_sync(0xffffffffu, v[k], off);
  if (lane == 0)
#pragma unroll
    for (int k = 0; k < NV; k++) sh[k][warp] = v[k];
  __syncthreads();
  if (warp == 0) {
#pragma unroll
    for (int k = 0; k < NV; k++) {
      v[k] = lane < nwarps ? sh[k][lane] : 0.0;
      for (int off = 16; off > 0; off >>= 1) v[k] += __shfl_xor_sync(0xffffffffu, v[k], off);
    }
  }
  __syncthreads(); /* sh may be reused by the caller */
}

/* Every block calls this with its partial sums; the last block to arrive
 * adds all partials in block order (deterministic), plus add[0..NV) when
 * given, and writes the totals to every destination of out. Returns true in
 * the last block. */
template <int NV>
__device__ __forceinline__ bool last_block_sum(double (&v)[NV], cgm_reduce_buf red,
                                               const cgm_out &out, const double *add) {
  __shared__ bool is_last;
  block_sum<NV>(v);
  if (threadIdx.x == 0) {
#pragma unroll
    for (int k = 0; k < NV; k++) red.partials[k * red.capacity + blockIdx.x] = v[k];
    __threadfence();
    unsigned arrived = atomicAdd(red.counter, 1u);
    is_last = arrived == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last) return false;
  double t[NV];
#pragma unroll
  for (int k = 0; k < NV; k++) {
    t[k] = 0.0;
    for (int b = threadIdx.x; b < (int)gridDim.x; b += blockDim.x)
      t[k] += __ldcg(red.partials + k * red.capacity + b);
  }
  block_sum<NV>(t);
  if (threadIdx.x == 0) {
#pragma unroll
    for (int k = 0; k < NV; k++) {
      if (add) t[k] += add[k];
      for (int d = 0; d < out.n; d++) out.p[d][k] = t[k];
    }
    *red.counter = 0;
  }
  return true;
}

/* Single destination. */
template <int NV>
__device__ __forceinline__ bool last_block_sum(double (&v)[NV], cgm_reduce_buf red, double *out) {
  cgm_out o;
  o.p[0] = out;
  o.n = 1;
  return last_block_sum<NV>(v, red, o, nullptr);
}

} // namespace cgm

#endif
