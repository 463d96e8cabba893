/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The arrow matrix: one long row (and its column) on a tridiagonal, so that
 * the time of an SpMV is the walk of that row by one thread (the row curve
 * of the calibration, and the long-row cases of the tests). */
#include "cgmodel/sparse.h"

#include <stdlib.h>

cgm_status cgm_gen_arrow(int32_t n, int32_t len, cgm_csr *A, cgm_error *err) {
  if (n < 1 || len < 1 || len > n)
    return cgm_fail(err, CGM_EINPUT, "arrow: need 1 <= len <= n (got n = %d, len = %d)", n, len);
  /* tridiagonal 3n - 2, row and column 0 beyond it 2 (len - 2) */
  const int64_t cap = 3 * (int64_t)n + 2 * (int64_t)len;
  int32_t *ri = malloc(sizeof *ri * (size_t)cap), *ci = malloc(sizeof *ci * (size_t)cap);
  double *v = malloc(sizeof *v * (size_t)cap);
  if (!ri || !ci || !v) {
    free(ri), free(ci), free(v);
    return cgm_fail(err, CGM_ERUNTIME, "out of memory for an arrow of %d rows", n);
  }
  int64_t k = 0;
  /* A 1D Laplacian shifted by 2c, and the arrow's couplings c: strictly
   * diagonally dominant by c in every row (2 + 2c > 1 + 1 + c; row 0:
   * 2 + c len > 1 + c (len - 2)), yet conditioned (kappa ~ 1 + 2 / c) so
   * that CG runs hundreds of iterations before its residual underflows,
   * even in single precision: a calibration times a fixed number. */
  const double c = 1.0 / 64;
#define PUT(r, col, x) (ri[k] = (r), ci[k] = (col), v[k] = (x), k++)
  for (int32_t i = 0; i < n; i++) {
    PUT(i, i, i == 0 ? 2.0 + c * len : 2.0 + 2.0 * c);
    if (i > 0) PUT(i, i - 1, -1.0), PUT(i - 1, i, -1.0);
    if (i > 1 && i < len) PUT(0, i, c), PUT(i, 0, c);
  }
#undef PUT
  cgm_status st = cgm_csr_from_coo(n, n, k, ri, ci, v, A, NULL, err);
  free(ri), free(ci), free(v);
  return st;
}
