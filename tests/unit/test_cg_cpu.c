/* CPU Jacobi-PCG: solutions checked by an independently recomputed residual
 * (long double) and against the known solution; every block size and both
 * precisions; and every way a solve can fail cleanly. */
#include <stdint.h>

#include "cgmodel/solver.h"
#include "test_linalg.h"
#include "test_util.h"

/* ||b - A x|| / ||b|| with long double accumulation, independent of the solver. */

/* b = A * ones */
static double *rhs_ones(const cgm_csr *A) {
  double *one = malloc(A->ncols * sizeof *one), *b = malloc(A->nrows * sizeof *b);
  for (int32_t i = 0; i < A->ncols; i++) one[i] = 1.0;
  cgm_csr_spmv(A, one, b);
  free(one);
  return b;
}

static cgm_solve_result solve(const cgm_csr *A, const double *b, double *x, int n, cgm_precision p,
                              cgm_status want) {
  cgm_solve_opts o = cgm_solve_opts_default();
  o.layout = cgm_bcsr_default_params(n);
  o.precision = p;
  cgm_solve_result r;
  cgm_error err = {0};
  memset(x, 0, A->nrows * sizeof *x);
  cgm_status st = cgm_solve(A, b, x, &o, &r, &err);
  CHECK_MSG(st == want, "N=%d %s: status %d, want %d: %s", n, cgm_precision_name(p), st, want,
            err.msg);
  return r;
}

static void test_poisson(void) {
  cgm_csr A;
  cgm_error err;
  CHECK_OK(cgm_gen_poisson3d(13, &A, &err)); /* 2197 rows: not a multiple of 2, 4, 8 */
  double *b = rhs_ones(&A), *x = malloc(A.nrows * sizeof *x);
  int its[CGM_NBLOCKSIZES];
  for (int bi = 0; bi < CGM_NBLOCKSIZES; bi++) {
    int n = cgm_block_sizes[bi];
    cgm_solve_result r = solve(&A, b, x, n, CGM_PREC_DOUBLE, CGM_OK);
    its[bi] = r.iterations;
    double res = test_residual(&A, b, x);
    CHECK_MSG(res <= 1e-8, "N=%d residual %g", n, res);
    CHECK_NEAR(r.relative_residual, res, 1e-3); /* the driver's recomputation agrees */
    CHECK(r.converged && r.iterations > 5 && r.iterations < 200);
    double emax = 0;
    for (int32_t i = 0; i < A.nrows; i++) emax = fmax(emax, fabs(x[i] - 1.0));
    CHECK_MSG(emax < 1e-6, "N=%d max error %g", n, emax); /* cond ~ 80: 1e-8 * 80 */
    CHECK(r.time_per_iter_s > 0 && r.time_per_iter_s < 1.0);
    /* single precision: 1e-5 target */
    r = solve(&A, b, x, n, CGM_PREC_SINGLE, CGM_OK);
    res = test_residual(&A, b, x);
    CHECK_MSG(res <= 5e-5, "fp32 N=%d residual %g", n, res);
  }
  /* Block size changes the order of additions only: iteration counts agree. */
  for (int bi = 1; bi < CGM_NBLOCKSIZES; bi++) CHECK(abs(its[bi] - its[0]) <= 1);
  free(b), free(x);
  cgm_csr_free(&A);
}

/* Jacobi matters: a badly scaled SPD matrix converges in the same number of
 * iterations as its well-scaled twin, because D^-1/2 A D^-1/2 is the same. */
static void test_jacobi_scaling(void) {
  cgm_csr A, S;
  cgm_error err;
  CHECK_OK(cgm_gen_poisson2d(20, &A, &err));
  CHECK_OK(cgm_gen_poisson2d(20, &S, &err));
  double *d = malloc(A.nrows * sizeof *d);
  for (int32_t i = 0; i < A.nrows; i++) d[i] = pow(10.0, (i % 7) - 3);
  for (int32_t i = 0; i < S.nrows; i++)
    for (int64_t k = S.rowptr[i]; k < S.rowptr[i + 1]; k++) S.val[k] *= d[i] * d[S.colidx[k]];
  double *b = rhs_ones(&A), *bs = rhs_ones(&S), *x = malloc(A.nrows * sizeof *x);
  cgm_solve_result r1 = solve(&A, b, x, 1, CGM_PREC_DOUBLE, CGM_OK);
  cgm_solve_result r2 = solve(&S, bs, x, 1, CGM_PREC_DOUBLE, CGM_OK);
  CHECK(test_residual(&S, bs, x) <= 1e-8);
  CHECK_MSG(abs(r1.iterations - r2.iterations) <= 3, "%d vs %d", r1.iterations, r2.iterations);
  free(d), free(b), free(bs), free(x);
  cgm_csr_free(&A);
  cgm_csr_free(&S);
}

