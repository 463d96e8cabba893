/* SPDX-License-Identifier: GPL-3.0-or-later */
/* CPU Jacobi-PCG: solutions checked by an independently recomputed residual
 * (long double) and against the known solution; every block size and every
 * precision; the tolerance as a requirement on the true residual (mixed
 * precision reaches what double reaches, single stops early where it
 * cannot); and every way a solve can fail cleanly. */
#include <stdint.h>

#include <omp.h>

#include "cgmodel/solver.h"
#include "solver/backend.h"
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

static char last_msg[1024]; /* the last solve's error message */

static cgm_solve_result solve_tol(const cgm_csr *A, const double *b, double *x, int n,
                                  cgm_precision p, double tol, cgm_status want) {
  cgm_solve_opts o = cgm_solve_opts_default();
  o.layout = cgm_bcsr_default_params(n);
  o.precision = p;
  o.tol = tol;
  cgm_solve_result r;
  cgm_error err = {0};
  memset(x, 0, A->nrows * sizeof *x);
  cgm_status st = cgm_solve(A, b, x, &o, &r, &err);
  CHECK_MSG(st == want, "N=%d %s tol %g: status %d, want %d: %s", n, cgm_precision_name(p), tol, st,
            want, err.msg);
  snprintf(last_msg, sizeof last_msg, "%s", err.msg);
  return r;
}

