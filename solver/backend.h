/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The interface between the solve driver (solve.c) and the backends. The
 * driver validates the input, picks tolerances and recomputes the residual;
 * a backend only iterates. */
#ifndef CGM_SOLVER_BACKEND_H
#define CGM_SOLVER_BACKEND_H

#include <float.h>
#include <math.h>

#include "cgmodel/solver.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cgm_problem {
  const cgm_csr *A; /* square, symmetric, finite, positive diagonal */
  const double *b;  /* nrows */
  double *x;        /* nrows: initial guess in, solution out */
  double bnorm;     /* ||b||_2 > 0 */
  double tol;       /* relative residual target */
  int maxiter;
  cgm_solve_opts opts; /* layout parameters already checked and defaulted */
  cgm_plan plan;       /* what to build (cgm_solve_plan) */
  /* Block-Jacobi (else NULL): the inverses of A's diagonal blocks
   * (cgm_bjacobi_build), and for our CUDA kernels the blocks themselves. */
  const double *binv;
  const double *bblk;
  /* A in GPU memory (cgm_solve_device; else NULL): A NULL, b and x there */
  const cgm_csr_device *dA;
} cgm_problem;

/* Block-Jacobi (bjacobi.c). The blocks of an n-row matrix: ceil(n / N). */
static inline int32_t cgm_bjacobi_blocks(int32_t nrows, int n) {
  return (int32_t)(((int64_t)nrows + n - 1) / n);
}
/* inv (and blk when non-NULL) get, for each block k, the n x n block of A
 * at rows and columns [k n, k n + n) (inverted in inv), row-major, n * n
 * entries from k * n * n; rows past A's (the last block's padding) are the
 * identity. CGM_ENOCONV, naming the block's rows, when a block has no
 * Cholesky factor (is not positive definite). */
cgm_status cgm_bjacobi_build(const cgm_csr *A, int n, double *inv, double *blk, cgm_error *err);
/* CGM_EINPUT unless 1 <= n <= CGM_BJACOBI_MAX_BLOCK. */
cgm_status cgm_bjacobi_size_check(int n, cgm_error *err);

/* Each returns CGM_OK (converged), CGM_ENOCONV (maxiter, breakdown) with
 * res->stop_reason set, or an error. res->relative_residual is filled by the
 * driver afterwards. */
cgm_status cgm_cpu_cg_f64(const cgm_problem *pb, cgm_solve_result *res, cgm_error *err);
cgm_status cgm_cpu_cg_f32(const cgm_problem *pb, cgm_solve_result *res, cgm_error *err);
cgm_status cgm_cuda_cg(const cgm_problem *pb, cgm_solve_result *res, cgm_error *err);
cgm_status cgm_cusparse_cg(const cgm_problem *pb, cgm_solve_result *res, cgm_error *err);

/* The checks cgm_solve makes before any iteration (the matrix's skipped
 * when matrix_checked): CGM_EINPUT, or CGM_ENOCONV with res->stop_reason
 * for a diagonal that is not positive. */
cgm_status cgm_solve_check_input_as(const cgm_csr *A, const double *b, const double *x,
                                    bool matrix_checked, cgm_solve_result *res, cgm_error *err);
/* Those checks, and single precision's range, one by one: cgm_solve makes
 * them on the host (solve.c), cgm_solve_device on the GPU
 * (cuda/device_input.cu), in this order, the range last; i and j (rows and
 * columns from 0) and v say where and what. */
typedef enum {
  CGM_CHECK_SQUARE,    /* not square: i rows, j columns */
  CGM_CHECK_EMPTY,     /* 0 x 0 */
  CGM_CHECK_RHS,       /* b_i = v is NaN/Inf */
  CGM_CHECK_GUESS,     /* x0_i = v is NaN/Inf */
  CGM_CHECK_FINITE,    /* a_ij = v is NaN/Inf */
  CGM_CHECK_SYMMETRIC, /* A is not exactly symmetric */
  CGM_CHECK_DIAGONAL,  /* a_ii = v <= 0 (0 also where it is missing) */
  CGM_CHECK_RANGE,     /* single and mixed precision: a_ij = v outside float (cgm_check_float) */
} cgm_check;
/* Check c's refusal with its message, each written once (input_checks.c):
 * CGM_EINPUT, or for the diagonal CGM_ENOCONV, res (when given) marked
 * refused with the message. */
cgm_status cgm_check_refuse(cgm_check c, int32_t i, int32_t j, double v, cgm_solve_result *res,
                            cgm_error *err);
/* Whether v leaves float's range: beyond FLT_MAX it becomes Inf, a nonzero
 * below the smallest float 0 (A changes, and CG breaks down on NaN). */
#ifdef __CUDACC__
__host__ __device__
#endif
    static inline bool
    cgm_check_float(double v) {
  return fabs(v) > FLT_MAX || (v != 0.0 && (float)v == 0.0f);
}

