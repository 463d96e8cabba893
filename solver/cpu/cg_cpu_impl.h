/* Jacobi-preconditioned CG on the CPU (OpenMP) over the BCSR MBR layout,
 * written once for REAL = double and REAL = float (included by
 * cg_cpu_f64.c and cg_cpu_f32.c). Vectors and the matrix are in REAL;
 * dot products are accumulated in double.
 *
 * The steps follow Algorithm 2 of the paper with its fused kernels
 * (docs/model.md maps them):
 *   CG1      r = b - A x, w = c.*r, v = c.*w  (c = diag^-1/2; we keep z = D^-1 r)
 *   SpMV+CG3 u = A v and v.u in one pass
 *   CG4      x += t v, r -= t u, beta = r.(D^-1 r), and r.r for the stop test (CG2)
 *   CG5      v = D^-1 r + s v
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/timer.h"
#include "solver/backend.h"
#include "solver/cpu/cg_cpu.h"

#define CGM_CAT_(a, b) a##b
#define CGM_CAT(a, b) CGM_CAT_(a, b)
#define FN(name) CGM_CAT(name, SFX)

/* One slice, step-major (the blocks of a step are contiguous, Sec. 3.4),
 * with N a compile-time constant so the block products unroll and
 * vectorise. acc holds the slice's by * N row sums. */
#define CGM_SLICE_KERNEL(NB)                                                                       \
  static void FN(slice_n##NB)(const cgm_bcsr *B, const REAL *val, const REAL *x, int32_t k,        \
                              REAL *acc) {                                                         \
    const int bx = B->p.bx, by = B->p.by;                                                          \
    const int64_t step_blocks = (int64_t)by * bx, base = B->slice_ptr[k];                          \
    const int64_t steps = (B->slice_ptr[k + 1] - base) / step_blocks;                              \
    for (int m = 0; m < by * NB; m++) acc[m] = 0;                                                  \
    for (int64_t s = 0; s < steps; s++) {                                                          \
      int64_t q = base + s * step_blocks;                                                          \
      for (int j = 0; j < by; j++)                                                                 \
        for (int kx = 0; kx < bx; kx++, q++) {                                                     \
          const REAL *a = val + q * (NB * NB);                                                     \
          const REAL *xv = x + (int64_t)B->bcol[q] * NB;                                           \
          REAL *yr = acc + j * NB;                                                                 \
          for (int r = 0; r < NB; r++) {                                                           \
            REAL t = 0;                                                                            \
            for (int c = 0; c < NB; c++) t += a[r * NB + c] * xv[c];                               \
            yr[r] += t;                                                                            \
          }                                                                                        \
        }                                                                                          \
    }                                                                                              \
  }
CGM_SLICE_KERNEL(1)
CGM_SLICE_KERNEL(2)
CGM_SLICE_KERNEL(4)
CGM_SLICE_KERNEL(8)
#undef CGM_SLICE_KERNEL

double FN(cgm_cpu_spmv)(const cgm_bcsr *B, const REAL *val, const REAL *x, REAL *y, const REAL *p) {
  const int n = B->p.n, by = B->p.by;
  double dot = 0.0;
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : dot)
  for (int32_t k = 0; k < B->nslices; k++) {
    REAL acc[1024]; /* by * n <= 1024: cgm_bcsr_params_check */
    switch (n) {
    case 1:
      FN(slice_n1)(B, val, x, k, acc);
      break;
    case 2:
      FN(slice_n2)(B, val, x, k, acc);
      break;
    case 4:
      FN(slice_n4)(B, val, x, k, acc);
      break;
    default:
      FN(slice_n8)(B, val, x, k, acc);
      break;
    }
    for (int j = 0; j < by; j++) {
      int32_t b = B->brow[(int64_t)k * by + j];
      if (b < 0) continue;
      for (int r = 0; r < n; r++) {
        int64_t i = (int64_t)b * n + r;
        y[i] = acc[j * n + r];
        if (p) dot += (double)p[i] * (double)acc[j * n + r];
      }
    }
  }
  return dot;
}

double FN(cgm_cpu_cg4)(int64_t np, REAL t, REAL *x, REAL *r, const REAL *v, const REAL *u,
                       const REAL *dinv, double *rr_out) {
  double rz = 0.0, rr = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : rz, rr)
  for (int64_t i = 0; i < np; i++) {
    x[i] += t * v[i];
    REAL ri = r[i] - t * u[i];
    r[i] = ri;
    rz += (double)ri * (double)(dinv[i] * ri);
    rr += (double)ri * (double)ri;
  }
  *rr_out = rr;
  return rz;
}

void FN(cgm_cpu_cg5)(int64_t np, REAL s, REAL *v, const REAL *r, const REAL *dinv) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < np; i++) v[i] = dinv[i] * r[i] + s * v[i];
}

