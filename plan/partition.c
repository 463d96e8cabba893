/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Splitting a matrix over several GPUs: segments of consecutive block rows
 * with similar block counts (paper Sec. 4.1), and what each segment reads
 * from the others (its halo, as in Agullo et al., INRIA RR-8192, 2012), so
 * that only those entries are exchanged while the rows that read none run. */
#include <stdlib.h>
#include <string.h>

#include "plan/partition.h"
#include "common/grow.h"
#include "common/timer.h"
#include "sparse/bcsr_internal.h"

int cgm_partition_align(int n) {
  return n >= 4 ? 1 : 4 / n;
}

int64_t cgm_chunk_rows(const int32_t *bounds, int gpus, int n) {
  int64_t q = n >= 4 ? n : 4, chunk = 0;
  for (int g = 0; g < gpus; g++) {
    int64_t rows = (int64_t)(bounds[g + 1] - bounds[g]) * n;
    rows = (rows + q - 1) / q * q;
    if (rows > chunk) chunk = rows;
  }
  return chunk;
}

cgm_status cgm_partition_lengths(const int32_t *len, int32_t nb, int parts, int align,
                                 int32_t *bounds, cgm_error *err) {
  if (parts < 1 || parts > CGM_MAX_GPUS)
    return cgm_fail(err, CGM_EINPUT, "number of segments must be in [1, %d] (got %d)", CGM_MAX_GPUS,
                    parts);
  if (align < 1) align = 1;
  if (parts == 1) { /* one segment: nothing to align */
    bounds[0] = 0;
    bounds[1] = nb;
    return CGM_OK;
  }
  if ((int64_t)nb < (int64_t)(parts - 1) * align + 1)
    return cgm_fail(err, CGM_EINPUT, "the matrix has %d block rows: too few for %d GPUs", nb,
                    parts);
  int64_t total = 0;
  for (int32_t b = 0; b < nb; b++) total += len[b];
  /* Cut where the running block count passes k/parts of the total, at the
   * nearest allowed boundary, keeping every segment non-empty. */
  bounds[0] = 0;
  int64_t run = 0;
  int32_t b = 0;
  for (int k = 1; k < parts; k++) {
    int64_t target = total * k / parts;
    while (b < nb && run + len[b] <= target) run += len[b++];
    int32_t cut = (int32_t)(((int64_t)b + align / 2) / align * align);
    /* At least `align` block rows per segment but the last, which needs one;
     * both limits are multiples of align (hi >= lo by the check above). */
    int32_t lo = bounds[k - 1] + align;
    int32_t hi = (int32_t)(((int64_t)nb - 1 - (int64_t)(parts - k - 1) * align) / align * align);
    if (cut < lo) cut = lo;
    if (cut > hi) cut = hi;
    bounds[k] = cut;
    /* continue the running sum from the cut */
    while (b < cut) run += len[b++];
    while (b > cut) run -= len[--b];
  }
  bounds[parts] = nb;
  return CGM_OK;
}

cgm_status cgm_partition_balance(const int64_t *bptr, const int32_t *bcol, const int32_t *len,
                                 int32_t nb, int parts, int align, double extra, int32_t *bounds,
                                 cgm_error *err) {
  if (parts < 2 || extra <= 0.0) return CGM_OK;
  int32_t *w = malloc(((size_t)nb + 1) * sizeof *w);
  if (!w) return cgm_fail(err, CGM_ERUNTIME, "out of memory partitioning %d block rows", nb);
  for (int g = 0; g < parts; g++) {
    const int32_t lo = bounds[g], hi = bounds[g + 1];
#pragma omp parallel for schedule(dynamic, 256)
    for (int32_t b = lo; b < hi; b++) {
      bool boundary = false;
      for (int64_t q = bptr[b]; q < bptr[b + 1] && !boundary; q++)
        boundary = bcol[q] < lo || bcol[q] >= hi;
      w[b] = boundary ? len[b] + (int32_t)(extra * len[b] + 0.5) : len[b];
    }
  }
  cgm_status st = cgm_partition_lengths(w, nb, parts, align, bounds, err);
  free(w);
  return st;
}

cgm_status cgm_halo_sizes(const int64_t *bptr, const int32_t *bcol, int32_t nbcols,
                          const int32_t *bounds, int parts, int seg, int32_t *nhalo,
                          int32_t *from_owner, unsigned char *is_boundary, cgm_error *err) {
  const int32_t b0 = bounds[seg], b1 = bounds[seg + 1];
  unsigned char *mark = calloc((size_t)nbcols / 8 + 1, 1);
  if (!mark) return cgm_fail(err, CGM_ERUNTIME, "out of memory sizing the halo of segment %d", seg);
  int64_t count = 0;
  memset(from_owner, 0, (size_t)parts * sizeof *from_owner);
  for (int32_t b = b0; b < b1; b++) {
    unsigned char bnd = 0;
    for (int64_t q = bptr[b]; q < bptr[b + 1]; q++) {
      int32_t c = bcol[q];
      if (c >= b0 && c < b1) continue;
      bnd = 1;
      unsigned char bit = (unsigned char)(1u << (c & 7));
      if (mark[c >> 3] & bit) continue;
      mark[c >> 3] |= bit, count++;
      int j = 0;
      while (j + 1 < parts && c >= bounds[j + 1]) j++;
      from_owner[j]++;
    }
    is_boundary[b - b0] = bnd;
  }
  free(mark);
  *nhalo = (int32_t)count;
  return CGM_OK;
}

