/* SPDX-License-Identifier: GPL-3.0-or-later */
/* multi_bench: CG on 1..G GPUs of this node for every exchange mode, in one
 * run: time per iteration (median of CUDA-graph batches), speedup over one
 * GPU, and the bytes each mode moves between devices per iteration.
 * --sync flags,events also times p2p and halo with the GPUs synchronised by
 * cross-device graph edges (CGMODEL_SYNC=events) beside the default flags.
 *
 * usage: multi_bench [--iters K] [--block N] [--precision double|single]
 *                    [--gpus G] [--exchange MODE[,MODE...]] [--sync flags[,events]]
 *                    [--csv FILE] CASE... */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_cases.h"
#include "cgmodel/cgmodel.h"
#include "cli/env.h"

/* The GPU options of every run (CGMODEL_*, cli/env.h; flags per run). */
static cgm_gpu_opts gpu;

static double run(const cgm_csr *A, const double *b, double *x, int G, cgm_exchange ex, int n,
                  cgm_precision p, int iters, int64_t *xbytes) {
  cgm_solve_opts o = cgm_solve_opts_default();
  o.gpu = gpu;
  o.backend = CGM_BACKEND_CUDA;
  o.gpus = G;
  o.exchange = ex;
  o.precision = p;
  o.layout = cgm_plan_layout_params(A, n, G);
  o.maxiter = iters;
  o.tol = 1e-300;
  o.fixed_count = true;
  cgm_solve_result r;
  cgm_error err = {0};
  memset(x, 0, sizeof(double) * A->nrows);
  cgm_status st = cgm_solve(A, b, x, &o, &r, &err);
  if (st != CGM_OK && st != CGM_ENOCONV) {
    fprintf(stderr, "multi_bench: G=%d %s: %s\n", G, cgm_exchange_name(ex), err.msg);
    return NAN;
  }
  *xbytes = r.exchange_bytes;
  return r.time_per_iter_s;
}

