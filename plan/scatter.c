/* SPDX-License-Identifier: GPL-3.0-or-later */
/* How scattered the longest row's reads of x are: a step whose block of x shares a 128-byte line
 * with the last is served from the line just fetched, one in a line of its own waits (a power-law
 * hub walks 1.3-2x slower than the calibration's in-order arrow). */
#include <stdlib.h>

#include "plan/scatter.h"
#include "common/timer.h"

void cgm_row_scatter(const int32_t *bcols, int32_t L, int n, double out[CGM_NSECTOR_WIDTHS]) {
  for (int w = 0; w < CGM_NSECTOR_WIDTHS; w++) {
    out[w] = 0.0;
    const int64_t width = w == 0 ? 8 : 4, per_block = (int64_t)n * width;
    const int64_t least = (L * per_block + 127) / 128;
    if (L <= least) continue;
    int64_t lines = 0, last = -1;
    for (int32_t j = 0; j < L; j++) {
      const int64_t line = (int64_t)bcols[j] * per_block / 128;
      if (line != last) lines++;
      last = line;
    }
    const double s = (double)(lines - least) / (double)(L - least);
    out[w] = s < 0.0 ? 0.0 : (s > 1.0 ? 1.0 : s);
  }
}

cgm_status plan_row_scatter_csr(const cgm_csr *A, int n, int32_t brow,
                                double out[CGM_NSECTOR_WIDTHS], cgm_error *err) {
  for (int w = 0; w < CGM_NSECTOR_WIDTHS; w++) out[w] = 0.0;
  const int64_t r0 = (int64_t)brow * n, r1 = r0 + n < A->nrows ? r0 + n : A->nrows;
  if (brow < 0 || r0 >= r1) return CGM_OK;
  const int64_t cnt = A->rowptr[r1] - A->rowptr[r0];
  int32_t *c = malloc(((size_t)cnt + 1) * sizeof *c);
  if (!c)
    return cgm_fail(err, CGM_ERUNTIME, "out of memory for a block row of %lld entries",
                    (long long)cnt);
  for (int64_t k = 0; k < cnt; k++) c[k] = A->colidx[A->rowptr[r0] + k] / n;
  /* one row is ascending already; N rows are merged by a sort */
  if (n > 1) qsort(c, (size_t)cnt, sizeof *c, cgm_cmp_i32);
  int32_t L = 0;
  for (int64_t k = 0; k < cnt; k++)
    if (L == 0 || c[k] != c[L - 1]) c[L++] = c[k];
  cgm_row_scatter(c, L, n, out);
  free(c);
  return CGM_OK;
}

void plan_row_sectors(const int32_t *bcol, int32_t len, int n, int64_t out[CGM_NSECTOR_WIDTHS]) {
  for (int w = 0; w < CGM_NSECTOR_WIDTHS; w++) {
    const int64_t bytes = (int64_t)n * (w == 0 ? 8 : 4);
    int64_t last = -1, k = 0;
    for (int32_t i = 0; i < len; i++) { /* block column c reads bytes [c N w, (c + 1) N w) */
      int64_t s0 = (int64_t)bcol[i] * bytes / 32;
      const int64_t s1 = ((int64_t)bcol[i] * bytes + bytes - 1) / 32;
      if (s0 <= last) s0 = last + 1; /* ascending: only the last sector can repeat */
      if (s1 >= s0) k += s1 - s0 + 1;
      if (s1 > last) last = s1;
    }
    out[w] += k;
  }
}

int cgm_warp_rows(int n, int bx, int width) {
  if (bx < 1) bx = 1;
  const int h = (n * width > 32 && 2 * n * bx <= 32) ? 2 : 1, k = 32 / (n * bx * h);
  return k > 1 ? k : 1;
}

double cgm_warp_share(const int32_t *top, int k, int bx) {
  if (k <= 1 || !top || top[0] <= 0) return 0.0;
  if (bx < 1) bx = 1;
  const double lead = (double)((top[0] + bx - 1) / bx);
  double walk = 0.0;
  for (int i = 0; i < k; i++) walk += (double)((top[i] + bx - 1) / bx);
  const double g = (walk / lead - 1.0) / (k - 1);
  return g < 0.0 ? 0.0 : (g > 1.0 ? 1.0 : g);
}

int32_t plan_longest_rows(const int32_t *len, int32_t b0, int32_t b1, int n, int bx,
                          int32_t long_row, double out[CGM_NSECTOR_WIDTHS]) {
  int32_t top[32], longest = -1;
  int k = 0;
  /* the 32 longest, longest first (insertion into a short sorted list);
   * the longest's number the first of its length */
  for (int32_t b = b0; b < b1; b++) {
    const int32_t l = len[b];
    if (k == 0 || l > top[0]) longest = b;
    if (k == 32 && l <= top[31]) continue;
    int i = k < 32 ? k++ : 31;
    while (i > 0 && top[i - 1] < l) {
      top[i] = top[i - 1];
      i--;
    }
    top[i] = l;
  }
  /* a block row read by threads of its own (long rows) walks alone */
  const bool alone = k == 0 || (long_row > 0 && top[0] > long_row);
  for (int w = 0; w < CGM_NSECTOR_WIDTHS; w++) {
    const int rows = cgm_warp_rows(n, bx, w == 0 ? 8 : 4);
    out[w] = alone ? 0.0 : cgm_warp_share(top, rows < k ? rows : k, bx);
  }
  return longest;
}
