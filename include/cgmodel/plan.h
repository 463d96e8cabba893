/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What one configuration builds: the plan. Given a matrix and a
 * configuration (backend, precision, block size and B_x, GPU count,
 * exchange), a plan says what every device will hold: the segment of block
 * rows it owns (after the cut), its MBR layouts and their padded sizes,
 * its halo, the vector elements exchanged per iteration, and the device
 * memory it needs. The solver builds from a plan; the tuner, the model, the
 * speed-up maps and the calibration count from the same plan, so a
 * prediction is about exactly what runs. */
#ifndef CGMODEL_PLAN_H
#define CGMODEL_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgmodel/export.h"
#include "cgmodel/options.h"
#include "cgmodel/sparse.h"
#include "cgmodel/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------- the layout --- */

/* B_x for block size n on `gpus` GPUs. At N = 1, B_x doubles (to 2, 4, 8)
 * while a row holds more than 16 entries per thread on average and one
 * GPU's rows times B_x stay within CGM_BX_THREADS, so that long rows are
 * walked by several threads where that pays (measured on H200, see
 * plan/layout.c); at N >= 2 B_x = 1. B_y keeps one warp per slice. */
#define CGM_BX_THREADS (1 << 20)
CGM_API cgm_bcsr_params cgm_plan_layout_params(const cgm_csr *A, int n, int gpus);
/* The same rule from the average scalar row length and the rows per GPU. */
CGM_API cgm_bcsr_params cgm_plan_layout_choose(int n, double avg_row, int64_t rows_per_gpu);
/* Fills B_x (and B_y, when also 0) of p by that rule when B_x is 0; a B_x
 * given stays; an invalid N is left to cgm_bcsr_params_check. */
CGM_API void cgm_plan_layout_resolve(cgm_bcsr_params *p, const cgm_csr *A, int gpus);
/* The matrix features (cgm_features_compute) with each block size's padded
 * counts in the layout the solver builds on one GPU. */
CGM_API cgm_status cgm_plan_features(const cgm_csr *A, cgm_features *f, cgm_error *err);
/* The same for the block sizes of `blocks` alone (bit i: cgm_block_sizes[i];
 * cgm_features_compute_blocks): a prediction of one configuration reads
 * one block size's, a quarter of the work. */
CGM_API cgm_status cgm_plan_features_blocks(const cgm_csr *A, unsigned blocks, cgm_features *f,
                                            cgm_error *err);
/* The version of what cgm_plan_features gives: features kept with a cached
 * matrix (its cache entry's extra "features") are used only when their
 * version is this one. Bump it when the features, their struct or the
 * layout rule above change. Version 3: an extra may hold some block sizes
 * alone (the others' n is 0), which version 2's readers took as complete. */
#define CGM_PLAN_FEATURES_VERSION 3u

/* ------------------------------------------------------- the plan --- */

/* The configuration a plan is made for. */
typedef struct cgm_plan_opts {
  cgm_backend backend;
  cgm_precision precision;
  cgm_bcsr_params layout; /* n in {1,2,4,8}; bx <= 0: chosen for the matrix */
  int gpus;               /* CUDA backend: 1..CGM_MAX_GPUS */
  cgm_exchange exchange;  /* several GPUs */
  /* Halo on several GPUs: each boundary block row (one that reads another
   * segment's columns) counts 1 + CGM_BOUNDARY_EXTRA times its blocks in the
   * cut, since it is multiplied in a second, smaller SpMV launch. */
  bool balance;
  /* Leave every x_sectors at 0 (the model's locality term, not counted):
   * the solver's own plan, which needs only the block rows' lengths. Their
   * count walks every block row's columns once more, a third of a plain
   * solve's host time at 6M nonzeros. A halo plan on several GPUs still
   * builds the block columns (its halo needs them). */
  bool skip_sectors;
  /* The options of a settled solve (cgm_solve_opts_settle): not checked
   * again. */
  bool settled;
  /* The features of the same matrix (cgm_plan_features; NULL: none): a plan
   * of one segment in the layout they describe takes its sectors of x from
   * them instead of walking every block row's columns again (a third of a
   * warm solve's analysis at 49M nonzeros). */
  const cgm_features *features;
  /* Several segments start at multiples of this many rows (block-Jacobi's
   * block, which no segment boundary may cut); <= 1: any block row. */
  int row_align;
} cgm_plan_opts;

/* The boundary rows' extra weight in the balanced cut: on 4 x H200 the
 * middle GPUs of Poisson 256^3 (two neighbours each) ended their iteration
 * 2.5 us after the outer ones with the plain cut, and even with 1.7
 * (docs/perf.md). */
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
  /* 1: the long block rows of a segment (longer than CGM_LONG_ROW
   * blocks; one GPU, or several with the halo exchange), stored a block row
   * a slice (B_x = B_y = 1, no padding) and read by a warp each, or a block
   * when their entries pass CGM_HUGE_ROW; max_row and walk then count those
   * threads' steps (cgm_long_row_steps) */
  int long_rows;
} cgm_plan_layout;

