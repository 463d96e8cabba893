/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One cooperative kernel a batch of iterations (gpu.persistent,
 * kernels/persistent.cu) against the regular kernels on one GPU in double
 * precision, at every block size: on Poisson 32^3 (taken by default), two
 * bundled matrices and Poisson 64^3 (forced), both converged with the
 * residual recomputed here in long double, the iterations within one, x
 * within 4 cond tol of the other's, and the kernel's x bit-identical from
 * run to run (its sums added in a fixed order). The maximum count reached
 * within a batch and across batches, and a breakdown, stop it as they stop
 * the regular kernels. Where it cannot run (long rows, single and mixed
 * precision, block-Jacobi, Algorithm 2) the regular kernels do, forced or
 * not. Skipped (77) without a GPU. */
#include <math.h>
#include <stdlib.h>

#include "cgmodel/solver.h"
#include "test_linalg.h"
#include "test_util.h"

static const double kTol = 1e-8;

static double *rhs(const cgm_csr *A) {
  double *x = malloc(A->ncols * sizeof *x), *b = malloc(A->nrows * sizeof *b);
  for (int32_t i = 0; i < A->ncols; i++) x[i] = 1.0 + 0.5 * sin(0.1 * i);
  cgm_csr_spmv(A, x, b);
  free(x);
  return b;
}

static cgm_solve_opts opts(int n, cgm_persist mode) {
  cgm_solve_opts o = cgm_solve_opts_default();
  o.backend = CGM_BACKEND_CUDA;
  o.layout = cgm_bcsr_default_params(n);
  o.tol = kTol;
  o.gpu.persistent = mode;
  return o;
}

static cgm_status solve(const cgm_csr *A, const double *b, double *x, const cgm_solve_opts *o,
                        cgm_solve_result *r, cgm_error *err) {
  memset(x, 0, A->nrows * sizeof *x);
  return cgm_solve(A, b, x, o, r, err);
}

/* mode (auto or on) against off at every block size. */
static void compare(const char *what, const cgm_csr *A, cgm_persist mode, double cond) {
  const size_t bytes = A->nrows * sizeof(double);
  double *b = rhs(A), *xp = malloc(bytes), *xq = malloc(bytes), *xr = malloc(bytes);
  for (int bi = 0; bi < CGM_NBLOCKSIZES; bi++) {
    const int n = cgm_block_sizes[bi];
    cgm_solve_opts op = opts(n, mode), orr = opts(n, CGM_PERSIST_OFF);
    cgm_solve_result rp, rq, rr;
    cgm_error ep = {0}, er = {0};
    const cgm_status sp = solve(A, b, xp, &op, &rp, &ep), sr = solve(A, b, xr, &orr, &rr, &er);
    CHECK_MSG(sp == CGM_OK && sr == CGM_OK, "%s N=%d: %d %s / %d %s", what, n, sp, ep.msg, sr,
              er.msg);
    CHECK_MSG(rp.persistent && !rr.persistent, "%s N=%d: the kernel ran %d (on) / %d (off)", what,
              n, rp.persistent, rr.persistent);
    const double resp = test_residual(A, b, xp), resr = test_residual(A, b, xr);
    CHECK_MSG(resp <= kTol && resr <= kTol && fabs(rp.relative_residual - resp) <= 1e-3 * resp,
              "%s N=%d: residual %.3g (reported %.3g), regular %.3g", what, n, resp,
              rp.relative_residual, resr);
    CHECK_MSG(abs(rp.iterations - rr.iterations) <= 1, "%s N=%d: %d iterations, regular %d", what,
              n, rp.iterations, rr.iterations);
    double num = 0, den = 0;
    for (int32_t i = 0; i < A->nrows; i++)
      num += (xp[i] - xr[i]) * (xp[i] - xr[i]), den += xr[i] * xr[i];
    CHECK_MSG(sqrt(num / den) <= 4 * cond * kTol, "%s N=%d: |x - x_regular| / |x_regular| %.3g",
              what, n, sqrt(num / den));
    CHECK_OK(solve(A, b, xq, &op, &rq, &ep));
    CHECK_MSG(rq.iterations == rp.iterations && !memcmp(xp, xq, bytes),
              "%s N=%d: a second run, %d iterations against %d, or another x", what, n,
              rq.iterations, rp.iterations);
    fprintf(stderr, "%-12s N=%d: %4d it, %.2f us/it (regular %4d it, %.2f us/it), residual %.2e\n",
            what, n, rp.iterations, 1e6 * rp.time_per_iter_s, rr.iterations,
            1e6 * rr.time_per_iter_s, resp);
  }
  free(b), free(xp), free(xq), free(xr);
}

