/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The cut of plan/partition.h from a matrix, as the tests and the fuzz
 * harness call it: the library cuts the block-row lengths its plan holds
 * (cgm_partition_lengths, cgm_partition_balance). */
#ifndef CGM_TEST_PARTITION_UTIL_H
#define CGM_TEST_PARTITION_UTIL_H

#include <stdlib.h>

#include "plan/partition.h"
#include "sparse/bcsr_internal.h"

/* cgm_partition_lengths of the matrix at block size n. */
static inline cgm_status cgm_partition(const cgm_csr *A, int n, int parts, int align,
                                       int32_t *bounds, cgm_error *err) {
  int32_t nb = (int32_t)(((int64_t)A->nrows + n - 1) / n);
  if (parts < 1 || parts == 1 || parts > CGM_MAX_GPUS)
    return cgm_partition_lengths(NULL, nb, parts, align, bounds, err);
  int32_t *len = malloc(((size_t)nb + 1) * sizeof *len);
  if (!len) return cgm_fail(err, CGM_ERUNTIME, "out of memory partitioning %d block rows", nb);
  cgm_status st = cgm_bcsr_row_blocks(A, n, len, err);
  if (!st) {
    st = cgm_partition_lengths(len, nb, parts, align, bounds, err);
    if (st == CGM_EINPUT) /* say which block size */
      cgm_fail(err, CGM_EINPUT, "the matrix has %d block rows of size %d: too few for %d GPUs", nb,
               n, parts);
  }
  free(len);
  return st;
}

/* cgm_partition_balance from the matrix (builds its block pattern). */
static inline cgm_status cgm_partition_boundary(const cgm_csr *A, int n, int parts, int align,
                                                double extra, int32_t *bounds, cgm_error *err) {
  if (parts < 2 || extra <= 0.0) return CGM_OK;
  int64_t *bptr = NULL;
  int32_t *bcol = NULL, *len = NULL;
  cgm_status st = cgm_block_pattern(A, n, &bptr, &bcol, err);
  const int32_t nb = (int32_t)(((int64_t)A->nrows + n - 1) / n);
  if (!st && !(len = malloc(((size_t)nb + 1) * sizeof *len)))
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory partitioning %d block rows", nb);
  for (int32_t b = 0; b < nb && !st; b++) len[b] = (int32_t)(bptr[b + 1] - bptr[b]);
  if (!st) st = cgm_partition_balance(bptr, bcol, len, nb, parts, align, extra, bounds, err);
  free(bptr);
  free(bcol);
  free(len);
  return st;
}

#endif
