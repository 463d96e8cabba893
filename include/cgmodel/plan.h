/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What one configuration builds: for a matrix and a configuration, what every device holds (its
 * segment of block rows, MBR layouts and padded sizes, halo, exchanged elements, memory). The
 * solver builds from a plan and the tuner, model and maps count from the same plan, so a prediction
 * is about exactly what runs. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgmodel/export.h"
#include "cgmodel/options.h"
#include "cgmodel/sparse.h"
#include "cgmodel/status.h"

CGM_BEGIN_DECLS

/* A CPU solve's OpenMP team (cgm_cpu_team; calibration and model alike): a thread a 256 rows, 1 to
 * its threads; by the rows alone, one team for every kernel (teams per kernel: 25x slower). */
#define CGM_CPU_TEAM_ROWS 256

/* ------------------------------------------------------- the layout --- */

/* The MBR SpMV's blocks (kernels/spmv.cu): this many threads, at most this many an SM at once (its
 * register cap; a grid of more slice groups loops). A slice takes B_y B_x N threads times the
 * split: 2 lanes a 64-byte block row while the B_x partners stay in one warp (N = 8 in double),
 * else 1. */
#define CGM_SPMV_THREADS 256
#ifndef CGM_SPMV_BLOCKS_PER_SM
#define CGM_SPMV_BLOCKS_PER_SM 4
#endif
#define CGM_SPMV_SPLIT(w, n, bx) ((n) * (w) > 32 && 2 * (n) * (bx) <= 32 ? 2 : 1)

/* B_x for block size n on `gpus` GPUs: at N = 1 it doubles (to 8 at most) while a row holds more
 * than 16 entries a thread and one GPU's rows times B_x stay within CGM_BX_THREADS (plan/layout.c);
 * at N >= 2 B_x = 1. B_y keeps one warp per slice. */
#define CGM_BX_THREADS (1 << 20)
CGM_API cgm_bcsr_params cgm_plan_layout_params(const cgm_csr *A, int n, int gpus);
/* The same rule from the average scalar row length and the rows per GPU. */
CGM_API cgm_bcsr_params cgm_plan_layout_choose(int n, double avg_row, int64_t rows_per_gpu);
/* Fills B_x (and B_y, when also 0) of p by that rule when B_x is 0. */
CGM_API void cgm_plan_layout_resolve(cgm_bcsr_params *p, const cgm_csr *A, int gpus);
/* The matrix features (cgm_features_compute) with each block size's padded
 * counts in the layout the solver builds on one GPU. */
CGM_API cgm_status cgm_plan_features(const cgm_csr *A, cgm_features *f, cgm_error *err);
/* The same for the block sizes of `blocks` alone (bit i: cgm_block_sizes[i]). */
CGM_API cgm_status cgm_plan_features_blocks(const cgm_csr *A, unsigned blocks, cgm_features *f,
                                            cgm_error *err);
/* The version of what cgm_plan_features gives, kept with a cached matrix's features (cache extra
 * "features"): bump it when the features, their struct or the layout rule change. */
#define CGM_PLAN_FEATURES_VERSION 5u

/* ------------------------------------------------------- the plan --- */

/* The configuration a plan is made for. */
typedef struct cgm_plan_opts {
  cgm_backend backend;
  cgm_precision precision;
  cgm_bcsr_params layout; /* n in {1,2,4,8}; bx <= 0: chosen for the matrix */
  int gpus;               /* CUDA backend: 1..CGM_MAX_GPUS */
  cgm_exchange exchange;  /* several GPUs */
  /* Halo on several GPUs: a boundary block row counts 1 +
   * CGM_BOUNDARY_EXTRA times its blocks in the cut (a second SpMV launch). */
  bool balance;
  /* Leave x_sectors at 0: the solver's own plan (counting them walks every
   * block row's columns again, a third of a solve's host time). */
  bool skip_sectors;
  bool settled; /* the options of a settled solve: not checked again */
  /* The features of the same matrix (NULL: none): a one-segment plan takes
   * its sectors of x from them instead of counting them. */
  const cgm_features *features;
  int row_align;        /* segments start at multiples of it (block-Jacobi's block); <= 1: any */
  cgm_storage storage;  /* solve --storage (default auto) */
  unsigned value_class; /* what A's values allow (cgm_values_class; 0: full values alone) */
  cgm_values values;    /* as resolved from both for the precision: what the model counts */
} cgm_plan_opts;