int main(int argc, char **argv) {
  int iters = 160, n = 1, maxg = cgm_cuda_device_count(), mode_mask = 0xf;
  cgm_precision prec = CGM_PREC_DOUBLE;
  const char *csv = NULL;
  int first = 1, nsync = 1;
  const char *syncs[2] = {"flags", "events"};
  char emsg[256];
  if (cli_env_gpu_opts(&gpu, emsg, sizeof emsg)) {
    fprintf(stderr, "multi_bench: %s\n", emsg);
    return 2;
  }
  for (; first < argc && argv[first][0] == '-'; first++) {
    if (!strcmp(argv[first], "--iters") && first + 1 < argc)
      iters = atoi(argv[++first]);
    else if (!strcmp(argv[first], "--block") && first + 1 < argc)
      n = atoi(argv[++first]);
    else if (!strcmp(argv[first], "--gpus") && first + 1 < argc)
      maxg = atoi(argv[++first]);
    else if (!strcmp(argv[first], "--csv") && first + 1 < argc)
      csv = argv[++first];
    else if (!strcmp(argv[first], "--exchange") && first + 1 < argc) {
      char list[128];
      snprintf(list, sizeof list, "%s", argv[++first]);
      mode_mask = 0;
      for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        cgm_exchange e;
        if (!cgm_exchange_parse(tok, &e)) {
          fprintf(stderr, "multi_bench: unknown exchange %s\n", tok);
          return 2;
        }
        mode_mask |= 1 << e;
      }
    } else if (!strcmp(argv[first], "--sync") && first + 1 < argc) {
      const char *v = argv[++first];
      nsync = strstr(v, "events") ? 2 : 1;
      if (nsync == 2 && !strstr(v, "flags")) syncs[0] = "events", nsync = 1;
    } else if (!strcmp(argv[first], "--precision") && first + 1 < argc)
      prec = !strcmp(argv[++first], "single") ? CGM_PREC_SINGLE : CGM_PREC_DOUBLE;
    else {
      fprintf(stderr, "multi_bench: unknown option %s\n", argv[first]);
      return 2;
    }
  }
  if (first >= argc || maxg < 1) {
    fprintf(stderr,
            "usage: multi_bench [--iters K] [--block N] [--precision P] [--gpus G] CASE...\n");
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0); /* progress survives a timeout */
  cgm_device_info dev;
  cgm_error err = {0};
  if (cgm_cuda_device_info(0, &dev, &err)) {
    fprintf(stderr, "multi_bench: %s\n", err.msg);
    return 3;
  }
  printf("# %d x %s, block %d, %s, %d iterations per run\n", maxg, dev.name, n,
         cgm_precision_name(prec), iters);
  printf("%-16s %10s %11s %5s %-6s %-6s %11s %8s %14s\n", "case", "rows", "nnz", "GPUs", "mode",
         "sync", "us/iter", "speedup", "bytes/iter");
  FILE *out = csv ? fopen(csv, "w") : NULL;
  if (out)
    fprintf(out,
            "case,rows,nnz,precision,block,gpus,exchange,sync,iter_s,speedup,exchange_bytes\n");
  for (int c = first; c < argc; c++) {
    cgm_csr A;
    if (bench_load_case(argv[c], &A, &err)) {
      fprintf(stderr, "multi_bench: %s: %s\n", argv[c], err.msg);
      continue;
    }
    double *b = malloc(sizeof(double) * A.nrows), *x = malloc(sizeof(double) * A.nrows);
    for (int32_t i = 0; i < A.nrows; i++) x[i] = 1.0 + 0.1 * sin(i);
    cgm_csr_spmv(&A, x, b);
    const char *name = bench_case_name(argv[c]);
    int64_t xb = 0;
    double t1 = run(&A, b, x, 1, CGM_EXCHANGE_NCCL, n, prec, iters, &xb);
    printf("%-16s %10d %11lld %5d %-6s %-6s %11.1f %8.2f %14s\n", name, A.nrows, (long long)A.nnz,
           1, "-", "-", 1e6 * t1, 1.0, "0");
    if (out)
      fprintf(out, "%s,%d,%lld,%s,%d,1,,,%.9g,1,0\n", name, A.nrows, (long long)A.nnz,
              cgm_precision_name(prec), n, t1);
    for (int G = 2; G <= maxg; G++)
      for (int ex = 0; ex < 4; ex++)
        for (int sy = 0; sy < nsync; sy++) {
          if (!(mode_mask & (1 << ex))) continue;
          /* only the peer-store exchanges synchronise by flags */
          const bool flagged = ex == CGM_EXCHANGE_P2P || ex == CGM_EXCHANGE_HALO;
          if (!flagged && sy > 0) continue;
          const bool flags = gpu.flags;
          gpu.flags = sy == 0; /* "events": no flags */
          double t = run(&A, b, x, G, (cgm_exchange)ex, n, prec,
                         ex == CGM_EXCHANGE_HOST ? iters / 4 : iters, &xb);
          gpu.flags = flags;
          const char *sname = flagged ? syncs[sy] : "-";
          printf("%-16s %10d %11lld %5d %-6s %-6s %11.1f %8.2f %14lld\n", name, A.nrows,
                 (long long)A.nnz, G, cgm_exchange_name((cgm_exchange)ex), sname, 1e6 * t, t1 / t,
                 (long long)xb);
          if (out)
            fprintf(out, "%s,%d,%lld,%s,%d,%d,%s,%s,%.9g,%.4f,%lld\n", name, A.nrows,
                    (long long)A.nnz, cgm_precision_name(prec), n, G,
                    cgm_exchange_name((cgm_exchange)ex), flagged ? syncs[sy] : "", t, t1 / t,
                    (long long)xb);
          fflush(stdout);
        }
    free(b), free(x);
    cgm_csr_free(&A);
  }
  if (out) fclose(out);
  return 0;
}
