/* SPDX-License-Identifier: GPL-3.0-or-later */
/* BCSR in the multiple-block-row (MBR) layout of Verschoor & Jalba 2012,
 * Sec. 3.3-3.7: block-row sorting (3.5), block reordering so that the blocks
 * of one step are contiguous (3.4), padding with empty blocks to the longest
 * block row of the slice, and B_x (3.6). docs/bcsr-layout.md draws it. */
#include "cgmodel/sparse.h"
#include "common/grow.h"
#include "sparse/bcsr_internal.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

cgm_bcsr_params cgm_bcsr_default_params(int n) {
  return (cgm_bcsr_params){n, 1, n > 0 && n <= 32 ? 32 / n : 1};
}

cgm_status cgm_bcsr_params_check(cgm_bcsr_params *p, cgm_error *err) {
  cgm_status st = cgm_block_check(p->n, "block", err);
  if (st) return st;
  if (p->bx <= 0) p->bx = 1;                                           /* the default's */
  if (p->by <= 0) p->by = p->n * p->bx < 32 ? 32 / (p->n * p->bx) : 1; /* one warp per slice */
  if (p->bx > 1024 || p->by > 65536 || (int64_t)p->bx * p->by * p->n > 1024)
    return cgm_fail(err, CGM_EINPUT,
                    "bx %d: B_x = %d, B_y = %d with N = %d needs more than 1024 threads per slice",
                    p->bx, p->bx, p->by, p->n);
  return CGM_OK;
}

static bool needs_diag(const cgm_csr *A, int32_t br, int n) {
  return A->nrows == A->ncols && (int64_t)(br + 1) * n > A->nrows;
}

int32_t cgm_block_row_columns(const cgm_csr *A, int32_t br, int n, int32_t *out) {
  /* N = 1: the block columns are the row's columns, and no row lies past nrows */
  if (n == 1) {
    const int64_t a = A->rowptr[br], b = A->rowptr[br + 1];
    if (out) memcpy(out, A->colidx + a, (size_t)(b - a) * sizeof *out);
    return (int32_t)(b - a);
  }
  int64_t pos[8], end[8];
  int nr = 0;
  for (int r = 0; r < n; r++) {
    int64_t i = (int64_t)br * n + r;
    if (i >= A->nrows) break;
    pos[nr] = A->rowptr[i];
    end[nr] = A->rowptr[i + 1];
    nr++;
  }
  int32_t count = 0, last = -1;
  bool diag_pending = needs_diag(A, br, n);
  for (;;) {
    int32_t best = INT32_MAX;
    for (int r = 0; r < nr; r++)
      if (pos[r] < end[r] && A->colidx[pos[r]] / n < best) best = A->colidx[pos[r]] / n;
    if (diag_pending && br <= best) {
      best = br;
      diag_pending = false;
    }
    if (best == INT32_MAX) break;
    for (int r = 0; r < nr; r++)
      while (pos[r] < end[r] && A->colidx[pos[r]] / n == best) pos[r]++;
    if (best != last) {
      if (out) out[count] = best;
      count++;
      last = best;
    }
  }
  return count;
}

cgm_status cgm_bcsr_row_blocks(const cgm_csr *A, int n, int32_t *len, cgm_error *err) {
  int32_t nb = (int32_t)(((int64_t)A->nrows + n - 1) / n);
#pragma omp parallel for schedule(dynamic, 256)
  for (int32_t b = 0; b < nb; b++) len[b] = cgm_block_row_columns(A, b, n, NULL);
  return CGM_OK;
}

/* In-place inclusive prefix sum of a[0..n) on every thread: each sums its
 * part, the parts' totals are summed in order, then each adds its offset. */
static void prefix_sum(int64_t *a, int64_t n) {
  if (n < CGM_PAR_MIN) { /* not worth the threads */
    for (int64_t i = 1; i < n; i++) a[i] += a[i - 1];
    return;
  }
  int64_t part_sum[257]; /* at most 256 threads take part */
  int nt = 1;
#pragma omp parallel
  {
#pragma omp single
    nt = omp_get_num_threads() < 256 ? omp_get_num_threads() : 256;
    const int t = omp_get_thread_num();
    const int64_t i0 = t < nt ? n * t / nt : n, i1 = t < nt ? n * (t + 1) / nt : n;
    int64_t acc = 0;
    for (int64_t i = i0; i < i1; i++) a[i] = acc += a[i];
    if (t < nt) part_sum[t + 1] = acc;
#pragma omp barrier
#pragma omp single
    {
      part_sum[0] = 0;
      for (int k = 1; k <= nt; k++) part_sum[k] += part_sum[k - 1];
    }
    const int64_t off = t < nt ? part_sum[t] : 0;
    if (off)
      for (int64_t i = i0; i < i1; i++) a[i] += off;
  }
}