/* ||v||_2 without overflow or underflow (scaled sum of squares). */
double cgm_solve_norm2(const double *v, int32_t n);
/* CG is scale invariant: a solve runs on A y = b / s and returns x = s y,
 * so that no norm or dot product under- or overflows whatever the scale of
 * b. s = 2^k with ||b|| / s in [1, 2) divides and multiplies exactly: the
 * residual a backend stops on is the one of the x returned (with s = ||b||
 * the rounding of x = s y moved it by u ||A|| ||x||, 4e-16 on bcsstk08). */
static inline double cgm_solve_scale(double bnorm) {
  int e;
  (void)frexp(bnorm, &e);
  return ldexp(0.5, e);
}
/* sum_i ((b - A x)_i / scale)^2 over the n rows of a CSR, each component
 * formed in long double and scaled before it is squared (no overflow or
 * underflow): the recomputed residual's. */
long double cgm_residual_ssq(int32_t n, const int64_t *rowptr, const int32_t *col,
                             const double *val, const double *b, const double *x, double scale);

/* The end of a host loop's result: the count, residual, verdict, stop
 * reason at the cap, and the time per iteration, the median of the first
 * ntimed past the first (page faults, cold caches); times is reordered. */
void cgm_cg_result_close(cgm_solve_result *res, cgm_status st, int it, double relres, int maxiter,
                         double tol, double *times, int ntimed);

/* Device dev's CUDA context made, or waited for (cgm_cuda_warm_up), before
 * a solve's setup clock starts. Errors are left to the solve's next call. */
void cgm_cuda_context_ready(int dev);

/* Iteration times are kept for the first CGM_MAX_TIMED iterations only. */
#define CGM_MAX_TIMED 65536

/* Reliable updates (Sleijpen and van der Vorst; the mixed-precision CG of
 * QUDA) and the stall test, the same for every loop (the CPU's, one GPU's
 * graph loop, the MPI solve). The true residual b - A x is computed at a
 * check, which is due when the iterated residual claims convergence (meets
 * the target), has fallen by CGM_RELIABLE_DELTA since the last check, or
 * has not for cgm_reliable_window iterations, and when the stall window
 * below ends. A check replaces the iterated residual by the true one in
 * single and mixed precision, and in double once rounding shows (below);
 * before that, double's checks only look (the iteration goes on as plain
 * CG would), after falls of CGM_LOOK_DELTA: 2-3 looks a solve to 1e-8,
 * each a pause between two graphs on a GPU. A replacement at a claim, and
 * double's first, start a new direction: the truth may be decades above
 * the iterated residual, and the old direction scaled by their ratio froze
 * the iteration.
 *
 * A solve ends as unreachable (stalled) only on evidence that its true
 * residual has stopped falling: it has not halved its best for as many
 * iterations as that best took (at least CGM_STALL_MIN), and rounding shows
 * (cgm_reliable_loose). Rounding is what stops a true residual: while the
 * iteration tracks the truth to many digits, CG's residual may rise and
 * plateau (for 2,000 iterations on bcsstk19 with a random b) and still
 * converge. No bound such as u ||A|| ||x|| is used: it is often 10-100x
 * above what a solve reaches. */
#define CGM_RELIABLE_DELTA 0.1
#define CGM_LOOK_DELTA 1e-3
#define CGM_STALL_MIN 200
#define CGM_STALL_GAP 0.01
static inline int cgm_reliable_window(int iterations) {
  return iterations / 4 > 100 ? iterations / 4 : 100;
}
typedef struct cgm_reliable {
  double ref;  /* the iterated residual after the last check */
  int last;    /* the iteration of the last check */
  double best; /* the true residual at its last halving */
  int best_iter;
  double least;   /* the least true residual seen */
  bool reduced;   /* single or mixed precision: every check replaces */
  bool replacing; /* double: rounding has shown, every check replaces */
} cgm_reliable;

static inline cgm_reliable cgm_reliable_start(double true_residual, bool reduced) {
  cgm_reliable r = {true_residual, 0, true_residual, 0, true_residual, reduced, false};
  return r;
}

/* The iteration at which the stall window since the best ends. */
static inline int cgm_reliable_deadline(const cgm_reliable *r) {
  return r->best_iter + (r->best_iter > CGM_STALL_MIN ? r->best_iter : CGM_STALL_MIN);
}

/* Whether a check is due at iteration `it` with the iterated residual
 * `iterated` (a claim is always checked: the caller's test). */
static inline bool cgm_reliable_due(const cgm_reliable *r, double iterated, int it) {
  const int end = cgm_reliable_deadline(r);
  const double delta = r->reduced || r->replacing ? CGM_RELIABLE_DELTA : CGM_LOOK_DELTA;
  return iterated <= delta * r->ref || it - r->last >= cgm_reliable_window(it) ||
         (r->last < end && it >= end);
}

