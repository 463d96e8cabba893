/* SPDX-License-Identifier: GPL-3.0-or-later */
/* CG on several GPUs: for every exchange mode, block sizes 1 and 4, both
 * precisions, the solution matches the one-GPU solution (iterations equal
 * or within one, residual recomputed here), including a matrix with fewer
 * block rows than 2 G; and bad configurations are refused. Needs 2 GPUs
 * (skipped, 77, otherwise); uses up to 4. CGM_TEST_EXCHANGES=halo,p2p,host
 * limits the modes (NCCL's set-up hung on some nodes with several GPUs: docs/perf.md); a
 * NCCL failure is reported once, then NCCL is not tried again. The GPUs
 * wait for each other through flags in device memory; the graph-edge
 * variant (CGMODEL_SYNC=events) and batches enqueued without graphs
 * (CGMODEL_GRAPHS=0) are checked once too, and so is CG4 + CG5 in place of
 * the single-reduction CG (CGMODEL_CG=classic) and two iterations per graph
 * (the reduction slots reused soonest); launches without PDL
 * (CGMODEL_PDL=0), without the pack's wait for the peers (CGMODEL_LATE=0) and
 * without the ll words (CGMODEL_LL=0) give a bit-identical solution, on a
 * mesh and on a graph whose hubs the halo mode reads apart; and the
 * flags' watchdog: with a 1 us deadline a
 * solve ends cleanly, by converging or by the "waited" error, never by hanging or with a wrong
 * answer. */
#include <stdint.h>
#include <stdlib.h>

#include "cgmodel/solver.h"
#include "cli/env.h"
#include "test_linalg.h"
#include "test_util.h"

static int check_every;       /* iterations per graph (0: the default) */
static cgm_gpu_opts gpu_opts; /* of every solve here (the defaults, or CGMODEL_* of the caller) */

static const double *x_start; /* the solves' initial guess (NULL: zeros) */
static cgm_status run(const cgm_csr *A, const double *b, double *x, int gpus, cgm_exchange ex,
                      int n, cgm_precision p, cgm_solve_result *r, cgm_error *err) {
  cgm_solve_opts o = cgm_solve_opts_default();
  o.check_every = check_every;
  o.gpu = gpu_opts;
  o.tol = p == CGM_PREC_SINGLE ? 1e-5 : 1e-8; /* on the true residual in every precision */
  o.backend = CGM_BACKEND_CUDA;
  o.gpus = gpus;
  o.exchange = ex;
  o.precision = p;
  o.layout = cgm_bcsr_default_params(n);
  if (x_start)
    memcpy(x, x_start, sizeof(double) * A->nrows);
  else
    memset(x, 0, sizeof(double) * A->nrows);
  return cgm_solve(A, b, x, &o, r, err);
}

static bool nccl_failed;

static bool wanted(cgm_exchange ex) {
  const char *list = getenv("CGM_TEST_EXCHANGES");
  if (ex == CGM_EXCHANGE_NCCL && nccl_failed) return false;
  return !list || strstr(list, cgm_exchange_name(ex));
}

static void compare(const char *what, const cgm_csr *A, int ming, int maxg, int n0, int n1) {
  double *b = malloc(sizeof(double) * A->nrows), *x1 = malloc(sizeof(double) * A->nrows);
  double *xg = malloc(sizeof(double) * A->nrows), *ones = malloc(sizeof(double) * A->ncols);
  for (int32_t i = 0; i < A->ncols; i++) ones[i] = 1.0 + 0.25 * cos(0.3 * i);
  cgm_csr_spmv(A, ones, b);
  const int ns[] = {n0, n1};
  for (int pr = 0; pr < 2; pr++)
    for (int ni = 0; ni < 2; ni++) {
      cgm_precision p = (cgm_precision)pr;
      double tol = p == CGM_PREC_SINGLE ? 1e-5 : 1e-8;
      cgm_solve_result r1, rg;
      cgm_error err = {0};
      CHECK_MSG(run(A, b, x1, 1, CGM_EXCHANGE_HALO, ns[ni], p, &r1, &err) == CGM_OK, "%s 1 GPU: %s",
                what, err.msg);
      for (int G = ming; G <= maxg; G++)
        for (int ei = 0; ei < 4; ei++) {
          const cgm_exchange order[] = {CGM_EXCHANGE_HALO, CGM_EXCHANGE_P2P, CGM_EXCHANGE_HOST,
                                        CGM_EXCHANGE_NCCL};
          cgm_exchange ex = order[ei];
          if (!wanted(ex)) continue;
          cgm_status st = run(A, b, xg, G, ex, ns[ni], p, &rg, &err);
          if (st != CGM_OK && ex == CGM_EXCHANGE_NCCL) nccl_failed = true;
          CHECK_MSG(st == CGM_OK, "%s G=%d %s N=%d %s: %s", what, G, cgm_exchange_name(ex), ns[ni],
                    cgm_precision_name(p), err.msg);
          double res = test_residual(A, b, xg);
          int slack = p == CGM_PREC_SINGLE ? 1 + r1.iterations / 10 : 1;
          CHECK_MSG(abs(rg.iterations - r1.iterations) <= slack &&
                        res <= (p == CGM_PREC_SINGLE ? 20 : 1.01) * tol,
                    "%s G=%d %s N=%d %s: %d iterations (1 GPU: %d), residual %.3g", what, G,
                    cgm_exchange_name(ex), ns[ni], cgm_precision_name(p), rg.iterations,
                    r1.iterations, res);
          fprintf(stderr,
                  "%-14s G=%d %-5s N=%d %-6s %4d it (1 GPU %4d)  residual %.2e  %8.1f us/it  %lld "
                  "B/it\n",
                  what, G, cgm_exchange_name(ex), ns[ni], cgm_precision_name(p), rg.iterations,
                  r1.iterations, res, 1e6 * rg.time_per_iter_s, (long long)rg.exchange_bytes);
        }
    }
  free(b), free(x1), free(xg), free(ones);
}

