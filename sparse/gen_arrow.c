/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The arrow matrix: one long row (and its column) on a tridiagonal, so that the time of an SpMV is
 * the walk of that row by one thread (the row curve of the calibration, and the long-row cases of
 * the tests). The scattered arrow's long row reads x at random places (a line of x a step, where
 * the plain arrow's reads x in order): the calibration's row-scatter term. */
#include "cgmodel/sparse.h"
#include "common/timer.h"

#include <stdlib.h>

/* The tridiagonal of n rows with row and column 0 also touching the
 * columns cols[0 .. m-1] (ascending, each >= 2; NULL: 2 .. m + 1); row 0 has len entries. */
static cgm_status arrow_make(int32_t n, const int32_t *cols, int32_t m, int32_t len, cgm_csr *A,
                             cgm_error *err) {
  /* tridiagonal 3n - 2, row and column 0 beyond it 2 m */
  const int64_t cap = 3 * (int64_t)n + 2 * (int64_t)m;
  int32_t *ri = malloc(sizeof *ri * (size_t)cap), *ci = malloc(sizeof *ci * (size_t)cap);
  double *v = malloc(sizeof *v * (size_t)cap);
  if (!ri || !ci || !v) {
    free(ri), free(ci), free(v);
    return cgm_fail(err, CGM_ERUNTIME, "out of memory for an arrow of %d rows", n);
  }
  int64_t k = 0;
  /* A 1D Laplacian shifted by 2c, and the arrow's couplings c: strictly diagonally dominant by c in
   * every row (2 + 2c > 1 + 1 + c; row 0: 2 + c len > 1 + c (len - 2)), yet conditioned (kappa ~ 1
   * + 2 / c) so that CG runs hundreds of iterations before its residual underflows, even in single
   * precision: a calibration times a fixed number. */
  const double c = 1.0 / 64;
#define PUT(r, col, x) (ri[k] = (r), ci[k] = (col), v[k] = (x), k++)
  for (int32_t i = 0; i < n; i++) {
    PUT(i, i, i == 0 ? 2.0 + c * len : 2.0 + 2.0 * c);
    if (i > 0) PUT(i, i - 1, -1.0), PUT(i - 1, i, -1.0);
  }
  for (int32_t j = 0; j < m; j++) {
    const int32_t col = cols ? cols[j] : 2 + j;
    PUT(0, col, c), PUT(col, 0, c);
  }
#undef PUT
  cgm_status st = cgm_csr_from_coo(n, n, k, ri, ci, v, A, NULL, err);
  free(ri), free(ci), free(v);
  return st;
}

cgm_status cgm_gen_arrow(int32_t n, int32_t len, cgm_csr *A, cgm_error *err) {
  if (n < 1 || len < 1 || len > n)
    return cgm_fail(err, CGM_EINPUT, "arrow: need 1 <= len <= n (got n = %d, len = %d)", n, len);
  return arrow_make(n, NULL, len > 2 ? len - 2 : 0, len, A, err);
}

cgm_status cgm_gen_arrow_scattered(int32_t n, int32_t len, int32_t unit, uint64_t seed, cgm_csr *A,
                                   cgm_error *err) {
  if (n < 1 || len < 1 || unit < 1 || unit > n)
    return cgm_fail(err, CGM_EINPUT,
                    "scattered arrow: need n >= 1, len >= 1, 1 <= unit <= n (got n = %d, len = "
                    "%d, unit = %d)",
                    n, len, unit);
  /* the candidates: multiples of unit from 2 on (row 0's block and its
   * tridiagonal neighbour excluded), len - 2 of them drawn at random */
  const int32_t nb = n / unit, lo = unit == 1 ? 2 : 1;
  const int32_t m = len > 2 ? len - 2 : 0;
  if (nb - lo < m)
    return cgm_fail(err, CGM_EINPUT,
                    "scattered arrow: %d columns at multiples of %d do not fit %d rows", len, unit,
                    n);
  int32_t *perm = malloc(sizeof *perm * ((size_t)(nb - lo) + 1));
  if (!perm) return cgm_fail(err, CGM_ERUNTIME, "out of memory for an arrow of %d rows", n);
  cgm_perm_shuffle(nb - lo, nb - lo, seed, perm);
  for (int32_t j = 0; j < m; j++) perm[j] = (perm[j] + lo) * unit;
  qsort(perm, (size_t)m, sizeof *perm, cgm_cmp_i32);
  cgm_status st = arrow_make(n, perm, m, len, A, err);
  free(perm);
  return st;
}
