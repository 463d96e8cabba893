/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cg_bench: our CUDA CG at every block size beside the cuSPARSE baseline, in
 * one run on one GPU, with SpMV bandwidth and the byte floor of an iteration.
 *
 * Bytes (docs/perf.md): SpMV moves the stored layout (values, block columns,
 * result rows, slice offsets) plus x once and y once; an iteration moves the
 * SpMV bytes plus the vector passes of the CG that runs: 10 in the
 * single-reduction CG's update (the default), or with CGMODEL_CG=classic 7
 * in CG4 (x, r, v, u, D^-1 read; x, r written) and 4 in CG5 (v, r, D^-1
 * read; v written). The floor is the
 * smallest of these over the block sizes, with the unpadded blocks of the
 * block size, divided by the measured device-to-device copy bandwidth.
 *
 * usage: cg_bench [--iters K] [--reps R] [--precision double|single|both]
 *                 [--storage full|compact] [--csv FILE] CASE...
 *   --storage: the CG's matrix values (solve --storage; default full): the
 *   backend column then names the format run, cuda/dict or cuda/f32; the
 *   SpMV bandwidth column stays full values'.
 *   CASE: poisson3d:N | poisson2d:N | elasticity3d:N | random:N | kronB:M | PATH.mtx */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/cgmodel.h"
#include "bench/bench_cases.h"
#include "bench/spmv_timing.h"
#include "cgmodel/model.h"
#include "cli/env.h"

/* Bytes of one SpMV over a layout with `blocks` blocks. */
static double spmv_bytes(int64_t blocks, int64_t slots, int64_t nslices, int n, int64_t rows,
                         int w) {
  return (double)blocks * (n * n * w + 4) + (double)slots * 4 + (double)(nslices + 1) * 8 +
         2.0 * rows * w;
}

