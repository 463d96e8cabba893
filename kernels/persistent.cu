/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Small solves at the launch floor (docs/perf.md, "Small solves"): K steps
 * of the single-reduction CG (vector_kernels.cu's cgg; one GPU, Jacobi,
 * double) in one cooperative kernel, two grid barriers a step: one to add
 * the step's three sums, taken in the SpMV, one before the next SpMV. A
 * thread owns the same rows in both phases, so only u crosses between blocks
 * (read past L1). Between batches the state carries slot K - 1's 1 / alpha
 * and gamma as cgg's graphs do; each batch sums its first u itself. */
#include <cooperative_groups.h>

#include "kernels/cuda_util.h"
#include "kernels/device_util.cuh"
#include "kernels/kernels.h"

#ifndef CGM_PERSIST_THREADS /* a block's threads: 256, 512 or 1024 (-D to measure) */
#define CGM_PERSIST_THREADS 256
#endif

namespace cgm {

constexpr int kPersistThreads = CGM_PERSIST_THREADS;

/* The grid's sums of v: each block's partials to part[k * cap + block], the
 * barrier, then warp 0 of every block adds all partials in a fixed order (the
 * same totals in every block: the same branches, no block left at a barrier). */
template <int NV> __device__ __forceinline__ void grid_sum(double (&v)[NV], double *part, int cap) {
  __shared__ double tot[NV];
  block_sum<NV, false>(v); /* sh is next written past two barriers */
  for (int k = 0; k < NV && threadIdx.x == 0; k++) part[k * cap + blockIdx.x] = v[k];
  cooperative_groups::this_grid().sync();
  if (threadIdx.x < 32) {
    for (int k = 0; k < NV; k++) {
      v[k] = 0.0;
      for (int b = threadIdx.x; b < (int)gridDim.x; b += 32) v[k] += __ldcg(part + k * cap + b);
      for (int off = 16; off > 0; off >>= 1) v[k] += __shfl_xor_sync(0xffffffffu, v[k], off);
      if (threadIdx.x == 0) tot[k] = v[k];
    }
  }
  __syncthreads(); /* tot is written again past the next two barriers */
  for (int k = 0; k < NV; k++) v[k] = tot[k];
}

/* Row slot t (row t % N of brow's slot t / N): its row, -1 in padding. */
template <int N> __device__ __forceinline__ int64_t row_of(const cgm_dev_layout &L, int64_t t) {
  const int32_t b = __ldg(L.brow + t / N);
  return b < 0 ? -1 : (int64_t)b * N + t % N;
}

/* Row slot t times u: its block row's blocks (bcsr-layout.md) U at a time,
 * their loads in flight together; u past L1 (other blocks write it). */
template <int N>
__device__ __forceinline__ double row_times(const cgm_dev_layout &L, const double *__restrict__ val,
                                            const double *u, int64_t t) {
  constexpr int U = N == 1 ? 8 : 8 / N;
  const int64_t js = t / N, sl = js / L.by, b0 = __ldg(L.slice_ptr + sl);
  const int j = (int)(js % L.by), r = (int)(t % N), lbx = __ffs(L.bx) - 1, per = L.by * L.bx;
  const int nblk = (int)((__ldg(L.slice_ptr + sl + 1) - b0) / per) * L.bx;
  double acc = 0.0;
  for (int m0 = 0; m0 < nblk; m0 += U) {
    int32_t col[U];
    double a[U][N];
#pragma unroll
    for (int i = 0; i < U; i++) {
      const int m = m0 + i;
      const int64_t k = b0 + (int64_t)(m >> lbx) * per + ((j << lbx) | (m & (L.bx - 1)));
      col[i] = m < nblk ? __ldg(L.bcol + k) : -1;
      for (int c = 0; c < N; c++) a[i][c] = m < nblk ? __ldg(val + k * N * N + r * N + c) : 0.0;
    }
#pragma unroll
    for (int i = 0; i < U; i++)
      if (col[i] >= 0)
        for (int c = 0; c < N; c++) acc += a[i][c] * __ldcg(u + (int64_t)col[i] * N + c);
  }
  return acc;
}

/* Up to K steps from the state; red: partials of three sums a block. Pass
 * k updates as step k - 1 decided (none at k = 0) and sums r . u and r . r
 * of the new u (r = D u) by thread; step k's SpMV adds u . A u, and the
 * three are reduced together. */
template <int N>
__global__ void __launch_bounds__(kPersistThreads)
    cgg_persistent(cgm_dev_layout L, cgm_cg_state *st, int K, double *x, double *u, double *p,
                   double *w, double *s, const double *dinv, cgm_reduce_buf red) {
  /* a batch queued behind the run's end; done changes only past a barrier */
  if (block_stopped(st)) return;
  const double *__restrict__ val = static_cast<const double *>(L.val);
  const int64_t slots = (int64_t)L.nslices * L.by * N;
  double gamma_prev = st->gamma[K - 1], inv_alpha_prev = st->inv_alpha[K - 1];
  int done = st->iter;
  double alpha = 0.0, beta = 0.0; /* step k - 1's */
  for (int k = 0;; k++, done++) {
    double sums[3] = {0.0, 0.0, 0.0}; /* u . A u, r . u, r . r */
    CGM_GRID_LOOP(t, slots) {         /* as cgg's update */
      const int64_t row = row_of<N>(L, t);
      if (row < 0) continue;
      double ui = u[row], d = dinv[row];
      if (k > 0) {
        const double pi = ui + beta * p[row], si = w[row] + beta * s[row];
        p[row] = pi;
        s[row] = si;
        x[row] += alpha * pi;
        u[row] = ui -= alpha * (d * si);
      }
      const double ri = d != 0.0 ? ui / d : 0.0;
      sums[1] += ri * ui;
      sums[2] += ri * ri;
    }
    if (k == K) return;
    if (k > 0) cooperative_groups::this_grid().sync(); /* u for the SpMV */
    CGM_GRID_LOOP(t, slots) {
      const int64_t row = row_of<N>(L, t);
      if (row < 0) continue;
      const double y = row_times<N>(L, val, u, t);
      w[row] = y;
      sums[0] += u[row] * y;
    }
    grid_sum<3>(sums, red.partials, red.capacity);
    const cgg_step c = cgg_decide(st, sums, gamma_prev, inv_alpha_prev, done, K - 1);
    if (c.stop != CGM_RUN) return; /* every block: the same sums */
    alpha = c.alpha, beta = c.beta;
    gamma_prev = sums[1], inv_alpha_prev = c.den / sums[1];
  }
}

using persistent_fn = void (*)(cgm_dev_layout, cgm_cg_state *, int, double *, double *, double *,
                               double *, double *, const double *, cgm_reduce_buf);

static persistent_fn kernel_for(const cgm_dev_layout *L) {
  const int n = L->long_rows ? 0 : L->n;
  return n == 1   ? cgg_persistent<1>
         : n == 2 ? cgg_persistent<2>
         : n == 4 ? cgg_persistent<4>
         : n == 8 ? cgg_persistent<8>
                  : nullptr;
}

} // namespace cgm