/* The boundary rows' extra weight in the balanced cut (docs/perf.md). */
#define CGM_BOUNDARY_EXTRA 0.7

/* Defaults: CPU, double, N = 1 (B_x chosen), 1 GPU, halo, balanced. */
CGM_API cgm_plan_opts cgm_plan_opts_default(void);

/* The counts of one MBR layout (no values). */
typedef struct cgm_plan_layout {
  int32_t brows;         /* block rows it holds */
  int64_t blocks;        /* stored blocks (before padding) */
  int64_t blocks_padded; /* after MBR sorting and padding */
  int32_t nslices;       /* slices of B_y block rows */
  int32_t max_row;       /* blocks of its longest block row */
  int64_t walk;          /* blocks its threads walk, summed over block rows (length / B_x) */
  /* 1: a segment's long block rows (> CGM_LONG_ROW blocks), a block row a
   * slice (B_x = B_y = 1, no padding), read by a warp or block each;
   * max_row and walk then count those threads' steps (cgm_long_row_steps) */
  int long_rows;
} cgm_plan_layout;

/* Block rows longer than this many blocks (our kernels on one GPU, or on several with the halo
 * exchange) leave the MBR layout, where one thread walks a row, for one of their own read by a warp
 * a block row: a scale-free graph's hubs kept one warp walking long after the rest of the GPU had
 * finished (docs/perf.md, "Power-law rows"). */
#define CGM_LONG_ROW 128
/* Of those, rows longer than this many entries (blocks x N) are read by a
 * block of CGM_HUGE_ROW_THREADS threads, the others by a warp each. */
#define CGM_HUGE_ROW 1024
#define CGM_HUGE_ROW_THREADS 256
/* The threads that read a long block row of len blocks of N x N. */
static inline int32_t cgm_long_row_threads(int32_t len, int n) {
  return (int64_t)len * n > CGM_HUGE_ROW ? CGM_HUGE_ROW_THREADS : 32;
}
/* Their steps: the threads cover threads / N blocks a step. */
static inline int32_t cgm_long_row_steps(int32_t len, int n) {
  const int32_t per = cgm_long_row_threads(len, n) / n;
  return (len + per - 1) / per;
}

/* What one device holds. */
typedef struct cgm_plan_segment {
  int32_t b0, b1; /* own block rows [b0, b1) */
  int64_t rows;   /* own rows: (b1 - b0) N */
  /* part[0] the whole segment, or with the halo exchange its interior
   * block rows; part[1] the boundary block rows (halo only); last, where
   * there are any, its long block rows (cgm_plan_long_part). */
  cgm_plan_layout part[3];
  int nparts;           /* 1, 2 with the halo exchange on several GPUs, one more with long rows */
  int32_t nhalo;        /* halo: foreign block columns read */
  int64_t halo_rows;    /* vector rows held beside the own ones (halo, or the whole vector) */
  int64_t v_len;        /* entries of the vector the SpMV gathers */
  int64_t sends;        /* halo: vector entries this device sends per iteration */
  int64_t device_bytes; /* memory it allocates (CUDA: device; CPU: host; cuSPARSE: device) */
  /* Per element width: the 32-byte sectors of x its SpMV reads (cgm_block_features.x_sectors; 0:
   * not counted), the long rows' share of them, how scattered its longest block row's reads are
   * (cgm_row_scatter) and how much of that row's warp walks with it (cgm_warp_share). */
  int64_t x_sectors[CGM_NSECTOR_WIDTHS];
  int64_t long_x_sectors[CGM_NSECTOR_WIDTHS];
  int32_t longest; /* the longest block row (global number; -1: none) */
  double row_scatter[CGM_NSECTOR_WIDTHS];
  double warp_share[CGM_NSECTOR_WIDTHS];
} cgm_plan_segment;

/* The segment's layout of long block rows, or NULL. */
static inline const cgm_plan_layout *cgm_plan_long_part(const cgm_plan_segment *s) {
  return s->nparts > 0 && s->part[s->nparts - 1].long_rows ? &s->part[s->nparts - 1] : NULL;
}

