/* SPDX-License-Identifier: GPL-3.0-or-later */
/* An independent judge of the solver's stop: a reference Jacobi-
 * preconditioned CG in double, plain loops over the CSR, x0 = 0, and the
 * bundled SPD matrices it runs on with seeded random right-hand sides.
 * Wherever the reference reaches a tolerance within its cap, a solve given
 * twice the reference's iterations must converge: the stall test may end a
 * solve only on evidence that its true residual stopped falling, never at
 * a tolerance that plain CG shows reachable (bcsstk03 at 1e-10 stopped at
 * 1.0e-10 after 189 iterations, bcsstk19 at 1e-8 at 2.6e-8, while CG
 * passes both). Written for any backend (a GPU twin would pass its
 * cgm_gpu_opts); tests/unit/test_cg_reference.c runs the CPU's. */
#ifndef CGM_TEST_REFERENCE_CG_H
#define CGM_TEST_REFERENCE_CG_H

#include <stdio.h>
#include <string.h>

#include "cgmodel/solver.h"
#include "test_linalg.h"
#include "test_util.h"

#define REF_NTOL 3
static const double ref_tols[REF_NTOL] = {1e-8, 1e-10, 1e-12};

/* y = A x, plain loops. */
static void ref_spmv(const cgm_csr *A, const double *x, double *y) {
  for (int32_t i = 0; i < A->nrows; i++) {
    double s = 0.0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) s += A->val[k] * x[A->colidx[k]];
    y[i] = s;
  }
}