static void make(cgm_csr *A, int32_t n, int64_t nnz, const int32_t *ri, const int32_t *ci,
                 const double *v) {
  cgm_error err;
  CHECK_OK(cgm_csr_from_coo(n, n, nnz, ri, ci, v, A, NULL, &err));
}

static void test_failures(void) {
  cgm_error err = {0};
  cgm_solve_opts o = cgm_solve_opts_default();
  cgm_solve_result r;
  /* Indefinite with a positive diagonal: [[1,2],[2,1]] has eigenvalue -1. */
  {
    cgm_csr A;
    int32_t ri[] = {0, 0, 1, 1}, ci[] = {0, 1, 0, 1};
    double v[] = {1, 2, 2, 1};
    make(&A, 2, 4, ri, ci, v);
    double b[] = {1, -1}, x[] = {0, 0};
    CHECK(cgm_solve(&A, b, x, &o, &r, &err) == CGM_ENOCONV);
    CHECK(!r.converged && strstr(err.msg, "not positive definite"));
    cgm_csr_free(&A);
  }
  /* Zero diagonal (like zenios): refused before iterating. */
  {
    cgm_csr A;
    int32_t ri[] = {0, 1, 1}, ci[] = {1, 0, 1};
    double v[] = {1, 1, 2};
    make(&A, 2, 3, ri, ci, v);
    double b[] = {1, 1}, x[] = {0, 0};
    CHECK(cgm_solve(&A, b, x, &o, &r, &err) == CGM_ENOCONV);
    CHECK(strstr(err.msg, "diagonal entry (1, 1)") != NULL);
    CHECK(r.iterations == 0);
    cgm_csr_free(&A);
  }
  /* Unsymmetric: bad input. */
  {
    cgm_csr A;
    int32_t ri[] = {0, 0, 1}, ci[] = {0, 1, 1};
    double v[] = {2, 1, 2};
    make(&A, 2, 3, ri, ci, v);
    double b[] = {1, 1}, x[] = {0, 0};
    CHECK(cgm_solve(&A, b, x, &o, &r, &err) == CGM_EINPUT);
    CHECK(strstr(err.msg, "not symmetric") != NULL);
    cgm_csr_free(&A);
  }
  cgm_csr P;
  CHECK_OK(cgm_gen_poisson2d(30, &P, &err));
  double *b = rhs_ones(&P), *x = calloc(P.nrows, sizeof *x);
  /* NaN / Inf in b or A */
  b[7] = NAN;
  CHECK(cgm_solve(&P, b, x, &o, &r, &err) == CGM_EINPUT && strstr(err.msg, "entry 8"));
  b[7] = INFINITY;
  CHECK(cgm_solve(&P, b, x, &o, &r, &err) == CGM_EINPUT);
  free(b);
  b = rhs_ones(&P);
  double saved = P.val[10];
  P.val[10] = NAN;
  CHECK(cgm_solve(&P, b, x, &o, &r, &err) == CGM_EINPUT && strstr(err.msg, "NaN"));
  P.val[10] = saved;
  /* maxiter reached: exit 1 with the residual reached. */
  o.maxiter = 3;
  CHECK(cgm_solve(&P, b, x, &o, &r, &err) == CGM_ENOCONV);
  CHECK(r.iterations == 3 && !r.converged && strstr(err.msg, "maximum of 3 iterations"));
  CHECK(r.relative_residual > 1e-8 && r.relative_residual < 1.0);
  CHECK_NEAR(r.relative_residual, test_residual(&P, b, x), 1e-6);
  o.maxiter = 0;
  /* b = 0: x = 0 at once, even from a nonzero start. */
  for (int32_t i = 0; i < P.nrows; i++) b[i] = 0.0, x[i] = 3.0;
  CHECK(cgm_solve(&P, b, x, &o, &r, &err) == CGM_OK);
  CHECK(r.converged && r.iterations == 0);
  for (int32_t i = 0; i < P.nrows; i++) CHECK(x[i] == 0.0);
  /* A good initial guess converges at once. */
  free(b);
  b = rhs_ones(&P);
  for (int32_t i = 0; i < P.nrows; i++) x[i] = 1.0;
  CHECK(cgm_solve(&P, b, x, &o, &r, &err) == CGM_OK && r.iterations == 0);
  /* Options out of range. */
  o.layout.n = 3;
  CHECK(cgm_solve(&P, b, x, &o, &r, &err) == CGM_EINPUT);
  o = cgm_solve_opts_default();
  o.gpus = 2;
  CHECK(cgm_solve(&P, b, x, &o, &r, &err) == CGM_EINPUT);
  free(b), free(x);
  cgm_csr_free(&P);
}

int main(void) {
  test_poisson();
  test_jacobi_scaling();
  test_failures();
  TEST_MAIN_END();
}