static cgm_solve_result solve(const cgm_csr *A, const double *b, double *x, int n, cgm_precision p,
                              cgm_status want) {
  return solve_tol(A, b, x, n, p, 0.0, want);
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
    /* single precision reaches 1e-5, now on the true residual */
    r = solve_tol(&A, b, x, n, CGM_PREC_SINGLE, 1e-5, CGM_OK);
    res = test_residual(&A, b, x);
    CHECK_MSG(res <= 1e-5, "fp32 N=%d residual %g", n, res);
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
    CHECK(r.iterations == 0 && r.refused);
    /* predict and validate refuse it with the same message */
    cgm_error e2 = {0};
    CHECK(cgm_solve_check_matrix(&A, &e2) == CGM_ENOCONV && !strcmp(e2.msg, err.msg));
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
    cgm_error e2 = {0};
    CHECK(cgm_solve_check_matrix(&A, &e2) == CGM_EINPUT && !strcmp(e2.msg, err.msg));
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

/* The monitor's history: iteration 0, then every K iterations, then the
 * last; its last value is the solver's residual, it falls by the tolerance
 * overall, and watching does not change the solve. */
typedef struct {
  int n, it[4096];
  double rr[4096];
} history;

static void keep(void *ctx, int iteration, double relres) {
  history *h = ctx;
  if (h->n < 4096) h->it[h->n] = iteration, h->rr[h->n] = relres;
  h->n++;
}

static void test_monitor(void) {
  cgm_csr A;
  cgm_error err = {0};
  CHECK_OK(cgm_gen_poisson3d(10, &A, &err));
  double *b = rhs_ones(&A), *x = malloc(A.nrows * sizeof *x), *x2 = malloc(A.nrows * sizeof *x2);
  const cgm_precision precs[] = {CGM_PREC_DOUBLE, CGM_PREC_SINGLE, CGM_PREC_MIXED};
  for (int p = 0; p < 3; p++) {
    for (int K = 1; K <= 7; K += 6) {
      cgm_solve_opts o = cgm_solve_opts_default();
      o.precision = precs[p];
      o.tol = precs[p] == CGM_PREC_SINGLE ? 1e-5 : 1e-10;
      cgm_solve_result plain, r;
      memset(x2, 0, A.nrows * sizeof *x2);
      CHECK_OK(cgm_solve(&A, b, x2, &o, &plain, &err));
      static history h;
      h.n = 0;
      o.monitor = keep;
      o.monitor_ctx = &h;
      o.monitor_every = K;
      memset(x, 0, A.nrows * sizeof *x);
      CHECK_OK(cgm_solve(&A, b, x, &o, &r, &err));
      const char *pn = cgm_precision_name(precs[p]);
      /* (OpenMP's reductions may add in another order: a step either way) */
      CHECK_MSG(abs(r.iterations - plain.iterations) <= 2, "%s K=%d: %d iterations watched, %d not",
                pn, K, r.iterations, plain.iterations);
      CHECK_MSG(h.n >= 3 && h.n <= r.iterations / K + 2, "%s K=%d: %d calls for %d iterations", pn,
                K, h.n, r.iterations);
      CHECK(h.it[0] == 0 && h.it[h.n - 1] == r.iterations);
      for (int i = 1; i < h.n - 1; i++)
        CHECK_MSG(h.it[i] == i * K, "%s: call %d at %d", pn, i, h.it[i]);
      CHECK_MSG(h.rr[h.n - 1] == r.solver_residual, "%s K=%d: last %.17g, solver %.17g", pn, K,
                h.rr[h.n - 1], r.solver_residual);
      CHECK_NEAR(h.rr[0], 1.0, 1e-6); /* x0 = 0: r0 = b */
      CHECK(h.rr[h.n - 1] <= o.tol);
      /* decreasing-ish: CG's residual is not monotone, but never far above
       * the start, and every quarter of the history ends below the one before */
      for (int i = 0; i < h.n; i++) CHECK(h.rr[i] > 0 && h.rr[i] <= 10.0);
      for (int q = 1; q < 4; q++)
        CHECK_MSG(h.rr[(q + 1) * (h.n - 1) / 4] < h.rr[q * (h.n - 1) / 4], "%s K=%d quarter %d", pn,
                  K, q);
    }
  }
  free(b), free(x), free(x2);
  cgm_csr_free(&A);
}

/* monitor_x: the iterate at every call is the caller's (b's scale, A's
 * numbering with RCM): its recomputed residual is the one reported, the
 * first is x0 and the last the solution returned; keeping it changes
 * nothing of the solve. */
static void test_monitor_x(void) {
  cgm_csr A;
  cgm_error err = {0};
  CHECK_OK(cgm_gen_poisson3d(12, &A, &err));
  const int32_t n = A.nrows;
  double *b = malloc(n * sizeof *b), *x = malloc(n * sizeof *x), *x2 = malloc(n * sizeof *x2);
  double *x0 = malloc(n * sizeof *x0), *mx = malloc(n * sizeof *mx),
         *last = malloc(n * sizeof *last);
  uint64_t seed = 7;
  for (int32_t i = 0; i < n; i++) b[i] = 1e6 * (unif01(&seed) - 0.3), x0[i] = 0.5 + i % 3;
  const cgm_precision precs[] = {CGM_PREC_DOUBLE, CGM_PREC_SINGLE, CGM_PREC_MIXED};
  for (int p = 0; p < 3; p++)
    for (int rcm = 0; rcm < 2; rcm++) {
      cgm_solve_opts o = cgm_solve_opts_default();
      o.precision = precs[p];
      o.tol = precs[p] == CGM_PREC_SINGLE ? 1e-5 : 1e-10;
      o.reorder = rcm ? CGM_REORDER_RCM : CGM_REORDER_NONE;
      cgm_solve_result plain, r;
      memcpy(x2, x0, n * sizeof *x2);
      CHECK_OK(cgm_solve(&A, b, x2, &o, &plain, &err));
      test_iterates k = {&A, b, x0, mx, last, 0, 0, 0, 0.0, 0.0};
      o.monitor = test_keep_iterate, o.monitor_ctx = &k, o.monitor_x = mx;
      memcpy(x, x0, n * sizeof *x);
      CHECK_OK(cgm_solve(&A, b, x, &o, &r, &err));
      const char *pn = cgm_precision_name(precs[p]);
      CHECK_MSG(abs(r.iterations - plain.iterations) <= 2, "%s rcm %d: %d iterations, %d unwatched",
                pn, rcm, r.iterations, plain.iterations);
      CHECK_MSG(k.calls == r.iterations + 1 && k.rising, "%s rcm %d: %d calls, %d iterations", pn,
                rcm, k.calls, r.iterations);
      /* (single precision holds x0 in float) */
      CHECK_MSG(k.first_err <= (precs[p] == CGM_PREC_SINGLE ? 6e-8 : 1e-15),
                "%s rcm %d: x_0 off x0 by %g", pn, rcm, k.first_err);
      CHECK_MSG(!memcmp(k.last, x, n * sizeof *x), "%s rcm %d: the last x_k is not x", pn, rcm);
      /* the reported residual is the iterated one: double's follows the
       * truth, single's and mixed's within what single can show */
      const double within = precs[p] == CGM_PREC_DOUBLE ? 1e-4 : 0.5;
      CHECK_MSG(k.worst <= within, "%s rcm %d: x_k's residual off the reported by %g", pn, rcm,
                k.worst);
      for (int32_t i = 0; i < n; i++) CHECK_NEAR(x[i], x2[i], 1e-8 * fabs(x2[i]) + 1e-6);
    }
  free(b), free(x), free(x2), free(x0), free(mx), free(last);
  cgm_csr_free(&A);
}

/* The tolerance is a requirement on ||b - Ax|| / ||b||, recomputed here in
 * long double: double and mixed precision meet 1e-6 .. 1e-12 at every block
 * size, mixed in at most `ratio` times double's iterations (near 1 on a
 * well-conditioned matrix; an ill-conditioned one loses some of CG's
 * convergence to the single-precision operator); single precision meets
 * what it can (1e-5) and, asked for 1e-8, stops early with a message that
 * says so instead of running to the iteration cap. The default is 1e-8 in
 * every precision. */
static void test_tolerance(const char *what, const cgm_csr *A, double ratio) {
  double *b = rhs_ones(A), *x = malloc(A->nrows * sizeof *x);
  const double tols[] = {1e-6, 1e-8, 1e-10, 1e-12};
  for (int bi = 0; bi < CGM_NBLOCKSIZES; bi++) {
    const int n = cgm_block_sizes[bi];
    /* a sanitized build: the loosest and the tightest (test_util.h, CGM_TEST_STRIDE) */
    for (int k = 0; k < 4; k += CGM_TEST_STRIDE == 1 ? 1 : 3) {
      cgm_solve_result rd = solve_tol(A, b, x, n, CGM_PREC_DOUBLE, tols[k], CGM_OK);
      double res = test_residual(A, b, x);
      CHECK_MSG(rd.converged && res <= tols[k], "%s N=%d double tol %g: residual %.3g", what, n,
                tols[k], res);
      cgm_solve_result rm = solve_tol(A, b, x, n, CGM_PREC_MIXED, tols[k], CGM_OK);
      res = test_residual(A, b, x);
      CHECK_MSG(rm.converged && res <= tols[k], "%s N=%d mixed tol %g: residual %.3g", what, n,
                tols[k], res);
      CHECK_NEAR(rm.relative_residual, res, 1e-3);
      CHECK_MSG(rm.iterations <= rd.iterations * ratio + 10,
                "%s N=%d tol %g: mixed %d iterations, double %d", what, n, tols[k], rm.iterations,
                rd.iterations);
    }
    cgm_solve_result rs = solve_tol(A, b, x, n, CGM_PREC_SINGLE, 1e-5, CGM_OK);
    CHECK(test_residual(A, b, x) <= 1e-5);
    cgm_solve_result rf = solve(A, b, x, n, CGM_PREC_SINGLE, CGM_ENOCONV);
    CHECK_MSG(!rf.converged && strstr(last_msg, "single precision cannot reach") &&
                  strstr(last_msg, "stopped falling"),
              "%s N=%d single at the default 1e-8: %s", what, n, last_msg);
    /* early: well before the iteration cap, 10 x the dimension (the stall
     * window is as long again as single took to its least residual) */
    CHECK_MSG(rf.stalled && rf.iterations < 2 * A->nrows,
              "%s N=%d: single stopped after %d (%d to 1e-5)", what, n, rf.iterations,
              rs.iterations);
    CHECK(rf.relative_residual > 1e-8 && rf.relative_residual < 1e-4);
  }
  cgm_solve_opts o = cgm_solve_opts_default();
  for (int p = 0; p < CGM_NPRECISIONS; p++) {
    o.precision = (cgm_precision)p;
    CHECK(cgm_solve_tol(&o) == 1e-8);
  }
  free(b), free(x);
}

/* ||v|| in chunks on every core: the long-double value within rounding,
 * no overflow or underflow at the ends of the double range, and the same
 * bits on 1, 2 and 3 threads. */
static void test_norm2(void) {
  const int32_t n = 300001;
  double *v = malloc((size_t)n * sizeof *v);
  uint64_t rng = 7;
  const double scales[] = {1.0, 1e300, 1e-300};
  for (int s = 0; s < 3; s++) {
    long double ref = 0;
    for (int32_t i = 0; i < n; i++) {
      v[i] = (unif01(&rng) - 0.5) * scales[s];
      if (i % 7 == 0) v[i] = 0.0;
      ref += ((long double)v[i] / scales[s]) * ((long double)v[i] / scales[s]);
    }
    const double want = (double)(sqrtl(ref) * scales[s]);
    double first = 0;
    for (int t = 1; t <= 3; t++) {
      omp_set_num_threads(t);
      const double got = cgm_solve_norm2(v, n);
      CHECK_MSG(isfinite(got) && fabs(got / want - 1) < 1e-13, "scale %g: %.17g, want %.17g",
                scales[s], got, want);
      if (t == 1) first = got;
      CHECK_MSG(got == first, "%d threads: %.17g, 1 thread: %.17g", t, got, first);
    }
  }
  omp_set_num_threads(omp_get_num_procs());
  free(v);
}

/* An unreachable tolerance on an ill-conditioned unstructured matrix
 * (mesh3d with stiffness jumping by 1e8: condition near 1e11): the double
 * solve stops stalled (not at the iteration cap), after the stall window
 * (as long again as its least residual took: at most 3.5x the iterations
 * of a solve at the estimate u ||A||_inf ||x|| / ||b||, which is reported
 * as recomputed here in long double); it returns the x of the least
 * residual it reached, whose value the message states; a tolerance above
 * the estimate converges; and a fixed count (benchmarks) runs its count. */
static void test_floor(void) {
  cgm_csr A;
  cgm_error err = {0};
  CHECK_OK(cgm_gen_mesh3d_coef(2000, 8, CGM_NUMBERING_RANDOM, 7, 1e8, &A, &err));
  double *b = rhs_ones(&A);
  double *x = calloc((size_t)A.nrows, sizeof *x);
  cgm_solve_opts o = cgm_solve_opts_default();
  o.tol = 1e-12;
  cgm_solve_result r;
  CHECK(cgm_solve(&A, b, x, &o, &r, &err) == CGM_ENOCONV);
  CHECK_MSG(r.stalled && !r.converged, "%s", err.msg);
  CHECK_MSG(strstr(err.msg, "below what double precision attains"), "%s", err.msg);
  const char *at = strstr(err.msg, "stopped falling at ");
  const double stated = at ? atof(at + strlen("stopped falling at ")) : 0.0;
  const double res = test_residual(&A, b, x);
  CHECK_MSG(fabs(stated - res) <= 0.006 * res && fabs(r.relative_residual - res) <= 1e-6 * res,
            "stated %.6g, reported %.6g, recomputed %.6g: %s", stated, r.relative_residual, res,
            err.msg);
  long double an = 0, xn = 0, bn = 0;
  for (int32_t i = 0; i < A.nrows; i++) {
    long double rs = 0;
    for (int64_t q = A.rowptr[i]; q < A.rowptr[i + 1]; q++) rs += fabsl((long double)A.val[q]);
    if (rs > an) an = rs;
    xn += (long double)x[i] * x[i];
    bn += (long double)b[i] * b[i];
  }
  const double floor_ld = (double)(1.1102230246251565e-16L * an * sqrtl(xn) / sqrtl(bn));
  CHECK_MSG(fabs(r.attainable_residual - floor_ld) <= 1e-6 * floor_ld,
            "floor %.6g, recomputed %.6g", r.attainable_residual, floor_ld);
  CHECK_MSG(r.attainable_residual > 1e-10 && r.relative_residual <= 10 * r.attainable_residual,
            "stopped at %.3g, floor %.3g", r.relative_residual, r.attainable_residual);
  /* the estimate is reached (the tolerance at it converges); the
   * unreachable tolerance stops within 3.5x that count */
  const double estimate = r.attainable_residual;
  o.tol = estimate;
  memset(x, 0, (size_t)A.nrows * sizeof *x);
  cgm_solve_result ok;
  CHECK_OK(cgm_solve(&A, b, x, &o, &ok, &err));
  CHECK_MSG(r.iterations <= 3.5 * ok.iterations, "stopped after %d iterations, the estimate at %d",
            r.iterations, ok.iterations);
  /* a fixed count computes no true residual before a claim: it runs on */
  cgm_solve_opts fc = o;
  fc.tol = 1e-300;
  fc.maxiter = 2 * ok.iterations;
  fc.fixed_count = true;
  memset(x, 0, (size_t)A.nrows * sizeof *x);
  cgm_solve_result off;
  CHECK(cgm_solve(&A, b, x, &fc, &off, &err) == CGM_ENOCONV);
  CHECK_MSG(off.iterations == fc.maxiter && !off.stalled, "a fixed count of %d ran %d: %s",
            fc.maxiter, off.iterations, err.msg);
  /* the cap just before that stall: the x of the least true residual
   * checked is returned, and the message states its residual (3 digits) */
  cgm_solve_opts cap = o;
  cap.tol = 1e-12;
  cap.maxiter = r.iterations - 1;
  memset(x, 0, (size_t)A.nrows * sizeof *x);
  cgm_solve_result capped;
  CHECK(cgm_solve(&A, b, x, &cap, &capped, &err) == CGM_ENOCONV);
  at = strstr(err.msg, "relative residual ");
  const double said = at ? atof(at + strlen("relative residual ")) : 0.0;
  const double got = test_residual(&A, b, x);
  CHECK_MSG(!capped.stalled && fabs(said - got) <= 0.006 * got && got <= 1.01 * res,
            "capped at %d: stated %.6g, recomputed %.6g (the stall's %.6g): %s", cap.maxiter, said,
            got, res, err.msg);
  /* a tolerance just above the estimate is reachable and converges */
  o.tol = 1.5 * estimate;
  memset(x, 0, (size_t)A.nrows * sizeof *x);
  cgm_solve_result near;
  CHECK_OK(cgm_solve(&A, b, x, &o, &near, &err));
  CHECK(near.converged && near.relative_residual <= o.tol);
  fprintf(stderr,
          "mesh3d contrast 1e8 (%d rows): the estimate %.3g reached in %d iterations, tol 1e-12 "
          "stopped after %d at %.3g; 1.5x the estimate converged in %d\n",
          A.nrows, estimate, ok.iterations, r.iterations, r.relative_residual, near.iterations);
  free(x);
  free(b);
  cgm_csr_free(&A);
}

/* A fixed count (validate's, the benchmarks') on a diagonal matrix: Jacobi-CG is exact after one
 * step, then every step would be a claim and a replaced residual (timed as iterations, 2x the
 * real ones); it ends at the first claim, as a GPU's, and cgm_solve says why. */
static void test_fixed_count_claim(void) {
  enum { n = 153 };
  int32_t ri[n], ci[n];
  double v[n], b[n], x[n];
  for (int i = 0; i < n; i++) ri[i] = ci[i] = i, v[i] = 1.0 + (i % 7), b[i] = 1.0 + 0.1 * (i % 5);
  cgm_csr A;
  make(&A, n, n, ri, ci, v);
  cgm_solve_opts o = cgm_solve_opts_default();
  o.tol = 1e-300, o.maxiter = 100, o.fixed_count = true;
  cgm_solve_result r;
  cgm_error err = {0};
  memset(x, 0, sizeof x);
  CHECK(cgm_solve(&A, b, x, &o, &r, &err) == CGM_ENOCONV);
  CHECK_MSG(r.iterations < o.maxiter && strstr(err.msg, "estimate reached"), "%d iterations: %s",
            r.iterations, err.msg);
  CHECK_MSG(test_residual(&A, b, x) < 1e-15, "x's residual %g", test_residual(&A, b, x));
  cgm_csr_free(&A);
}

/* A solve runs on the threads it was given (or, on a GPU, on a team sized by the matrix) and
 * leaves the caller's OpenMP team as it was, whatever its backend and outcome. */
static void test_team_kept(void) {
  cgm_csr A;
  cgm_error err = {0};
  CHECK_OK(cgm_gen_poisson3d(8, &A, &err));
  double *b = rhs_ones(&A), *x = calloc(A.nrows, sizeof *x);
  omp_set_num_threads(3);
  const cgm_backend be[] = {CGM_BACKEND_CPU, CGM_BACKEND_CUDA, CGM_BACKEND_CUSPARSE};
  for (int k = 0; k < 3; k++)
    for (int t = 0; t <= 2; t++) {
      cgm_solve_opts o = cgm_solve_opts_default();
      o.backend = be[k];
      o.threads = t;
      cgm_solve_result r;
      const cgm_status st = cgm_solve(&A, b, x, &o, &r, &err);
      CHECK_MSG(omp_get_max_threads() == 3, "%s, threads %d: the team %d after the solve (%d)",
                cgm_backend_name(be[k]), t, omp_get_max_threads(), st);
      if (k == 0 && !st) /* the CPU's device names its team: the one given, else the caller's */
        CHECK_MSG(strstr(r.device, t ? (t == 1 ? "(1 thread)" : "(2 threads)") : "(3 threads)"),
                  "%s", r.device);
      omp_set_num_threads(3);
    }
  free(b), free(x);
  cgm_csr_free(&A);
}

/* The cap in double returns CG's last iterate, whose error in A's norm is the least over its Krylov
 * space, not the x of the least residual checked: on bcsstk13 with a random b the residual
 * of the first iterations rises above x0's, and a restart from x0 never moved (as SciPy's cg, each
 * restart must lower the error). */
static double energy_error(const cgm_csr *A, const double *x, const double *xs) {
  const int32_t n = A->nrows;
  double *e = malloc(n * sizeof *e), *Ae = malloc(n * sizeof *Ae), s = 0.0;
  for (int32_t i = 0; i < n; i++) e[i] = x[i] - xs[i];
  cgm_csr_spmv(A, e, Ae);
  for (int32_t i = 0; i < n; i++) s += e[i] * Ae[i];
  free(e), free(Ae);
  return sqrt(s);
}

static void test_cap_restarts(const cgm_csr *A) {
  const int32_t n = A->nrows;
  double *xs = malloc(n * sizeof *xs), *b = malloc(n * sizeof *b), *x = calloc(n, sizeof *x);
  uint64_t st = 11;
  for (int32_t i = 0; i < n; i++) b[i] = unif01(&st) - 0.5, xs[i] = 0.0;
  cgm_solve_opts o = cgm_solve_opts_default();
  o.backend = CGM_BACKEND_CPU;
  o.tol = 1e-10;
  cgm_solve_result ref;
  cgm_error e0 = {0};
  CHECK_OK(cgm_solve(A, b, xs, &o, &ref, &e0)); /* the solution, to 1e-10 */
  o.maxiter = 50;
  double before = energy_error(A, x, xs);
  for (int k = 0; k < 5; k++) {
    cgm_solve_result r;
    cgm_error err = {0};
    CHECK(cgm_solve(A, b, x, &o, &r, &err) == CGM_ENOCONV && r.iterations == 50);
    const double after = energy_error(A, x, xs);
    CHECK_MSG(after < 0.99 * before, "restart %d: the error in A's norm %.6g, before %.6g", k,
              after, before);
    CHECK_NEAR(r.relative_residual, test_residual(A, b, x), 1e-6);
    before = after;
  }
  free(xs), free(b), free(x);
}

int main(void) {
  test_team_kept();
  test_norm2();
  test_floor();
  {
    cgm_csr A;
    cgm_error err = {0};
    CHECK_OK(cgm_gen_poisson3d(11, &A, &err));
    test_tolerance("poisson3d 11", &A, 1.5);
    cgm_csr_free(&A);
    char path[512];
    snprintf(path, sizeof path, "%s/bcsstk13.mtx", CGM_DATA_DIR);
    CHECK_OK(cgm_mm_read_csr(path, &A, NULL, &err));
    test_tolerance("bcsstk13", &A, 2.5); /* condition number near 1e10 */
    test_cap_restarts(&A);
    cgm_csr_free(&A);
  }
  test_poisson();
  test_jacobi_scaling();
  test_failures();
  test_fixed_count_claim();
  test_monitor();
  test_monitor_x();
  TEST_MAIN_END();
}