cgm_status FN(cgm_cpu_cg)(const cgm_problem *pb, cgm_solve_result *res, cgm_error *err) {
  const cgm_csr *A = pb->A;
  cgm_bcsr B;
  double t0 = cgm_now();
  cgm_status st = cgm_bcsr_build(A, 0, (A->nrows + pb->opts.layout.n - 1) / pb->opts.layout.n,
                                 pb->opts.layout, &B, err);
  if (st) return st;
  const int64_t np = (int64_t)B.nbrows * B.p.n; /* padded length, = nbcols * N */
  const size_t nv = (size_t)(np > 0 ? np : 1);
  REAL *val = NULL;
  REAL *x = malloc(nv * sizeof *x), *r = malloc(nv * sizeof *r), *v = malloc(nv * sizeof *v);
  REAL *u = malloc(nv * sizeof *u), *dinv = malloc(nv * sizeof *dinv);
  double *diag = malloc(nv * sizeof *diag);
  int ntimed = pb->maxiter < CGM_MAX_TIMED ? pb->maxiter : CGM_MAX_TIMED;
  double *times = malloc(((size_t)ntimed + 1) * sizeof *times);
  int own_val = sizeof(REAL) != sizeof(double);
  if (own_val) {
    val =
        malloc((size_t)(B.nblocks_padded > 0 ? B.nblocks_padded : 1) * B.p.n * B.p.n * sizeof *val);
  } else {
    val = (REAL *)(void *)B.val;
  }
  if (!x || !r || !v || !u || !dinv || !diag || !times || !val) {
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory for the CG vectors (%lld rows)", (long long)np);
    goto done;
  }
  if (own_val) {
    int64_t ne = B.nblocks_padded * B.p.n * B.p.n;
#pragma omp parallel for schedule(static)
    for (int64_t q = 0; q < ne; q++) val[q] = (REAL)B.val[q];
  }
  cgm_csr_diagonal(A, diag);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < np; i++) {
    bool real_row = i < A->nrows;
    dinv[i] = real_row ? (REAL)(1.0 / diag[i]) : (REAL)1; /* padding rows: identity */
    x[i] = real_row ? (REAL)pb->x[i] : (REAL)0;
  }
  res->time_setup_s = cgm_now() - t0;

  /* CG1: r = b - A x; z = D^-1 r; v = z; rz = r.z */
  FN(cgm_cpu_spmv)(&B, val, x, u, NULL);
  double rz = 0.0, rr = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : rz, rr)
  for (int64_t i = 0; i < np; i++) {
    REAL ri = (i < A->nrows ? (REAL)pb->b[i] : (REAL)0) - u[i];
    r[i] = ri;
    v[i] = dinv[i] * ri;
    rz += (double)ri * (double)v[i];
    rr += (double)ri * (double)ri;
  }
  double t_start = cgm_now(), t_prev = t_start;
  int it = 0;
  double relres = sqrt(rr) / pb->bnorm;
  st = CGM_ENOCONV;
  if (relres <= pb->tol) st = CGM_OK;
  while (st != CGM_OK && it < pb->maxiter) {
    /* SpMV + CG3 */
    double vu = FN(cgm_cpu_spmv)(&B, val, v, u, v);
    if (!(vu > 0.0) || !isfinite(vu)) {
      snprintf(res->stop_reason, sizeof res->stop_reason,
               isfinite(vu) ? "CG breakdown at iteration %d: p'Ap = %.3g <= 0, the matrix is not "
                              "positive definite"
                            : "CG breakdown at iteration %d: p'Ap = %.3g is not finite",
               it + 1, vu);
      break;
    }
    const REAL t = (REAL)(rz / vu);
    /* CG4 (+ CG2's r.r) */
    double rz_new = FN(cgm_cpu_cg4)(np, t, x, r, v, u, dinv, &rr);
    it++;
    relres = sqrt(rr) / pb->bnorm;
    if (!isfinite(relres) || !isfinite(rz_new)) {
      snprintf(res->stop_reason, sizeof res->stop_reason,
               "NaN or Inf in the residual at iteration %d", it);
      break;
    }
    if (relres <= pb->tol) {
      st = CGM_OK;
    } else {
      /* CG5: v = D^-1 r + s v */
      const REAL s = (REAL)(rz_new / rz);
      rz = rz_new;
      FN(cgm_cpu_cg5)(np, s, v, r, dinv);
    }
    double now = cgm_now();
    if (it <= ntimed) times[it - 1] = now - t_prev;
    t_prev = now;
  }
  res->time_solve_s = cgm_now() - t_start;
  res->iterations = it;
  res->solver_residual = relres;
  res->converged = st == CGM_OK;
  if (st != CGM_OK && !res->stop_reason[0])
    snprintf(res->stop_reason, sizeof res->stop_reason,
             "maximum of %d iterations reached with relative residual %.3g (target %.3g)",
             pb->maxiter, relres, pb->tol);
  {
    /* The first iteration pays for page faults and cold caches. */
    int nt = it < ntimed ? it : ntimed;
    res->time_per_iter_s = nt > 1 ? cgm_median(times + 1, nt - 1) : (nt ? times[0] : 0.0);
  }
  for (int32_t i = 0; i < A->nrows; i++) pb->x[i] = (double)x[i];
  res->device_bytes = B.nblocks_padded * (int64_t)(B.p.n * B.p.n * sizeof(REAL) + 4) +
                      5 * np * (int64_t)sizeof(REAL);
done:
  if (own_val) free(val);
  free(x);
  free(r);
  free(v);
  free(u);
  free(dinv);
  free(diag);
  free(times);
  cgm_bcsr_free(&B);
  return st;
}
