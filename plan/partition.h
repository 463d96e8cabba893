/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The cut of a matrix into segments of consecutive block rows (paper Sec. 4.1) and what each
 * segment reads from the others (its halo). Internal to the project: the plan counts from these,
 * the CUDA solver builds from them. */
#pragma once

#include "cgmodel/plan.h"

CGM_BEGIN_DECLS

/* Segments start at multiples of this many block rows so that every
 * segment's vectors are 16-byte aligned. */
int cgm_partition_align(int n);

/* Splits nb block rows of lengths len[] (blocks) into `parts` segments of
 * similar block counts; bounds[0..parts] are block rows, each a multiple of
 * `align` except the last. CGM_EINPUT when there are too few block rows. */
cgm_status cgm_partition_lengths(const int32_t *len, int32_t nb, int parts, int align,
                                 int32_t *bounds, cgm_error *err);

/* Re-cuts `bounds` (from cgm_partition_lengths) with each boundary block row
 * (one that reads a block column of another segment, by the block pattern
 * bptr/bcol) counted (1 + extra) times its blocks. */
cgm_status cgm_partition_balance(const int64_t *bptr, const int32_t *bcol, const int32_t *len,
                                 int32_t nb, int parts, int align, double extra, int32_t *bounds,
                                 cgm_error *err);

/* Rows of each all-gather chunk (nccl): the longest segment rounded up to
 * whole blocks and 16 bytes. */
int64_t cgm_chunk_rows(const int32_t *bounds, int gpus, int n);

/* What segment `seg` of a partition reads from the others. */
typedef struct cgm_halo {
  int32_t b0, b1;                  /* own block rows */
  int32_t nhalo;                   /* foreign block columns the segment reads */
  int32_t *cols;                   /* nhalo, ascending global block columns */
  int32_t owner[CGM_MAX_GPUS + 1]; /* cols[owner[j] .. owner[j+1]) belong to segment j */
  int32_t ninterior, nboundary;
  int32_t *interior; /* own block rows that read only own columns (ascending) */
  int32_t *boundary; /* own block rows that read some foreign column (ascending) */
} cgm_halo;

cgm_status cgm_halo_build(const cgm_csr *A, int n, const int32_t *bounds, int parts, int seg,
                          cgm_halo *h, cgm_error *err);
void cgm_halo_free(cgm_halo *h);

/* The size of segment seg's halo from a block pattern: the foreign block
 * columns it reads per owning segment (from_owner[j]), their
 * total, and which of its block rows read one (is_boundary[b - bounds[seg]]). */
cgm_status cgm_halo_sizes(const int64_t *bptr, const int32_t *bcol, int32_t nbcols,
                          const int32_t *bounds, int parts, int seg, int32_t *nhalo,
                          int32_t *from_owner, unsigned char *is_boundary, cgm_error *err);

/* Rewrites a segment layout's block columns for the local vector [own block rows | gap | halo]: own
 * column c -> c - b0, foreign -> halo_start + its index in cols (halo_start >= b1 - b0: the GPU
 * solver starts the halo past its vector kernels' 16-byte padding of the own rows, which they
 * write). */
void cgm_halo_remap(const cgm_halo *h, int32_t halo_start, cgm_bcsr *B);

/* Rewrites a layout's block columns for a vector of equal chunks (an
 * all-gather): global block column c of segment j -> j * chunk + (c - bounds[j]). */
void cgm_chunk_remap(cgm_bcsr *B, const int32_t *bounds, int parts, int32_t chunk);

CGM_END_DECLS
