/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The solve driver: checks the input once for every backend, handles the
 * trivial cases, dispatches, and recomputes the true residual afterwards. */
#include "cgmodel/solver.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/par.h"
#include "common/timer.h"
#include "solver/backend.h"

cgm_gpu_opts cgm_gpu_opts_default(void) {
  cgm_gpu_opts g = {0};
  g.cg = CGM_CG_CGG;
  g.graphs = g.pdl = g.flags = g.late = g.ll = g.balance = g.device_layout = true;
  return g;
}

cgm_solve_opts cgm_solve_opts_default(void) {
  const cgm_plan_opts p = cgm_plan_opts_default();
  return (cgm_solve_opts){
      .fallback = true,
      .backend = p.backend,
      .precision = p.precision,
      .layout = p.layout, /* B_x and B_y chosen for the matrix (cgm_plan_layout_params) */
      .gpus = p.gpus,
      .exchange = p.exchange,
      .gpu = cgm_gpu_opts_default(),
      .reorder = CGM_REORDER_NONE}; /* the library solves as given; the command line's: auto */
}

static cgm_plan_opts plan_opts(const cgm_solve_opts *o) {
  cgm_plan_opts po = cgm_plan_opts_default();
  po.backend = o->backend;
  po.precision = o->precision;
  po.layout = o->layout;
  po.gpus = o->backend == CGM_BACKEND_CUDA ? o->gpus : 1;
  po.exchange = o->exchange;
  po.balance = o->gpu.balance;
  /* no segment boundary cuts a block-Jacobi block */
  po.row_align = o->precond == CGM_PRECOND_BLOCK ? o->precond_block : 0;
  po.settled = o->settled;
  return po;
}

cgm_status cgm_solve_plan(const cgm_csr *A, const cgm_solve_opts *o, cgm_plan *p, cgm_error *err) {
  return cgm_solve_plan_known(A, NULL, o, p, err);
}

cgm_status cgm_solve_plan_known(const cgm_csr *A, const cgm_features *f, const cgm_solve_opts *o,
                                cgm_plan *p, cgm_error *err) {
  cgm_plan_opts po = plan_opts(o);
  po.features = f;
  po.storage = o->storage;
  po.value_class = f ? f->value_class : cgm_values_class(A->val, A->nnz, A->ncols);
  return cgm_plan_make(A, &po, p, err);
}

void cgm_solve_stall_reason(cgm_precision p, double relres, double tol, int iterations, char *buf,
                            size_t n) {
  const char *why =
      p == CGM_PREC_SINGLE ? "single precision cannot reach it on this matrix (use precision=mixed "
                             "or precision=double, or a larger tol)"
      : p == CGM_PREC_MIXED
          ? "the single-precision iteration is too inexact for this matrix (use precision=double)"
          : "the tolerance is below what double precision attains for this matrix and right-hand "
            "side (use a larger tol)";
  snprintf(buf, n,
           "the true residual ||b - Ax||/||b|| stopped falling at %.3g after %d iterations, above "
           "the target %.3g: %s",
           relres, iterations, tol, why);
}

static bool not_finite(double v) {
  return !isfinite(v);
}

/* The first entry of A (in row order) where bad(v), refused as check c;
 * found on every core (49M entries a solve). */
