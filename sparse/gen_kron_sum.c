/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The Kronecker sum A (+) T_k = A (x) I_k + I_n (x) T_k: a matrix (a 2D or 3D mesh, a FEM matrix)
 * extruded along a 1D Laplacian of k layers. Its rows read A's columns k apart: x is gathered from
 * k times farther than in A, the locality the model's x term is about. */
#include <stdlib.h>
#include <string.h>

#include "cgmodel/sparse.h"
#include "common/grow.h"

cgm_status cgm_gen_kron_sum(const cgm_csr *A, int32_t k, cgm_csr *B, cgm_error *err) {
  memset(B, 0, sizeof *B); /* empty on failure, as every generator leaves it */
  if (A->nrows != A->ncols)
    return cgm_fail(err, CGM_EINPUT, "Kronecker sum of a %d x %d matrix: not square", A->nrows,
                    A->ncols);
  if (k < 1) return cgm_fail(err, CGM_EINPUT, "Kronecker sum with k = %d layers (need k >= 1)", k);
  if (!cgm_csr_is_symmetric(A)) /* the sum is SPD only where A is */
    return cgm_fail(err, CGM_EINPUT, "Kronecker sum of a matrix that is not symmetric");
  const int64_t rows = (int64_t)A->nrows * k;
  if (rows > INT32_MAX)
    return cgm_fail(err, CGM_EINPUT,
                    "Kronecker sum of %d rows and %d layers has %lld rows: too many", A->nrows, k,
                    (long long)rows);
  /* A's entries in every layer, the layer's diagonal 2 and its neighbours
   * -1; the diagonals add up in cgm_csr_from_coo */
  const int64_t n = A->nnz * k + rows + 2 * (int64_t)A->nrows * (k - 1);
  int32_t *ri = malloc(((size_t)n + 1) * sizeof *ri), *ci = malloc(((size_t)n + 1) * sizeof *ci);
  double *v = malloc(((size_t)n + 1) * sizeof *v);
  cgm_status st = CGM_OK;
  if (!ri || !ci || !v) {
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory for %lld entries", (long long)n);
  } else {
    int64_t q = 0;
#define PUT(row, col, x) (ri[q] = (row), ci[q] = (int32_t)(col), v[q++] = (x))
    for (int32_t i = 0; i < A->nrows; i++)
      for (int32_t a = 0; a < k; a++) {
        const int32_t r = (int32_t)((int64_t)i * k + a);
        for (int64_t e = A->rowptr[i]; e < A->rowptr[i + 1]; e++)
          PUT(r, (int64_t)A->colidx[e] * k + a, A->val[e]);
        PUT(r, r, 2.0);
        if (a > 0) PUT(r, r - 1, -1.0);
        if (a + 1 < k) PUT(r, r + 1, -1.0);
      }
#undef PUT
    st = cgm_csr_from_coo((int32_t)rows, (int32_t)rows, q, ri, ci, v, B, NULL, err);
  }
  CGM_FREE(ri, ci, v);
  return st;
}
