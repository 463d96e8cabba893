/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The CUDA kernels of the solver behind a plain C interface (the solver and the microbenchmarks
 * launch exactly these). Scalars never leave the device during an iteration: every reduction ends
 * in a "last block" that sums the per-block partials in a fixed order (deterministic) into one slot
 * of cgm_cg_state, from which the next kernel derives alpha or beta. A graph of K iterations uses
 * slots 0..K-1. Once `done` is set every later kernel returns at once, so a graph can run past
 * convergence. */
#pragma once

#include <cuda_runtime_api.h>
#include <stdint.h>

#include "cgmodel/plan.h"

CGM_BEGIN_DECLS

/* The MBR layout (cgm_bcsr) as uploaded to one device. */
typedef struct cgm_dev_layout {
  int n, bx, by;
  int32_t nslices;
  int32_t nbrows;
  int64_t nblocks_padded;
  const int64_t *slice_ptr; /* nslices + 1 */
  const int32_t *bcol;      /* nblocks_padded */
  const int32_t *brow;      /* nslices * by */
  const void *val;          /* nblocks_padded * n * n elements of the precision (fmt) */
  int fmt;                  /* cgm_values: F32 val in float, DICT none (bcol's codes, dict) */
  int shift;                /* DICT: bits of a column in bcol; its code above them */
  const double *dict;       /* DICT: the values (device memory) */
  int long_rows; /* 1: long block rows (cgm_plan_layout.long_rows), a slice a block row */
  int32_t nhuge; /* long rows: the first nhuge slices are read by a block each (CGM_HUGE_ROW),
                    the rest by a warp each */
} cgm_dev_layout;

#define CGM_MAX_SLOTS 64
#define CGM_LL_SLOTS 4 /* > the iterations a device can run ahead of another */
#define CGM_LL_WORDS 6 /* u . A u, r . u, r . r: two words each */

typedef struct cgm_cg_slot {
  /* classic: p . A p (SpMV + CG3), then r . D^-1 r and r . r after CG4's update;
   * single-reduction CG: u . A u (the SpMV), and r . u and r . r of the residual
   * the SpMV read, carried by it from the previous update (cgm_out.carry) */
  double pq;
  double rz;
  double rr; /* the stop test */
} cgm_cg_slot;

enum {
  CGM_RUN = 0,
  CGM_RUN_CONVERGED = 1,
  CGM_RUN_BREAKDOWN = 2, /* p . A p <= 0: not positive definite */
  CGM_RUN_NONFINITE = 3, /* NaN or Inf in a reduction */
  CGM_RUN_MAXITER = 4,
  CGM_RUN_TIMEOUT = 5, /* a device waited too long for a peer's flag */
  CGM_RUN_STALLED = 6, /* the true residual stopped falling (the host's reliable updates) */
};

/* Flags between GPUs (p2p and halo): a producer's last block stores its results into the consumers'
 * memory, fences, and raises its flag there to a tick; a consumer's blocks spin on the flags they
 * need before they read (a cross-device graph edge costs ~15 us). tick(off) = epoch * K + off,
 * epoch the graphs completed, off slot + 1 for the sums and for the vector an SpMV at `slot` reads
 * (the exchange after slot s raises s + 2). */
enum { CGM_FLAG_PQ = 0, CGM_FLAG_RZ = 1, CGM_FLAG_VEC = 2, CGM_NFLAGS = 3 };

typedef struct cgm_sync {
  unsigned wait_mask; /* bit j: wait for device j's flag (0: no wait) */
  int wait_kind;      /* CGM_FLAG_* */
  int wait_off;       /* wait until flag >= tick(wait_off) */
  int nraise;
  int raise_off; /* raise to tick(raise_off) */
  int ll;        /* cgg: the wait_mask devices' sums come as cgm_cg_state.ll words, no flags */
  unsigned long long *raise[CGM_MAX_GPUS]; /* flags in consumers' states */
  int overlap; /* launch with programmatic dependent launch (launch.cuh) */
  int leave;   /* SpMV: blocks per SM left free for the own halo pack it waits on */
  int beside;  /* SpMV beside the long-row kernel, waiting (PDL) only to add its sum */
} cgm_sync;

/* slot[j][i]: device j's partial sums for slot i, written in by the peers
 * and added in device order: every device gets bit-identical scalars (one
 * GPU, NCCL, host: slot[0] holds the total; local[i] the own partial). */