/* The run's ends: maxiter within the first batch and past it, a breakdown. */
static void stops(void) {
  cgm_csr A;
  cgm_error err = {0};
  CHECK_OK(cgm_gen_poisson3d(20, &A, &err));
  double *b = rhs(&A), *x = malloc(A.nrows * sizeof *x);
  const int caps[] = {5, 40};
  for (int k = 0; k < 2; k++)
    for (int m = 0; m < 2; m++) {
      cgm_solve_opts o = opts(1, m ? CGM_PERSIST_OFF : CGM_PERSIST_ON);
      o.maxiter = caps[k];
      cgm_solve_result r;
      char want[64];
      snprintf(want, sizeof want, "maximum of %d iterations", caps[k]);
      const cgm_status st = solve(&A, b, x, &o, &r, &err);
      CHECK_MSG(st == CGM_ENOCONV && r.iterations == caps[k] && strstr(r.stop_reason, want) &&
                    r.persistent == !m,
                "maxiter %d, persistent %d: %d, %d iterations: %s", caps[k], !m, st, r.iterations,
                r.stop_reason);
      CHECK_NEAR(r.relative_residual, test_residual(&A, b, x), 1e-6);
    }
  free(b), free(x);
  cgm_csr_free(&A);
  /* indefinite (a positive diagonal still): the device sees p . A p <= 0 */
  CHECK_OK(cgm_gen_poisson2d(20, &A, &err));
  for (int32_t i = 0; i < A.nrows; i++)
    for (int64_t q = A.rowptr[i]; q < A.rowptr[i + 1]; q++)
      if (A.colidx[q] == i && i % 2) A.val[q] = 0.5;
  b = rhs(&A), x = malloc(A.nrows * sizeof *x);
  int it[2];
  for (int m = 0; m < 2; m++) {
    cgm_solve_opts o = opts(1, m ? CGM_PERSIST_OFF : CGM_PERSIST_ON);
    cgm_solve_result r;
    const cgm_status st = solve(&A, b, x, &o, &r, &err);
    CHECK_MSG(st == CGM_ENOCONV && strstr(err.msg, "not positive definite") && r.persistent == !m,
              "breakdown, persistent %d: %d %s", !m, st, err.msg);
    it[m] = r.iterations;
  }
  CHECK_MSG(abs(it[0] - it[1]) <= 1, "breakdown after %d iterations, regular %d", it[0], it[1]);
  free(b), free(x);
  cgm_csr_free(&A);
}

/* Forced on where it cannot run: the regular kernels, converged. */
static void refused(void) {
  cgm_csr A, P;
  cgm_error err = {0};
  CHECK_OK(cgm_gen_arrow(5001, 5001, &A, &err)); /* one long row: the long-row kernel */
  CHECK_OK(cgm_gen_poisson3d(16, &P, &err));
  double *b = rhs(&A), *x = malloc(A.nrows * sizeof *x), *bp = rhs(&P);
  double *xp = malloc(P.nrows * sizeof *xp);
  cgm_solve_result r;
  cgm_solve_opts o = opts(1, CGM_PERSIST_ON);
  CHECK_OK(solve(&A, b, x, &o, &r, &err));
  CHECK_MSG(!r.persistent && test_residual(&A, b, x) <= kTol, "arrow: persistent %d", r.persistent);
  for (int k = 0; k < 4; k++) {
    o = opts(1, CGM_PERSIST_ON);
    if (k == 0) o.precision = CGM_PREC_SINGLE, o.tol = 1e-5;
    if (k == 1) o.precision = CGM_PREC_MIXED;
    if (k == 2) o.precond = CGM_PRECOND_BLOCK, o.precond_block = 2;
    if (k == 3) o.gpu.cg = CGM_CG_CLASSIC;
    const cgm_status st = solve(&P, bp, xp, &o, &r, &err);
    CHECK_MSG(st == CGM_OK && !r.persistent && test_residual(&P, bp, xp) <= o.tol,
              "case %d: %d, persistent %d, %s", k, st, r.persistent, err.msg);
  }
  free(b), free(x), free(bp), free(xp);
  cgm_csr_free(&A);
  cgm_csr_free(&P);
}

int main(void) {
  if (cgm_cuda_device_count() < 1) {
    fprintf(stderr, "no GPU: skipped\n");
    return CGM_TEST_SKIP;
  }
  cgm_error err = {0};
  cgm_csr A;
  /* Poisson k^3: cond ~ 4 / (pi / (k + 1))^2 */
  CHECK_OK(cgm_gen_poisson3d(32, &A, &err));
  compare("poisson 32^3", &A, CGM_PERSIST_AUTO, 450);
  cgm_csr_free(&A);
  /* more rows than the resident threads: each thread walks several */
  CHECK_OK(cgm_gen_poisson3d(64, &A, &err));
  compare("poisson 64^3", &A, CGM_PERSIST_ON, 1800);
  cgm_csr_free(&A);
  const char *mats[] = {"gr_30_30", "nos4"};
  const double conds[] = {380, 2.7e3};
  for (int k = 0; k < 2; k++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.mtx", CGM_DATA_DIR, mats[k]);
    CHECK_OK(cgm_mm_read_csr(path, &A, NULL, &err));
    compare(mats[k], &A, CGM_PERSIST_AUTO, conds[k]);
    cgm_csr_free(&A);
  }
  stops();
  refused();
  TEST_MAIN_END();
}
