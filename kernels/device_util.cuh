/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Device-side helpers shared by the kernels: wide loads, block reductions
 * and the deterministic last-block reduction. */
#pragma once

#include <cuda/atomic>
#include <math.h>
#include <string.h>

#include "kernels/kernels.h"

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
template <int NV> __device__ __forceinline__ void block_sum(double (&v)[NV]) {
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

/* Programmatic dependent launch (launch.cuh). pdl_trigger lets the next kernel of the stream be
 * scheduled (its blocks then sit in their own wait); pdl_wait waits until the previous kernel has
 * finished and flushed. Both are no-ops without a programmatic edge. */
__device__ __forceinline__ void pdl_trigger() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

__device__ __forceinline__ void pdl_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* The first statement of a kernel that may be launched with PDL: trigger, then wait. A kernel that
 * spins on flags (s.wait_mask) triggers only once its wait is over (sync_wait): otherwise its
 * successor's blocks, resident and waiting behind it, could fill the SMs that a peer's progress
 * needs (the halo pack on the other stream) while this kernel spins. */
__device__ __forceinline__ void pdl_begin(const cgm_sync &s) {
  if (!s.wait_mask) pdl_trigger();
  pdl_wait();
}

/* A step of the single-reduction CG (the cgg kernels) from its sums delta = u . A u, gamma = r . u,
 * r . r: the stop test, beta = gamma / gamma_prev, den = delta - beta gamma / alpha_prev (= p . A
 * p), alpha = gamma / den. First step (inv_alpha_prev = 0): beta = 0, p = u and s = w (p and s
 * start at zero: 0 times a NaN would not vanish). */
struct cgg_step {
  double alpha, beta, den, bad;
  int stop; /* CGM_RUN, or why the run stops (bad: the value) */
};
/* ... and, by one thread (no block reads them), into the state: the count, the residual tested, why
 * the run stopped, or 1 / alpha and gamma into `slot` for the next step. */
__device__ __forceinline__ cgg_step cgg_decide(cgm_cg_state *st, const double (&sums)[3],
                                               double gamma_prev, double inv_alpha_prev,
                                               int done_before, int slot) {
  const double delta = sums[0], gamma = sums[1], rr = sums[2];
  cgg_step c = {0.0, inv_alpha_prev == 0.0 ? 0.0 : gamma / gamma_prev, 0.0, 0.0, CGM_RUN};
  c.den = delta - c.beta * gamma * inv_alpha_prev;
  c.alpha = gamma / c.den;
  if (rr <= st->thr) {
    c.stop = CGM_RUN_CONVERGED;
  } else if (!isfinite(rr) || !isfinite(gamma) || !isfinite(delta) || !isfinite(c.den)) {
    c.stop = CGM_RUN_NONFINITE; /* bad: the first of them that is not finite */
    c.bad = !isfinite(rr) ? rr : !isfinite(gamma) ? gamma : !isfinite(delta) ? delta : c.den;
  } else if (!(gamma > 0.0) || !(c.den > 0.0)) {
    /* r . M^-1 r <= 0 (a diagonal entry or block not positive) or p . A p <= 0 */
    c.stop = CGM_RUN_BREAKDOWN;
    c.bad = gamma > 0.0 ? c.den : gamma;
  } else if (done_before >= st->maxiter) {
    c.stop = CGM_RUN_MAXITER;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    st->iter = c.stop == CGM_RUN ? done_before + 1 : done_before;
    st->rr_last = rr;
    if (c.stop != CGM_RUN) {
      st->done = c.stop;
      st->bad = c.bad;
    } else {
      st->inv_alpha[slot] = c.den / gamma;
      st->gamma[slot] = gamma;
    }
  }
  return c;
}

/* ------------------------------------------ flags between GPUs (cgm_sync) */

__device__ __forceinline__ unsigned long long sync_tick(const cgm_cg_state *st, int off) {
  return st->epoch * (unsigned long long)st->K + (unsigned long long)(long long)off;
}

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}

/* Whether the run has stopped, read once per block: `done` may be set by another block (CG4's
 * breakdown, CG5's stop test, a wait's timeout) while this one starts, and every thread must take
 * the same branch before the barriers that follow. All threads of the block call it. */
__device__ __forceinline__ bool block_stopped(const cgm_cg_state *st) {
  __shared__ int stopped;
  if (!st) return false;
  if (threadIdx.x == 0) stopped = *(const volatile int *)&st->done;
  __syncthreads();
  return stopped != 0;
}

/* The entry test of a kernel that may wait on flags: with flags, `done` can change under a waiting
 * block (a timeout), so it is read once per block; without, the per-thread read is uniform where it
 * matters and saves a barrier (0.7 us an iteration at Poisson 32^3 on an H100). */