static double ref_dot(const double *a, const double *b, int32_t n) {
  double s = 0.0;
  for (int32_t i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

/* Jacobi PCG from x0 = 0 for at most cap iterations. reach[k] gets the
 * first iteration at which the recursive residual meets ref_tols[k] and
 * the true one, recomputed in long double (test_residual), does too; -1
 * when none does. Returns the least true residual checked (1 if none). */
static double reference_cg(const cgm_csr *A, const double *b, int cap, int reach[REF_NTOL]) {
  const int32_t n = A->nrows;
  double *x = calloc((size_t)n, sizeof *x), *r = malloc((size_t)n * sizeof *r);
  double *z = malloc((size_t)n * sizeof *z), *p = malloc((size_t)n * sizeof *p);
  double *q = malloc((size_t)n * sizeof *q), *dinv = malloc((size_t)n * sizeof *dinv);
  for (int32_t i = 0; i < n; i++) {
    double d = 0.0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (A->colidx[k] == i) d += A->val[k];
    dinv[i] = 1.0 / d;
    r[i] = b[i];
    p[i] = z[i] = dinv[i] * r[i];
  }
  const double bn = sqrt(ref_dot(b, b, n));
  double rz = ref_dot(r, z, n), least = 1.0;
  int left = REF_NTOL;
  for (int k = 0; k < REF_NTOL; k++) reach[k] = -1;
  for (int it = 1; it <= cap && left > 0; it++) {
    ref_spmv(A, p, q);
    const double alpha = rz / ref_dot(p, q, n);
    for (int32_t i = 0; i < n; i++) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
      z[i] = dinv[i] * r[i];
    }
    const double rz_new = ref_dot(r, z, n), beta = rz_new / rz;
    rz = rz_new;
    for (int32_t i = 0; i < n; i++) p[i] = z[i] + beta * p[i];
    const double rec = sqrt(ref_dot(r, r, n)) / bn;
    /* the true residual once the recursive one claims a tolerance: in
     * double (into q, free until the next step), and where that is within
     * 2x of the tolerance in long double */
    double truth = -1.0;
    for (int k = 0; k < REF_NTOL; k++) {
      if (reach[k] >= 0 || rec > ref_tols[k]) continue;
      if (truth < 0) {
        ref_spmv(A, x, q);
        for (int32_t i = 0; i < n; i++) q[i] = b[i] - q[i];
        truth = sqrt(ref_dot(q, q, n)) / bn;
        if (truth <= 2 * ref_tols[k]) truth = test_residual(A, b, x);
      }
      if (truth < least) least = truth;
      if (truth <= ref_tols[k]) reach[k] = it, left--;
    }
  }
  free(x), free(r), free(z), free(p), free(q), free(dinv);
  return least;
}

/* Uniform in [-1, 1), seeded. */
static void ref_rhs(double *b, int32_t n, uint64_t seed) {
  for (int32_t i = 0; i < n; i++) b[i] = 2.0 * unif01(&seed) - 1.0;
}

/* The bundled SPD matrices (data/matrices/MANIFEST.tsv: spd_hint yes) of
 * at most max_rows rows, by name into names[*count] (up to max). */
static int ref_spd_matrices(char names[][64], int max, int32_t max_rows) {
  char path[512], line[2048];
  snprintf(path, sizeof path, "%s/MANIFEST.tsv", CGM_DATA_DIR);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  int count = 0;
  while (count < max && fgets(line, sizeof line, f)) {
    char name[64], field[32], sym[32], spd[16];
    long rows, cols, nnz;
    if (sscanf(line, "%63[^\t]\t%ld\t%ld\t%ld\t%31[^\t]\t%31[^\t]\t%15[^\t]", name, &rows, &cols,
               &nnz, field, sym, spd) == 7 &&
        strcmp(spd, "yes") == 0 && rows <= max_rows)
      snprintf(names[count++], 64, "%s", name);
  }
  fclose(f);
  return count;
}

/* The reference's cap: CG's default (10 x the rows, at least 1000), at most
 * 6000 so that the unreachable 1e-12 of the larger matrices stays short
 * (bcsstk13 passes 1e-10 at 1,575-1,642 iterations). */
static int ref_cap(int32_t n) {
  const int c = n < 100 ? 1000 : 10 * n;
  return c > 6000 ? 6000 : c;
}

/* One way to solve: backend, precision, threads (CPU; 0 the default), and
 * the iterations it is given as a multiple of the reference's (0: 2). */
typedef struct {
  cgm_backend backend;
  cgm_precision precision;
  int threads;
  int times;
} ref_config;

/* Matrix `name` of data/matrices with the right-hand sides of seeds 1 and
 * 2: the reference, then each configuration at each tolerance the
 * reference reaches, x0 = 0 and maxiter twice the reference's count; each
 * must converge (CGM_OK) with a residual recomputed here that meets the
 * tolerance. Prints the counts; *solves counts the solves. */
static void ref_check_matrix(const char *name, const ref_config *cfg, int ncfg,
                             const cgm_gpu_opts *gpu, int *solves) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s.mtx", CGM_DATA_DIR, name);
  cgm_csr A;
  cgm_error err = {0};
  if (cgm_mm_read_csr(path, &A, NULL, &err) != CGM_OK) {
    CHECK_MSG(0, "%s: %s", name, err.msg);
    return;
  }
  const int32_t n = A.nrows;
  double *b = malloc((size_t)n * sizeof *b), *x = malloc((size_t)n * sizeof *x);
  for (uint64_t seed = 1; seed <= 2; seed++) {
    ref_rhs(b, n, seed);
    int reach[REF_NTOL];
    const double least = reference_cg(&A, b, ref_cap(n), reach);
    fprintf(stderr, "%-14s seed %d: reference %d %d %d (least %.3g); solves", name, (int)seed,
            reach[0], reach[1], reach[2], least);
    for (int k = 0; k < REF_NTOL; k++)
      for (int c = 0; c < ncfg && reach[k] >= 0; c++) {
        cgm_solve_opts o = cgm_solve_opts_default();
        if (gpu) o.gpu = *gpu;
        o.backend = cfg[c].backend;
        o.precision = cfg[c].precision;
        o.threads = cfg[c].threads;
        o.tol = ref_tols[k];
        o.maxiter = (cfg[c].times > 0 ? cfg[c].times : 2) * reach[k];
        memset(x, 0, (size_t)n * sizeof *x);
        cgm_solve_result r;
        const cgm_status st = cgm_solve(&A, b, x, &o, &r, &err);
        const double res = test_residual(&A, b, x);
        CHECK_MSG(st == CGM_OK && r.converged && res <= ref_tols[k],
                  "%s seed %d tol %g, %s %s %d threads: the reference converged in %d "
                  "iterations, the solve (maxiter %d): status %d after %d, residual %.3g: %s",
                  name, (int)seed, ref_tols[k], cgm_backend_name(o.backend),
                  cgm_precision_name(o.precision), o.threads, reach[k], o.maxiter, st, r.iterations,
                  res, err.msg);
        fprintf(stderr, " %d", r.iterations);
        ++*solves;
      }
    fputc('\n', stderr);
  }
  free(b), free(x);
  cgm_csr_free(&A);
}

/* Every SPD matrix of the manifest (29, none skipped) through
 * ref_check_matrix, the solves counted (a reference that reached too few
 * tolerances would leave the test nothing to judge). */
static void ref_check_all(const ref_config *cfg, int ncfg) {
  char names[64][64];
  const int count = ref_spd_matrices(names, 64, INT32_MAX);
  CHECK_MSG(count >= 29, "%d SPD matrices in the manifest", count);
  int solves = 0;
  for (int m = 0; m < count; m += CGM_TEST_STRIDE)
    ref_check_matrix(names[m], cfg, ncfg, NULL, &solves);
  fprintf(stderr, "%d matrices, %d solves against the reference\n", count, solves);
  CHECK_MSG(solves >= 250 / CGM_TEST_STRIDE, "%d solves: the reference reached too few tolerances",
            solves);
}

#endif
