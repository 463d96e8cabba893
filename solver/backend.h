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
  double anorm;     /* max_i sum_j |a_ij|: the scale of A for the residual's floor */
  int maxiter;
  cgm_solve_opts opts; /* layout parameters already checked and defaulted */
  cgm_plan plan;       /* what to build (cgm_solve_plan) */
  /* Block-Jacobi (opts.precond == CGM_PRECOND_BLOCK, else NULL): the
   * inverses of A's diagonal blocks of opts.precond_block rows (cgm_bjacobi_build),
   * and for our CUDA kernels the blocks themselves (the single-reduction CG
   * recovers r = M u from its preconditioned residual u). */
  const double *binv;
  const double *bblk;
  /* A in GPU memory (cgm_solve_device; else NULL): A is then NULL, and b
   * and x are pointers into that device's memory. */
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

/* The checks cgm_solve makes before any iteration (square, non-empty,
 * finite A, b and x, exactly symmetric, positive diagonal): CGM_EINPUT, or
 * CGM_ENOCONV with res->stop_reason for a diagonal that is not positive.
 * The distributed solve makes them on its root. */
cgm_status cgm_solve_check_input(const cgm_csr *A, const double *b, const double *x,
                                 cgm_solve_result *res, cgm_error *err);
/* The same with the matrix's part skipped when matrix_checked. */
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

/* The end of a host loop's result (the CPU CG, cuSPARSE's, the MPI CG): the count, the
 * residual, the verdict of st, the stop reason at the iteration cap, and
 * the time per iteration, the median of the first ntimed past the first
 * (which pays for page faults and cold caches); times is reordered. */
void cgm_cg_result_close(cgm_solve_result *res, cgm_status st, int it, double relres, int maxiter,
                         double tol, double *times, int ntimed);
/* max_i sum_j |a_ij| (>= ||A||_2 for a symmetric A): the scale of A in the
 * reliable updates' floor. */
double cgm_solve_inf_norm(const cgm_csr *A);

/* Device dev's CUDA context made, or waited for where another thread (the
 * pipeline's warm-up, cgm_cuda_warm_up) is making it: a solve calls it
 * before its setup clock starts, so that the setup it reports and records
 * is its own. Errors are left to the solve's next call. */
void cgm_cuda_context_ready(int dev);

/* Iteration times are kept for the first CGM_MAX_TIMED iterations only. */
#define CGM_MAX_TIMED 65536

/* Reliable updates (Sleijpen and van der Vorst; the mixed-precision CG of
 * QUDA): in single and mixed precision the iterated residual is replaced by
 * the true one whenever it has fallen by this factor since the last
 * replacement, and in every precision before the solver claims convergence. */
#define CGM_RELIABLE_DELTA 0.1
/* A single-precision iteration stagnates once it has reached what it can:
 * its residual then no longer falls by CGM_RELIABLE_DELTA, so the true one
 * is also checked after this many iterations without a replacement (a
 * window that grows with the solve, so that slow convergence is not
 * mistaken for a stall). So is a double one, once a claim of convergence
 * was refused by the true residual: on an ill-conditioned matrix the
 * replaced residual may then never fall to the target again. */
static inline int cgm_reliable_window(int iterations) {
  return iterations / 4 > 100 ? iterations / 4 : 100;
}
/* Whether a precision has reached what it can, judged at each replacement
 * of the iterated residual by the true one:
 *  - the true residual lies within the floor of the arithmetic that forms
 *    it, u ||A|| ||x|| (u the unit roundoff of the residual's precision,
 *    ||A|| the largest row sum of |A|), and has not halved since its best
 *    or the solver claimed convergence: no iteration can take it lower;
 *  - three stalls in a row: not halved, and either the solver claimed
 *    convergence (the iterated residual met the target, the true one did
 *    not) or the iteration has come loose from the truth (the true residual
 *    over 5 times the iterated one it replaces; in a plateau the two stay
 *    together, and CG's residual has plateaus on hard matrices);
 *  - no halving for as many iterations as the best took (at least 500). */
typedef struct cgm_reliable {
  double best; /* the true residual at the last halving */
  int best_iter;
  int stalls;
  double unit; /* u ||A|| of the residual's arithmetic */
} cgm_reliable;

static inline cgm_reliable cgm_reliable_start(double true_residual, double unit_roundoff,
                                              double anorm) {
  cgm_reliable r = {true_residual, 0, 0, unit_roundoff * anorm};
  return r;
}

static inline bool cgm_reliable_stalled(cgm_reliable *r, bool claimed, double iterated,
                                        double true_residual, double xnorm, int iteration) {
  const bool halved = true_residual <= 0.5 * r->best;
  const bool stall = !halved && (claimed || true_residual > 5.0 * iterated);
  r->stalls = stall ? r->stalls + 1 : 0;
  if (halved) {
    r->best = true_residual;
    r->best_iter = iteration;
  }
  const int patience = r->best_iter > 500 ? r->best_iter : 500;
  /* at the floor: stalled when it has not halved, or right away when the
   * solver claimed convergence there (a target below the floor) */
  return ((!halved || claimed) && true_residual <= r->unit * xnorm) || r->stalls >= 3 ||
         iteration - r->best_iter > patience;
}