int main(int argc, char **argv) {
  int iters = 200, reps = 50, p0 = 0, p1 = 1, only_n = 0;
  cgm_storage storage = CGM_STORAGE_FULL;
  const char *csv = NULL;
  int first = 1;
  for (; first < argc && argv[first][0] == '-'; first++) {
    if (!strcmp(argv[first], "--iters") && first + 1 < argc)
      iters = atoi(argv[++first]);
    else if (!strcmp(argv[first], "--reps") && first + 1 < argc)
      reps = atoi(argv[++first]);
    else if (!strcmp(argv[first], "--csv") && first + 1 < argc)
      csv = argv[++first];
    else if (!strcmp(argv[first], "--block") && first + 1 < argc)
      only_n = atoi(argv[++first]);
    else if (!strcmp(argv[first], "--storage") && first + 1 < argc &&
             cgm_storage_parse(argv[first + 1], &storage) && storage != CGM_STORAGE_AUTO)
      first++;
    else if (!strcmp(argv[first], "--precision") && first + 1 < argc) {
      const char *p = argv[++first];
      p0 = !strcmp(p, "single") ? 1 : 0;
      p1 = !strcmp(p, "double") ? 0 : 1;
    } else {
      fprintf(stderr, "cg_bench: unknown option %s\n", argv[first]);
      return 2;
    }
  }
  if (first >= argc) {
    fprintf(stderr, "usage: cg_bench [--iters K] [--reps R] [--precision P] [--storage S] "
                    "[--csv F] CASE...\n");
    return 2;
  }
  if (cgm_cuda_device_count() < 1) {
    fprintf(stderr, "cg_bench: no GPU\n");
    return 3;
  }
  cgm_error err = {0};
  cgm_device_info dev;
  double copy_bw;
  if (cgm_cuda_device_info(0, &dev, &err) ||
      cgm_mb_copy_bandwidth(0, (int64_t)1 << 30, 20, &copy_bw, &err)) {
    fprintf(stderr, "cg_bench: %s\n", err.msg);
    return 3;
  }
  printf("# device: %s, %d SMs, L2 %.0f MB; device-to-device copy %.0f GB/s (read + write)\n",
         dev.name, dev.sms, dev.l2_bytes / 1e6, copy_bw / 1e9);
  cgm_gpu_opts gpu;
  char emsg[256];
  if (cli_env_gpu_opts(&gpu, emsg, sizeof emsg)) {
    fprintf(stderr, "cg_bench: %s\n", emsg);
    return 2;
  }
  const bool classic = gpu.cg == CGM_CG_CLASSIC;
  /* The vector passes of an iteration after its SpMV, in the CG that runs. */
  const double passes = classic ? CGM_CG4_PASSES + CGM_CG5_PASSES : CGM_CGG_PASSES;
  printf("# %d CG iterations per run (median over graphs of 32), SpMV median of %d; %s CG, the "
         "floor counts its vector passes\n",
         iters, reps, classic ? "classic" : "single-reduction");
  FILE *out = csv ? fopen(csv, "w") : NULL;
  if (out)
    fprintf(out,
            "case,rows,nnz,precision,backend,N,d_N,padded_ratio,spmv_s,spmv_GBps,spmv_frac_copy,"
            "iter_s,floor_s,iter_over_floor,cusparse_iter_s,speedup_vs_cusparse\n");
  printf("%-22s %9s %10s %-6s %-8s %2s %5s %6s %9s %6s %10s %10s %6s %8s\n", "case", "rows", "nnz",
         "prec", "backend", "N", "d_N", "pad", "SpMV GB/s", "%copy", "us/iter", "floor us",
         "x floor", "vs cuSP");
  int rc = 0;
  for (int c = first; c < argc; c++) {
    cgm_csr A;
    if (bench_load_case(argv[c], &A, &err)) {
      fprintf(stderr, "cg_bench: %s: %s\n", argv[c], err.msg);
      rc = 2;
      continue;
    }
    cgm_features f;
    if (cgm_plan_features(&A, &f, &err)) {
      fprintf(stderr, "cg_bench: %s\n", err.msg);
      cgm_csr_free(&A);
      continue;
    }
    double *b = malloc(sizeof(double) * A.nrows), *x = malloc(sizeof(double) * A.nrows);
    for (int32_t i = 0; i < A.nrows; i++) x[i] = 1.0 + 0.1 * sin(i);
    cgm_csr_spmv(&A, x, b);
    const char *name = bench_case_name(argv[c]);
    for (int pr = p0; pr <= p1; pr++) {
      cgm_precision prec = (cgm_precision)pr;
      int w = prec == CGM_PREC_SINGLE ? 4 : 8;
      /* cuSPARSE baseline first: the ratio column needs it. */
      cgm_solve_opts o = cgm_solve_opts_default();
      o.backend = CGM_BACKEND_CUSPARSE;
      o.precision = prec;
      o.maxiter = iters;
      o.tol = 1e-300;
      o.fixed_count = true;
      cgm_solve_result r;
      memset(x, 0, sizeof(double) * A.nrows);
      cgm_status st = cgm_solve(&A, b, x, &o, &r, &err);
      double t_cusparse = st == CGM_OK || st == CGM_ENOCONV ? r.time_per_iter_s : NAN;
      if (isnan(t_cusparse)) fprintf(stderr, "cg_bench: %s cusparse: %s\n", name, err.msg);
      /* The floor: the fewest bytes over block sizes, unpadded. */
      double floor_bytes = INFINITY;
      for (int bi = 0; bi < CGM_NBLOCKSIZES; bi++) {
        const cgm_block_features *bf = &f.block[bi];
        int64_t rows = ((int64_t)A.nrows + bf->n - 1) / bf->n * bf->n;
        double by = spmv_bytes(bf->blocks, 0, 0, bf->n, rows, w) + passes * rows * w;
        if (by < floor_bytes) floor_bytes = by;
      }
      double floor_s = floor_bytes / copy_bw;
      printf("%-22s %9d %10lld %-6s %-8s %2s %5s %6s %9s %6s %10.1f %10.1f %6.2f %8s\n", name,
             A.nrows, (long long)A.nnz, cgm_precision_name(prec), "cusparse", "-", "-", "-", "-",
             "-", 1e6 * t_cusparse, 1e6 * floor_s, t_cusparse / floor_s, "1.00");
      if (out)
        fprintf(out, "%s,%d,%lld,%s,cusparse,,,,,,,%.9g,%.9g,%.4f,%.9g,1\n", name, A.nrows,
                (long long)A.nnz, cgm_precision_name(prec), t_cusparse, floor_s,
                t_cusparse / floor_s, t_cusparse);
      for (int bi = 0; bi < CGM_NBLOCKSIZES; bi++) {
        const cgm_block_features *bf = &f.block[bi];
        int n = bf->n;
        if (only_n && n != only_n) continue;
        cgm_bcsr B;
        double spmv_s = NAN, gbs = NAN;
        if (cgm_bcsr_build(&A, 0, (A.nrows + n - 1) / n, cgm_plan_layout_params(&A, n, 1), &B,
                           &err) == CGM_OK) {
          if (cgm_mb_spmv_seconds(0, &B, prec, reps, &spmv_s, &err) == CGM_OK)
            gbs = spmv_bytes(B.nblocks_padded, (int64_t)B.nslices * B.p.by, B.nslices, n,
                             (int64_t)B.nbrows * n, w) /
                  spmv_s;
          else
            fprintf(stderr, "cg_bench: %s spmv N=%d: %s\n", name, n, err.msg);
          cgm_bcsr_free(&B);
        }
        o = cgm_solve_opts_default();
        o.gpu = gpu;
        o.backend = CGM_BACKEND_CUDA;
        o.precision = prec;
        o.storage = prec == CGM_PREC_DOUBLE ? storage : CGM_STORAGE_FULL;
        o.layout = cgm_plan_layout_params(&A, n, 1);
        o.maxiter = iters;
        o.tol = 1e-300;
        o.fixed_count = true;
        memset(x, 0, sizeof(double) * A.nrows);
        st = cgm_solve(&A, b, x, &o, &r, &err);
        double t = st == CGM_OK || st == CGM_ENOCONV ? r.time_per_iter_s : NAN;
        if (isnan(t)) fprintf(stderr, "cg_bench: %s cuda N=%d: %s\n", name, n, err.msg);
        double pad = bf->elements ? (double)bf->padded_elements / bf->elements : 0;
        char be[24] = "cuda";
        if (st <= CGM_ENOCONV && r.storage != CGM_VALUES_FULL) /* the values' format run */
          snprintf(be, sizeof be, "cuda/%s", cgm_values_name(r.storage));
        printf(
            "%-22s %9d %10lld %-6s %-8s %2d %5.2f %6.3f %9.0f %5.0f%% %10.1f %10.1f %6.2f %8.2f\n",
            name, A.nrows, (long long)A.nnz, cgm_precision_name(prec), be, n, bf->density, pad,
            gbs / 1e9, 100 * gbs / copy_bw, 1e6 * t, 1e6 * floor_s, t / floor_s, t_cusparse / t);
        if (out)
          fprintf(out, "%s,%d,%lld,%s,%s,%d,%.4f,%.4f,%.9g,%.6g,%.4f,%.9g,%.9g,%.4f,%.9g,%.4f\n",
                  name, A.nrows, (long long)A.nnz, cgm_precision_name(prec), be, n, bf->density,
                  pad, spmv_s, gbs / 1e9, gbs / copy_bw, t, floor_s, t / floor_s, t_cusparse,
                  t_cusparse / t);
        fflush(stdout);
      }
    }
    free(b), free(x);
    cgm_csr_free(&A);
  }
  if (out) fclose(out);
  return rc;
}