/* Whether rounding shows: a claim refused, or the iterated residual's norm
 * more than CGM_STALL_GAP from the true one's. */
static inline bool cgm_reliable_loose(bool claimed, double iterated, double truth) {
  return claimed || fabs(iterated - truth) > CGM_STALL_GAP * truth;
}

/* Whether a check replaces the iterated residual; double's first look that
 * finds rounding showing replaces too. */
static inline bool cgm_reliable_replaces(const cgm_reliable *r, bool claimed) {
  return r->reduced || claimed || r->replacing;
}

/* A check at iteration `it`: `iterated` the iterated residual before it,
 * `truth` the true one, `now` what the iteration goes on with (the truth
 * after a replacement). Returns whether the solve has stalled. */
static inline bool cgm_reliable_check(cgm_reliable *r, bool claimed, double iterated, double truth,
                                      double now, int it) {
  const bool loose = cgm_reliable_loose(claimed, iterated, truth);
  const bool stalled = loose && it >= cgm_reliable_deadline(r) && truth > 0.5 * r->best;
  if (truth <= 0.5 * r->best) {
    r->best = truth;
    r->best_iter = it;
  }
  if (truth < r->least) r->least = truth;
  r->replacing = r->replacing || loose;
  r->ref = now;
  r->last = it;
  return stalled;
}

/* The unit roundoff of the true residual's arithmetic (mixed: double's). */
static inline double cgm_residual_roundoff(cgm_precision p) {
  return p == CGM_PREC_SINGLE ? 5.960464477539063e-08 : 1.1102230246251565e-16;
}

/* cgm_solve_opts.monitor: called at iteration 0, then once monitor_every
 * iterations have passed since the last call (*last; -1 before any), and
 * at the end (final). With monitor_x, fill(fill_ctx, monitor_x) writes the
 * backend's iterate there first (false: it could not, no call). */
static inline void cgm_monitor_report(const cgm_solve_opts *o, int *last, int iteration,
                                      double relres, bool final, bool (*fill)(void *, double *),
                                      void *fill_ctx) {
  if (!o->monitor || iteration == *last) return;
  const int every = o->monitor_every > 0 ? o->monitor_every : 1;
  if (final || *last < 0 || iteration - *last >= every) {
    *last = iteration;
    if (!o->monitor_x || fill(fill_ctx, o->monitor_x))
      o->monitor(o->monitor_ctx, iteration, relres);
  }
}

/* The caller's monitor behind a solver's, which solves another system:
 * before each call the iterate y it keeps becomes the caller's
 * x[perm[i]] = scale y[i] (perm NULL: x[i]; n 0: none), its iteration
 * offset + its own. cgm_monitor_map_set puts m in front of o's monitor
 * when it keeps x, y (n doubles; NULL: x itself) the solver's monitor_x. */
typedef struct cgm_monitor_map {
  void (*fn)(void *ctx, int iteration, double relative_residual);
  void *ctx;
  double *y, *x, scale;
  const int32_t *perm;
  int32_t n;
  int offset;
} cgm_monitor_map;
void cgm_monitor_map_set(cgm_solve_opts *o, cgm_monitor_map *m, double *y, double scale,
                         const int32_t *perm, int32_t n);

/* A solution that overflows when scaled back (x[i] = y * scale is not
 * finite): relative_residual NaN, not converged, the message naming x[i];
 * returns CGM_ENOCONV. */
cgm_status cgm_solve_overflow(cgm_solve_result *res, int32_t i, double y, double scale);
/* The verdict of a solve, once res holds the recomputed relative_residual:
 * CGM_OK only when the residual meets tol (or the message says why not); st
 * is the backend's status; returns the solve's. */
cgm_status cgm_solve_conclude(cgm_status st, cgm_precision p, double tol, const cgm_error *err,
                              cgm_solve_result *res);
/* Mixed precision's hand-over: runs pb again in double from pb->x, its
 * monitor counting on; res goes in as the mixed run's result and comes out
 * as both runs' together. */
cgm_status cgm_solve_fallback(cgm_problem *pb, cgm_solve_result *res, cgm_error *err);
/* A solve whose true residual stopped falling (cgm_reliable_check) above
 * tol in this precision, after `iterations`: res stalled, its stop reason
 * naming relres, the true residual of the x returned, and the least it
 * reached where that is lower (the CPU and MPI solves return the x of the
 * least; both relative): what this solve has shown reachable. */
void cgm_solve_stalled(cgm_solve_result *res, cgm_precision p, double relres, double least,
                       double tol, int iterations);

/* The smallest Ritz value of `steps` Lanczos steps (below zero: indefinite). */
cgm_status cgm_lanczos_min(const cgm_csr *A, int steps, double *ritz_min, cgm_error *err);

#ifdef __cplusplus
}
#endif
#endif
