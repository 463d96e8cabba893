/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Block matrices with every N x N block dense: A = P (x) (J + I), the Kronecker product of a
 * pattern matrix P with the all-ones block plus the identity. If P is SPD so is A (J + I is SPD),
 * and A's block structure at block size N is exactly P's: d_N = 1 and P's row-length spread. The
 * raw SpMV sweeps of the calibration use these (paper Sec. 5.3). */
#include "cgmodel/sparse.h"

cgm_status cgm_gen_kron(const cgm_csr *P, int n, cgm_csr *A, cgm_error *err) {
  if (n < 1 || n > 64)
    return cgm_fail(err, CGM_EINPUT, "block size must be in [1, 64] (got %d)", n);
  int64_t rows = (int64_t)P->nrows * n, cols = (int64_t)P->ncols * n, nnz = P->nnz * n * n;
  if (rows > INT32_MAX || cols > INT32_MAX)
    return cgm_fail(err, CGM_EINPUT,
                    "Kronecker product with %d x %d blocks has %lld rows: too many", n, n,
                    (long long)rows);
  cgm_status st = cgm_csr_alloc(A, (int32_t)rows, (int32_t)cols, nnz, err);
  if (st) return st;
  for (int32_t i = 0; i < P->nrows; i++)
    for (int r = 0; r < n; r++)
      A->rowptr[(int64_t)i * n + r + 1] = (P->rowptr[i + 1] - P->rowptr[i]) * n;
  for (int64_t i = 0; i < rows; i++) A->rowptr[i + 1] += A->rowptr[i];
#pragma omp parallel for schedule(static)
  for (int32_t i = 0; i < P->nrows; i++)
    for (int r = 0; r < n; r++) {
      int64_t q = A->rowptr[(int64_t)i * n + r];
      for (int64_t k = P->rowptr[i]; k < P->rowptr[i + 1]; k++)
        for (int c = 0; c < n; c++) {
          A->colidx[q] = P->colidx[k] * n + c;
          A->val[q++] = P->val[k] * (r == c ? 2.0 : 1.0);
        }
    }
  return CGM_OK;
}