/* An initial guess reaches every GPU in every exchange, in double and single precision (its rows
 * and the gathered vector): started from the solution itself a solve
 * ends at once, converged; from half of it, in the iterations of one GPU from there. A guess left
 * at zero anywhere would show the whole right-hand side as the residual. */
static void initial_guess(const char *what, const cgm_csr *A, int maxg) {
  double *b = malloc(sizeof(double) * A->nrows), *xs = malloc(sizeof(double) * A->nrows);
  double *half = malloc(sizeof(double) * A->nrows), *x = malloc(sizeof(double) * A->nrows);
  for (int32_t i = 0; i < A->nrows; i++) xs[i] = 1.0 + 0.25 * cos(0.3 * i), half[i] = 0.5 * xs[i];
  cgm_csr_spmv(A, xs, b);
  const cgm_exchange order[] = {CGM_EXCHANGE_HALO, CGM_EXCHANGE_P2P, CGM_EXCHANGE_HOST,
                                CGM_EXCHANGE_NCCL};
  /* mixed precision runs on one GPU (its double solution's upload: test_cuda_cg) */
  const cgm_precision precs[] = {CGM_PREC_DOUBLE, CGM_PREC_SINGLE};
  for (int pi = 0; pi < 2; pi++)
    for (int n = 1; n <= 4; n *= 4) {
      cgm_solve_result r1, rg;
      cgm_error err = {0};
      x_start = half;
      CHECK_MSG(run(A, b, x, 1, CGM_EXCHANGE_HALO, n, precs[pi], &r1, &err) == CGM_OK,
                "%s 1 GPU from half: %s", what, err.msg);
      for (int G = 2; G <= maxg; G++)
        for (int ei = 0; ei < 4; ei++) {
          if (!wanted(order[ei])) continue;
          const char *ex = cgm_exchange_name(order[ei]), *pn = cgm_precision_name(precs[pi]);
          x_start = xs;
          cgm_status st = run(A, b, x, G, order[ei], n, precs[pi], &rg, &err);
          CHECK_MSG(st == CGM_OK && rg.iterations == 0,
                    "%s G=%d %s N=%d %s from the solution: %d "
                    "iterations, %s",
                    what, G, ex, n, pn, rg.iterations, st ? err.msg : "ok");
          x_start = half;
          st = run(A, b, x, G, order[ei], n, precs[pi], &rg, &err);
          const int slack = precs[pi] == CGM_PREC_DOUBLE ? 1 : 1 + r1.iterations / 10;
          CHECK_MSG(st == CGM_OK && abs(rg.iterations - r1.iterations) <= slack,
                    "%s G=%d %s N=%d %s from half: %d iterations (1 GPU %d), %s", what, G, ex, n,
                    pn, rg.iterations, r1.iterations, st ? err.msg : "ok");
        }
    }
  x_start = NULL;
  free(b), free(xs), free(half), free(x);
}

/* What changes only how the GPUs wait, never what they compute, gives
 * the same iterations and a bit-identical solution when turned off, for
 * halo and p2p, N = 1 and 4: programmatic dependent launch (on with the
 * flags), the pack that waits for the peers' packs (halo), and the sums
 * sent as ll words (the single-reduction CG; same sums, same order). */