static cgm_status refuse_first(const cgm_csr *A, bool (*bad)(double), cgm_check c,
                               cgm_solve_result *res, cgm_error *err) {
  int32_t first = INT32_MAX;
#pragma omp parallel for schedule(static) reduction(min : first) if (A->nnz >= CGM_PAR_MIN_NNZ)
  for (int32_t i = 0; i < A->nrows; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (bad(A->val[k]) && i < first) first = i;
  if (first < INT32_MAX)
    for (int64_t k = A->rowptr[first]; k < A->rowptr[first + 1]; k++)
      if (bad(A->val[k])) return cgm_check_refuse(c, first, A->colidx[k], A->val[k], res, err);
  return CGM_OK;
}

/* cgm_solve_check_matrix, marking res (when given) refused. */
static cgm_status check_matrix(const cgm_csr *A, cgm_solve_result *res, cgm_error *err) {
  if (A->nrows != A->ncols)
    return cgm_check_refuse(CGM_CHECK_SQUARE, A->nrows, A->ncols, 0, res, err);
  if (A->nrows == 0) return cgm_check_refuse(CGM_CHECK_EMPTY, 0, 0, 0, res, err);
  cgm_status st = refuse_first(A, not_finite, CGM_CHECK_FINITE, res, err);
  if (st) return st;
  if (!cgm_csr_is_symmetric(A)) return cgm_check_refuse(CGM_CHECK_SYMMETRIC, 0, 0, 0, res, err);
  double *d = malloc((size_t)A->nrows * sizeof *d);
  if (!d) return cgm_fail(err, CGM_ERUNTIME, "out of memory");
  cgm_csr_diagonal(A, d);
  int32_t bad = 0; /* the first diagonal entry not > 0 */
  while (bad < A->nrows && d[bad] > 0.0) bad++;
  const double dbad = bad < A->nrows ? d[bad] : 0.0;
  free(d);
  return bad < A->nrows ? cgm_check_refuse(CGM_CHECK_DIAGONAL, bad, bad, dbad, res, err) : CGM_OK;
}

cgm_status cgm_solve_check_matrix(const cgm_csr *A, cgm_error *err) {
  return check_matrix(A, NULL, err);
}

/* The right-hand side and the initial guess first (NaN/Inf there is bad
 * input whatever the matrix), then the matrix as cgm_solve_check_matrix. */
cgm_status cgm_solve_check_input_as(const cgm_csr *A, const double *b, const double *x,
                                    bool matrix_checked, cgm_solve_result *res, cgm_error *err) {
  int32_t bad_b = INT32_MAX, bad_x = INT32_MAX; /* the first of each, on every core */
#pragma omp parallel for schedule(static) reduction(min : bad_b, bad_x) if (A->nrows >= CGM_PAR_MIN)
  for (int32_t i = 0; i < A->nrows; i++) {
    if (!isfinite(b[i]) && i < bad_b) bad_b = i;
    if (!isfinite(x[i]) && i < bad_x) bad_x = i;
  }
  if (bad_b < INT32_MAX) return cgm_check_refuse(CGM_CHECK_RHS, bad_b, 0, b[bad_b], res, err);
  if (bad_x < INT32_MAX) return cgm_check_refuse(CGM_CHECK_GUESS, bad_x, 0, x[bad_x], res, err);
  if (matrix_checked && A->nrows == A->ncols && A->nrows > 0) return CGM_OK;
  return check_matrix(A, res, err);
}

/* max_i sum_j |a_ij| (>= ||A||_2 for a symmetric A). */
static double inf_norm(const cgm_csr *A) {
  double m = 0.0;
#pragma omp parallel for schedule(static) reduction(max : m) if (A->nnz >= CGM_PAR_MIN_NNZ)
  for (int32_t i = 0; i < A->nrows; i++) {
    double s = 0.0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) s += fabs(A->val[k]);
    if (s > m) m = s;
  }
  return m;
}

/* A breakdown (p . Ap <= 0) blames the matrix only when that is established: a negative Ritz value
 * of a short Lanczos run in double. In single precision, or after a long drift, rounding alone can
 * break CG on an SPD matrix; the message then says so instead. */
static void breakdown_verdict(const cgm_csr *A, cgm_precision p, cgm_solve_result *res) {
  static const char blame[] = ", the matrix is not positive definite";
  char *tail = strstr(res->stop_reason, blame);
  if (strncmp(res->stop_reason, "CG breakdown", 12) != 0 || !tail) return;
  double ritz = 0;
  cgm_error e = {0};
  const int steps = 60;
  if (cgm_lanczos_min(A, steps, &ritz, &e) != CGM_OK) return; /* the plain message stands */
  const double anorm = inf_norm(A);
  const size_t room = sizeof res->stop_reason - (size_t)(tail - res->stop_reason);
  if (ritz < -1e-10 * anorm)
    snprintf(tail, room,
             ", the matrix is not positive definite (it has an eigenvalue at or below %.3g)", ritz);
  else
    snprintf(tail, room,
             " in %s precision, yet no negative eigenvalue was found (Lanczos, %d steps: smallest "
             "Ritz value %.3g): lost to rounding, not shown to be the matrix's fault%s",
             cgm_precision_name(p), steps, ritz,
             p == CGM_PREC_DOUBLE ? "" : "; use precision=double or precision=mixed");
}