__device__ __forceinline__ bool run_stopped(const cgm_cg_state *st, const cgm_sync &s) {
  return s.wait_mask ? block_stopped(st) : (st && st->done != 0);
}

/* One turn of a spin loop that started at t0: true when the run has stopped or the wait has lasted
 * longer than st->wait_ns (then it marks the run CGM_RUN_TIMEOUT); otherwise a short sleep. */
__device__ __forceinline__ bool wait_ends(cgm_cg_state *st, unsigned long long t0) {
  if (*(volatile int *)&st->done) return true;
  if (st->wait_ns && global_ns() - t0 > st->wait_ns) {
    atomicCAS(&st->done, CGM_RUN, CGM_RUN_TIMEOUT);
    return true;
  }
  __nanosleep(32);
  return false;
}

/* One thread spins (relaxed loads, then one acquire fence at system scope) until the `kind` flags
 * of the devices in mask reach tick(off); false when the run stopped meanwhile or the wait timed
 * out (then done is CGM_RUN_TIMEOUT and every later kernel returns at once). */
__device__ __forceinline__ bool flags_wait(cgm_cg_state *st, unsigned mask, int kind, int off) {
  const unsigned long long want = sync_tick(st, off), t0 = global_ns();
  bool good = true;
  for (int j = 0; j < CGM_MAX_GPUS && good; j++) {
    if (!((mask >> j) & 1u)) continue;
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_system> f(st->flag[kind][j]);
    while (f.load(cuda::memory_order_relaxed) < want) {
      if (wait_ends(st, t0)) {
        good = false;
        break;
      }
    }
  }
  /* One acquire for all the flags read: relaxed polls leave L1 alone. */
  cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_system);
  return good;
}

/* Every thread of the block calls this before it reads what the producers
 * of s.wait_mask store; thread 0 waits (flags_wait). */
__device__ __forceinline__ bool sync_wait(cgm_cg_state *st, const cgm_sync &s) {
  if (!s.wait_mask) return true;
  __shared__ int ok;
  if (threadIdx.x == 0) ok = flags_wait(st, s.wait_mask, s.wait_kind, s.wait_off);
  __syncthreads();
  pdl_trigger(); /* the wait is over (pdl_begin) */
  return ok != 0;
}

/* One thread, after the stores the consumers read (its own, or its block's and earlier blocks' as
 * in sync_raise_all): one system-scope release fence, then the flags. */
__device__ __forceinline__ void sync_raise(const cgm_cg_state *st, const cgm_sync &s) {
  if (s.nraise == 0) return;
  const unsigned long long v = sync_tick(st, s.raise_off);
  cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_system);
  /* Constant indices: a kernel parameter indexed at run time is copied to
   * local memory by every thread at the kernel's start. */
#pragma unroll
  for (int k = 0; k < CGM_MAX_GPUS; k++)
    if (k < s.nraise) {
      cuda::atomic_ref<unsigned long long, cuda::thread_scope_system> f(*s.raise[k]);
      f.store(v, cuda::memory_order_relaxed);
    }
}

/* For kernels whose stores to the consumers are spread over all blocks (pack, scatter): each
 * block's barrier, then its thread 0 fences (a cumulative release, as in a grid barrier) and counts
 * the block in; the last block raises the flags, then, with a wait_mask, waits for those flags of
 * the peers (the halo pack: so whatever runs after the pack on the device needs no wait of its
 * own). */
__device__ __forceinline__ void sync_raise_all(cgm_cg_state *st, const cgm_sync &s,
                                               unsigned *counter) {
  if (s.nraise == 0 && s.wait_mask == 0) return;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    if (atomicAdd(counter, 1u) == gridDim.x - 1) {
      __threadfence_system();
      *counter = 0;
      sync_raise(st, s);
      if (s.wait_mask) flags_wait(st, s.wait_mask, s.wait_kind, s.wait_off);
    }
  }
}

/* cgm_out.ll: the NV sums and the carry (3 doubles in all) as 8-byte words
 * of 32 data bits under the raise's tick, to every destination. Each word
 * is one store, data and flag at once: no fence. */