cgm_status cgm_block_pattern(const cgm_csr *A, int n, int64_t **bptr, int32_t **bcol,
                             cgm_error *err) {
  *bptr = NULL;
  *bcol = NULL;
  const int32_t nb = (int32_t)(((int64_t)A->nrows + n - 1) / n);
  int64_t *p = malloc(((size_t)nb + 1) * sizeof *p);
  if (!p) return cgm_fail(err, CGM_ERUNTIME, "out of memory for the block pattern");
  p[0] = 0;
  if (n == 1) { /* the block columns are the columns */
    int32_t *c = malloc(((size_t)A->nnz + 1) * sizeof *c);
    if (!c) {
      free(p);
      return cgm_fail(err, CGM_ERUNTIME, "out of memory for %lld blocks", (long long)A->nnz);
    }
#pragma omp parallel for schedule(static) if (nb >= CGM_PAR_MIN)
    for (int32_t b = 0; b < nb; b++) {
      p[b + 1] = A->rowptr[b + 1];
      memcpy(c + A->rowptr[b], A->colidx + A->rowptr[b],
             (size_t)(A->rowptr[b + 1] - A->rowptr[b]) * sizeof *c);
    }
    *bptr = p;
    *bcol = c;
    return CGM_OK;
  }
  /* One merge a block row into room for its rows' entries and a diagonal
   * block (A's row pointer bounds it), then the lists moved together: one
   * pass of the merge instead of one to count and one to fill. */
  int32_t *tmp = malloc(((size_t)A->nnz + (size_t)nb + 1) * sizeof *tmp), *c = NULL;
  if (tmp) {
#pragma omp parallel for schedule(dynamic, 256)
    for (int32_t b = 0; b < nb; b++)
      p[b + 1] = cgm_block_row_columns(A, b, n, tmp + A->rowptr[(int64_t)b * n] + b);
    prefix_sum(p + 1, nb);
    c = malloc(((size_t)p[nb] + 1) * sizeof *c);
  }
  if (!c) {
    CGM_FREE(tmp, p);
    return cgm_fail(err, CGM_ERUNTIME, "out of memory for the block pattern");
  }
#pragma omp parallel for schedule(static) if (nb >= CGM_PAR_MIN)
  for (int32_t b = 0; b < nb; b++)
    memcpy(c + p[b], tmp + A->rowptr[(int64_t)b * n] + b, (size_t)(p[b + 1] - p[b]) * sizeof *c);
  free(tmp);
  *bptr = p;
  *bcol = c;
  return CGM_OK;
}

/* A stable counting sort: each thread counts and places its part, the positions going length by
 * length, thread by thread (any thread count gives the serial order). */
cgm_status cgm_bcsr_sort_rows(const int32_t *len, int32_t nb, int32_t *order, cgm_error *err) {
  int32_t maxlen = 0;
#pragma omp parallel for schedule(static) reduction(max : maxlen) if (nb >= CGM_PAR_MIN)
  for (int32_t b = 0; b < nb; b++)
    if (len[b] > maxlen) maxlen = len[b];
  const int64_t L = (int64_t)maxlen + 1;
  int nt = omp_get_max_threads();
  /* one histogram per thread: only when they are small beside the rows */
  if (nt > 64) nt = 64;
  if (nt < 2 || nb < CGM_PAR_MIN || L * nt > nb) nt = 1;
  int64_t *start = calloc((size_t)(L * nt) + 1, sizeof *start);
  if (!start) return cgm_fail(err, CGM_ERUNTIME, "out of memory sorting %d block rows", nb);
    /* start[t * L + (maxlen - len)]: rows of that length in thread t's part */
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    const int t = omp_get_thread_num(), T = omp_get_num_threads();
    const int32_t b0 = (int32_t)((int64_t)nb * t / T), b1 = (int32_t)((int64_t)nb * (t + 1) / T);
    int64_t *h = start + (int64_t)t * L;
    for (int32_t b = b0; b < b1; b++) h[maxlen - len[b]]++;
#pragma omp barrier
#pragma omp single
    {
      int64_t pos = 0;
      for (int64_t l = 0; l < L; l++)
        for (int k = 0; k < T; k++) {
          int64_t c = start[(int64_t)k * L + l];
          start[(int64_t)k * L + l] = pos;
          pos += c;
        }
    }
    for (int32_t b = b0; b < b1; b++) order[h[maxlen - len[b]]++] = b;
  }
  free(start);
  return CGM_OK;
}