void cgm_cg_result_close(cgm_solve_result *res, cgm_status st, int it, double relres, int maxiter,
                         double tol, cgm_precision p, double *times, int ntimed) {
  if (res->stalled)
    cgm_solve_stall_reason(p, relres, tol, it, res->stop_reason, sizeof res->stop_reason);
  res->iterations = it;
  res->solver_residual = relres;
  res->converged = st == CGM_OK;
  if (st != CGM_OK && !res->stop_reason[0])
    snprintf(res->stop_reason, sizeof res->stop_reason,
             "maximum of %d iterations reached with relative residual %.3g (target %.3g)", maxiter,
             relres, tol);
  const int nt = it < ntimed ? it : ntimed;
  res->time_per_iter_s = cgm_median_low(times + (nt > 1), nt - (nt > 1), &res->time_per_iter_low_s);
}

bool cgm_cg_breakdown(cgm_solve_result *res, int it, double vu) {
  if (vu > 0.0 && isfinite(vu)) return false;
  snprintf(res->stop_reason, sizeof res->stop_reason,
           isfinite(vu) ? "CG breakdown after %d iterations: p'Ap = %.3g <= 0, the matrix is not "
                          "positive definite"
                        : "CG breakdown after %d iterations: p'Ap = %.3g is not finite",
           it, vu);
  return true;
}

void cgm_storage_report(cgm_solve_result *res, const cgm_value_set *s, int n, int64_t nblocks,
                        int64_t nslots, int64_t nslices, int64_t rows, int w) {
  res->storage = s->fmt;
  res->storage_exact = s->exact;
  res->value_bytes = (double)nblocks *
                     cgm_values_block_bytes(s->fmt, n, w == 4 ? CGM_PREC_SINGLE : CGM_PREC_DOUBLE);
  res->index_bytes = 4.0 * (double)nblocks;
  /* the model's count (cgm_spmv_bytes, cgm_iter_bytes) at the values' width:
   * x and y once, CG4's 7 and CG5's 4 vector passes */
  res->iter_bytes = res->value_bytes + res->index_bytes + 4.0 * (double)nslots +
                    8.0 * (double)(nslices + 1) + 13.0 * (double)rows * w;
}

/* Adds s^2 q to the scaled sum of squares (scale, ssq): ||.|| = scale
 * sqrt(ssq), as BLAS dnrm2 (no overflow or underflow). */
static void ssq_add(double *scale, double *ssq, double s, double q) {
  if (s == 0.0) return;
  if (*scale < s) {
    *ssq = q + *ssq * (*scale / s) * (*scale / s);
    *scale = s;
  } else {
    *ssq += q * (s / *scale) * (s / *scale);
  }
}

/* The scaled sum of squares of v[i0, i1). */
static void norm2_part(const double *v, int64_t i0, int64_t i1, double *scale, double *ssq) {
  *scale = 0.0;
  *ssq = 1.0;
  for (int64_t i = i0; i < i1; i++) ssq_add(scale, ssq, fabs(v[i]), 1.0);
}

/* Chunks of a fixed size on every core, joined in order: the same value
 * on any thread count (7M rows took 35 ms on one core). */
#define NORM_CHUNK 65536