/* Block rows longer than this many blocks (our kernels on one GPU, or on
 * several with the halo exchange) leave
 * the MBR layout for a layout of their own, read by a warp a block row: in
 * the MBR layout one thread walks a row, and a scale-free graph's hubs
 * (thousands of entries) kept one warp walking long after the rest of the
 * GPU had finished (docs/perf.md, "Power-law rows"; at N = 2 an arrow's
 * one row of 512 blocks took 133 us an iteration on an H200, one of 128
 * blocks 37 us). Finite-element rows (up to ~100 entries, fewer blocks)
 * stay where the model was fitted, and the calibration's arrows and bands
 * stop at this length. */
#define CGM_LONG_ROW 128
/* Of those, rows longer than this many entries (blocks x N) are read by a
 * whole block of CGM_HUGE_ROW_THREADS threads (a warp would walk a
 * 50,000-entry hub for 1,500 steps), the others by a warp each. At N = 8
 * every long block row (129 blocks and more: 1032 entries) is huge. */
#define CGM_HUGE_ROW 1024
#define CGM_HUGE_ROW_THREADS 256
/* The threads that read a long block row of len blocks of N x N. */
static inline int32_t cgm_long_row_threads(int32_t len, int n) {
  return (int64_t)len * n > CGM_HUGE_ROW ? CGM_HUGE_ROW_THREADS : 32;
}
/* Their steps: a thread takes one row of one block a step, so that the
 * threads cover threads / N blocks a step. */
static inline int32_t cgm_long_row_steps(int32_t len, int n) {
  const int32_t per = cgm_long_row_threads(len, n) / n;
  return (len + per - 1) / per;
}

/* What one device holds. */
typedef struct cgm_plan_segment {
  int32_t b0, b1; /* own block rows [b0, b1) */
  int64_t rows;   /* own rows: (b1 - b0) N */
  /* The layouts: part[0] the whole segment, or with the halo exchange its
   * interior block rows (those that read only own columns); part[1] the
   * boundary block rows (halo only); last, where the segment has any, its
   * long block rows (long_rows: cgm_plan_long_part). */
  cgm_plan_layout part[3];
  int nparts;           /* 1, 2 with the halo exchange on several GPUs, one more with long rows */
  int32_t nhalo;        /* halo: foreign block columns read */
  int64_t halo_rows;    /* vector rows held beside the own ones (halo, or the whole vector) */
  int64_t v_len;        /* entries of the vector the SpMV gathers */
  int64_t sends;        /* halo: vector entries this device sends per iteration */
  int64_t device_bytes; /* memory it allocates (CUDA: device; CPU: host; cuSPARSE: device) */
  /* 32-byte sectors of x its SpMV's slices read, summed over its layouts
   * (cgm_block_features.x_sectors, per element width); 0: not counted (a
   * plan made without the block columns, or a uniform one) */
  int64_t x_sectors[CGM_NSECTOR_WIDTHS];
  /* Of those, the long rows' (cgm_plan_long_part): the distinct sectors
   * of each long block row, summed, per element width; 0 without long rows
   * or where x_sectors is not counted */
  int64_t long_x_sectors[CGM_NSECTOR_WIDTHS];
  /* Its longest block row (global number; -1: none) and how scattered that
   * row's reads of x are, per element width (cgm_row_scatter): the walk's
   * pace between the in-order arrow's and the scattered arrow's. */
  int32_t longest;
  double row_scatter[CGM_NSECTOR_WIDTHS];
  /* How many of the lanes of the longest row's warp walk with it, per
   * element width (cgm_warp_share): 0 when it walks alone (an arrow, or a
   * warp a row), 1 when every block row of its warp is as long (a band). */
  double warp_share[CGM_NSECTOR_WIDTHS];
} cgm_plan_segment;

/* The segment's layout of long block rows (its last part, long_rows), or
 * NULL where it has none. */
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

/* How scattered one block row's reads of x are, at each element width
 * (index as CGM_NSECTOR_WIDTHS: 8 then 4 bytes): with L blocks (block
 * columns bcols, ascending) of N elements, touching `lines` 128-byte lines
 * of x of which ceil(L N w / 128) are the least, (lines - least) / (L -
 * least): 0 when it reads x in order (or L <= least), 1 when every step
 * reads a line of its own. */
CGM_API void cgm_row_scatter(const int32_t *bcols, int32_t L, int n,
                             double out[CGM_NSECTOR_WIDTHS]);

