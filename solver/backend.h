/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The interface between the solve driver (solve.c) and the backends. The driver validates the
 * input, picks tolerances and recomputes the residual; a backend only iterates. */
#pragma once

#include <float.h>
#include <math.h>

#include "cgmodel/solver.h"

CGM_BEGIN_DECLS

typedef struct cgm_problem {
  const cgm_csr *A; /* square, symmetric, finite, positive diagonal */
  const double *b;  /* nrows */
  double *x;        /* nrows: initial guess in, solution out */
  double bnorm;     /* ||b||_2 > 0 */
  double tol;       /* relative residual target */
  double anorm;     /* max_i sum_j |a_ij|: the scale of A for the residual's floor */
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
/* inv (and blk when non-NULL) get, for each block k, the n x n block of A at rows and columns [k n,
 * k n + n) (inverted in inv), row-major, n * n entries from k * n * n; rows past A's (the last
 * block's padding) are the identity. CGM_ENOCONV, naming the block's rows, when a block has no
 * Cholesky factor (is not positive definite). */
cgm_status cgm_bjacobi_build(const cgm_csr *A, int n, double *inv, double *blk, cgm_error *err);
/* CGM_EINPUT unless 1 <= n <= CGM_BJACOBI_MAX_BLOCK. */
cgm_status cgm_bjacobi_size_check(int n, cgm_error *err);

/* Each returns CGM_OK (converged), CGM_ENOCONV (maxiter, breakdown) with res->stop_reason set, or
 * an error. res->relative_residual is filled by the driver afterwards. */
cgm_status cgm_cpu_cg_f64(const cgm_problem *pb, cgm_solve_result *res, cgm_error *err);
cgm_status cgm_cpu_cg_f32(const cgm_problem *pb, cgm_solve_result *res, cgm_error *err);
cgm_status cgm_cuda_cg(const cgm_problem *pb, cgm_solve_result *res, cgm_error *err);
cgm_status cgm_cusparse_cg(const cgm_problem *pb, cgm_solve_result *res, cgm_error *err);

/* The checks cgm_solve makes before any iteration (the matrix's skipped when matrix_checked):
 * CGM_EINPUT, or CGM_ENOCONV with res->stop_reason for a diagonal that is not positive. */
cgm_status cgm_solve_check_input_as(const cgm_csr *A, const double *b, const double *x,
                                    bool matrix_checked, cgm_solve_result *res, cgm_error *err);
/* Those checks, and single precision's range, one by one: cgm_solve makes them on the host
 * (solve.c), cgm_solve_device on the GPU (cuda/device_input.cu), in this order, the range last; i
 * and j (rows and columns from 0) and v say where and what. */
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
/* Check c's refusal with its message, each written once (input_checks.c): CGM_EINPUT, or for the
 * diagonal CGM_ENOCONV, res (when given) marked refused with the message. */
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
/* sum_i ((b - A x)_i / scale)^2 over the n rows of a CSR, each component formed in long double and
 * scaled before it is squared (no overflow or underflow): the recomputed residual's. */
long double cgm_residual_ssq(int32_t n, const int64_t *rowptr, const int32_t *col,
                             const double *val, const double *b, const double *x, double scale);

/* The end of a host loop's result: the count, residual, verdict, stop reason (res->stalled:
 * cgm_solve_stall_reason's in precision p; else at the cap), and the time per iteration, the median
 * of the first ntimed past the first (page faults, cold caches); times is reordered. */
void cgm_cg_result_close(cgm_solve_result *res, cgm_status st, int it, double relres, int maxiter,
                         double tol, cgm_precision p, double *times, int ntimed);
/* Whether p . Ap = vu after `it` iterations breaks CG down (not positive, or not finite): then
 * res->stop_reason says so (a host loop's check, the CPU's and the MPI solve's). */
bool cgm_cg_breakdown(cgm_solve_result *res, int it, double vu);

/* The result's storage fields: s's format over a layout of block size n (nblocks padded blocks,
 * nslots row slots, nslices slices), rows rows of vectors of w bytes. */
void cgm_storage_report(cgm_solve_result *res, const cgm_value_set *s, int n, int64_t nblocks,
                        int64_t nslots, int64_t nslices, int64_t rows, int w);

/* Device dev's CUDA context made, or waited for (cgm_cuda_warm_up), before
 * a solve's setup clock starts. Errors are left to the solve's next call. */
void cgm_cuda_context_ready(int dev);

/* Iteration times are kept for the first CGM_MAX_TIMED iterations only. */
#define CGM_MAX_TIMED 65536

/* Reliable updates (Sleijpen and van der Vorst; QUDA's mixed-precision CG): the true residual b - A
 * x is computed at a claim of convergence, in single and mixed precision whenever the iterated
 * residual has fallen by CGM_RELIABLE_DELTA, and after cgm_reliable_window iterations without a
 * check (growing with the solve, so slow convergence is no stall), and it replaces the iterated
 * one. A stall (a tolerance this precision cannot reach) is judged by cgm_watch in the CPU and MPI
 * loops; the GPU's keep their check schedule (cgm_reliable, cgm_floor_watch), with which their
 * double iteration counts were measured (cgm_watch's new direction at the first 1% drift cost
 * Poisson 128^3 405 iterations instead of 296 on one H200), and judge a stall in double by
 * cgm_watch's rule. */
#define CGM_RELIABLE_DELTA 0.1
static inline int cgm_reliable_window(int iterations) {
  return iterations / 4 > 100 ? iterations / 4 : 100;
}

/* cgm_watch: a check is also due when the stall window below ends; in double it only looks (the
 * iteration goes on as plain CG), after falls of CGM_LOOK_DELTA, until rounding shows, and replaces
 * from then on. A replacement at a claim, and double's first, start a new direction (the truth may
 * be decades above the iterated residual: the old direction scaled by their ratio froze the
 * iteration). A solve stalls only when its true residual has not halved its best for as many
 * iterations as that best took (at least CGM_STALL_MIN) while rounding shows (cgm_watch_loose):
 * CG's residual may rise and plateau (2,000 iterations on bcsstk19, a random b) and still converge.
 * No bound such as u ||A|| ||x|| decides: it is often 10-100x above what a solve reaches. */
#define CGM_LOOK_DELTA 1e-3
#define CGM_STALL_MIN 200
#define CGM_STALL_GAP 0.01
typedef struct cgm_watch {
  double ref;  /* the iterated residual after the last check */
  int last;    /* the iteration of the last check */
  double best; /* the true residual at its last halving */
  int best_iter;
  double least;   /* the least true residual seen */
  bool reduced;   /* single or mixed precision: every check replaces */
  bool replacing; /* double: rounding has shown, every check replaces */
} cgm_watch;

static inline cgm_watch cgm_watch_start(double true_residual, bool reduced) {
  cgm_watch w = {true_residual, 0, true_residual, 0, true_residual, reduced, false};
  return w;
}

/* The iteration at which the stall window since the best ends. */
static inline int cgm_watch_deadline(const cgm_watch *w) {
  return w->best_iter + (w->best_iter > CGM_STALL_MIN ? w->best_iter : CGM_STALL_MIN);
}

/* Whether a check is due at iteration `it` with the iterated residual
 * `iterated` (a claim is always checked: the caller's test). */
static inline bool cgm_watch_due(const cgm_watch *w, double iterated, int it) {
  const int end = cgm_watch_deadline(w);
  const double delta = w->reduced || w->replacing ? CGM_RELIABLE_DELTA : CGM_LOOK_DELTA;
  return iterated <= delta * w->ref || it - w->last >= cgm_reliable_window(it) ||
         (w->last < end && it >= end);
}

/* Whether rounding shows: a claim refused, or the iterated residual's norm
 * more than CGM_STALL_GAP from the true one's. */
static inline bool cgm_watch_loose(bool claimed, double iterated, double truth) {
  return claimed || fabs(iterated - truth) > CGM_STALL_GAP * truth;
}

/* A check at iteration `it`: `iterated` the iterated residual before it,
 * `truth` the true one, `now` what the iteration goes on with (the truth
 * after a replacement). Returns whether the solve has stalled. */
static inline bool cgm_watch_check(cgm_watch *w, bool claimed, double iterated, double truth,
                                   double now, int it) {
  const bool loose = cgm_watch_loose(claimed, iterated, truth);
  const bool stalled = loose && it >= cgm_watch_deadline(w) && truth > 0.5 * w->best;
  if (truth <= 0.5 * w->best) {
    w->best = truth;
    w->best_iter = it;
  }
  if (truth < w->least) w->least = truth;
  w->replacing = w->replacing || loose;
  w->ref = now;
  w->last = it;
  return stalled;
}

/* The GPU's: in double the checks before a claim are cgm_floor_watch's probes, and the window's
 * checks start after a refused claim. Whether a precision has reached what it can, judged at each
 * replacement:
 * - double, its tolerance above what double shows: as cgm_watch, no bound decides; the true
 *   residual has not halved its best for as many iterations as that best took (at least
 *   CGM_STALL_MIN) while rounding shows. Three refused claims in a row ended a P1 tetrahedral solve
 *   (150k rows, random b) at 1.18e-8 for --tol 1e-8 where plain CG reaches 1.9e-9 by iteration
 *   3,220;
 * - single and mixed (mixed then hands over to double), and double once its tolerance lies below
 *   what double shows (the claims are then made at the floor, graph.cu's floor_step; `bounded`):
 *   the true residual lies within the floor u ||A|| ||x|| of the arithmetic that forms it and has
 *   not halved (or convergence was claimed there); or three stalls in a row: not halved, and
 *   convergence claimed or the iteration loose from the truth (true > 5 x iterated); in mixed
 *   precision (`handover`: double takes over) the truth grown past CGM_DIVERGED times its best
 *   (single diverged on LF10 and bcsstk01, iterated and true residuals rising together to 1e25;
 *   CG's own residual may rise by up to the square root of the condition number, so single alone is
 *   not stopped so); or no halving for as many iterations as the best took (at least 500). */
#define CGM_DIVERGED 1e3
typedef struct cgm_reliable {
  double best; /* the true residual at the last halving */
  int best_iter;
  int stalls;
  double unit;   /* u ||A|| of the residual's arithmetic */
  bool bounded;  /* the bound and three stalls decide (above) */
  bool handover; /* mixed: a stop hands over to double */
} cgm_reliable;

static inline cgm_reliable cgm_reliable_start(double true_residual, double unit_roundoff,
                                              double anorm, bool bounded, bool handover) {
  cgm_reliable r = {true_residual, 0, 0, unit_roundoff * anorm, bounded, handover};
  return r;
}

static inline bool cgm_reliable_stalled(cgm_reliable *r, bool claimed, double iterated,
                                        double true_residual, double xnorm, int iteration) {
  const bool halved = true_residual <= 0.5 * r->best;
  const bool stall = !halved && (claimed || true_residual > 5.0 * iterated);
  r->stalls = stall ? r->stalls + 1 : 0;
  const int since = iteration - r->best_iter;
  const int window = r->best_iter > CGM_STALL_MIN ? r->best_iter : CGM_STALL_MIN;
  if (halved) {
    r->best = true_residual;
    r->best_iter = iteration;
  }
  if (!r->bounded)
    return !halved && cgm_watch_loose(claimed, iterated, true_residual) && since >= window;
  const int patience = r->best_iter > 500 ? r->best_iter : 500;
  return ((!halved || claimed) && true_residual <= r->unit * xnorm) || r->stalls >= 3 ||
         (r->handover && true_residual > CGM_DIVERGED * r->best) ||
         iteration - r->best_iter > patience;
}

/* The GPU's watch in double for the floor u ||A|| ||x||, below which its iterated residual falls on
 * alone: the true residual is probed (nothing replaced) when the iterated one first falls below
 * CGM_FLOOR_PROBE of the initial one, then below the floor, then every further CGM_FLOOR_STEP. A
 * probe ends the solve when the tolerance lies below u ||D x|| (D = diag(A)) and the truth has
 * reached the floor; or when the iteration has come loose (iterated <= truth / 2) with the truth at
 * twice the floor or no longer halving, and the tolerance more than CGM_FLOOR_MARGIN below it.
 * Neither applies while the truth exceeds ||b|| or meets the target. */
#define CGM_FLOOR_PROBE 1e-3
#define CGM_FLOOR_STEP 0.3
#define CGM_FLOOR_MARGIN 0.1
#define CGM_DOUBLE_ROUNDOFF 1.1102230246251565e-16
typedef struct cgm_floor_watch {
  double next;      /* probe when the iterated residual falls to this */
  double last_true; /* the true residual at the last probe (0: none yet) */
  double unit;      /* u ||A|| of double */
  double bnorm;     /* ||b|| */
} cgm_floor_watch;

static inline cgm_floor_watch cgm_floor_watch_start(double true_residual, double anorm,
                                                    double bnorm) {
  cgm_floor_watch w = {CGM_FLOOR_PROBE * true_residual, 0.0, CGM_DOUBLE_ROUNDOFF * anorm, bnorm};
  return w;
}

/* After a probe (xnorm = ||x||, dxnorm = ||D x||, thr = tol ||b||). */
static inline bool cgm_floor_reached(cgm_floor_watch *w, double iterated, double true_residual,
                                     double xnorm, double dxnorm, double thr) {
  const double floor = w->unit * xnorm;
  if (!(true_residual <= w->bnorm) || true_residual <= thr) {
    w->next = CGM_FLOOR_STEP * iterated;
    return false;
  }
  const bool below_rounding = thr <= CGM_DOUBLE_ROUNDOFF * dxnorm && true_residual <= floor;
  const bool loose = iterated <= 0.5 * true_residual;
  const bool flat =
      true_residual <= 2.0 * floor || (w->last_true > 0.0 && true_residual > 0.5 * w->last_true);
  w->last_true = true_residual;
  w->next = w->next > floor ? floor : CGM_FLOOR_STEP * iterated;
  if (w->next > CGM_FLOOR_STEP * iterated) w->next = CGM_FLOOR_STEP * iterated;
  return below_rounding || (loose && flat && thr <= CGM_FLOOR_MARGIN * true_residual);
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

/* The caller's monitor behind a solver's, which solves another system: before each call the iterate
 * y it keeps becomes the caller's x[perm[i]] = scale y[i] (perm NULL: x[i]; n 0: none), its
 * iteration offset + its own. cgm_monitor_map_set puts m in front of o's monitor when it keeps x, y
 * (n doubles; NULL: x itself) the solver's monitor_x. */
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

/* A solution that overflows when scaled back (x[i] = y * scale is not finite): relative_residual
 * NaN, not converged, the message naming x[i]; returns CGM_ENOCONV. */
cgm_status cgm_solve_overflow(cgm_solve_result *res, int32_t i, double y, double scale);
/* The verdict of a solve, once res holds the recomputed relative_residual:
 * CGM_OK only when the residual meets tol (or the message says why not); st
 * is the backend's status; returns the solve's. */
cgm_status cgm_solve_conclude(cgm_status st, cgm_precision p, double tol, const cgm_error *err,
                              cgm_solve_result *res);
/* Mixed precision's hand-over: runs pb again in double from pb->x, its monitor counting on; res
 * goes in as the mixed run's result and comes out as both runs' together. */
cgm_status cgm_solve_fallback(cgm_problem *pb, cgm_solve_result *res, cgm_error *err);
/* The stop reason of a solve whose true residual stopped falling at relres
 * above tol in this precision (CPU, MPI: the least reached, x returned). */
void cgm_solve_stall_reason(cgm_precision p, double relres, double tol, int iterations, char *buf,
                            size_t n);

/* The smallest Ritz value of `steps` Lanczos steps (below zero: indefinite). */
cgm_status cgm_lanczos_min(const cgm_csr *A, int steps, double *ritz_min, cgm_error *err);

CGM_END_DECLS