double cgm_solve_norm2(const double *v, int32_t n) {
  const int64_t nc = ((int64_t)n + NORM_CHUNK - 1) / NORM_CHUNK;
  double *part = nc > 1 ? malloc((size_t)nc * 2 * sizeof *part) : NULL;
  if (!part) { /* one chunk, or no room for the chunks': one pass on one core */
    double scale, ssq;
    norm2_part(v, 0, n, &scale, &ssq);
    return scale * sqrt(ssq);
  }
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < nc; c++) {
    const int64_t i1 = (c + 1) * NORM_CHUNK < n ? (c + 1) * NORM_CHUNK : n;
    norm2_part(v, c * NORM_CHUNK, i1, &part[2 * c], &part[2 * c + 1]);
  }
  double scale = 0.0, ssq = 1.0;
  for (int64_t c = 0; c < nc; c++) ssq_add(&scale, &ssq, part[2 * c], part[2 * c + 1]);
  free(part);
  return scale * sqrt(ssq);
}

long double cgm_residual_ssq(int32_t n, const int64_t *rowptr, const int32_t *col,
                             const double *val, const double *b, const double *x, double scale) {
  long double s = 0.0L;
  const long double sc = scale;
  /* Partial sums joined in a critical section: an OpenMP reduction of a
   * long double needs 16-byte atomics (libatomic) with clang. */
#pragma omp parallel if (rowptr[n] >= CGM_PAR_MIN_NNZ)
  {
    long double part = 0.0L;
#pragma omp for schedule(static)
    for (int32_t i = 0; i < n; i++) {
      long double ri = b[i];
      for (int64_t k = rowptr[i]; k < rowptr[i + 1]; k++) ri -= (long double)val[k] * x[col[k]];
      ri /= sc;
      part += ri * ri;
    }
#pragma omp critical
    s += part;
  }
  return s;
}

/* ||b - A x|| / bnorm (bnorm = ||b||) of the system as given, not the
 * scaled one the backends solve: what is returned is what is checked. */
static double true_residual(const cgm_csr *A, const double *b, const double *x, double bnorm) {
  return (double)sqrtl(cgm_residual_ssq(A->nrows, A->rowptr, A->colidx, A->val, b, x, bnorm));
}

/* res->relative_residual of x as it stands (b != 0). */
static void residual_of(const cgm_csr *A, const double *b, const double *x, cgm_solve_result *res) {
  const double bn = cgm_solve_norm2(b, A->nrows);
  if (bn > 0) res->relative_residual = true_residual(A, b, x, bn);
}

static cgm_status run_backend(const cgm_problem *pb, cgm_solve_result *res, cgm_error *err) {
  const cgm_solve_opts *o = &pb->opts;
  const int threads = o->threads > 0 ? o->threads : omp_get_max_threads();
  switch (o->backend) {
  case CGM_BACKEND_CPU:
    snprintf(res->device, sizeof res->device, "cpu (%d thread%s)", threads,
             threads == 1 ? "" : "s");
    return o->precision == CGM_PREC_DOUBLE ? cgm_cpu_cg_f64(pb, res, err)
                                           : cgm_cpu_cg_f32(pb, res, err);
  case CGM_BACKEND_CUDA:
    return cgm_cuda_cg(pb, res, err);
  case CGM_BACKEND_CUSPARSE:
    return cgm_cusparse_cg(pb, res, err);
  }
  return cgm_fail(err, CGM_EINPUT, "unknown backend %d", (int)o->backend);
}

/* Block-Jacobi's set-up, shared by the backends: the inverses of the diagonal blocks of the
 * layout's size (of A as the backend sees it, after any reordering), and for our CUDA kernels the
 * blocks. A block that is not positive definite refuses the solve as a non-positive diagonal does
 * (cgm_solve_check_matrix): CGM_ENOCONV, res->refused, nothing run, the initial guess's residual
 * reported. */