static cgm_status check_range(const cgm_csr *A, int32_t b0, int32_t b1, int n, cgm_error *err) {
  int64_t nbrows = ((int64_t)A->nrows + n - 1) / n;
  if (b0 < 0 || b1 < b0 || b1 > nbrows)
    return cgm_fail(err, CGM_EINPUT, "block rows [%d, %d) outside [0, %lld)", b0, b1,
                    (long long)nbrows);
  return CGM_OK;
}

/* The block rows a layout covers: a contiguous range [b0, b0 + nb) or an
 * ascending list of global block rows. */
typedef struct {
  int32_t b0, nb;
  const int32_t *rows; /* NULL: contiguous */
} selection;

static int32_t sel_row(const selection *sel, int32_t i) {
  return sel->rows ? sel->rows[i] : sel->b0 + i;
}

/* Lengths of the selected block rows and the MBR slice offsets. */
static cgm_status layout_shape(const cgm_csr *A, const selection *sel, cgm_bcsr_params p,
                               int32_t *len, int32_t *order, int64_t *slice_ptr, cgm_error *err) {
  int32_t nb = sel->nb;
#pragma omp parallel for schedule(dynamic, 256)
  for (int32_t b = 0; b < nb; b++) len[b] = cgm_block_row_columns(A, sel_row(sel, b), p.n, NULL);
  cgm_status st = cgm_bcsr_sort_rows(len, nb, order, err);
  if (st) return st;
  int32_t nslices = (nb + p.by - 1) / p.by;
  slice_ptr[0] = 0;
#pragma omp parallel for schedule(static) if (nslices >= CGM_PAR_MIN)
  for (int32_t k = 0; k < nslices; k++) {
    int32_t longest = len[order[(int64_t)k * p.by]]; /* sorted: first is longest */
    int64_t steps = (longest + p.bx - 1) / p.bx;
    slice_ptr[k + 1] = steps * p.by * p.bx;
  }
  prefix_sum(slice_ptr + 1, nslices);
  return CGM_OK;
}

cgm_status cgm_bcsr_count(const cgm_csr *A, int32_t brow_begin, int32_t brow_end, cgm_bcsr_params p,
                          int64_t *nblocks, int64_t *nblocks_padded, int32_t *max_row_blocks,
                          cgm_error *err) {
  cgm_status st = cgm_bcsr_params_check(&p, err);
  if (!st) st = check_range(A, brow_begin, brow_end, p.n, err);
  if (st) return st;
  int32_t nb = brow_end - brow_begin, nslices = (nb + p.by - 1) / p.by;
  int32_t *len = malloc(((size_t)nb + 1) * sizeof *len);
  int32_t *order = malloc(((size_t)nb + 1) * sizeof *order);
  int64_t *slice_ptr = malloc(((size_t)nslices + 1) * sizeof *slice_ptr);
  if (!len || !order || !slice_ptr) {
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory counting blocks of %d block rows", nb);
  } else {
    selection sel = {brow_begin, nb, NULL};
    st = layout_shape(A, &sel, p, len, order, slice_ptr, err);
  }
  if (!st) {
    int64_t total = 0;
    for (int32_t b = 0; b < nb; b++) total += len[b];
    if (nblocks) *nblocks = total;
    if (nblocks_padded) *nblocks_padded = slice_ptr[nslices];
    if (max_row_blocks) *max_row_blocks = nb > 0 ? len[order[0]] : 0;
  }
  CGM_FREE(len, order, slice_ptr);
  return st;
}

