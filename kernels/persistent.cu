/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Small solves at the launch floor: a batch of the single-reduction CG's
 * iterations (one GPU, Jacobi, double precision) in one cooperative kernel
 * (kernels.h, cgm_launch_persistent). Where an iteration's two launches
 * cost more than moving the matrix and the vectors (docs/perf.md, "Small
 * solves"), the grid stays resident and meets at two grid barriers an
 * iteration: after the SpMV (u . A u) and after the update (r . u, r . r,
 * and the u the next SpMV gathers). Each block writes its partial sums;
 * past the barrier every block adds all partials in block order, so every
 * block holds the same scalars (deterministic, no atomics) and takes the
 * same branch: no block waits at a barrier the others have left. A thread
 * owns the same rows in both phases, so only u crosses between blocks
 * (read past L1). The state carries the run from batch to batch as cgg's
 * graphs do: local[0] holds u's r . u and r . r, slot K - 1 the last
 * step's 1 / alpha and gamma; the host's loop, with its reliable updates
 * and floor watch, is the graphs' (solver/cuda/graph.cu). */
#include <cooperative_groups.h>

#include "kernels/cuda_util.h"
#include "kernels/device_util.cuh"
#include "kernels/kernels.h"

namespace cgm {

constexpr int kPersistThreads = 256;

/* A block's partial sums into part[k * cap + block]. */
template <int NV>
__device__ __forceinline__ void block_partial(double (&v)[NV], double *part, int cap) {
  block_sum<NV>(v);
  if (threadIdx.x == 0)
#pragma unroll
    for (int k = 0; k < NV; k++) part[k * cap + blockIdx.x] = v[k];
}

/* Past the grid barrier: the total of every block's partials, added in the
 * same order in every block, to every thread. */
template <int NV>
__device__ __forceinline__ void grid_total(const double *part, int cap, double (&v)[NV]) {
  __shared__ double tot[NV];
#pragma unroll
  for (int k = 0; k < NV; k++) {
    v[k] = 0.0;
    for (int b = threadIdx.x; b < (int)gridDim.x; b += blockDim.x)
      v[k] += __ldcg(part + k * cap + b);
  }
  block_sum<NV>(v);
  if (threadIdx.x == 0)
#pragma unroll
    for (int k = 0; k < NV; k++) tot[k] = v[k];
  __syncthreads(); /* the next write of tot is behind a grid barrier */
#pragma unroll
  for (int k = 0; k < NV; k++) v[k] = tot[k];
}

/* Row slot t of the layout (slot t / N of brow, row t % N of its blocks):
 * the row it holds, or -1 in a padding slot. */
template <int N> __device__ __forceinline__ int64_t row_of(const cgm_dev_layout &L, int64_t t) {
  const int32_t b = __ldg(L.brow + t / N);
  return b < 0 ? -1 : (int64_t)b * N + t % N;
}

/* Row slot t times u: the blocks of its block row, U at a time so that
 * their loads are in flight together (bcsr-layout.md: step s of slice sl
 * holds B_y B_x blocks from slice_ptr[sl] + s B_y B_x, slot j's B_x from j
 * B_x). u is written by other blocks within the kernel: loaded past L1. */
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
#pragma unroll
      for (int c = 0; c < N; c++) a[i][c] = m < nblk ? __ldg(val + k * N * N + r * N + c) : 0.0;
    }
#pragma unroll
    for (int i = 0; i < U; i++)
      if (col[i] >= 0)
#pragma unroll
        for (int c = 0; c < N; c++) acc += a[i][c] * __ldcg(u + (int64_t)col[i] * N + c);
  }
  return acc;
}

/* Up to K steps of cgg (vector_kernels.cu) from the state, w = A u kept in
 * w; red_pq and red_ur the partials of u . A u and of (r . u, r . r). */
template <int N>
__global__ void __launch_bounds__(kPersistThreads)
    cgg_persistent(cgm_dev_layout L, cgm_cg_state *st, int K, double *x, double *u, double *p,
                   double *w, double *s, const double *dinv, cgm_reduce_buf red_pq,
                   cgm_reduce_buf red_ur) {
  cooperative_groups::grid_group grid = cooperative_groups::this_grid();
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
    block_partial<1>(pq, red_pq.partials, red_pq.capacity);
    grid.sync();
    grid_total<1>(red_pq.partials, red_pq.capacity, pq);
    sums[0] = pq[0];
    const cgg_step c = cgg_decide(st, sums, gamma_prev, inv_alpha_prev, done);
    if (blockIdx.x == 0 && threadIdx.x == 0) cgg_record(st, c, sums, done, K - 1);
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
    block_partial<2>(ur, red_ur.partials, red_ur.capacity);
    grid.sync();
    grid_total<2>(red_ur.partials, red_ur.capacity, ur);
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
  if (L->long_rows || (L->bx & (L->bx - 1)) || L->bx < 1) return nullptr;
  return L->n == 1   ? cgg_persistent<1>
         : L->n == 2 ? cgg_persistent<2>
         : L->n == 4 ? cgg_persistent<4>
         : L->n == 8 ? cgg_persistent<8>
                     : nullptr;
}

} // namespace cgm

extern "C" cudaError_t cgm_persistent_grid(const cgm_dev_layout *L, int sms, int *blocks) {
  *blocks = 0;
  const cgm::persistent_fn k = cgm::kernel_for(L);
  int dev = 0, coop = 0, per_sm = 0;
  if (!k) return cudaSuccess;
  cudaError_t e = cudaGetDevice(&dev);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev);
  if (e == cudaSuccess)
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, cgm::kPersistThreads, 0);
  if (e != cudaSuccess || !coop || per_sm < 1) return e;
  /* a row slot a thread where the rows allow: the fewer blocks, the
   * cheaper each barrier */
  const int64_t slots = (int64_t)L->nslices * L->by * L->n;
  const int64_t need = (slots + cgm::kPersistThreads - 1) / cgm::kPersistThreads;
  const int64_t most = (int64_t)per_sm * sms;
  *blocks = (int)(need < 1 ? 1 : need < most ? need : most);
  return cudaSuccess;
}

extern "C" cudaError_t cgm_launch_persistent(const cgm_dev_layout *L, cgm_cg_state *st, int K,
                                             double *x, double *u, double *p, double *w, double *s,
                                             const double *dinv, cgm_reduce_buf red_pq,
                                             cgm_reduce_buf red_ur, int blocks,
                                             cudaStream_t stream) {
  const cgm::persistent_fn k = cgm::kernel_for(L);
  if (!k || K < 1 || K > CGM_MAX_SLOTS || blocks < 1 || blocks > red_pq.capacity ||
      blocks > red_ur.capacity)
    return cudaErrorInvalidValue;
  cgm_dev_layout l = *L;
  void *args[] = {&l, &st, &K, &x, &u, &p, &w, &s, &dinv, &red_pq, &red_ur};
  /* refused (cudaErrorCooperativeLaunchTooLarge) unless every block is resident */
  cudaError_t e = cudaLaunchCooperativeKernel((const void *)k, dim3((unsigned)blocks),
                                              dim3(cgm::kPersistThreads), args, 0, stream);
  cudaError_t last = cudaGetLastError(); /* clears what the launch left */
  return e != cudaSuccess ? e : last;
}