static cgm_status block_jacobi(const cgm_csr *A, const double *b, const double *x,
                               const cgm_problem *pb, double **binv, double **bblk,
                               cgm_solve_result *res, cgm_error *err) {
  *binv = *bblk = NULL;
  if (pb->opts.precond == CGM_PRECOND_JACOBI) return CGM_OK;
  if (pb->opts.precond != CGM_PRECOND_BLOCK)
    return cgm_fail(err, CGM_EINPUT, "unknown preconditioner %d", (int)pb->opts.precond);
  if (pb->opts.backend == CGM_BACKEND_CUSPARSE)
    return cgm_fail(err, CGM_EINPUT,
                    "the cusparse backend has Jacobi preconditioning only: block-Jacobi "
                    "(precond=block) runs on backend=cpu and backend=cuda");
  const int n = pb->opts.precond_block; /* resolved (solve_in_order) */
  const size_t len = (size_t)cgm_bjacobi_blocks(A->nrows, n) * (size_t)n * (size_t)n;
  *binv = malloc(len * sizeof **binv);
  if (pb->opts.backend == CGM_BACKEND_CUDA) *bblk = malloc(len * sizeof **bblk);
  cgm_error e = {0};
  const cgm_status st =
      !*binv || (pb->opts.backend == CGM_BACKEND_CUDA && !*bblk)
          ? cgm_fail(&e, CGM_ERUNTIME, "out of memory for the block-Jacobi inverses (%zu values)",
                     len)
          : cgm_bjacobi_build(A, n, *binv, *bblk, &e);
  if (st) {
    if (err) *err = e;
    CGM_FREE(*binv, *bblk);
    *binv = *bblk = NULL;
  }
  if (st == CGM_ENOCONV) {
    res->refused = true;
    snprintf(res->stop_reason, sizeof res->stop_reason, "%.511s", e.msg);
    residual_of(A, b, x, res);
  }
  return st;
}

cgm_status cgm_solve_overflow(cgm_solve_result *res, int32_t i, double y, double scale) {
  res->relative_residual = NAN;
  res->converged = false;
  snprintf(res->stop_reason, sizeof res->stop_reason,
           "the solution is not representable in double precision: x[%d] = %.6g x %.6g overflows",
           i + 1, y, scale);
  return CGM_ENOCONV;
}

cgm_status cgm_solve_conclude(cgm_status st, cgm_precision p, double tol, const cgm_error *err,
                              cgm_solve_result *res) {
  /* Converged means the returned x is finite and its residual, recomputed on the system as given,
   * meets the target: a solver's recursive residual can drift from it (single precision, ill
   * conditioning), and scaling back can overflow (x = 1e308 / 1e-308). */
  if (st == CGM_OK && !(res->relative_residual <= tol)) {
    res->converged = false;
    snprintf(res->stop_reason, sizeof res->stop_reason,
             "the solver's residual estimate reached %.3g but the recomputed ||b - Ax||/||b|| is "
             "%.3g, above the target %.3g%s",
             res->solver_residual, res->relative_residual, tol,
             p == CGM_PREC_SINGLE ? ": single precision cannot reach it on this matrix (use "
                                    "precision=mixed or precision=double, or a larger tol)"
                                  : "");
    st = CGM_ENOCONV;
  }
  /* a stall states the x returned's residual, not the solver's (1-9% apart at the floor) */
  if (res->stalled && isfinite(res->relative_residual))
    cgm_solve_stall_reason(res->fallback_iterations > 0 ? CGM_PREC_DOUBLE : p,
                           res->relative_residual, tol, res->iterations, res->stop_reason,
                           sizeof res->stop_reason);
  if (st == CGM_ENOCONV && !res->stop_reason[0])
    snprintf(res->stop_reason, sizeof res->stop_reason, "%.250s",
             err && err->msg[0] ? err->msg : "did not converge");
  return st;
}

static void monitor_mapped(void *ctx, int iteration, double relative_residual) {
  const cgm_monitor_map *m = ctx;
  for (int32_t i = 0; i < m->n; i++) m->x[m->perm ? m->perm[i] : i] = m->scale * m->y[i];
  m->fn(m->ctx, m->offset + iteration, relative_residual);
}

void cgm_monitor_map_set(cgm_solve_opts *o, cgm_monitor_map *m, double *y, double scale,
                         const int32_t *perm, int32_t n) {
  if (!o->monitor || !o->monitor_x) return;
  *m = (cgm_monitor_map){
      o->monitor, o->monitor_ctx, y ? y : o->monitor_x, o->monitor_x, scale, perm, n, 0};
  o->monitor = monitor_mapped;
  o->monitor_ctx = m;
  o->monitor_x = m->y;
}

