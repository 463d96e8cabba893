/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The band matrix: every row reaches h columns either side of its diagonal, so that every SpMV
 * thread walks a long block row at once (FEM-like rows on a grid that does not fill the GPU): the
 * band curve of the calibration, beside the arrow's one long row. */
#include "cgmodel/sparse.h"

#include <stdlib.h>

cgm_status cgm_gen_band(int32_t n, int32_t h, cgm_csr *A, cgm_error *err) {
  if (n < 1 || h < 1 || h >= n)
    return cgm_fail(err, CGM_EINPUT, "band: need 1 <= h < n (got n = %d, h = %d)", n, h);
  const int64_t cap = (int64_t)n * (2 * (int64_t)h + 1);
  if (cap > ((int64_t)1 << 40) || n > (1 << 30))
    return cgm_fail(err, CGM_EINPUT, "band: %d rows of half-width %d is too large", n, h);
  int32_t *ri = malloc(sizeof *ri * (size_t)cap), *ci = malloc(sizeof *ci * (size_t)cap);
  double *v = malloc(sizeof *v * (size_t)cap);
  if (!ri || !ci || !v) {
    free(ri), free(ci), free(v);
    return cgm_fail(err, CGM_ERUNTIME, "out of memory for a band of %d rows, half-width %d", n, h);
  }
  /* The arrow's shifted 1D Laplacian (2 + 2c, -1) plus -c/h at distances 2 .. h: strictly
   * diagonally dominant by 2c in every row, so SPD with eigenvalues in [2c, 4 + 6c] (kappa <= 131):
   * CG runs hundreds of iterations before its residual underflows, as a calibration needs. */
  const double c = 1.0 / 64, e = c / h;
  int64_t k = 0;
  for (int32_t i = 0; i < n; i++) {
    const int32_t lo = i < h ? 0 : i - h, hi = h > n - 1 - i ? n - 1 : i + h;
    for (int32_t j = lo; j <= hi; j++) {
      const int32_t d = j > i ? j - i : i - j;
      ri[k] = i;
      ci[k] = j;
      v[k++] = d == 0 ? 2.0 + 2.0 * c + 2.0 * (h - 1) * e : (d == 1 ? -1.0 : -e);
    }
  }
  cgm_status st = cgm_csr_from_coo(n, n, k, ri, ci, v, A, NULL, err);
  free(ri), free(ci), free(v);
  return st;
}