/* Double precision's watch for its floor. Its iterated residual follows the
 * true one down to about the floor u ||A|| ||x|| (attainable_residual) and
 * then falls on alone, so a tolerance below the floor would only be found
 * out when the iterated residual claims it, decades of iterations later (or
 * never: p'Ap is lost to rounding first). The true residual is therefore
 * probed, without replacing anything (the iteration goes on as it would),
 * when the iterated one first falls below CGM_FLOOR_PROBE of the initial
 * true residual (to learn ||x||), then below the floor, then at every
 * further CGM_FLOOR_STEP. A probe ends the solve when
 *  - the tolerance lies below u ||D x|| (D = diag(A)), the size of the
 *    rounding error of the diagonal's products alone, about the least
 *    residual a double iteration shows (a heuristic: on the matrices tried
 *    the least reachable tolerance was 2-5 times above it), and the true
 *    residual has reached the floor; or
 *  - the iteration has come loose from the truth (iterated <= truth / 2)
 *    with the truth at twice the floor or no longer halving since the last
 *    probe (the truth's own plateau: on an arrow matrix 20 times the
 *    estimate, where the refused claim's replacements took it 2.5 times
 *    lower only in 15 times the iterations), and the tolerance lies more
 *    than CGM_FLOOR_MARGIN below it.
 * Tolerances within CGM_FLOOR_MARGIN of a loose truth, and those between
 * u ||D x|| and the floor while the iteration follows the truth, go on to
 * the refused claim's path. Neither rule applies while the true residual
 * exceeds ||b|| (x is then no estimate of the solution's size: a mixed
 * solve handing a diverged x over to double) or already meets the
 * tolerance (the iterated residual will claim it next). */
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

static inline bool cgm_floor_due(const cgm_floor_watch *w, double iterated) {
  return iterated <= w->next;
}

/* After a probe (xnorm = ||x||, dxnorm = ||D x||, thr = tol ||b||): whether
 * the solve ends at its floor. */
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

/* The unit roundoff of the arithmetic that forms the true residual: float
 * in single precision, double in double and mixed. */
static inline double cgm_residual_roundoff(cgm_precision p) {
  return p == CGM_PREC_SINGLE ? 5.960464477539063e-08 : 1.1102230246251565e-16;
}

/* cgm_solve_opts.monitor: called at iteration 0, then whenever
 * monitor_every iterations have passed since the last call (the GPU loops
 * call it at their convergence checks, so at the first check after that),
 * and at the end (final: whatever the count). *last holds the iteration of
 * the last call (-1 before any). */
static inline void cgm_monitor_report(const cgm_solve_opts *o, int *last, int iteration,
                                      double relres, bool final) {
  if (!o->monitor || iteration == *last) return;
  const int every = o->monitor_every > 0 ? o->monitor_every : 1;
  if (final || *last < 0 || iteration - *last >= every) {
    o->monitor(o->monitor_ctx, iteration, relres);
    *last = iteration;
  }
}

/* The stop reason of a solve whose true residual stopped falling at
 * relres (relative) above tol in this precision, after `iterations`. */
/* A solution that overflows when scaled back (x[i] = y * scale is not
 * finite): relative_residual NaN, not converged, the message naming x[i];
 * returns CGM_ENOCONV. */
cgm_status cgm_solve_overflow(cgm_solve_result *res, int32_t i, double y, double scale);
/* The verdict of a solve, once res holds the recomputed relative_residual
 * and attainable_residual: CGM_OK only when the residual meets tol (or the
 * message says why not, with the floor when it stalled near it); st is the
 * backend's status; returns the solve's. */
cgm_status cgm_solve_conclude(cgm_status st, cgm_precision p, double tol, const cgm_error *err,
                              cgm_solve_result *res);
/* Mixed precision's hand-over: runs pb again in double from pb->x (which
 * the caller has set to where the mixed run ended, or to the initial
 * guess), its monitor counting on; res goes in as the mixed run's result
 * and comes out as both runs' together (fallback_iterations the first's). */
cgm_status cgm_solve_fallback(cgm_problem *pb, cgm_solve_result *res, cgm_error *err);
void cgm_solve_stall_reason(cgm_precision p, double relres, double tol, int iterations, char *buf,
                            size_t n);

/* The smallest Ritz value of `steps` Lanczos steps on A in double
 * (definite.c): below zero proves A indefinite. */
cgm_status cgm_lanczos_min(const cgm_csr *A, int steps, double *ritz_min, cgm_error *err);

#ifdef __cplusplus
}
#endif
#endif