cgm_status cgm_solve_fallback(cgm_problem *pb, cgm_solve_result *res, cgm_error *err) {
  const cgm_solve_result first = *res;
  const cgm_solve_opts o = pb->opts;
  cgm_error e2 = {0};
  cgm_plan_set_precision(&pb->plan, CGM_PREC_DOUBLE);
  pb->opts.precision = CGM_PREC_DOUBLE;
  /* its monitor's iterations count on from the first run's */
  cgm_monitor_map shift = {o.monitor, o.monitor_ctx, NULL, NULL, 1.0, NULL, 0, first.iterations};
  if (o.monitor) pb->opts.monitor = monitor_mapped, pb->opts.monitor_ctx = &shift;
  memset(res, 0, sizeof *res);
  /* maxiter caps the whole solve, single's iterations and double's (the
   * caller hands over only below it) */
  const int cap = pb->maxiter;
  pb->maxiter = cap - first.iterations;
  cgm_status st = run_backend(pb, res, &e2);
  pb->maxiter = cap;
  pb->opts.monitor = o.monitor;
  pb->opts.monitor_ctx = o.monitor_ctx;
  res->fallback_iterations = first.iterations;
  res->iterations += first.iterations;
  if (st == CGM_ENOCONV && res->iterations >= cap) {
    snprintf(res->stop_reason, sizeof res->stop_reason,
             "maximum of %d iterations reached with relative residual %.3g (target %.3g), %d of "
             "them %s",
             cap, res->solver_residual, pb->tol, first.iterations,
             o.precision == CGM_PREC_MIXED ? "in single precision" : "on values rounded to floats");
    snprintf(e2.msg, sizeof e2.msg, "%s", res->stop_reason);
  }
  if (err && st != CGM_OK) *err = e2;
  res->time_setup_s += first.time_setup_s;
  res->time_layout_s += first.time_layout_s;
  res->time_upload_s += first.time_upload_s;
  res->time_solve_s += first.time_solve_s;
  if (first.device_bytes > res->device_bytes) res->device_bytes = first.device_bytes;
  return st;
}

