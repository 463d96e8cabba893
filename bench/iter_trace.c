/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Where a small CPU solve's time goes beyond K times its iteration: each
 * iteration timed through the solver's monitor, the first ones printed
 * beside the median and the mean, and the loop's excess over K medians.
 * Usage: iter_trace N TOL THREADS CASE...   (CPU backend, double, block size N;
 * THREADS 0: the OpenMP default) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_cases.h"
#include "cgmodel/solver.h"
#include "common/timer.h"
#include "microbench/sweep_plan.h"

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: %s N TOL THREADS CASE...\n", argv[0]);
    return 2;
  }
  static double ticks[100000];
  mb_iter_clock tr = {.t = ticks, .cap = 100000}; /* every iteration, the first too */
  printf("%-16s %5s %8s %8s %8s %8s | first iterations (us)\n", "case", "K", "setup ms", "median",
         "mean", "excess ms");
  for (int i = 4; i < argc; i++) {
    cgm_csr A;
    cgm_error err = {0};
    if (bench_load_case(argv[i], &A, &err)) {
      fprintf(stderr, "%s: %s\n", argv[i], err.msg);
      return 1;
    }
    double *b = malloc(sizeof(double) * A.nrows), *x = calloc((size_t)A.nrows, sizeof(double));
    double *ones = malloc(sizeof(double) * A.nrows);
    if (!b || !x || !ones) {
      fprintf(stderr, "out of memory\n");
      return 1;
    }
    for (int32_t r = 0; r < A.nrows; r++) ones[r] = 1.0;
    cgm_csr_spmv(&A, ones, b);
    for (int rep = 0; rep < 3; rep++) {
      memset(x, 0, sizeof(double) * A.nrows);
      tr.n = 0;
      cgm_solve_opts o = cgm_solve_opts_default();
      o.backend = CGM_BACKEND_CPU;
      o.layout = cgm_bcsr_default_params(atoi(argv[1]));
      o.tol = atof(argv[2]);
      o.threads = atoi(argv[3]);
      o.monitor = mb_iter_tick, o.monitor_ctx = &tr, o.monitor_every = 1;
      cgm_solve_result res;
      cgm_status st = cgm_solve(&A, b, x, &o, &res, &err);
      if ((st && st != CGM_ENOCONV) || tr.n == 0) {
        fprintf(stderr, "%s: %s\n", argv[i], tr.n ? err.msg : "no iteration timed");
        return 1;
      }
      static double sorted[100000];
      double sum = 0;
      memcpy(sorted, tr.t, sizeof(double) * tr.n);
      for (int k = 0; k < tr.n; k++) sum += tr.t[k];
      const double med = cgm_median(sorted, tr.n);
      printf("%-16s %5d %8.3f %8.2f %8.2f %8.3f |", bench_case_name(argv[i]), res.iterations,
             1e3 * res.time_setup_s, 1e6 * med, 1e6 * sum / tr.n, 1e3 * (sum - med * tr.n));
      for (int k = 0; k < 8 && k < tr.n; k++) printf(" %.1f", 1e6 * tr.t[k]);
      printf("\n");
    }
    free(b), free(x), free(ones);
    cgm_csr_free(&A);
  }
  return 0;
}