void cgm_halo_free(cgm_halo *h) {
  if (!h) return;
  CGM_FREE(h->cols, h->interior, h->boundary);
  memset(h, 0, sizeof *h);
}

cgm_status cgm_halo_build(const cgm_csr *A, int n, const int32_t *bounds, int parts, int seg,
                          cgm_halo *h, cgm_error *err) {
  memset(h, 0, sizeof *h);
  if (seg < 0 || seg >= parts || parts > CGM_MAX_GPUS)
    return cgm_fail(err, CGM_EINPUT, "segment %d of %d does not exist", seg, parts);
  const int32_t b0 = bounds[seg], b1 = bounds[seg + 1];
  const int32_t nbcols = (int32_t)(((int64_t)A->ncols + n - 1) / n);
  h->b0 = b0;
  h->b1 = b1;
  unsigned char *mark = calloc((size_t)nbcols + 1, 1);
  unsigned char *is_bnd = calloc((size_t)(b1 - b0) + 1, 1);
  int32_t maxlen = 0;
  for (int32_t b = b0; b < b1; b++) {
    int32_t l = cgm_block_row_columns(A, b, n, NULL);
    if (l > maxlen) maxlen = l;
  }
  int32_t *cols = malloc(((size_t)maxlen + 1) * sizeof *cols);
  if (!mark || !is_bnd || !cols) goto oom;
  for (int32_t b = b0; b < b1; b++) {
    int32_t l = cgm_block_row_columns(A, b, n, cols);
    for (int32_t t = 0; t < l; t++)
      if (cols[t] < b0 || cols[t] >= b1) {
        mark[cols[t]] = 1;
        is_bnd[b - b0] = 1;
      }
  }
  free(cols);
  cols = NULL;
  for (int32_t c = 0; c < nbcols; c++) h->nhalo += mark[c];
  for (int32_t b = 0; b < b1 - b0; b++) h->nboundary += is_bnd[b];
  h->ninterior = (b1 - b0) - h->nboundary;
  h->cols = malloc(((size_t)h->nhalo + 1) * sizeof *h->cols);
  h->interior = malloc(((size_t)h->ninterior + 1) * sizeof *h->interior);
  h->boundary = malloc(((size_t)h->nboundary + 1) * sizeof *h->boundary);
  if (!h->cols || !h->interior || !h->boundary) goto oom;
  int32_t k = 0, ni = 0, nbd = 0;
  for (int32_t c = 0; c < nbcols; c++)
    if (mark[c]) h->cols[k++] = c;
  for (int32_t b = 0; b < b1 - b0; b++) {
    if (is_bnd[b])
      h->boundary[nbd++] = b0 + b;
    else
      h->interior[ni++] = b0 + b;
  }
  /* owner[j] = first halo column at or after segment j's first block row. */
  for (int j = 0, c = 0; j <= parts; j++) { /* bounds ascend: one walk */
    while (c < h->nhalo && h->cols[c] < bounds[j]) c++;
    h->owner[j] = c;
  }
  free(mark), free(is_bnd);
  return CGM_OK;
oom:
  free(mark), free(is_bnd), free(cols);
  cgm_halo_free(h);
  return cgm_fail(err, CGM_ERUNTIME, "out of memory building the halo of segment %d", seg);
}

void cgm_halo_remap(const cgm_halo *h, int32_t halo_start, cgm_bcsr *B) {
#pragma omp parallel for schedule(static)
  for (int64_t q = 0; q < B->nblocks_padded; q++) {
    int32_t c = B->bcol[q];
    if (c >= h->b0 && c < h->b1) {
      B->bcol[q] = c - h->b0;
    } else {
      const int32_t *i = bsearch(&c, h->cols, (size_t)h->nhalo, sizeof c, cgm_cmp_i32);
      /* Absent only for padding blocks (zero values): read the own first entry. */
      B->bcol[q] = i ? halo_start + (int32_t)(i - h->cols) : 0;
    }
  }
  B->nbcols = halo_start + h->nhalo;
}

void cgm_chunk_remap(cgm_bcsr *B, const int32_t *bounds, int parts, int32_t chunk) {
#pragma omp parallel for schedule(static)
  for (int64_t q = 0; q < B->nblocks_padded; q++) {
    int32_t c = B->bcol[q];
    int j = 0;
    while (j + 1 < parts && c >= bounds[j + 1]) j++;
    B->bcol[q] = j * chunk + (c - bounds[j]);
  }
  B->nbcols = parts * chunk;
}