static cgm_status solve_in_order(const cgm_csr *A, const double *b, double *x,
                                 const cgm_solve_opts *given, cgm_solve_result *res,
                                 cgm_error *err) {
  memset(res, 0, sizeof *res);
  const double t_check = cgm_now();
  cgm_problem pb = {0};
  pb.opts = *given;
  cgm_status st = given->settled ? CGM_OK : cgm_solve_opts_settle(&pb.opts, A, err);
  if (st) return st;
  const cgm_solve_opts *o = &pb.opts;
  st = cgm_solve_check_input_as(A, b, x, o->matrix_checked, res, err);
  /* Single and mixed precision iterate with A in float: an entry outside its
   * range (cgm_check_float) is refused before the solve, naming the entry. */
  if (!st && o->precision != CGM_PREC_DOUBLE)
    st = refuse_first(A, cgm_check_float, CGM_CHECK_RANGE, NULL, err);
  if (st) {
    /* Refused before iterating: report the residual of the initial guess. */
    if (st == CGM_ENOCONV) residual_of(A, b, x, res);
    return st;
  }

  /* Block-Jacobi's block, which the segments' starts follow */
  if (o->precond == CGM_PRECOND_BLOCK) {
    pb.opts.precond_block = cgm_precond_block_size(A, &pb.opts);
    if ((st = cgm_bjacobi_size_check(pb.opts.precond_block, err))) return st;
  } else {
    pb.opts.precond_block = 0;
  }
  /* what the backend builds (one segment but on our CUDA kernels), without the model's x sectors */
  cgm_plan_opts po = plan_opts(&pb.opts);
  po.skip_sectors = true;
  if ((st = cgm_plan_make(A, &po, &pb.plan, err))) return st;
  pb.opts.layout = pb.plan.o.layout;
  double *binv = NULL, *bblk = NULL;
  const double t_bjacobi = cgm_now();
  if ((st = block_jacobi(A, b, x, &pb, &binv, &bblk, res, err))) return st;
  /* part of the set-up, which the backend measures from its own start */
  const double time_bjacobi = binv ? cgm_now() - t_bjacobi : 0.0;
  pb.binv = binv;
  pb.bblk = bblk;
  pb.A = A;
  pb.anorm = inf_norm(A);
  pb.maxiter = o->maxiter;
  const double bnorm = cgm_solve_norm2(b, A->nrows);
  pb.tol = cgm_solve_target(o, bnorm);
  if (bnorm == 0.0) { /* b = 0: x = 0 is the exact solution */
    memset(x, 0, (size_t)A->nrows * sizeof *x);
    res->converged = true;
    snprintf(res->device, sizeof res->device, "none (b = 0)");
    CGM_FREE(binv, bblk);
    return CGM_OK;
  }
  /* CG is scale invariant: A y = b / ||b||, x = ||b|| y (no under- or overflow) */
  double *bs = malloc(((size_t)A->nrows + 1) * sizeof *bs);
  double *ys = malloc(((size_t)A->nrows + 1) * sizeof *ys);
  if (!bs || !ys) {
    CGM_FREE(bs, ys, binv, bblk);
    return cgm_fail(err, CGM_ERUNTIME, "out of memory for %d rows", A->nrows);
  }
#pragma omp parallel for schedule(static)
  for (int32_t i = 0; i < A->nrows; i++) bs[i] = b[i] / bnorm, ys[i] = x[i] / bnorm;
  pb.b = bs;
  pb.x = ys;
  pb.bnorm = 1.0;
  cgm_monitor_map unscale; /* the monitor's x as the caller's */
  cgm_monitor_map_set(&pb.opts, &unscale, NULL, bnorm, NULL, A->nrows);
  const double time_check = cgm_now() - t_check - time_bjacobi;
  st = run_backend(&pb, res, err);
  /* Mixed precision promises what double reaches: a single-precision iteration that stopped short
   * of the cap (stalled, or broken down in rounding) hands over to double, from where it got if
   * that is finite and nearer than x0 by a residual recomputed here (single can diverge, LF10
   * reached 1e25, and its own residual need not show it). */
  /* Compact storage promises it too, but values that float rounds can make an ill-conditioned
   * matrix indefinite (a mesh whose stiffness jumps by 1e8: the least eigenvalue of D^-1/2 A
   * D^-1/2, 3.3e-10, rounded to -1.8e-10), where CG diverges: it goes on with full values the same
   * way. */
  const bool rounded = o->storage == CGM_STORAGE_COMPACT && res->storage == CGM_VALUES_F32 &&
                       !res->storage_exact && o->precision == CGM_PREC_DOUBLE;
  if (st == CGM_ENOCONV && (o->precision == CGM_PREC_MIXED || rounded) && o->fallback &&
      res->iterations < pb.maxiter) {
    if (!(true_residual(A, bs, ys, 1.0) < true_residual(A, b, x, bnorm))) /* NaN: x0 too */
      for (int32_t i = 0; i < A->nrows; i++) ys[i] = x[i] / bnorm;
    if (rounded) pb.opts.storage = pb.plan.o.storage = CGM_STORAGE_FULL;
    st = cgm_solve_fallback(&pb, res, err);
  }
  res->time_setup_s += time_bjacobi;
  res->time_check_s = time_check;
  res->precond_block = pb.opts.precond_block;
  const double t_finish = cgm_now();
  if (st == CGM_ENOCONV) breakdown_verdict(A, o->precision, res);
  if (st == CGM_OK || st == CGM_ENOCONV) {
    int32_t first_inf = INT32_MAX;
#pragma omp parallel for schedule(static) reduction(min : first_inf)
    for (int32_t i = 0; i < A->nrows; i++) {
      x[i] = ys[i] * bnorm;
      if (isfinite(ys[i]) && !isfinite(x[i]) && i < first_inf) first_inf = i;
    }
    const int32_t inf_at = first_inf < INT32_MAX ? first_inf : -1;
    if (inf_at >= 0)
      st = cgm_solve_overflow(res, inf_at, ys[inf_at], bnorm);
    else
      res->relative_residual = true_residual(A, b, x, bnorm);
    /* The least relative residual the arithmetic can show for this A and
     * b: u ||A|| ||x|| / ||b|| (||b|| = 1 here). */
    res->attainable_residual =
        cgm_residual_roundoff(o->precision) * pb.anorm * cgm_solve_norm2(ys, A->nrows);
    st = cgm_solve_conclude(st, o->precision, pb.tol, err, res);
  }
  CGM_FREE(bs, ys, binv, bblk);
  res->time_finish_s = cgm_now() - t_finish;
  if (st == CGM_ENOCONV) return cgm_fail(err, CGM_ENOCONV, "%s", res->stop_reason);
  return st;
}

