/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The locality of the SpMV's reads of x (docs/model.md, "x locality"): a slice of the MBR layout is
 * one warp of the CUDA kernel, whose gathers of x are served by 32-byte sectors: a slice reading
 * neighbouring columns moves each sector once, one whose columns scatter a sector per entry. */
#include <stdlib.h>

#include "common/grow.h"
#include "sparse/bcsr_internal.h"

#define SECTOR_BYTES 32

/* The sectors of block column c that slice `mark` had not read yet. */
static int read_column(int32_t *stamp, int32_t mark, int32_t c, int n, int width) {
  const int64_t first = (int64_t)c * n * width; /* byte offsets of its N entries */
  const int64_t s0 = first / SECTOR_BYTES, s1 = (first + (int64_t)n * width - 1) / SECTOR_BYTES;
  int k = 0;
  for (int64_t s = s0; s <= s1; s++)
    if (stamp[s] != mark) {
      stamp[s] = mark;
      k++;
    }
  return k;
}

/* Both widths of one block column: 8-byte elements (stamp[0]), 4-byte ones (stamp[1]). */
static int64_t read_both(int32_t *const stamp[2], int32_t mark, int32_t c, int n, int64_t *w4) {
  *w4 += read_column(stamp[1], mark, c, n, 4);
  return read_column(stamp[0], mark, c, n, 8);
}

int cgm_layout_x_sectors(const int64_t *bptr, const int32_t *bcol, int32_t nbcols,
                         const int32_t *rows, const int32_t *order, int32_t nb, int bx, int by,
                         int n, int64_t out[CGM_NSECTOR_WIDTHS]) {
  out[0] = out[1] = 0;
  if (nb <= 0) return 0;
  if (by < 1) by = 1;
  if (bx < 1) bx = 1;
  const int64_t nsec8 = ((int64_t)nbcols * n * 8 + SECTOR_BYTES - 1) / SECTOR_BYTES;
  const int64_t nsec4 = ((int64_t)nbcols * n * 4 + SECTOR_BYTES - 1) / SECTOR_BYTES;
  const int32_t nslices = (nb + by - 1) / by;
  int64_t total8 = 0, total4 = 0;
  int failed = 0;
  /* Slices in parallel, each thread with its own stamps: stamp[s] = 1 + the
   * last slice that read sector s, so no array is ever cleared. */
#pragma omp parallel reduction(+ : total8, total4, failed) if (nslices >= CGM_PAR_MIN)
  {
    int32_t *stamp[2] = {calloc((size_t)nsec8 + 1, sizeof(int32_t)),
                         calloc((size_t)nsec4 + 1, sizeof(int32_t))};
    if (!stamp[0] || !stamp[1]) failed = 1;
#pragma omp for schedule(dynamic, 1024)
    for (int32_t k = 0; k < nslices; k++) {
      if (!stamp[0] || !stamp[1]) continue;
      const int32_t mark = k + 1;
      /* the slice's longest row (the first: sorted) sets its steps of B_x */
      const int64_t len0 = bptr[rows[order[k * by]] + 1] - bptr[rows[order[k * by]]];
      const int64_t longest = (len0 + bx - 1) / bx * bx;
      for (int32_t j = k * by; j < nb && j < (k + 1) * by; j++) {
        const int32_t b = rows[order[j]];
        for (int64_t q = bptr[b]; q < bptr[b + 1]; q++)
          total8 += read_both(stamp, mark, bcol[q], n, &total4);
        if (bptr[b + 1] - bptr[b] < longest)
          total8 += read_both(stamp, mark, b, n, &total4); /* its padding: its diagonal */
      }
      if ((k + 1) * (int64_t)by > nb)
        total8 += read_both(stamp, mark, 0, n, &total4); /* padding slots: column 0 */
    }
    CGM_FREE(stamp[0], stamp[1]);
  }
  if (failed) return -1;
  out[0] = total8;
  out[1] = total4;
  return 0;
}

cgm_status cgm_x_locality(const cgm_csr *A, cgm_bcsr_params p, cgm_block_features *bf,
                          cgm_error *err) {
  cgm_status st = cgm_bcsr_params_check(&p, err);
  if (st) return st;
  const int n = p.n;
  const int32_t nb = (int32_t)(((int64_t)A->nrows + n - 1) / n);
  const int32_t nbcols = (int32_t)(((int64_t)A->ncols + n - 1) / n);
  int64_t *bptr = NULL;
  int32_t *bcol = NULL;
  if ((st = cgm_block_pattern(A, n, &bptr, &bcol, err))) return st;
  int32_t *len = malloc(((size_t)nb + 1) * sizeof *len);
  int32_t *order = malloc(((size_t)nb + 1) * sizeof *order);
  int32_t *rows = malloc(((size_t)nb + 1) * sizeof *rows);
  unsigned char *used = calloc((size_t)nbcols + 1, 1);
  if (!len || !order || !rows || !used)
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory for the x locality of %d block rows", nb);
  int32_t longest = 0;
  if (!st) {
#pragma omp parallel for schedule(static) reduction(max : longest) if (nb >= CGM_PAR_MIN)
    for (int32_t b = 0; b < nb; b++) {
      len[b] = (int32_t)(bptr[b + 1] - bptr[b]);
      rows[b] = b;
      if (len[b] > longest) longest = len[b];
    }
    bf->n = n;
    bf->bx = p.bx;
    bf->by = p.by;
    bf->blocks = bptr[nb];
    bf->max_blocks_per_row = longest;
    bf->padded_blocks = cgm_bcsr_padded_count(len, nb, p, INT32_MAX);
    if (bf->padded_blocks < 0)
      st = cgm_fail(err, CGM_ERUNTIME, "out of memory counting the padded blocks");
  }
  if (!st) st = cgm_bcsr_sort_rows(len, nb, order, err);
  int64_t distinct = 0;
  if (!st) {
    const int64_t nblk = bptr[nb];
    /* every thread may mark a column: the same byte, written atomically */
#pragma omp parallel for schedule(static) if (nblk >= CGM_PAR_MIN)
    for (int64_t q = 0; q < nblk; q++) {
#pragma omp atomic write
      used[bcol[q]] = 1;
    }
#pragma omp parallel for schedule(static) reduction(+ : distinct) if (nbcols >= CGM_PAR_MIN)
    for (int32_t c = 0; c < nbcols; c++) distinct += used[c];
  }
  static const int widths[CGM_NSECTOR_WIDTHS] = {8, 4};
  int64_t sec[CGM_NSECTOR_WIDTHS];
  if (!st && cgm_layout_x_sectors(bptr, bcol, nbcols, rows, order, nb, p.bx, p.by, n, sec) != 0)
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory counting the sectors of x");
  for (int w = 0; w < CGM_NSECTOR_WIDTHS && !st; w++) {
    const int64_t s = sec[w];
    bf->x_sectors[w] = s;
    bf->x_sectors_min[w] = (distinct * n * widths[w] + SECTOR_BYTES - 1) / SECTOR_BYTES;
    bf->x_locality[w] = bf->x_sectors_min[w] > 0 ? (double)s / (double)bf->x_sectors_min[w] : 1.0;
  }
  CGM_FREE(len, order, rows, used, bptr, bcol);
  return st;
}