int64_t cgm_bcsr_padded_count(const int32_t *len, int32_t nb, cgm_bcsr_params p, int32_t limit) {
  /* Sorted by length, each slice padded to its longest: only the multiset of lengths matters. */
  int32_t maxlen = 0;
#pragma omp parallel for schedule(static) reduction(max : maxlen)
  for (int32_t b = 0; b < nb; b++)
    if (len[b] > maxlen && len[b] <= limit) maxlen = len[b];
  int64_t *hist = calloc((size_t)maxlen + 1, sizeof *hist);
  if (!hist) return -1;
  /* a histogram a thread where short: each a copy on its stack (long rows <= 128 on our kernels) */
  if (maxlen < 4096) {
#pragma omp parallel for schedule(static) reduction(+ : hist[:maxlen + 1])
    for (int32_t b = 0; b < nb; b++) hist[len[b] <= limit ? len[b] : 0] += len[b] <= limit;
  } else {
    for (int32_t b = 0; b < nb; b++) hist[len[b] <= limit ? len[b] : 0] += len[b] <= limit;
  }
  int64_t padded = 0, in_slice = 0;
  for (int32_t l = maxlen; l >= 0; l--) {
    int64_t c = hist[l];
    while (c > 0) {
      if (in_slice == 0)
        padded += (int64_t)((l + p.bx - 1) / p.bx) * p.by * p.bx; /* a new slice starts */
      int64_t take = p.by - in_slice < c ? p.by - in_slice : c;
      in_slice = (in_slice + take) % p.by;
      c -= take;
    }
  }
  free(hist);
  return padded;
}

void cgm_bcsr_free(cgm_bcsr *B) {
  if (!B) return;
  CGM_FREE(B->slice_ptr, B->bcol, B->val, B->brow, B->brow_len);
  memset(B, 0, sizeof *B);
}

/* Writes global block row br into slot j of slice k. br < 0: a padding slot, empty blocks (never
 * written back) reading block column `base`, the selection's first, which is local to it. */
static void fill_slot(const cgm_csr *A, cgm_bcsr *B, int32_t br, int32_t base, int32_t k, int32_t j,
                      int32_t *cols) {
  const int n = B->p.n, bx = B->p.bx, by = B->p.by;
  const int32_t len = br >= 0 ? cgm_block_row_columns(A, br, n, cols) : 0;
  const int32_t pad = br >= 0 ? br : base;
  int64_t steps = (B->slice_ptr[k + 1] - B->slice_ptr[k]) / ((int64_t)by * bx);
  /* Position of the t-th block of this row in the slice. */
#define BLOCK_INDEX(t)                                                                             \
  (B->slice_ptr[k] + ((t) / bx) * (int64_t)by * bx + (int64_t)j * bx + (t) % bx)
  for (int64_t t = 0; t < steps * bx; t++) {
    int64_t q = BLOCK_INDEX(t);
    /* Padding blocks read x at the diagonal block, which the row reads anyway. */
    B->bcol[q] = t < len ? cols[t] : (pad < B->nbcols ? pad : 0);
  }
  for (int r = 0; br >= 0 && r < n; r++) {
    int64_t i = (int64_t)br * n + r;
    if (i >= A->nrows) {
      if (needs_diag(A, br, n)) { /* identity row of the padding */
        int32_t t = 0;
        while (cols[t] != br) t++;
        B->val[BLOCK_INDEX(t) * n * n + r * n + r] = 1.0;
      }
      continue;
    }
    int32_t t = 0; /* columns and block columns are both sorted: one walk */
    for (int64_t m = A->rowptr[i]; m < A->rowptr[i + 1]; m++) {
      int32_t bc = A->colidx[m] / n;
      while (cols[t] != bc) t++;
      B->val[BLOCK_INDEX(t) * n * n + r * n + A->colidx[m] % n] = A->val[m];
    }
  }
#undef BLOCK_INDEX
}

