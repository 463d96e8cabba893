/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tts_bench: time to an accurate solution, per precision and tolerance, on
 * one device: every solve starts from x = 0 with b = A x* (x* = 1 + 0.1
 * sin i), the true residual ||b - Ax|| / ||b|| is recomputed by the solve
 * driver, and the times are the solve's own: setup (layout, upload) and
 * the iterations to the tolerance (medians of R runs). The ratio column is
 * each precision's setup + iterations over double's, for the same case and
 * tolerance.
 *
 * usage: tts_bench [--backend cuda|cpu] [--block N] [--tol T[,T...]]
 *                  [--precision P[,P...]] [--reps R] CASE...
 *   CASE: poisson3d:N | poisson2d:N | elasticity3d:N | random:N | kronB:M | PATH.mtx
 *   P: double | mixed | single (default double,mixed) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_cases.h"
#include "cgmodel/cgmodel.h"
#include "cli/env.h"
#include "common/timer.h"

#define MAX_LIST 8

static int parse_list(const char *s, char out[][16]) {
  int n = 0;
  char buf[256];
  snprintf(buf, sizeof buf, "%s", s);
  for (char *t = strtok(buf, ","); t && n < MAX_LIST; t = strtok(NULL, ","))
    snprintf(out[n++], 16, "%s", t);
  return n;
}

int main(int argc, char **argv) {
  cgm_backend backend = cgm_cuda_device_count() > 0 ? CGM_BACKEND_CUDA : CGM_BACKEND_CPU;
  int block = 1, reps = 3, first = 1;
  char tols[MAX_LIST][16], precs[MAX_LIST][16];
  int ntol = parse_list("1e-8", tols), nprec = parse_list("double,mixed", precs);
  for (; first < argc && argv[first][0] == '-'; first++) {
    const char *o = argv[first], *v = first + 1 < argc ? argv[first + 1] : NULL;
    if (!v) break;
    if (!strcmp(o, "--backend") && cgm_backend_parse(v, &backend))
      first++;
    else if (!strcmp(o, "--block"))
      block = atoi(v), first++;
    else if (!strcmp(o, "--reps"))
      reps = atoi(v), first++;
    else if (!strcmp(o, "--tol"))
      ntol = parse_list(v, tols), first++;
    else if (!strcmp(o, "--precision"))
      nprec = parse_list(v, precs), first++;
    else {
      fprintf(stderr, "tts_bench: unknown option %s\n", o);
      return 2;
    }
  }
  if (first >= argc || reps < 1 || reps > 99) {
    fprintf(stderr, "usage: tts_bench [--backend B] [--block N] [--tol T,..] [--precision P,..] "
                    "[--reps R] CASE...\n");
    return 2;
  }
  cgm_gpu_opts gpu;
  char emsg[256];
  if (cli_env_gpu_opts(&gpu, emsg, sizeof emsg)) {
    fprintf(stderr, "tts_bench: %s\n", emsg);
    return 2;
  }
  printf("# %s, N = %d, %d runs each (medians); times in ms\n", cgm_backend_name(backend), block,
         reps);
  printf("%-18s %-7s %-6s %6s %5s %9s %9s %9s %9s %8s %6s\n", "case", "tol", "prec", "iters",
         "fallb", "setup", "solve", "total", "us/iter", "residual", "ratio");
  for (int c = first; c < argc; c++) {
    cgm_csr A;
    cgm_error err = {0};
    if (bench_load_case(argv[c], &A, &err)) {
      fprintf(stderr, "tts_bench: %s: %s\n", argv[c], err.msg);
      continue;
    }
    double *b = malloc(sizeof(double) * (A.nrows + 1)), *x = malloc(sizeof(double) * (A.nrows + 1));
    for (int32_t i = 0; i < A.nrows; i++) x[i] = 1.0 + 0.1 * sin((double)i);
    cgm_csr_spmv(&A, x, b);
    for (int t = 0; t < ntol; t++) {
      double t_double = NAN;
      for (int q = 0; q < nprec; q++) {
        cgm_solve_opts o = cgm_solve_opts_default();
        o.gpu = gpu;
        o.backend = backend;
        o.layout = cgm_bcsr_default_params(block);
        o.layout.bx = o.layout.by = 0;
        o.tol = atof(tols[t]);
        if (!cgm_precision_parse(precs[q], &o.precision)) continue;
        double setup[99], solve[99], per[99];
        cgm_solve_result r;
        cgm_status st = CGM_OK;
        for (int k = 0; k < reps; k++) {
          memset(x, 0, sizeof(double) * A.nrows);
          st = cgm_solve(&A, b, x, &o, &r, &err);
          setup[k] = r.time_setup_s, solve[k] = r.time_solve_s, per[k] = r.time_per_iter_s;
          if (st != CGM_OK) break;
        }
        if (st != CGM_OK) {
          printf("%-18s %-7s %-6s failed: %s\n", bench_case_name(argv[c]), tols[t], precs[q],
                 err.msg);
          continue;
        }
        const double ts = cgm_median(setup, reps), tv = cgm_median(solve, reps);
        if (o.precision == CGM_PREC_DOUBLE) t_double = ts + tv;
        printf("%-18s %-7s %-6s %6d %5d %9.2f %9.2f %9.2f %9.1f %8.2e %6.3f\n",
               bench_case_name(argv[c]), tols[t], precs[q], r.iterations, r.fallback_iterations,
               1e3 * ts, 1e3 * tv, 1e3 * (ts + tv), 1e6 * cgm_median(per, reps),
               r.relative_residual, (ts + tv) / t_double);
        fflush(stdout);
      }
    }
    free(b), free(x);
    cgm_csr_free(&A);
  }
  return 0;
}