typedef struct cgm_cg_state {
  cgm_cg_slot slot[CGM_MAX_GPUS][CGM_MAX_SLOTS];
  cgm_cg_slot local[CGM_MAX_SLOTS];
  double thr;               /* (tol * ||b||)^2 */
  double rr_last;           /* r . r of the last completed iteration */
  double bad;               /* the value that stopped the run */
  int done;                 /* CGM_RUN_* */
  int iter;                 /* completed iterations */
  int maxiter;              /* CG5 (or cgg) stops the run here */
  int K;                    /* iterations per graph (the ticks of cgm_sync) */
  unsigned long long epoch; /* graphs completed */
  /* a run resumed after a replacement counts on from iter_base at epoch_base */
  int iter_base;
  unsigned long long epoch_base;
  unsigned long long wait_ns; /* how long a flag wait may spin (0: forever) */
  /* The single-reduction CG's own history (block 0 of cgg): 1 / alpha and
   * gamma of each slot (a peer may overwrite slot[][prev] at K = 2). */
  double inv_alpha[CGM_MAX_SLOTS];
  double gamma[CGM_MAX_SLOTS];
  /* flag[kind][j]: raised by device j (cgm_sync) */
  unsigned long long flag[CGM_NFLAGS][CGM_MAX_GPUS];
  /* ll[j][tick % CGM_LL_SLOTS]: device j's SpMV sums for cgg on several
   * GPUs, each double as two words of 32 data bits under the 32-bit tick
   * (cgm_out.ll): data and flag in one store, no system-scope fence. */
  unsigned long long ll[CGM_MAX_GPUS][CGM_LL_SLOTS][CGM_LL_WORDS];
} cgm_cg_state;

/* A reducing kernel's scratch: per-block partials, the last block's counter. */
typedef struct cgm_reduce_buf {
  double *partials; /* 2 * capacity */
  unsigned *counter;
  int capacity; /* most blocks a reducing launch may use */
} cgm_reduce_buf;

/* Where a reduction's last block writes its sums: every destination gets
 * the same values (own state, and peers' states on several GPUs). */
typedef struct cgm_out {
  double *p[CGM_MAX_GPUS];
  int n;
  /* ll > 0: no p[] sums; instead the sums and the carry (3 doubles) go as
   * ll words (cgm_cg_state.ll) to p[0..ll), each the ll[this device] of a
   * destination state, under the tick of the raise (cgm_sync.raise_off). */
  int ll;
  /* NULL, or two doubles written after the sums (outputs NV, NV + 1): the
   * single-reduction CG's r . D^-1 r and r . r partials ride with the
   * SpMV's u . A u to the same destinations, under the same flag. */
  const double *carry;
} cgm_out;

/* Block-Jacobi for the vector kernels (NULL, or n = 0: Jacobi by dinv): the
 * inverses of the own n x n diagonal blocks (row-major, the iteration's
 * precision) and the blocks (cgg recovers r = M u); a thread a block. */
typedef struct cgm_bjac {
  int n;
  const void *inv;
  const void *blk;
} cgm_bjac;

/* Whether the CUDA kernels support these layout parameters. */
cgm_status cgm_spmv_supported(int n, int bx, int by, cgm_precision prec, cgm_error *err);

/* y = A x over the MBR layout. When dot is non-NULL, the last block writes dot_add[0] (if non-NULL)
 * + sum_i p_rows[i] * y[i] to every destination (CG3 fused into the SpMV). When guard is non-NULL
 * and guard->done is set, returns at once. sync (NULL: none; needs guard): wait before reading x,
 * raise after the dot. */
cudaError_t cgm_launch_spmv(const cgm_dev_layout *L, cgm_precision prec, const void *x, void *y,
                            const void *p_rows, const cgm_out *dot, const double *dot_add,
                            cgm_reduce_buf red, cgm_cg_state *guard, const cgm_sync *sync, int sms,
                            cudaStream_t s);

/* CG1: r = b - u, v = D^-1 r; out[0] = r . v, out[1] = r . r. */
cudaError_t cgm_launch_cg1(cgm_precision prec, int64_t n, const void *b, const void *u,
                           const void *dinv, const cgm_bjac *bj, void *r, void *v, double *out,
                           cgm_reduce_buf red, int sms, cudaStream_t s);
/* CG4 (+ CG2's r.r): alpha = rz[prev] / pq[slot], each the sum of the first `nparts` partials; x +=
 * alpha v; r -= alpha u; writes (r . D^-1 r, r . r) to every destination of out. Sets done on
 * breakdown. sync (NULL: none): wait for the pq partials, raise after the sums. */
cudaError_t cgm_launch_cg4(cgm_precision prec, int64_t n, cgm_cg_state *st, int nparts, int slot,
                           int prev, void *x, void *r, const void *v, const void *u,
                           const void *dinv, const cgm_bjac *bj, const cgm_out *out,
                           cgm_reduce_buf red, const cgm_sync *sync, int sms, cudaStream_t s);
/* CG5: the stop test on rr[slot], then beta = rz[slot] / rz[prev] and v = D^-1 r + beta v. Counts
 * the iteration. sync: wait for the rz partials (its raise is unused). */
cudaError_t cgm_launch_cg5(cgm_precision prec, int64_t n, cgm_cg_state *st, int nparts, int slot,
                           int prev, void *v, const void *r, const void *dinv, const cgm_bjac *bj,
                           const cgm_sync *sync, int sms, cudaStream_t s);