static void knobs_identical(const char *what, const cgm_csr *A, int maxg) {
  cgm_error err = {0};
  const char *knobs[] = {"pdl", "late", "ll"};
  bool *const knob[] = {&gpu_opts.pdl, &gpu_opts.late, &gpu_opts.ll};
  for (int kn = 0; kn < 3; kn++) {
    if (!*knob[kn]) continue; /* off already (the caller's CGMODEL_*) */
    double *b = malloc(sizeof(double) * A->nrows), *x0 = malloc(sizeof(double) * A->nrows),
           *x1 = malloc(sizeof(double) * A->nrows);
    for (int32_t i = 0; i < A->nrows; i++) b[i] = 1.0 + (i % 7) * 0.1;
    for (int ei = 0; ei < 2; ei++)
      for (int n = 1; n <= 4; n += 3) {
        cgm_exchange ex = ei ? CGM_EXCHANGE_P2P : CGM_EXCHANGE_HALO;
        cgm_solve_result r0, r1;
        CHECK_OK(run(A, b, x0, maxg, ex, n, CGM_PREC_DOUBLE, &r0, &err));
        *knob[kn] = false;
        cgm_status st = run(A, b, x1, maxg, ex, n, CGM_PREC_DOUBLE, &r1, &err);
        *knob[kn] = true;
        CHECK_OK(st);
        CHECK_MSG(r0.iterations == r1.iterations && !memcmp(x0, x1, sizeof(double) * A->nrows),
                  "%s: %s N=%d on %d GPUs, %s off: %d iterations against %d, or another solution",
                  what, cgm_exchange_name(ex), n, maxg, knobs[kn], r1.iterations, r0.iterations);
      }
    free(b), free(x0), free(x1);
  }
}

