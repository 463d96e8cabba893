/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The layout internals that the plan (the cut and the halos) and the CUDA
 * solver (segment layouts) build on: not part of the installed API. */
#pragma once

#include "cgmodel/sparse.h"

/* The sorted block columns of block row br (to out when non-NULL), and their count. A block row
 * holding padded rows of a square matrix has its diagonal block. */
int32_t cgm_block_row_columns(const cgm_csr *A, int32_t br, int n, int32_t *out);

/* Blocks of every block row: len[b] for b < ceil(nrows / N). */
cgm_status cgm_bcsr_row_blocks(const cgm_csr *A, int n, int32_t *len, cgm_error *err);

/* The blocks of every block row as a pattern: block row b has the block
 * columns bcol[bptr[b] .. bptr[b+1]), ascending (*bptr, *bcol malloc'ed). */
cgm_status cgm_block_pattern(const cgm_csr *A, int n, int64_t **bptr, int32_t **bcol,
                             cgm_error *err);

/* The layout's order of nb block rows of lengths len: longest first, stable
 * (rows of equal length keep their order). order[k] indexes len. */
cgm_status cgm_bcsr_sort_rows(const int32_t *len, int32_t nb, int32_t *order, cgm_error *err);

/* The distinct 32-byte sectors of x each slice of an MBR layout reads, summed, at both widths
 * (out[0]: 8 bytes, out[1]: 4; docs/model.md, "x locality"): the k-th block row of the layout is
 * rows[order[k]] (order from cgm_bcsr_sort_rows), block row b reads block columns bcol[bptr[b] ..
 * bptr[b+1]) and, where padded, its diagonal one; a slice with padding slots reads block column 0
 * (docs/bcsr-layout.md). 0, or -1 when out of memory. */
int cgm_layout_x_sectors(const int64_t *bptr, const int32_t *bcol, int32_t nbcols,
                         const int32_t *rows, const int32_t *order, int32_t nb, int bx, int by,
                         int n, int64_t out[CGM_NSECTOR_WIDTHS]);

/* One block size's features of A's layout with parameters p, from one block pattern: the counts (as
 * cgm_bcsr_count gives them) and the x locality; elements and density are the caller's. */
cgm_status cgm_x_locality(const cgm_csr *A, cgm_bcsr_params p, cgm_block_features *bf,
                          cgm_error *err);

/* Blocks after MBR sorting and padding of the block rows of at most limit blocks, from their
 * lengths alone (-1 when out of memory): what cgm_bcsr_count gives, without the matrix. */
int64_t cgm_bcsr_padded_count(const int32_t *len, int32_t nb, cgm_bcsr_params p, int32_t limit);

/* Builds the layout of an ascending list of global block rows (the interior
 * or boundary rows of a multi-GPU segment); brow holds row - base. */
cgm_status cgm_bcsr_build_rows(const cgm_csr *A, const int32_t *rows, int32_t nrows_sel,
                               int32_t base, cgm_bcsr_params p, cgm_bcsr *B, cgm_error *err);

/* CGM_PAR_MIN: below this many block rows (or slices) the layout's light passes stay on one
 * thread: a plan's many small builds would pay a parallel region each. */
#include "common/par.h"
