/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Small solves at the launch floor (docs/perf.md, "Small solves"): K steps
 * of the single-reduction CG (vector_kernels.cu's cgg; one GPU, Jacobi,
 * double) in one cooperative kernel, two grid barriers a step. A thread owns
 * the same rows in both phases, so only u crosses between blocks (read past
 * L1). The state carries the run between batches as cgg's graphs do:
 * local[0] u's r . u and r . r, slot K - 1 the last 1 / alpha and gamma. */
#include <cooperative_groups.h>

#include "kernels/cuda_util.h"
#include "kernels/device_util.cuh"
#include "kernels/kernels.h"

namespace cgm {

constexpr int kPersistThreads = 256;

/* The grid's sums of v: each block's partials to part[k * cap + block], the
 * barrier, then every block adds all partials in block order (the same
 * totals in every block: the same branches, no block left at a barrier). */
template <int NV> __device__ __forceinline__ void grid_sum(double (&v)[NV], double *part, int cap) {
  __shared__ double tot[NV];
  block_sum<NV>(v);
  for (int k = 0; k < NV && threadIdx.x == 0; k++) part[k * cap + blockIdx.x] = v[k];
  cooperative_groups::this_grid().sync();
  for (int k = 0; k < NV; k++) {
    v[k] = 0.0;
    for (int b = threadIdx.x; b < (int)gridDim.x; b += blockDim.x)
      v[k] += __ldcg(part + k * cap + b);
  }
  block_sum<NV>(v);
  for (int k = 0; k < NV && threadIdx.x == 0; k++) tot[k] = v[k];
  __syncthreads(); /* tot is written again past the next barrier */
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

/* Up to K steps from the state; red_pq and red_ur: the partials of u . A u
 * and of (r . u, r . r). */
template <int N>
__global__ void __launch_bounds__(kPersistThreads)
    cgg_persistent(cgm_dev_layout L, cgm_cg_state *st, int K, double *x, double *u, double *p,
                   double *w, double *s, const double *dinv, cgm_reduce_buf red_pq,
                   cgm_reduce_buf red_ur) {
  /* a batch queued behind the run's end; done changes only past a barrier */
  if (block_stopped(st)) return;
  const double *__restrict__ val = static_cast<const double *>(L.val);
  const int64_t slots = (int64_t)L.nslices * L.by * N;
  double sums[3] = {0.0, st->local[0].rz, st->local[0].rr};
  double gamma_prev = st->gamma[K - 1], inv_alpha_prev = st->inv_alpha[K - 1];
  int done = st->iter;
  for (int k = 0; k < K; k++, done++) {
    double pq[1] = {0.0};
    CGM_GRID_LOOP(t, slots) {
      const int64_t row = row_of<N>(L, t);
      if (row < 0) continue;
      const double y = row_times<N>(L, val, u, t);
      w[row] = y;
      pq[0] += u[row] * y;
    }
    grid_sum<1>(pq, red_pq.partials, red_pq.capacity);
    sums[0] = pq[0];
    const cgg_step c = cgg_decide(st, sums, gamma_prev, inv_alpha_prev, done, K - 1);
    if (c.stop != CGM_RUN) return; /* every block: the same sums */
    double ur[2] = {0.0, 0.0};
    CGM_GRID_LOOP(t, slots) { /* as cgg's update; r = D u */
      const int64_t row = row_of<N>(L, t);
      if (row < 0) continue;
      const double pi = u[row] + c.beta * p[row], si = w[row] + c.beta * s[row], d = dinv[row];
      p[row] = pi;
      s[row] = si;
      x[row] += c.alpha * pi;
      const double ui = u[row] - c.alpha * (d * si), ri = d != 0.0 ? ui / d : 0.0;
      u[row] = ui;
      ur[0] += ri * ui;
      ur[1] += ri * ri;
    }
    grid_sum<2>(ur, red_ur.partials, red_ur.capacity);
    gamma_prev = sums[1];
    inv_alpha_prev = c.den / sums[1];
    sums[1] = ur[0];
    sums[2] = ur[1];
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) { /* the next batch's first step */
    st->local[0].rz = sums[1];
    st->local[0].rr = sums[2];
  }
}

using persistent_fn = void (*)(cgm_dev_layout, cgm_cg_state *, int, double *, double *, double *,
                               double *, double *, const double *, cgm_reduce_buf, cgm_reduce_buf);

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
                                             const double *dinv, cgm_reduce_buf red_pq,
                                             cgm_reduce_buf red_ur, int blocks,
                                             cudaStream_t stream) {
  const cgm::persistent_fn k = cgm::kernel_for(L);
  if (!k || K < 1 || blocks < 1 || blocks > red_pq.capacity || blocks > red_ur.capacity)
    return cudaErrorInvalidValue;
  cgm_dev_layout l = *L;
  void *args[] = {&l, &st, &K, &x, &u, &p, &w, &s, &dinv, &red_pq, &red_ur};
  /* refused (cudaErrorCooperativeLaunchTooLarge) unless every block is resident */
  cudaError_t e = cudaLaunchCooperativeKernel((const void *)k, dim3((unsigned)blocks),
                                              dim3(cgm::kPersistThreads), args, 0, stream);
  cudaError_t last = cudaGetLastError(); /* clears what the launch left */
  return e != cudaSuccess ? e : last;
}