/* The block rows one warp of our SpMV holds: 32 / (N B_x H) threads, H = 2
 * where a block row of N elements of w bytes is split over two threads
 * (N w > 32 and 2 N B_x <= 32: 8 x 8 fp64), at least 1. */
CGM_API int cgm_warp_rows(int n, int bx, int width);
/* The share of the longest block row's warp that walks with it: the MBR
 * layout sorts block rows longest first, so that warp holds the k =
 * cgm_warp_rows longest; with their walks (length / B_x) summing to W and
 * the longest's being L, (W / L - 1) / (k - 1), in [0, 1] (0 when k = 1).
 * top: the k longest block rows' lengths, longest first. */
CGM_API double cgm_warp_share(const int32_t *top, int k, int bx);

/* The plan of configuration o for A. CGM_EINPUT when it cannot exist (a bad
 * block size or layout, more GPUs than block rows, G > CGM_MAX_GPUS, several
 * GPUs off the CUDA backend). */
CGM_API cgm_status cgm_plan_make(const cgm_csr *A, const cgm_plan_opts *o, cgm_plan *p,
                                 cgm_error *err);

/* The plan of a matrix already in one GPU's memory (cgm_solve_device): a
 * CSR of nrows rows and nnz entries, laid out there at block size 1 (o: the
 * CUDA backend, one GPU, N = 1; B_x and B_y resolved as
 * cgm_bcsr_params_check does). Its one segment holds every row; the GPU
 * counts the layouts as it builds them, so this plan leaves them uncounted
 * and its memory is that of the vectors alone (the build checks the rest). */
CGM_API cgm_status cgm_plan_device_csr(int32_t nrows, int64_t nnz, const cgm_plan_opts *o,
                                       cgm_plan *p, cgm_error *err);

/* The block pattern of A at one block size, computed once and shared by
 * every plan of that size (the tuner makes dozens). */
typedef struct cgm_plan_pattern cgm_plan_pattern;
CGM_API cgm_status cgm_plan_pattern_make(const cgm_csr *A, int n, cgm_plan_pattern **pt,
                                         cgm_error *err);
CGM_API void cgm_plan_pattern_free(cgm_plan_pattern *pt);
/* cgm_plan_make from a pattern (o->layout.n must be the pattern's). */
CGM_API cgm_status cgm_plan_from_pattern(const cgm_plan_pattern *pt, const cgm_plan_opts *o,
                                         cgm_plan *p, cgm_error *err);

/* A matrix the speed-up maps assume (the paper's Fig. 8): x rows, e stored
 * elements in dense N x N blocks spread evenly over the rows, no padding,
 * cut into `gpus` equal segments that exchange the whole vector. With the
 * halo exchange the matrix is taken to be a band (a well-ordered mesh's):
 * row i reads the rows within (e / x - 1) / 2 of it, so a segment's halo is
 * that many rows of each neighbour (none for a diagonal matrix; at e = x^2
 * the whole rest of the vector for inner segments, half of it for the two
 * ends), and its boundary block rows are those within that reach. */
CGM_API cgm_status cgm_plan_uniform(double x, double e, const cgm_plan_opts *o, cgm_plan *p,
                                    cgm_error *err);

/* The same plan in another precision: only the memory changes. */
CGM_API void cgm_plan_set_precision(cgm_plan *p, cgm_precision prec);

/* Whether a CUDA solve of this plan builds its layout on the GPU from the
 * uploaded CSR (cgm_gpu_opts.device_layout; the solver also wants room
 * for the CSR beside the layout): one segment at block size 1 (its long
 * rows put apart there as on the host). The solver decides by it, the
 * tuner prices the setup by it. */
CGM_API bool cgm_plan_layout_on_device(const cgm_plan *p);

/* Device vectors are padded to a multiple of CGM_VEC_ALIGN elements (the
 * vector kernels move 16 bytes at a time); cgm_vec_len(n) is n so padded. */
#define CGM_VEC_ALIGN 4
CGM_API int64_t cgm_vec_len(int64_t n);
/* What the CUDA solver allocates on each device beside the matrix and the
 * vectors, at most: the reductions' partials and the CG state. */
#define CGM_DEVICE_SCRATCH_BYTES (1 << 20)

/* Elements an exchange mode moves between devices per iteration: the whole
 * vector to G - 1 others (p2p), G chunks to G - 1 others (nccl), x n
 * through the host (host, Eq. 9), or the halos. */
CGM_API int64_t cgm_exchange_elements(cgm_exchange mode, int gpus, int64_t rows_total,
                                      int64_t chunk_rows, int64_t halo_elems);

#ifdef __cplusplus
}
#endif
#endif