template <int NV>
__device__ __forceinline__ void ll_send(const cgm_cg_state *st, const cgm_sync &s,
                                        const cgm_out &out, const double (&t)[NV],
                                        const double (&c)[2]) {
  static_assert(NV + 2 <= CGM_LL_WORDS / 2, "three doubles at most");
  const unsigned long long tick = sync_tick(st, s.raise_off) << 32;
  unsigned long long w[CGM_LL_WORDS] = {};
#pragma unroll
  for (int k = 0; k < NV + 2; k++) {
    const unsigned long long b =
        (unsigned long long)__double_as_longlong(k < NV ? t[k] : c[k - NV]);
    w[2 * k] = tick | (b & 0xffffffffull);
    w[2 * k + 1] = tick | (b >> 32);
  }
  const unsigned slot = (unsigned)(sync_tick(st, s.raise_off) % CGM_LL_SLOTS);
#pragma unroll
  for (int d = 0; d < CGM_MAX_GPUS; d++)
    if (d < out.ll) {
      volatile unsigned long long *q =
          reinterpret_cast<unsigned long long(*)[CGM_LL_WORDS]>(out.p[d])[slot];
#pragma unroll
      for (int k = 0; k < CGM_LL_WORDS; k++) q[k] = w[k];
    }
}

/* The reader of cgm_out.ll (cgg on several GPUs): waits until the words of devices 0..nparts-1 for
 * tick(off) are in, then adds each sum in device order (as parts_sum). All threads of the block
 * call it; false when the run stopped or the wait timed out (as flags_wait). */
__device__ __forceinline__ bool ll_wait(cgm_cg_state *st, int nparts, int off, double (&sum)[3]) {
  __shared__ double sh[3];
  __shared__ unsigned long long words[CGM_MAX_GPUS * CGM_LL_WORDS];
  __shared__ int ok;
  if (threadIdx.x < 32) {
    const unsigned long long tick = sync_tick(st, off);
    const unsigned want = (unsigned)tick, slot = (unsigned)(tick % CGM_LL_SLOTS);
    const unsigned long long t0 = global_ns();
    bool good = true;
    for (int l = threadIdx.x; l < nparts * CGM_LL_WORDS; l += 32) {
      volatile unsigned long long *p = &st->ll[l / CGM_LL_WORDS][slot][l % CGM_LL_WORDS];
      unsigned long long w;
      while ((unsigned)((w = *p) >> 32) != want) {
        if (wait_ends(st, t0)) {
          good = false;
          break;
        }
      }
      words[l] = w;
    }
    good = __all_sync(0xffffffffu, good);
    __syncwarp();
    if (threadIdx.x == 0) {
      ok = good;
      for (int k = 0; k < 3; k++) {
        double a = 0.0;
        for (int j = 0; j < nparts; j++) {
          const unsigned long long *q = words + j * CGM_LL_WORDS + 2 * k;
          a += __longlong_as_double((long long)((q[0] & 0xffffffffull) | (q[1] << 32)));
        }
        sh[k] = a;
      }
    }
  }
  __syncthreads();
  pdl_trigger(); /* the wait is over (pdl_begin) */
  for (int k = 0; k < 3; k++) sum[k] = sh[k];
  return ok != 0;
}

/* Every block calls this with its partial sums; the last block to arrive adds all partials in block
 * order (deterministic), plus add[0..NV) when given, and writes the totals to every destination of
 * out. */
template <int NV>
__device__ __forceinline__ void
last_block_sum(double (&v)[NV], cgm_reduce_buf red, const cgm_out &out, const double *add,
               const cgm_cg_state *st = nullptr, const cgm_sync *sync = nullptr) {
  /* sync points at the caller's kernel parameter: only constant-index reads */
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
  if (!is_last) return;
  /* What thread 0 adds and forwards, loaded beside the partials rather
   * than after them: one memory round trip fewer on the way to the peers. */
  double a[NV], c[2] = {0.0, 0.0};
  /* add comes from the kernel this one ran beside (cgm_sync.beside) */
  if (add && sync && sync->beside) pdl_wait();
  if (threadIdx.x == 0) {
#pragma unroll
    for (int k = 0; k < NV; k++) a[k] = add ? __ldcg(add + k) : 0.0;
    if (out.carry) {
      c[0] = __ldcg(out.carry);
      c[1] = __ldcg(out.carry + 1);
    }
  }
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
      if (add) t[k] += a[k];
      for (int d = 0; d < out.n; d++) out.p[d][k] = t[k];
    }
    if (out.carry)
      for (int d = 0; d < out.n; d++) {
        out.p[d][NV] = c[0];
        out.p[d][NV + 1] = c[1];
      }
    *red.counter = 0;
    if constexpr (NV + 2 <= CGM_LL_WORDS / 2)
      if (out.ll && sync) ll_send(st, *sync, out, t, c);
    if (sync) sync_raise(st, *sync);
  }
}

/* Single destination. */
template <int NV>
__device__ __forceinline__ void last_block_sum(double (&v)[NV], cgm_reduce_buf red, double *out) {
  const cgm_out o = {{out}, 1}; /* no ll words, no carry */
  last_block_sum<NV>(v, red, o, nullptr);
}

} // namespace cgm