/* Reverse Cuthill-McKee: the input is checked in its own numbering (so the
 * messages name its rows), then solved as P A P^T (P x) = P b and x
 * permuted back; the residual reported is recomputed on A itself. */
static cgm_status solve_numbered(const cgm_csr *A, const double *b, double *x,
                                 const cgm_solve_opts *o, cgm_solve_result *res, cgm_error *err) {
  if (o->reorder != CGM_REORDER_RCM) return solve_in_order(A, b, x, o, res, err);
  memset(res, 0, sizeof *res);
  cgm_status st = cgm_solve_check_input_as(A, b, x, o->matrix_checked, res, err);
  if (st) return solve_in_order(A, b, x, o, res, err); /* its refusal, as without a reordering */
  const double t0 = cgm_now();
  const int32_t n = A->nrows;
  int32_t *perm = malloc(((size_t)n + 1) * sizeof *perm);
  double *bp = calloc((size_t)n + 1, sizeof *bp), *xp = calloc((size_t)n + 1, sizeof *xp);
  double *mp = malloc(((size_t)n + 1) * sizeof *mp); /* the monitor's x, permuted */
  cgm_csr B = {0};
  if (!perm || !bp || !xp || !mp) st = cgm_fail(err, CGM_ERUNTIME, "out of memory for %d rows", n);
  if (!st) st = cgm_rcm(A, perm, err);
  if (!st) st = cgm_csr_permute(A, perm, &B, err);
  if (!st) {
    for (int32_t i = 0; i < n; i++) bp[i] = b[perm[i]], xp[i] = x[perm[i]];
    const double t_reorder = cgm_now() - t0;
    cgm_solve_opts so = *o;
    cgm_monitor_map unpermute;
    cgm_monitor_map_set(&so, &unpermute, mp, 1.0, perm, n);
    st = solve_in_order(&B, bp, xp, &so, res, err);
    res->reordered = true;
    res->time_reorder_s = t_reorder;
    res->time_setup_s += t_reorder;
    if (st == CGM_OK || st == CGM_ENOCONV) {
      for (int32_t i = 0; i < n; i++) x[perm[i]] = xp[i];
      residual_of(A, b, x, res);
    }
  }
  cgm_csr_free(&B);
  CGM_FREE(perm, bp, xp, mp);
  return st;
}

/* On the cores the solve was given; a GPU solve's host work on a thread to 2^19 entries (a parallel
 * region wakes its team: 16 threads of an H200 node took 7-40 ms of a 290k-entry matrix's checks
 * where 4 took 0.3-1.2, 2026-12-01). The caller's team is restored after. */
cgm_status cgm_solve(const cgm_csr *A, const double *b, double *x, const cgm_solve_opts *o,
                     cgm_solve_result *res, cgm_error *err) {
  const int team = omp_get_max_threads();
  const int64_t host = A && o->backend != CGM_BACKEND_CPU ? A->nnz / (1 << 19) + 1 : team;
  omp_set_num_threads(o->threads > 0 ? o->threads : host < team ? (int)host : team);
  const cgm_status st = solve_numbered(A, b, x, o, res, err);
  omp_set_num_threads(team);
  return st;
}
