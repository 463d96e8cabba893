/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A calibration's whole-iteration sample (microbench/iter_sweeps.c) taken by hand, with the share
 * watch on and off, at two lengths: alone and beside another process's GPU work, it says whether
 * the samples a turn slows are a few graphs (a longer sample's low decile escapes them) or every
 * graph, and what graphs of fewer iterations (check_every) change (docs/calibration.md, "The share
 * over every replay").
 * usage: share_sample N ITERS ROUNDS K CASE...   CASE: arrow:LEN (4096 rows), band:H (8192 rows,
 * half-width H) or a bench case (poisson3d:64); K: iterations a graph (0: the solver's 32) of
 * the watched solves; prints, a round at a time for each case, length and watch, the median
 * graph's and the low decile's us an iteration and the share. K:MB1,MB2,... also repeats each
 * solve after that many MB of GPU memory are taken (which moves where its arrays lie). */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_cases.h"
#include "cgmodel/model.h"
#include "cgmodel/solver.h"

static cgm_status load(const char *spec, cgm_csr *A, cgm_error *err) {
  if (strncmp(spec, "arrow:", 6) == 0) return cgm_gen_arrow(4096, atoi(spec + 6), A, err);
  if (strncmp(spec, "band:", 5) == 0) return cgm_gen_band(CGM_BAND_ROWS, atoi(spec + 5), A, err);
  return bench_load_case(spec, A, err);
}

int main(int argc, char **argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: share_sample N ITERS ROUNDS K CASE...\n");
    return 2;
  }
  const int n = atoi(argv[1]), iters = atoi(argv[2]), rounds = atoi(argv[3]), K = atoi(argv[4]);
  double pads[32] = {0}; /* MB taken before each solve; none given: one pass with none */
  int npad = 0;
  for (const char *q = strchr(argv[4], ':'); q && npad < 32; q = strchr(q + 1, ','))
    pads[npad++] = atof(q + 1);
  if (npad == 0) npad = 1;
  printf("case            N  iters  K   pad watch round  median_us   low_us  share\n");
  for (int c = 5; c < argc; c++) {
    cgm_csr A;
    cgm_error err = {0};
    if (load(argv[c], &A, &err)) {
      fprintf(stderr, "share_sample: %s: %s\n", argv[c], err.msg);
      return 1;
    }
    double *b = malloc(sizeof(double) * (A.nrows + 1)), *x = malloc(sizeof(double) * (A.nrows + 1));
    if (!b || !x) return 1;
    for (int32_t i = 0; i < A.nrows; i++) x[i] = 1.0 + 0.001 * (i % 7);
    cgm_csr_spmv(&A, x, b);
    for (int r = 0; r < rounds; r++)
      for (int pi = 0; pi < npad; pi++)
        for (int len = 0; len < 2; len++)
          for (int w = 0; w < 2; w++) {
            void *pad = NULL;
            if (pads[pi] > 0 && cudaMalloc(&pad, (size_t)(pads[pi] * 1048576)) != cudaSuccess)
              return 1;
            cgm_solve_opts o = cgm_solve_opts_default();
            o.backend = CGM_BACKEND_CUDA;
            o.layout = cgm_bcsr_default_params(n);
            o.maxiter = len ? 10 * iters : iters;
            o.tol = 1e-300;
            o.fixed_count = o.matrix_checked = true;
            o.share_watch = w;
            o.check_every = w ? K : 0;
            cgm_solve_result res;
            memset(x, 0, sizeof(double) * A.nrows);
            cgm_status st = cgm_solve(&A, b, x, &o, &res, &err);
            if (pad) cudaFree(pad);
            if (st && st != CGM_ENOCONV) {
              fprintf(stderr, "share_sample: %s: %s\n", argv[c], err.msg);
              return 1;
            }
            printf("%-14s %2d %6d %2d %5.0f %5d %5d %10.2f %8.2f %6.3f\n", argv[c], n, o.maxiter,
                   o.check_every ? o.check_every : 32, pads[pi], w, r, res.time_per_iter_s * 1e6,
                   res.time_per_iter_low_s * 1e6, w ? res.gpu_share : 1.0);
            fflush(stdout);
          }
    free(b), free(x);
    cgm_csr_free(&A);
  }
  return 0;
}
