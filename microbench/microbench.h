/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Microbenchmarks: timings of the solver's own kernels (never copies) and of the device's memory
 * system, the low quantile of timings settled after a warm-up (settle.c). */
#pragma once

#include <stdbool.h>

#include "cgmodel/model.h"
#include "cgmodel/sample.h"
#include "cgmodel/solver.h"

CGM_BEGIN_DECLS

/* ------------------------------------------------------ the sweeps --- */

/* The options every sweep's solve starts from: the solver's defaults with
 * full values, which the curves time (the model counts a compact format's
 * bytes on them; a sweep in `auto` timed 128^3 and larger grids in dict). */
static inline cgm_solve_opts cgm_mb_solve_opts(void) {
  cgm_solve_opts o = cgm_solve_opts_default();
  o.storage = CGM_STORAGE_FULL;
  return o;
}

typedef struct cgm_mb_opts {
  char device[32];     /* "cpu" or "cuda:K" */
  int gpus;            /* CUDA: GPUs of the node for the multi-GPU sweeps (<= 1: none) */
  bool quick;          /* fewer sizes and repetitions */
  unsigned precisions; /* bit (1 << cgm_precision) per precision to measure */
  int threads;         /* CPU: OpenMP threads (<= 0: the default) */
  cgm_gpu_opts gpu;    /* CUDA: how whole solves run (the iteration and multi-GPU sweeps) */
  bool busy; /* CPU, quick: other work shares its CPUs (cgm_mb_cpu_share): the sweeps keep to
                their time by leaving out the SpMV's dense-block matrices past 2^16 elements
                and the iteration sweep's largest grid */
  double *gpu_share; /* CUDA, out (NULL: none): the share of the GPU's time its kernel sweeps'
                        replays had (cgm_share_watch), over all of them */
} cgm_mb_opts;

/* Receives every sample as it is measured; a non-zero return stops the run
 * (CGM_ERUNTIME, "stopped"). */
typedef int (*cgm_mb_sink)(void *ctx, const cgm_sample *s);
/* Called between measurements: the stage and the fraction of the run done. */
typedef void (*cgm_mb_progress)(void *ctx, const char *stage, double done);

/* Runs every sweep of the device: the solver's own kernels (CG4, CG5, the SpMV per block size on
 * dense-block and realistic matrices), on CUDA also plain loads (paper Fig. 5), the dot reduction,
 * the cuSPARSE baseline's iteration and, with gpus > 1, whole multi-GPU iterations per exchange
 * mode, else the host-staged exchange of 2..8 GPUs timed on one. Inputs are never zero; each sample
 * is its timings' low quantile, with their spread and whether they settled (settle.c). */
cgm_status cgm_mb_run(const cgm_mb_opts *o, cgm_mb_sink sink, cgm_mb_progress progress, void *ctx,
                      cgm_error *err);

/* The share of their CPUs' time a team of `threads` (<= 0: OpenMP's default) gets, spinning for
 * `seconds`: about 1 on a quiet machine, 1/2 beside as many busy threads. */
double cgm_mb_cpu_share(int threads, double seconds);
/* The share of GPU `dev`'s time its kernels get over `seconds`: 1 alone on it (or unread), 1/2
 * beside a process that keeps it busy (the two contexts take turns: 2 ms each on an H200). */
double cgm_mb_gpu_share(int dev, double seconds);

/* One iteration of the locality sweep: its configuration, the refined model's shape of it (with the
 * sectors of x its slices read) and the measured median seconds. */
typedef struct cgm_locality_sample {
  int block, precision;
  int group; /* the mesh: its numberings share the bytes (cgm_fit_x_coef's groups) */
  cgm_segment_shape shape;
  double seconds;
  char source[48]; /* "poisson3d:20:w64": mesh, size, shuffle window (0: random) */
} cgm_locality_sample;

/* A sweep of the coefficients' (below): its samples in each precision of `precisions`, solved with
 * base's backend; *out is malloc'ed. */
typedef cgm_status cgm_mb_sweep_fn(const cgm_solve_opts *base, unsigned precisions, bool quick,
                                   cgm_locality_sample **out, int *count, cgm_error *err);

/* The locality sweep: a 3D Poisson grid and a 3D elasticity grid, each numbered naturally, shuffled
 * within windows of 64 and 4096 rows, and at random (the bytes fixed, the locality varying), solved
 * for a fixed number of iterations at N = 1 (the one block size whose bytes a renumbering keeps)
 * and each precision (one device). */
cgm_mb_sweep_fn cgm_mb_locality_sweep;

/* The row-scatter sweep: arrows whose long row reads x at random (a line a step; group 0) and bands
 * numbered at random a block row at a time (every lane of a warp walking scattered; group 1), at
 * every block size and each precision of `precisions`, solved for a fixed number of iterations with
 * base's backend (a GPU: the walk is its model's). Quick: one arrow (CGM_LONG_ROW blocks) and one
 * band (32), else arrows of 64 and CGM_LONG_ROW blocks and bands of 8, 32 and 128 (127:
 * mb_band_half). */
cgm_mb_sweep_fn cgm_mb_scatter_sweep;

/* The band-load sweep: bands of CGM_BAND_LOAD_WIDTH x CGM_BAND_ROWS rows whose block rows are 8 and
 * 32 blocks long (quick: 32), at every block size and each precision, solved for a fixed number of
 * iterations on a GPU. */
cgm_mb_sweep_fn cgm_mb_band_load_sweep;

/* The gather sweep: uniform random SPD matrices of CGM_GATHER_ROWS and CGM_GATHER_ROWS_SMALL rows
 * (a sector of x a nonzero), solved for a fixed number of iterations at N = 1 in each precision on
 * a GPU, the larger first. */
cgm_mb_sweep_fn cgm_mb_gather_sweep;

/* The CUDA part of cgm_mb_run (CGM_ERUNTIME in a CPU-only build). */
cgm_status cgm_mb_run_cuda(const cgm_mb_opts *o, cgm_mb_sink sink, cgm_mb_progress progress,
                           void *ctx, cgm_error *err);

CGM_END_DECLS