/* The single-reduction CG (Chronopoulos and Gear 1989): one kernel after the SpMV w = A u, whose
 * reduction delivers delta = u . w, gamma = r . u and r . r: the stop test, then beta = gamma /
 * gamma[prev], den = delta - beta gamma / alpha[prev] (= p . A p), alpha = gamma / den, p = u +
 * beta p, s = w + beta s (= A p), x += alpha p, u -= alpha D^-1 s, and (r . u, r . r) of r = D u to
 * out. The residual is kept preconditioned (u): 10 vector passes. Counts the iteration. sync: the
 * SpMV's sums. */
cudaError_t cgm_launch_cgg(cgm_precision prec, int64_t n, cgm_cg_state *st, int nparts, int slot,
                           int prev, void *x, void *u, void *p, const void *w, void *s,
                           const void *dinv, const cgm_bjac *bj, const cgm_out *out,
                           cgm_reduce_buf red, const cgm_sync *sync, int sms, cudaStream_t stream);
/* Halo exchange: writes v_own[idx[e]] to the destinations, e in
 * [off[k], off[k+1]) going to dst[k] + (e - off[k]) (peer memory). */
typedef struct cgm_pack {
  const int32_t *idx;
  int64_t off[CGM_MAX_GPUS + 1];
  void *dst[CGM_MAX_GPUS];
  int ndst;
} cgm_pack;
/* sync (NULL: none): raise once every block's stores are out (the last
 * block, counted in red.counter; red.partials is unused); with a wait_mask
 * the last block then waits for those devices' flags (sync_raise_all). */
cudaError_t cgm_launch_pack(cgm_precision prec, const void *v_own, const cgm_pack *pk,
                            cgm_cg_state *guard, const cgm_sync *sync, cgm_reduce_buf red, int sms,
                            cudaStream_t s);
/* Whole-vector exchange by peer stores: copies `bytes` (a multiple of 16, 16-byte aligned) from src
 * to every dst[0..ndst), read once. sync as for the pack. */
cudaError_t cgm_launch_scatter(const void *src, int64_t bytes, void *const *dst, int ndst,
                               cgm_cg_state *guard, const cgm_sync *sync, cgm_reduce_buf red,
                               int sms, cudaStream_t s);
/* Whether the kernels were built with programmatic dependent launch's wait for the current device
 * (sm_90 or later); without it they must not overlap. */
int cgm_pdl_supported(void);
/* The current device's modules of the SpMV and vector kernels loaded:
 * CUDA loads a module at its first kernel's use, 1.5-2 ms of a small
 * solve's setup on one H200; the warm-up thread pays it beside the read. */
void cgm_kernels_preload(void);
/* epoch += 1: the last kernel of a graph on every device (cgm_sync). */
cudaError_t cgm_launch_epoch(cgm_cg_state *st, cudaStream_t s);

/* Reliable updates on one GPU, between graphs: fold: x_hi += x_lo, x_lo = 0 (mixed precision),
 * out[0] = x_hi . x_hi; replace: r = b - y (y = A x) in rprec rounded into iprec: cgg keeps u =
 * D^-1 r in z, Algorithm 2 keeps r in z and, given v, restarts there (v = D^-1 r); out[0] = r . r,
 * out[1..2] = r . D^-1 r and r . r of what the iteration keeps, out[3] = x . x (x given), out[4] =
 * s . u (s given); resume: those sums for the next graph's first step; restart (cgg): a new
 * direction (beta = 0). */
cudaError_t cgm_launch_fold(int64_t n, double *x_hi, float *x_lo, double *out, cgm_reduce_buf red,
                            int sms, cudaStream_t s);
cudaError_t cgm_launch_replace(cgm_precision rprec, cgm_precision iprec, int64_t n, int cgg,
                               const void *b, const void *y, const void *dinv, const cgm_bjac *bj,
                               void *z, void *v, const void *x, const void *s, double *out,
                               cgm_reduce_buf red, int sms, cudaStream_t stream);
cudaError_t cgm_launch_resume(cgm_cg_state *st, const double *out, int cgg, int restart,
                              cudaStream_t s);
/* out[0] = ||D x||^2 = sum_i (x_i / dinv_i)^2, dinv 0 left out (floor watch). */
cudaError_t cgm_launch_diag_norm(int64_t n, const double *x, const double *dinv, double *out,
                                 cgm_reduce_buf red, int sms, cudaStream_t s);
/* dst = (float) src: mixed precision's values, from the double copy. */
cudaError_t cgm_launch_to_single(const double *src, float *dst, int64_t n, int sms, cudaStream_t s);
/* out[0] = x . y (the plain vector reduction of the paper's Table 2). */
cudaError_t cgm_launch_dot(cgm_precision prec, int64_t n, const void *x, const void *y, double *out,
                           cgm_reduce_buf red, int sms, cudaStream_t s);

CGM_END_DECLS
