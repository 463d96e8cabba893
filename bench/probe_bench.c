/* SPDX-License-Identifier: GPL-3.0-or-later */
/* How well the tuner knows K before a solve: for each case, double
 * precision's iteration count to TOL (Jacobi CG on the CPU, b = A * ones,
 * x0 = 0) beside the probe's estimate (pipeline_probe_iterations) at the
 * budget `solve --auto` and `validate --total` use and at the least (the
 * reordering decision's 50 steps), with their ratios, and a summary: the
 * mean |ln ratio| and how many within 25%.
 * Usage: probe_bench TOL CASE...   (CASE: as bench_cases.h, or
 * mesh3d:N[:C], N points, stiffness contrast C, numbered at random) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_cases.h"
#include "cgmodel/solver.h"
#include "pipeline/steps.h"

static cgm_status load(const char *spec, cgm_csr *A, cgm_error *err) {
  int n;
  double c = 1.0;
  if (sscanf(spec, "mesh3d:%d:%lf", &n, &c) >= 1)
    return cgm_gen_mesh3d_coef(n, 8, CGM_NUMBERING_RANDOM, 7, c, A, err);
  return bench_load_case(spec, A, err);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s TOL CASE...\n", argv[0]);
    return 2;
  }
  const double tol = atof(argv[1]);
  printf("%-22s %10s %7s | %8s %6s | %8s %6s\n", "case", "nnz", "K", "probe", "ratio", "50 steps",
         "ratio");
  double dev[2] = {0, 0};
  int within[2] = {0, 0}, count = 0;
  for (int i = 2; i < argc; i++) {
    cgm_csr A;
    cgm_error err = {0};
    if (load(argv[i], &A, &err)) {
      printf("%-22s %s\n", bench_case_name(argv[i]), err.msg);
      continue;
    }
    double *one = malloc((size_t)A.nrows * sizeof *one), *b = malloc((size_t)A.nrows * sizeof *b);
    double *x = calloc((size_t)A.nrows, sizeof *x);
    if (!one || !b || !x) {
      fprintf(stderr, "out of memory\n");
      return 3;
    }
    for (int32_t k = 0; k < A.nrows; k++) one[k] = 1.0;
    cgm_csr_spmv(&A, one, b);
    cgm_solve_opts o = cgm_solve_opts_default();
    o.backend = CGM_BACKEND_CPU;
    o.tol = tol;
    cgm_solve_result r;
    const cgm_status st = cgm_solve(&A, b, x, &o, &r, &err);
    free(one), free(b), free(x);
    if (st != CGM_OK) {
      printf("%-22s not converged: %s\n", bench_case_name(argv[i]), err.msg);
      cgm_csr_free(&A);
      continue;
    }
    const double p[2] = {pipeline_probe_iterations(&A, tol, PIPELINE_PROBE_BUDGET, CGM_PREC_DOUBLE),
                         pipeline_probe_iterations(&A, tol, 0, CGM_PREC_DOUBLE)};
    printf("%-22s %10lld %7d |", bench_case_name(argv[i]), (long long)A.nnz, r.iterations);
    for (int q = 0; q < 2; q++) {
      const double e = p[q] > 0 ? fabs(log(p[q] / r.iterations)) : log(10.0); /* none: 10x */
      dev[q] += e;
      within[q] += e <= log(1.25);
      printf(" %8.0f %6.2f |", p[q], p[q] / r.iterations);
    }
    printf("\n");
    fflush(stdout);
    count++;
    cgm_csr_free(&A);
  }
  if (count)
    printf("%d cases: mean |ln(probe / K)| %.3f (50 steps: %.3f), within 25%%: %d (50 steps: %d); "
           "no estimate counts as 10x\n",
           count, dev[0] / count, dev[1] / count, within[0], within[1]);
  return 0;
}