/* The builder over a selection of block rows; brow holds global - base. */
static cgm_status build_sel(const cgm_csr *A, const selection *sel, int32_t base, cgm_bcsr_params p,
                            cgm_bcsr *B, cgm_error *err) {
  const int n = p.n;
  const int32_t nb = sel->nb;
  const int32_t last = nb > 0 ? sel_row(sel, nb - 1) : base - 1;
  B->p = p;
  {
    int64_t covered = 0; /* matrix rows inside the selected block rows */
#pragma omp parallel for schedule(static) reduction(+ : covered) if (nb >= CGM_PAR_MIN)
    for (int32_t b = 0; b < nb; b++) {
      int64_t r0 = (int64_t)sel_row(sel, b) * n, r1 = r0 + n > A->nrows ? A->nrows : r0 + n;
      covered += r1 - r0;
    }
    B->nrows = (int32_t)covered;
  }
  B->ncols = A->ncols;
  B->nbrows = nb;
  B->brow_span = last - base + 1 > 0 ? last - base + 1 : 0;
  B->nbcols = (int32_t)(((int64_t)A->ncols + n - 1) / n);
  B->nslices = (nb + p.by - 1) / p.by;
  B->slice_ptr = malloc(((size_t)B->nslices + 1) * sizeof *B->slice_ptr);
  B->brow = malloc(((size_t)B->nslices * p.by + 1) * sizeof *B->brow);
  B->brow_len = calloc((size_t)B->brow_span + 1, sizeof *B->brow_len);
  int32_t *len = malloc(((size_t)nb + 1) * sizeof *len);
  int32_t *order = malloc(((size_t)nb + 1) * sizeof *order);
  cgm_status st =
      !B->slice_ptr || !B->brow || !B->brow_len || !order || !len
          ? cgm_fail(err, CGM_ERUNTIME, "out of memory for the layout of %d block rows", nb)
          : layout_shape(A, sel, p, len, order, B->slice_ptr, err);
  if (st) {
    CGM_FREE(order, len);
    cgm_bcsr_free(B);
    return st;
  }
  const int32_t maxlen = nb > 0 ? len[order[0]] : 0; /* longest first */
  int64_t nblocks = 0;
#pragma omp parallel for schedule(static) reduction(+ : nblocks) if (nb >= CGM_PAR_MIN)
  for (int32_t b = 0; b < nb; b++) {
    nblocks += len[b];
    B->brow_len[sel_row(sel, b) - base] = len[b]; /* distinct rows: no two threads meet */
  }
  B->nblocks = nblocks;
  B->nblocks_padded = B->slice_ptr[B->nslices];
#pragma omp parallel for schedule(static) if (nb >= CGM_PAR_MIN)
  for (int64_t s = 0; s < (int64_t)B->nslices * p.by; s++)
    B->brow[s] = s < nb ? sel_row(sel, order[s]) - base : -1;
  CGM_FREE(order, len);

  size_t nq = (size_t)(B->nblocks_padded > 0 ? B->nblocks_padded : 1);
  B->bcol = malloc(nq * sizeof *B->bcol);
  B->val = calloc(nq * (size_t)n * n, sizeof *B->val); /* padding blocks stay zero */
  if (!B->bcol || !B->val) {
    int64_t bytes = B->nblocks_padded * (int64_t)(4 + 8 * n * n);
    cgm_bcsr_free(B);
    return cgm_fail(err, CGM_ERUNTIME, "out of memory for %lld blocks (%lld bytes) of the layout",
                    (long long)nq, (long long)bytes);
  }
  int fail = 0;
#pragma omp parallel reduction(| : fail)
  {
    int32_t *cols = malloc(((size_t)maxlen + 1) * sizeof *cols);
    if (!cols) fail = 1;
#pragma omp for schedule(dynamic, 16)
    for (int32_t k = 0; k < B->nslices; k++) {
      if (!cols) continue;
      for (int32_t j = 0; j < p.by; j++) {
        const int32_t b = B->brow[(int64_t)k * p.by + j];
        fill_slot(A, B, b >= 0 ? b + base : -1, base, k, j, cols);
      }
    }
    free(cols);
  }
  if (fail) {
    cgm_bcsr_free(B);
    return cgm_fail(err, CGM_ERUNTIME, "out of memory building the layout");
  }
  return CGM_OK;
}

cgm_status cgm_bcsr_build(const cgm_csr *A, int32_t brow_begin, int32_t brow_end, cgm_bcsr_params p,
                          cgm_bcsr *B, cgm_error *err) {
  memset(B, 0, sizeof *B);
  cgm_status st = cgm_bcsr_params_check(&p, err);
  if (!st) st = check_range(A, brow_begin, brow_end, p.n, err);
  if (st) return st;
  selection sel = {brow_begin, brow_end - brow_begin, NULL};
  return build_sel(A, &sel, brow_begin, p, B, err);
}

cgm_status cgm_bcsr_build_rows(const cgm_csr *A, const int32_t *rows, int32_t nrows_sel,
                               int32_t base, cgm_bcsr_params p, cgm_bcsr *B, cgm_error *err) {
  memset(B, 0, sizeof *B);
  cgm_status st = cgm_bcsr_params_check(&p, err);
  if (st) return st;
  int64_t nbrows = ((int64_t)A->nrows + p.n - 1) / p.n;
  for (int32_t i = 0; i < nrows_sel; i++)
    if (rows[i] < base || rows[i] >= nbrows || (i > 0 && rows[i] <= rows[i - 1]))
      return cgm_fail(err, CGM_EINPUT,
                      "block row list must be ascending within [%d, %lld) (entry %d is %d)", base,
                      (long long)nbrows, i, rows[i]);
  selection sel = {base, nrows_sel, rows};
  return build_sel(A, &sel, base, p, B, err);
}