typedef struct cgm_plan {
  cgm_plan_opts o; /* as resolved: layout.bx and by chosen, gpus 1 off CUDA */
  int32_t nrows;   /* rows of the matrix */
  int64_t nnz;     /* its stored entries */
  int32_t nb;      /* block rows: ceil(nrows / N) */
  int nseg;        /* segments: the GPU count on CUDA, else 1 */
  int32_t bounds[CGM_MAX_GPUS + 1];
  int64_t chunk_rows;     /* nccl: rows of each all-gather chunk */
  int64_t exchange_elems; /* vector entries moved between devices per iteration */
  int64_t device_bytes;   /* the largest segment's */
  cgm_plan_segment seg[CGM_MAX_GPUS];
} cgm_plan;

/* How scattered one block row's reads of x are at each element width (8, then 4 bytes): of L blocks
 * (columns bcols, ascending) touching `lines` 128-byte lines, at least ceil(L N w / 128), (lines -
 * least) / (L - least): 0 in order, 1 when every step reads a line of its own. */
CGM_API void cgm_row_scatter(const int32_t *bcols, int32_t L, int n,
                             double out[CGM_NSECTOR_WIDTHS]);

/* The block rows one warp of our SpMV holds: 32 / (N B_x H) threads, H = 2
 * where a block row of N elements of w bytes is split over two threads
 * (N w > 32 and 2 N B_x <= 32: 8 x 8 fp64), at least 1. */
CGM_API int cgm_warp_rows(int n, int bx, int width);
/* The share of the longest block row's warp that walks with it: with the walks (length / B_x) of
 * the k = cgm_warp_rows longest (top, longest first) summing to W and the longest's L, (W / L - 1)
 * / (k - 1) (0 at k = 1). */
CGM_API double cgm_warp_share(const int32_t *top, int k, int bx);

/* The plan of configuration o for A. CGM_EINPUT when it cannot exist (a bad block size or layout,
 * more GPUs than block rows, G > CGM_MAX_GPUS, several GPUs off the CUDA backend). */
CGM_API cgm_status cgm_plan_make(const cgm_csr *A, const cgm_plan_opts *o, cgm_plan *p,
                                 cgm_error *err);

/* The plan of a CSR already in one GPU's memory (cgm_solve_device), laid out there at block size 1
 * (o: CUDA, one GPU, N = 1): one segment, the layouts uncounted (the GPU's build counts and checks
 * them), the memory of the vectors alone. */
CGM_API cgm_status cgm_plan_device_csr(int32_t nrows, int64_t nnz, const cgm_plan_opts *o,
                                       cgm_plan *p, cgm_error *err);

/* The block pattern of A at one block size, shared by the plans of that size. */
typedef struct cgm_plan_pattern cgm_plan_pattern;
CGM_API cgm_status cgm_plan_pattern_make(const cgm_csr *A, int n, cgm_plan_pattern **pt,
                                         cgm_error *err);
CGM_API void cgm_plan_pattern_free(cgm_plan_pattern *pt);
/* cgm_plan_make from a pattern (o->layout.n must be the pattern's). */
CGM_API cgm_status cgm_plan_from_pattern(const cgm_plan_pattern *pt, const cgm_plan_opts *o,
                                         cgm_plan *p, cgm_error *err);

/* A matrix the speed-up maps assume (the paper's Fig. 8): x rows, e stored elements in dense N x N
 * blocks spread evenly, no padding, cut into `gpus` equal segments that exchange the whole vector;
 * with the halo exchange a band: row i reads the rows within (e / x - 1) / 2 of it. */
CGM_API cgm_status cgm_plan_uniform(double x, double e, const cgm_plan_opts *o, cgm_plan *p,
                                    cgm_error *err);

/* The same plan in another precision: only the memory and the values' storage change. */
CGM_API void cgm_plan_set_precision(cgm_plan *p, cgm_precision prec);

/* Whether a CUDA solve of this plan may build its layout on the GPU from
 * the uploaded CSR (cgm_gpu_opts.device_layout): one segment at block size
 * 1. The solver decides by it, the tuner prices the setup by it. */
CGM_API bool cgm_plan_layout_on_device(const cgm_plan *p);

/* Device vectors are padded to a multiple of CGM_VEC_ALIGN elements (the
 * vector kernels move 16 bytes at a time); cgm_vec_len(n) is n so padded. */
#define CGM_VEC_ALIGN 4
CGM_API int64_t cgm_vec_len(int64_t n);
/* The CUDA solver's scratch a device at most (partials, the CG state). */
#define CGM_DEVICE_SCRATCH_BYTES (1 << 20)

CGM_END_DECLS
