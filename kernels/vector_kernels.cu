/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The fused vector kernels of Algorithm 2 (paper Table 2) and the single-reduction CG's update
 * (cgg), fixed-grid as in Sec. 5.1: a grid of at most one resident wave loops over the vectors with
 * 16-byte accesses. Reductions accumulate in double in both precisions. */
#include <math.h>

#include "kernels/cuda_util.h"
#include "kernels/device_util.cuh"
#include "kernels/kernels.h"
#include "kernels/launch.cuh"

namespace cgm {

constexpr int kVecThreads = 256;

/* The grid for n elements (Sec. 5.1): at most one resident wave. */
static int vector_blocks(int64_t n, int sms) {
  int64_t need = (n / 2 + kVecThreads - 1) / kVecThreads; /* >= packs of doubles */
  int64_t wave = (int64_t)sms * (2048 / kVecThreads);
  if (need < 1) need = 1;
  return (int)(need < wave ? need : wave);
}

/* 16 bytes of T: 2 doubles or 4 floats. Vectors are padded to CGM_VEC_ALIGN. */
template <typename T> struct Pack {
  static constexpr int V = 16 / sizeof(T);
  T v[V];
};

/* Plain loads: some of these vectors are written by the same kernel, which
 * rules out the read-only path. */
template <typename T> __device__ __forceinline__ Pack<T> ld(const T *p, int64_t i) {
  Pack<T> out;
  uint4 w = reinterpret_cast<const uint4 *>(p)[i];
  memcpy(out.v, &w, 16);
  return out;
}

template <typename T> __device__ __forceinline__ void st(T *p, int64_t i, const Pack<T> &a) {
  uint4 w;
  memcpy(&w, a.v, 16);
  reinterpret_cast<uint4 *>(p)[i] = w;
}

/* CG1: r = b - u, v = D^-1 r, (r.v, r.r). */
template <typename T>
__global__ void __launch_bounds__(kVecThreads)
    cg1(int64_t np, const T *b, const T *u, const T *dinv, T *r, T *v, double *out,
        cgm_reduce_buf red) {
  double s[2] = {0.0, 0.0};
  CGM_GRID_LOOP(i, np) {
    Pack<T> pb = ld(b, i), pu = ld(u, i), pd = ld(dinv, i), pr, pv;
#pragma unroll
    for (int e = 0; e < Pack<T>::V; e++) {
      pr.v[e] = pb.v[e] - pu.v[e];
      pv.v[e] = pd.v[e] * pr.v[e];
      s[0] += (double)pr.v[e] * (double)pv.v[e];
      s[1] += (double)pr.v[e] * (double)pr.v[e];
    }
    st(r, i, pr);
    st(v, i, pv);
  }
  last_block_sum<2>(s, red, out);
}

/* Sum of the first nparts device partials of a slot, in device order. */
__device__ __forceinline__ double parts_sum(const cgm_cg_state *st, int nparts, int slot,
                                            int which) {
  double s = 0.0;
  for (int j = 0; j < nparts; j++) s += (&st->slot[j][slot].pq)[which];
  return s;
}

/* CG4's alpha = (r.z)_prev / (p.Ap), shared by Jacobi and block-Jacobi; a
 * breakdown (p.Ap <= 0 or not finite) stops the run: false. */
__device__ __forceinline__ bool cg4_alpha(cgm_cg_state *state, int nparts, int slot, int prev,
                                          const cgm_sync &sync, double *alpha) {
  pdl_begin(sync);
  if (run_stopped(state, sync)) return false;
  if (!sync_wait(state, sync)) return false;
  const double pq = parts_sum(state, nparts, slot, 0);
  if (!(pq > 0.0) || !isfinite(pq)) { /* every block (and device) sees the same value */
    if (blockIdx.x == 0 && threadIdx.x == 0) {
      state->done = isfinite(pq) ? CGM_RUN_BREAKDOWN : CGM_RUN_NONFINITE;
      state->bad = pq;
    }
    return false;
  }
  *alpha = parts_sum(state, nparts, prev, 1) / pq;
  return true;
}

/* CG4 (+ CG2): x += alpha v, r -= alpha u, (r.D^-1 r, r.r). */
template <typename T>
__global__ void __launch_bounds__(kVecThreads)
    cg4(int64_t np, cgm_cg_state *state, int nparts, int slot, int prev, T *x, T *r, const T *v,
        const T *u, const T *dinv, cgm_out out, cgm_reduce_buf red, cgm_sync sync) {
  double alpha_d;
  if (!cg4_alpha(state, nparts, slot, prev, sync, &alpha_d)) return;
  const T alpha = (T)alpha_d;
  double s[2] = {0.0, 0.0};
  CGM_GRID_LOOP(i, np) {
    Pack<T> px = ld(x, i), pr = ld(r, i), pv = ld(v, i), pu = ld(u, i), pd = ld(dinv, i);
#pragma unroll
    for (int e = 0; e < Pack<T>::V; e++) {
      px.v[e] += alpha * pv.v[e];
      pr.v[e] -= alpha * pu.v[e];
      s[0] += (double)pr.v[e] * (double)(pd.v[e] * pr.v[e]);
      s[1] += (double)pr.v[e] * (double)pr.v[e];
    }
    st(x, i, px);
    st(r, i, pr);
  }
  last_block_sum<2>(s, red, out, nullptr, state, &sync);
}

/* CG5's stop test and beta = (r.z) / (r.z)_prev, shared by Jacobi and block-Jacobi; false when the
 * run stops (at maxiter v is still updated: harmless). */
__device__ __forceinline__ bool cg5_beta(cgm_cg_state *state, int nparts, int slot, int prev,
                                         const cgm_sync &sync, double *beta) {
  pdl_begin(sync);
  if (run_stopped(state, sync)) return false;
  if (!sync_wait(state, sync)) return false;
  const double rz = parts_sum(state, nparts, slot, 1), rr = parts_sum(state, nparts, slot, 2);
  const double rz_prev = parts_sum(state, nparts, prev, 1);
  const bool converged = rr <= state->thr;
  const bool bad = !isfinite(rr) || !isfinite(rz) || !(rz_prev > 0.0);
  if (blockIdx.x == 0 && threadIdx.x == 0) { /* one writer; no block reads these */
    state->iter++;
    state->rr_last = rr;
    if (converged)
      state->done = CGM_RUN_CONVERGED;
    else if (bad) {
      state->done = CGM_RUN_NONFINITE;
      state->bad = isfinite(rr) ? rz : rr;
    } else if (state->iter >= state->maxiter) {
      state->done = CGM_RUN_MAXITER;
    }
  }
  if (converged || bad) return false;
  *beta = rz / rz_prev;
  return true;
}

/* CG5: stop test, then v = D^-1 r + beta v. */
template <typename T>
__global__ void __launch_bounds__(kVecThreads)
    cg5(int64_t np, cgm_cg_state *state, int nparts, int slot, int prev, T *v, const T *r,
        const T *dinv, cgm_sync sync) {
  double beta_d;
  if (!cg5_beta(state, nparts, slot, prev, sync, &beta_d)) return;
  const T beta = (T)beta_d;
  CGM_GRID_LOOP(i, np) {
    Pack<T> pv = ld(v, i), pr = ld(r, i), pd = ld(dinv, i);
#pragma unroll
    for (int e = 0; e < Pack<T>::V; e++) pv.v[e] = pd.v[e] * pr.v[e] + beta * pv.v[e];
    st(v, i, pv);
  }
}

/* cgg's scalars (Jacobi and block-Jacobi): beta and p . A p from one
 * reduction, the stop test and the state; false when the run stops. */
__device__ __forceinline__ bool cgg_scalars(cgm_cg_state *state, int nparts, int slot, int prev,
                                            const cgm_sync &sync, cgg_step *c) {
  pdl_begin(sync);
  if (run_stopped(state, sync)) return false;
  double sums[3];
  if (sync.ll) { /* several GPUs: the sums come as words with their tick */
    if (!ll_wait(state, nparts, sync.wait_off, sums)) return false;
  } else {
    if (!sync_wait(state, sync)) return false;
    for (int k = 0; k < 3; k++) sums[k] = parts_sum(state, nparts, slot, k);
  }
  /* Iterations done before this one: the epoch advances only between
   * graphs, so every block reads the same count. */
  const int done_before =
      state->iter_base +
      (int)((state->epoch - state->epoch_base) * (unsigned long long)state->K + (unsigned)slot);
  *c = cgg_decide(state, sums, state->gamma[prev], state->inv_alpha[prev], done_before, slot);
  return c->stop == CGM_RUN;
}

/* The single-reduction CG's update (kernels.h, cgm_launch_cgg). */
template <typename T>
__global__ void __launch_bounds__(kVecThreads)
    cgg(int64_t np, cgm_cg_state *state, int nparts, int slot, int prev, T *x, T *u, T *p,
        const T *w, T *s, const T *dinv, cgm_out out, cgm_reduce_buf red, cgm_sync sync) {
  cgg_step c;
  if (!cgg_scalars(state, nparts, slot, prev, sync, &c)) return;
  const T alpha = (T)c.alpha, tb = (T)c.beta;
  double acc[2] = {0.0, 0.0};
  CGM_GRID_LOOP(i, np) {
    Pack<T> pu = ld(u, i), pp = ld(p, i), pw = ld(w, i), ps = ld(s, i), px = ld(x, i),
            pd = ld(dinv, i);
#pragma unroll
    for (int e = 0; e < Pack<T>::V; e++) {
      pp.v[e] = pu.v[e] + tb * pp.v[e];
      ps.v[e] = pw.v[e] + tb * ps.v[e];
      px.v[e] += alpha * pp.v[e];
      pu.v[e] -= alpha * (pd.v[e] * ps.v[e]);
      /* r = D u; padding has dinv = 0 and u = 0 */
      const double r = pd.v[e] != (T)0 ? (double)pu.v[e] / (double)pd.v[e] : 0.0;
      acc[0] += r * (double)pu.v[e];
      acc[1] += r * r;
    }
    st(p, i, pp);
    st(s, i, ps);
    st(x, i, px);
    st(u, i, pu);
  }
  last_block_sum<2>(acc, red, out, nullptr);
}

/* The same steps with z = M^-1 r by the n x n inverses (cgm_bjac): a
 * thread owns a block, whose every r its z needs. The last block may be
 * cut at the own rows: past them nothing is read or written. */
constexpr int kMaxBlk = 8;

/* y = a x, a n x n row-major; the sums in T as the Jacobi kernels' d r. */
template <typename T>
__device__ __forceinline__ void bmv(int n, const T *__restrict__ a, const T *x, T *y) {
  for (int i = 0; i < n; i++) {
    T t = 0;
    for (int c = 0; c < n; c++) t += a[i * n + c] * x[c];
    y[i] = t;
  }
}

/* CG1: r = b - u, v = M^-1 r, (r.v, r.r). */
template <typename T>
__global__ void __launch_bounds__(kVecThreads)
    cg1_blk(int64_t rows, int n, const T *b, const T *u, const T *inv, T *r, T *v, double *out,
            cgm_reduce_buf red) {
  double s[2] = {0.0, 0.0};
  CGM_GRID_LOOP(k, (rows + n - 1) / n) {
    T rk[kMaxBlk] = {}, zk[kMaxBlk];
    const int64_t i0 = k * n;
    const int m = rows - i0 < n ? (int)(rows - i0) : n; /* the last block may be cut */
    for (int e = 0; e < m; e++) {
      rk[e] = b[i0 + e] - u[i0 + e];
      r[i0 + e] = rk[e];
      s[1] += (double)rk[e] * (double)rk[e];
    }
    bmv(n, inv + k * n * n, rk, zk);
    for (int e = 0; e < m; e++) {
      v[i0 + e] = zk[e];
      s[0] += (double)rk[e] * (double)zk[e];
    }
  }
  last_block_sum<2>(s, red, out);
}

/* CG4 (+ CG2): x += alpha v, r -= alpha u, (r.M^-1 r, r.r). */
template <typename T>
__global__ void __launch_bounds__(kVecThreads)
    cg4_blk(int64_t rows, int n, cgm_cg_state *state, int nparts, int slot, int prev, T *x, T *r,
            const T *v, const T *u, const T *inv, cgm_out out, cgm_reduce_buf red, cgm_sync sync) {
  double alpha_d;
  if (!cg4_alpha(state, nparts, slot, prev, sync, &alpha_d)) return;
  const T alpha = (T)alpha_d;
  double s[2] = {0.0, 0.0};
  CGM_GRID_LOOP(k, (rows + n - 1) / n) {
    T rk[kMaxBlk] = {}, zk[kMaxBlk];
    const int64_t i0 = k * n;
    const int m = rows - i0 < n ? (int)(rows - i0) : n; /* the last block may be cut */
    for (int e = 0; e < m; e++) {
      x[i0 + e] += alpha * v[i0 + e];
      rk[e] = r[i0 + e] - alpha * u[i0 + e];
      r[i0 + e] = rk[e];
      s[1] += (double)rk[e] * (double)rk[e];
    }
    bmv(n, inv + k * n * n, rk, zk);
    for (int e = 0; e < m; e++) s[0] += (double)rk[e] * (double)zk[e];
  }
  last_block_sum<2>(s, red, out, nullptr, state, &sync);
}

/* CG5: stop test, then v = M^-1 r + beta v (the test as cg5's). */
template <typename T>
__global__ void __launch_bounds__(kVecThreads)
    cg5_blk(int64_t rows, int n, cgm_cg_state *state, int nparts, int slot, int prev, T *v,
            const T *r, const T *inv, cgm_sync sync) {
  double beta_d;
  if (!cg5_beta(state, nparts, slot, prev, sync, &beta_d)) return;
  const T beta = (T)beta_d;
  CGM_GRID_LOOP(k, (rows + n - 1) / n) {
    T rk[kMaxBlk] = {}, zk[kMaxBlk];
    const int64_t i0 = k * n;
    const int m = rows - i0 < n ? (int)(rows - i0) : n; /* the last block may be cut */
    for (int e = 0; e < m; e++) rk[e] = r[i0 + e];
    bmv(n, inv + k * n * n, rk, zk);
    for (int e = 0; e < m; e++) v[i0 + e] = zk[e] + beta * v[i0 + e];
  }
}

/* The single-reduction CG's update (cgg) with u = M^-1 r: u -= alpha M^-1 s,
 * and the residual recovered as r = M u by the block itself (cgg's r = D u). */
template <typename T>
__global__ void __launch_bounds__(kVecThreads)
    cgg_blk(int64_t rows, int n, cgm_cg_state *state, int nparts, int slot, int prev, T *x, T *u,
            T *p, const T *w, T *s, const T *inv, const T *blk, cgm_out out, cgm_reduce_buf red,
            cgm_sync sync) {
  /* the scalars exactly as cgg's */
  cgg_step c;
  if (!cgg_scalars(state, nparts, slot, prev, sync, &c)) return;
  const T alpha = (T)c.alpha, tb = (T)c.beta;
  double acc[2] = {0.0, 0.0};
  CGM_GRID_LOOP(k, (rows + n - 1) / n) {
    T sk[kMaxBlk] = {}, zk[kMaxBlk], uk[kMaxBlk] = {}, rk[kMaxBlk];
    const int64_t i0 = k * n;
    const int m = rows - i0 < n ? (int)(rows - i0) : n; /* the last block may be cut */
    for (int e = 0; e < m; e++) {
      const T pe = u[i0 + e] + tb * p[i0 + e];
      sk[e] = w[i0 + e] + tb * s[i0 + e];
      p[i0 + e] = pe;
      s[i0 + e] = sk[e];
      x[i0 + e] += alpha * pe;
    }
    bmv(n, inv + k * n * n, sk, zk);
    for (int e = 0; e < m; e++) {
      uk[e] = u[i0 + e] - alpha * zk[e];
      u[i0 + e] = uk[e];
    }
    bmv(n, blk + k * n * n, uk, rk);
    for (int e = 0; e < m; e++) {
      acc[0] += (double)rk[e] * (double)uk[e];
      acc[1] += (double)rk[e] * (double)rk[e];
    }
  }
  last_block_sum<2>(acc, red, out, nullptr);
}

/* The replacement with M^-1 by blocks: cgg keeps u = M^-1 r (formed in R)
 * and recovers r' = M u; Algorithm 2 keeps r' = (T) r, v = M^-1 r'. */
template <typename R, typename T>
__global__ void __launch_bounds__(kVecThreads)
    replace_blk(int64_t rows, int n, int cgg, const R *b, const R *y, const T *inv, const T *blk,
                T *z, T *v, const T *x, const T *sp, double *out, cgm_reduce_buf red) {
  double s[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
  CGM_GRID_LOOP(k, (rows + n - 1) / n) {
    const int64_t i0 = k * n;
    const int m = rows - i0 < n ? (int)(rows - i0) : n; /* the last block may be cut */
    const T *a = inv + k * n * n;
    R rk[kMaxBlk] = {};
    T tk[kMaxBlk] = {}, qk[kMaxBlk];
    for (int e = 0; e < m; e++) {
      rk[e] = b[i0 + e] - y[i0 + e];
      s[0] += (double)rk[e] * (double)rk[e];
    }
    if (cgg) {
      for (int e = 0; e < m; e++) { /* u = M^-1 r in R, rounded */
        R t = 0;
        for (int c = 0; c < m; c++) t += (R)a[e * n + c] * rk[c];
        tk[e] = (T)t;
        z[i0 + e] = tk[e];
        if (sp) s[4] += (double)sp[i0 + e] * (double)tk[e];
      }
      bmv(n, blk + k * n * n, tk, qk); /* r' = M u */
      for (int e = 0; e < m; e++) {
        s[1] += (double)qk[e] * (double)tk[e];
        s[2] += (double)qk[e] * (double)qk[e];
      }
    } else {
      for (int e = 0; e < m; e++) {
        tk[e] = (T)rk[e];
        z[i0 + e] = tk[e];
      }
      bmv(n, a, tk, qk); /* M^-1 r' */
      for (int e = 0; e < m; e++) {
        s[1] += (double)tk[e] * (double)qk[e];
        s[2] += (double)tk[e] * (double)tk[e];
        if (v) v[i0 + e] = qk[e];
      }
    }
    if (x)
      for (int e = 0; e < m; e++) s[3] += (double)x[i0 + e] * (double)x[i0 + e];
  }
  last_block_sum<5>(s, red, out);
}

/* Reliable updates (kernels.h): x_hi += x_lo, x_lo = 0, out[0] = x_hi . x_hi. */
__global__ void __launch_bounds__(kVecThreads)
    fold(int64_t n, double *x_hi, float *x_lo, double *out, cgm_reduce_buf red) {
  double s[1] = {0.0};
  CGM_GRID_LOOP(i, n) {
    const double x = x_hi[i] + (double)x_lo[i];
    x_hi[i] = x;
    x_lo[i] = 0.0f;
    s[0] += x * x;
  }
  last_block_sum<1>(s, red, out);
}

/* cgm_launch_replace with Jacobi (kernels.h): r = b - y in R rounded into
 * T; the sums of the rounded r' as the iteration computes them (cgg: r' =
 * u / D^-1). Scalar loops: it runs a few times a solve. */
template <typename R, typename T>
__global__ void __launch_bounds__(kVecThreads)
    replace(int64_t n, int cgg, const R *b, const R *y, const T *dinv, T *z, T *v, const T *x,
            const T *sp, double *out, cgm_reduce_buf red) {
  double s[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
  CGM_GRID_LOOP(i, n) {
    const R r = b[i] - y[i];
    const T d = dinv[i];
    s[0] += (double)r * (double)r;
    double rr, zz;
    if (cgg) {
      const T ui = (T)((R)d * r);
      z[i] = ui;
      rr = d != (T)0 ? (double)ui / (double)d : 0.0;
      zz = ui;
      if (sp) s[4] += (double)sp[i] * (double)ui;
    } else {
      const T ri = (T)r;
      z[i] = ri;
      rr = ri;
      zz = (double)(d * ri);
      if (v) v[i] = d * ri;
    }
    s[1] += rr * zz;
    s[2] += rr * rr;
    if (x) s[3] += (double)x[i] * (double)x[i];
  }
  last_block_sum<5>(s, red, out);
}

/* The state after a replacement (one GPU): the next step's sums of the replaced residual
 * (out[1..2]), the count resumed. cgg's recurrence for p . A p needs the residual orthogonal to the
 * last, which the replaced one is not quite: the direct value delta + 2 beta s . u + beta^2 p . A p
 * goes in through 1 / alpha of the last slot. restart: beta = 0. */
__global__ void resume(cgm_cg_state *st, const double *out, int cgg, int restart) {
  /* CG1's replacement in mixed precision comes before the run's state
   * (the host writes all of it next): nothing to resume, and no slot K - 1 */
  if (st->K < 1) return;
  const int last = st->K - 1;
  st->rr_last = out[2];
  st->done = CGM_RUN;
  st->iter_base = st->iter;
  st->epoch_base = st->epoch;
  if (!cgg) {
    st->slot[0][last].rz = out[1];
    st->slot[0][last].rr = out[2];
    return;
  }
  const double gamma = out[1], gamma_prev = st->gamma[last], inv_alpha = st->inv_alpha[last];
  st->local[0].rz = gamma;
  st->local[0].rr = out[2];
  if (restart || !(gamma > 0.0) || !(gamma_prev > 0.0) || inv_alpha == 0.0) {
    st->inv_alpha[last] = 0.0;
  } else {
    const double beta = gamma / gamma_prev, den_prev = gamma_prev * inv_alpha;
    st->inv_alpha[last] = -(2.0 * out[4] + beta * den_prev) / gamma;
  }
}

__global__ void __launch_bounds__(kVecThreads) to_single(int64_t n, const double *src, float *dst) {
  CGM_GRID_LOOP(i, n)
  dst[i] = (float)src[i];
}

/* Halo exchange: the entries each peer reads, stored into its vector. */
template <typename T>
__global__ void __launch_bounds__(kVecThreads)
    pack(const T *__restrict__ v_own, cgm_pack pk, cgm_cg_state *guard, cgm_sync sync,
         unsigned *counter) {
  if (block_stopped(guard)) return;
  const int64_t total = pk.off[pk.ndst];
  CGM_GRID_LOOP(e, total) {
    int k = 0;
    while (e >= pk.off[k + 1]) k++;
    static_cast<T *>(pk.dst[k])[e - pk.off[k]] = v_own[pk.idx[e]];
  }
  sync_raise_all(guard, sync, counter);
}

template <typename T>
__global__ void __launch_bounds__(kVecThreads)
    dot(int64_t np, const T *x, const T *y, double *out, cgm_reduce_buf red) {
  double s[1] = {0.0};
  CGM_GRID_LOOP(i, np) {
    Pack<T> px = ld(x, i), py = ld(y, i);
#pragma unroll
    for (int e = 0; e < Pack<T>::V; e++) s[0] += (double)px.v[e] * (double)py.v[e];
  }
  last_block_sum<1>(s, red, out);
}

__global__ void __launch_bounds__(kVecThreads)
    diag_norm(int64_t n, const double *x, const double *dinv, double *out, cgm_reduce_buf red) {
  double s[1] = {0.0};
  CGM_GRID_LOOP(i, n) {
    const double d = dinv[i];
    if (d != 0.0) s[0] += (x[i] / d) * (x[i] / d);
  }
  last_block_sum<1>(s, red, out);
}

/* The own chunk to every peer (p2p exchange): read once, stored ndst times. */
struct Dsts {
  uint4 *p[CGM_MAX_GPUS];
  int n;
};
__global__ void __launch_bounds__(kVecThreads)
    scatter(const uint4 *__restrict__ src, int64_t n16, Dsts d, cgm_cg_state *guard, cgm_sync sync,
            unsigned *counter) {
  if (block_stopped(guard)) return;
  CGM_GRID_LOOP(i, n16) {
    uint4 w = src[i];
    for (int k = 0; k < d.n; k++) d.p[k][i] = w;
  }
  sync_raise_all(guard, sync, counter);
}

__global__ void epoch_next(cgm_cg_state *st) {
  st->epoch++;
}

/* The kernels take cgm_sync by value; NULL means no wait and no raise. */
static cgm_sync sync_or_none(const cgm_sync *s) {
  return s ? *s : cgm_sync{};
}

/* Packs of 16 bytes in a padded vector of n elements. */
static int64_t packs(cgm_precision prec, int64_t n) {
  int64_t padded = (n + CGM_VEC_ALIGN - 1) / CGM_VEC_ALIGN * CGM_VEC_ALIGN;
  return padded / (prec == CGM_PREC_SINGLE ? 4 : 2);
}

/* Block-Jacobi in use (kernels.h: NULL or n = 0 is Jacobi). */
static bool blocked(const cgm_bjac *bj) {
  return bj && bj->n > 0;
}

/* f(T{}), T precision p's element type: a launcher written once for both. */
template <typename F> static cudaError_t by_prec(cgm_precision p, F f) {
  return p == CGM_PREC_SINGLE ? f(float{}) : f(double{});
}

/* The grid of a block-Jacobi kernel: a thread a block. */
static int blk_blocks(int64_t n, const cgm_bjac *bj, int sms) {
  return cgm::vector_blocks(2 * ((n + bj->n - 1) / bj->n), sms);
}

} // namespace cgm

/* A vector of the element type T in scope (cgm::by_prec, replace_as). */
#define P(p) static_cast<T *>(p)
#define CP(p) static_cast<const T *>(p)

extern "C" cudaError_t cgm_launch_cg1(cgm_precision prec, int64_t n, const void *b, const void *u,
                                      const void *dinv, const cgm_bjac *bj, void *r, void *v,
                                      double *out, cgm_reduce_buf red, int sms, cudaStream_t s) {
  return cgm::by_prec(prec, [&](auto t) {
    using T = decltype(t);
    if (cgm::blocked(bj)) /* a thread a block */
      return cgm::launch_k(false, cgm::cg1_blk<T>, cgm::blk_blocks(n, bj, sms), cgm::kVecThreads, s,
                           n, bj->n, CP(b), CP(u), CP(bj->inv), P(r), P(v), out, red);
    return cgm::launch_k(false, cgm::cg1<T>, cgm::vector_blocks(n, sms), cgm::kVecThreads, s,
                         cgm::packs(prec, n), CP(b), CP(u), CP(dinv), P(r), P(v), out, red);
  });
}

extern "C" cudaError_t cgm_launch_cg4(cgm_precision prec, int64_t n, cgm_cg_state *st, int nparts,
                                      int slot, int prev, void *x, void *r, const void *v,
                                      const void *u, const void *dinv, const cgm_bjac *bj,
                                      const cgm_out *out, cgm_reduce_buf red, const cgm_sync *sync,
                                      int sms, cudaStream_t s) {
  const cgm_sync sy = cgm::sync_or_none(sync);
  return cgm::by_prec(prec, [&](auto t) {
    using T = decltype(t);
    if (cgm::blocked(bj))
      return cgm::launch_k(sy.overlap, cgm::cg4_blk<T>, cgm::blk_blocks(n, bj, sms),
                           cgm::kVecThreads, s, n, bj->n, st, nparts, slot, prev, P(x), P(r), CP(v),
                           CP(u), CP(bj->inv), *out, red, sy);
    return cgm::launch_k(sy.overlap, cgm::cg4<T>, cgm::vector_blocks(n, sms), cgm::kVecThreads, s,
                         cgm::packs(prec, n), st, nparts, slot, prev, P(x), P(r), CP(v), CP(u),
                         CP(dinv), *out, red, sy);
  });
}

extern "C" cudaError_t cgm_launch_cg5(cgm_precision prec, int64_t n, cgm_cg_state *st, int nparts,
                                      int slot, int prev, void *v, const void *r, const void *dinv,
                                      const cgm_bjac *bj, const cgm_sync *sync, int sms,
                                      cudaStream_t s) {
  const cgm_sync sy = cgm::sync_or_none(sync);
  return cgm::by_prec(prec, [&](auto t) {
    using T = decltype(t);
    if (cgm::blocked(bj))
      return cgm::launch_k(sy.overlap, cgm::cg5_blk<T>, cgm::blk_blocks(n, bj, sms),
                           cgm::kVecThreads, s, n, bj->n, st, nparts, slot, prev, P(v), CP(r),
                           CP(bj->inv), sy);
    return cgm::launch_k(sy.overlap, cgm::cg5<T>, cgm::vector_blocks(n, sms), cgm::kVecThreads, s,
                         cgm::packs(prec, n), st, nparts, slot, prev, P(v), CP(r), CP(dinv), sy);
  });
}

extern "C" cudaError_t cgm_launch_cgg(cgm_precision prec, int64_t n, cgm_cg_state *st, int nparts,
                                      int slot, int prev, void *x, void *u, void *p, const void *w,
                                      void *s, const void *dinv, const cgm_bjac *bj,
                                      const cgm_out *out, cgm_reduce_buf red, const cgm_sync *sync,
                                      int sms, cudaStream_t stream) {
  const cgm_sync sy = cgm::sync_or_none(sync);
  return cgm::by_prec(prec, [&](auto t) {
    using T = decltype(t);
    if (cgm::blocked(bj))
      return cgm::launch_k(sy.overlap, cgm::cgg_blk<T>, cgm::blk_blocks(n, bj, sms),
                           cgm::kVecThreads, stream, n, bj->n, st, nparts, slot, prev, P(x), P(u),
                           P(p), CP(w), P(s), CP(bj->inv), CP(bj->blk), *out, red, sy);
    return cgm::launch_k(sy.overlap, cgm::cgg<T>, cgm::vector_blocks(n, sms), cgm::kVecThreads,
                         stream, cgm::packs(prec, n), st, nparts, slot, prev, P(x), P(u), P(p),
                         CP(w), P(s), CP(dinv), *out, red, sy);
  });
}

extern "C" cudaError_t cgm_launch_pack(cgm_precision prec, const void *v_own, const cgm_pack *pk,
                                       cgm_cg_state *guard, const cgm_sync *sync,
                                       cgm_reduce_buf red, int sms, cudaStream_t s) {
  const cgm_sync sy = cgm::sync_or_none(sync);
  int64_t total = pk->off[pk->ndst];
  if (total == 0 && sy.nraise == 0 && sy.wait_mask == 0) return cudaSuccess;
  return cgm::by_prec(prec, [&](auto t) {
    using T = decltype(t);
    return cgm::launch_k(false, cgm::pack<T>, cgm::vector_blocks(2 * total, sms), cgm::kVecThreads,
                         s, CP(v_own), *pk, guard, sy, red.counter);
  });
}

extern "C" cudaError_t cgm_launch_dot(cgm_precision prec, int64_t n, const void *x, const void *y,
                                      double *out, cgm_reduce_buf red, int sms, cudaStream_t s) {
  return cgm::by_prec(prec, [&](auto t) {
    using T = decltype(t);
    return cgm::launch_k(false, cgm::dot<T>, cgm::vector_blocks(n, sms), cgm::kVecThreads, s,
                         cgm::packs(prec, n), CP(x), CP(y), out, red);
  });
}

extern "C" cudaError_t cgm_launch_diag_norm(int64_t n, const double *x, const double *dinv,
                                            double *out, cgm_reduce_buf red, int sms,
                                            cudaStream_t s) {
  return cgm::launch_k(false, cgm::diag_norm, cgm::vector_blocks(n, sms), cgm::kVecThreads, s, n, x,
                       dinv, out, red);
}

extern "C" cudaError_t cgm_launch_scatter(const void *src, int64_t bytes, void *const *dst,
                                          int ndst, cgm_cg_state *guard, const cgm_sync *sync,
                                          cgm_reduce_buf red, int sms, cudaStream_t s) {
  const cgm_sync sy = cgm::sync_or_none(sync);
  if ((bytes <= 0 || ndst <= 0) && sy.nraise == 0) return cudaSuccess;
  cgm::Dsts d;
  d.n = ndst;
  for (int k = 0; k < ndst && k < CGM_MAX_GPUS; k++) d.p[k] = static_cast<uint4 *>(dst[k]);
  int64_t n16 = bytes / 16;
  return cgm::launch_k(false, cgm::scatter, cgm::vector_blocks(2 * n16, sms), cgm::kVecThreads, s,
                       static_cast<const uint4 *>(src), n16, d, guard, sy, red.counter);
}

extern "C" cudaError_t cgm_launch_fold(int64_t n, double *x_hi, float *x_lo, double *out,
                                       cgm_reduce_buf red, int sms, cudaStream_t s) {
  return cgm::launch_k(false, cgm::fold, cgm::vector_blocks(n, sms), cgm::kVecThreads, s, n, x_hi,
                       x_lo, out, red);
}

/* cgm_launch_replace with the residual in R and the iteration in T. */
template <typename R, typename T>
static cudaError_t replace_as(int64_t n, int cgg, const void *b, const void *y, const void *dinv,
                              const cgm_bjac *bj, void *z, void *v, const void *x, const void *sp,
                              double *out, cgm_reduce_buf red, int sms, cudaStream_t s) {
  const R *rb = static_cast<const R *>(b), *ry = static_cast<const R *>(y);
  if (cgm::blocked(bj))
    return cgm::launch_k(false, cgm::replace_blk<R, T>, cgm::blk_blocks(n, bj, sms),
                         cgm::kVecThreads, s, n, bj->n, cgg, rb, ry, CP(bj->inv), CP(bj->blk), P(z),
                         P(v), CP(x), CP(sp), out, red);
  return cgm::launch_k(false, cgm::replace<R, T>, cgm::vector_blocks(n, sms), cgm::kVecThreads, s,
                       n, cgg, rb, ry, CP(dinv), P(z), P(v), CP(x), CP(sp), out, red);
}

extern "C" cudaError_t cgm_launch_replace(cgm_precision rprec, cgm_precision iprec, int64_t n,
                                          int cgg, const void *b, const void *y, const void *dinv,
                                          const cgm_bjac *bj, void *z, void *v, const void *x,
                                          const void *sp, double *out, cgm_reduce_buf red, int sms,
                                          cudaStream_t s) {
  if (iprec == CGM_PREC_DOUBLE)
    return replace_as<double, double>(n, cgg, b, y, dinv, bj, z, v, x, sp, out, red, sms, s);
  if (rprec == CGM_PREC_DOUBLE)
    return replace_as<double, float>(n, cgg, b, y, dinv, bj, z, v, x, sp, out, red, sms, s);
  return replace_as<float, float>(n, cgg, b, y, dinv, bj, z, v, x, sp, out, red, sms, s);
}

extern "C" cudaError_t cgm_launch_resume(cgm_cg_state *st, const double *out, int cgg, int restart,
                                         cudaStream_t s) {
  cgm::resume<<<1, 1, 0, s>>>(st, out, cgg, restart);
  return cudaGetLastError();
}

extern "C" cudaError_t cgm_launch_to_single(const double *src, float *dst, int64_t n, int sms,
                                            cudaStream_t s) {
  return cgm::launch_k(false, cgm::to_single, cgm::vector_blocks(n, sms), cgm::kVecThreads, s, n,
                       src, dst);
}

extern "C" cudaError_t cgm_launch_epoch(cgm_cg_state *st, cudaStream_t s) {
  cgm::epoch_next<<<1, 1, 0, s>>>(st);
  return cudaGetLastError();
}

extern "C" int cgm_pdl_supported(void) {
  cudaFuncAttributes a;
  if (cudaFuncGetAttributes(&a, cgm::cg5<double>) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return a.ptxVersion >= 90 && a.binaryVersion >= 90;
}