extern "C" cudaError_t cgm_persistent_grid(const cgm_dev_layout *L, int sms, int *blocks) {
  const cgm::persistent_fn k = cgm::kernel_for(L);
  int dev = 0, coop = 0, per_sm = 0;
  cudaError_t e = k ? cudaGetDevice(&dev) : cudaSuccess;
  if (k && !e) e = cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev);
  if (coop && !e)
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, cgm::kPersistThreads, 0);
  /* a row slot a thread where the rows allow: the fewer blocks, the cheaper a barrier */
  const int64_t slots = (int64_t)L->nslices * L->by * L->n, most = coop && !e ? per_sm * sms : 0;
  const int64_t need = (slots + cgm::kPersistThreads - 1) / cgm::kPersistThreads;
  *blocks = (int)(need < most ? (need > 0 ? need : 1) : most);
  return e;
}

extern "C" cudaError_t cgm_launch_persistent(const cgm_dev_layout *L, cgm_cg_state *st, int K,
                                             double *x, double *u, double *p, double *w, double *s,
                                             const double *dinv, cgm_reduce_buf red, int blocks,
                                             cudaStream_t stream) {
  const cgm::persistent_fn k = cgm::kernel_for(L);
  if (!k || K < 1 || blocks < 1 || blocks > red.capacity) return cudaErrorInvalidValue;
  cgm_dev_layout l = *L;
  void *args[] = {&l, &st, &K, &x, &u, &p, &w, &s, &dinv, &red};
  /* refused (cudaErrorCooperativeLaunchTooLarge) unless every block is resident */
  cudaError_t e = cudaLaunchCooperativeKernel((const void *)k, dim3((unsigned)blocks),
                                              dim3(cgm::kPersistThreads), args, 0, stream);
  cudaError_t last = cudaGetLastError(); /* clears what the launch left */
  return e != cudaSuccess ? e : last;
}