int main(void) {
  int ndev = cgm_cuda_device_count();
  if (ndev < 2) {
    fprintf(stderr, "fewer than 2 GPUs: skipped\n");
    return CGM_TEST_SKIP;
  }
  int maxg = ndev < 4 ? ndev : 4;
  char msg[256];
  if (cli_env_gpu_opts(&gpu_opts, msg, sizeof msg)) {
    fprintf(stderr, "%s\n", msg);
    return 1;
  }
  if (getenv("CGM_TEST_EXCHANGES"))
    fprintf(stderr, "exchange modes: %s (CGM_TEST_EXCHANGES)\n", getenv("CGM_TEST_EXCHANGES"));
  cgm_error err = {0};
  cgm_csr A;
  CHECK_OK(cgm_gen_poisson3d(40, &A, &err));
  compare("poisson3d 40", &A, 2, maxg, 1, 4);
  initial_guess("poisson3d 40", &A, maxg);
  cgm_csr_free(&A);
  CHECK_OK(cgm_gen_elasticity3d(10, &A, &err));
  compare("elasticity 10", &A, 2, maxg, 1, 4);
  cgm_csr_free(&A);
  CHECK_OK(cgm_gen_random_spd(30000, 10, CGM_ROWDIST_POWERLAW, 2.5, 0, 5, &A, &err));
  compare("random pl", &A, 2, maxg, 1, 4);
  cgm_csr_free(&A);
  /* Hubs past CGM_LONG_ROW blocks (up to 6000 entries: a block of threads
   * a row) in a layout of their own with the halo, after its arrival;
   * the sums in the same order however the GPUs wait. */
  CHECK_OK(cgm_gen_random_spd(20000, 8, CGM_ROWDIST_POWERLAW, 2.0, 6000, 11, &A, &err));
  compare("hubs", &A, 2, maxg, 1, 4);
  knobs_identical("hubs", &A, maxg);
  {
    const cgm_gpu_opts caller = gpu_opts;
    gpu_opts.flags = false; /* events between the devices' streams */
    compare("hubs (events)", &A, 2, maxg, 1, 4);
    gpu_opts = caller;
  }
  cgm_csr_free(&A);
  /* Fewer block rows than 2 G: a 1D Laplacian of 4 (2G - 1) - 1 rows has
   * 2G - 1 block rows of size 4, the last one padded. */
  for (int G = 2; G <= maxg; G++) {
    int32_t rows = 4 * (2 * G - 1) - 1;
    int32_t *ri = malloc(sizeof(int32_t) * 3 * rows), *ci = malloc(sizeof(int32_t) * 3 * rows);
    double *v = malloc(sizeof(double) * 3 * rows);
    int64_t k = 0;
    for (int32_t i = 0; i < rows; i++) {
      ri[k] = i, ci[k] = i, v[k++] = 2.5;
      if (i > 0) ri[k] = i, ci[k] = i - 1, v[k++] = -1.0;
      if (i + 1 < rows) ri[k] = i, ci[k] = i + 1, v[k++] = -1.0;
    }
    CHECK_OK(cgm_csr_from_coo(rows, rows, k, ri, ci, v, &A, NULL, &err));
    char what[32];
    snprintf(what, sizeof what, "%d rows", rows);
    compare(what, &A, G, G, 4, 4);
    cgm_csr_free(&A);
    free(ri), free(ci), free(v);
  }
  CHECK_OK(cgm_gen_poisson3d(24, &A, &err));
  const cgm_gpu_opts caller = gpu_opts;
  gpu_opts.flags = false; /* events between the devices' streams */
  compare("poisson3d 24 (events)", &A, 2, maxg, 1, 4);
  gpu_opts = caller;
  /* The single-reduction CG is the default; CG4 + CG5 (classic) still work
   * on several GPUs. */
  gpu_opts.cg = CGM_CG_CLASSIC;
  compare("poisson3d 24 (classic)", &A, 2, maxg, 1, 4);
  gpu_opts = caller;
  /* Two iterations per graph: every reduction slot is reused after two
   * iterations, while a fast GPU may already be one iteration ahead. */
  check_every = 2;
  compare("poisson3d 24 (K = 2)", &A, 2, maxg, 1, 4);
  check_every = 0;
  /* Batches enqueued without graphs (what compute-sanitizer runs); graphs
   * the caller turned off stay off for the rest of the test. */
  if (caller.graphs) {
    gpu_opts.graphs = false;
    compare("poisson3d 24 (no graphs)", &A, 2, maxg, 1, 4);
    gpu_opts = caller;
  }
  knobs_identical("poisson3d 24", &A, maxg);
  {
    double *b = malloc(sizeof(double) * A.nrows), *x = malloc(sizeof(double) * A.nrows);
    for (int32_t i = 0; i < A.nrows; i++) b[i] = 1.0 + (i % 7) * 0.1;
    gpu_opts.exchange_timeout_s = 1e-6;
    int timeouts = 0;
    for (int ei = 0; ei < 2; ei++) {
      cgm_exchange ex = ei ? CGM_EXCHANGE_P2P : CGM_EXCHANGE_HALO;
      cgm_solve_result r;
      cgm_status st = run(&A, b, x, maxg, ex, 1, CGM_PREC_DOUBLE, &r, &err);
      if (st == CGM_OK)
        CHECK_MSG(test_residual(&A, b, x) <= 1.01e-8, "watchdog %s: residual %.3g",
                  cgm_exchange_name(ex), test_residual(&A, b, x));
      else {
        CHECK_MSG(st == CGM_ERUNTIME && strstr(err.msg, "waited more than"), "watchdog %s: %d %s",
                  cgm_exchange_name(ex), st, err.msg);
        timeouts++;
      }
      fprintf(stderr, "watchdog (1 us) %s, %d GPUs: %s\n", cgm_exchange_name(ex), maxg,
              st == CGM_OK ? "converged" : err.msg);
    }
    gpu_opts = caller;
    /* The devices are usable afterwards. */
    cgm_solve_result r;
    CHECK_MSG(run(&A, b, x, maxg, CGM_EXCHANGE_HALO, 1, CGM_PREC_DOUBLE, &r, &err) == CGM_OK &&
                  test_residual(&A, b, x) <= 1.01e-8,
              "after the watchdog: %s", err.msg);
    fprintf(stderr, "watchdog fired in %d of 2 solves; the next solve converged\n", timeouts);
    free(b), free(x);
  }
  cgm_csr_free(&A);
  CHECK_OK(cgm_gen_poisson2d(7, &A, &err));
  /* More GPUs than present, and more GPUs than block rows. */
  double *b = malloc(sizeof(double) * A.nrows), *x = calloc(A.nrows, sizeof(double));
  for (int32_t i = 0; i < A.nrows; i++) b[i] = 1.0;
  cgm_solve_result r;
  cgm_status st = (cgm_status)0;
  st = run(&A, b, x, ndev + 1, CGM_EXCHANGE_NCCL, 1, CGM_PREC_DOUBLE, &r, &err);
  CHECK_MSG(st == CGM_EINPUT && (strstr(err.msg, "present") || strstr(err.msg, "at most")), "%d %s",
            st, err.msg);
  cgm_csr_free(&A);
  CHECK_OK(cgm_gen_poisson2d(2, &A, &err)); /* 4 rows: one block row of 4 */
  st = run(&A, b, x, 2, CGM_EXCHANGE_NCCL, 4, CGM_PREC_DOUBLE, &r, &err);
  CHECK_MSG(st == CGM_EINPUT && strstr(err.msg, "too few"), "%d %s", st, err.msg);
  free(b), free(x);
  cgm_csr_free(&A);
  TEST_MAIN_END();
}
