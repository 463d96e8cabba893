/* The layout internals that the plan (the cut and the halos) and the CUDA
 * solver (segment layouts) build on: not part of the installed API. */
#ifndef CGM_SPARSE_BCSR_INTERNAL_H
#define CGM_SPARSE_BCSR_INTERNAL_H

#include "cgmodel/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The sorted block columns of block row br (written to out when non-NULL);
 * returns their count. Block rows holding padded rows of a square matrix
 * include their diagonal block. */
int32_t cgm_block_row_columns(const cgm_csr *A, int32_t br, int n, int32_t *out);

/* Blocks of every block row: len[b] for b < ceil(nrows / N). */
cgm_status cgm_bcsr_row_blocks(const cgm_csr *A, int n, int32_t *len, cgm_error *err);

/* The blocks of every block row as a pattern: block row b has the block
 * columns bcol[bptr[b] .. bptr[b+1]), ascending (*bptr, *bcol malloc'ed). */
cgm_status cgm_block_pattern(const cgm_csr *A, int n, int64_t **bptr, int32_t **bcol,
                             cgm_error *err);

/* Blocks after MBR sorting and padding, from the block rows' lengths alone
 * (-1 when out of memory): what cgm_bcsr_count gives, without the matrix. */
int64_t cgm_bcsr_padded_count(const int32_t *len, int32_t nb, cgm_bcsr_params p);

/* Builds the layout of an ascending list of global block rows (the interior
 * or boundary rows of a multi-GPU segment); brow holds row - base. */
cgm_status cgm_bcsr_build_rows(const cgm_csr *A, const int32_t *rows, int32_t nrows_sel,
                               int32_t base, cgm_bcsr_params p, cgm_bcsr *B, cgm_error *err);

/* Counts the layout of an ascending list of block rows (cgm_bcsr_build_rows)
 * without building it. */
cgm_status cgm_bcsr_count_rows(const cgm_csr *A, const int32_t *rows, int32_t nrows_sel,
                               cgm_bcsr_params p, int64_t *nblocks, int64_t *nblocks_padded,
                               int32_t *nslices, cgm_error *err);

#ifdef __cplusplus
}
#endif
#endif
