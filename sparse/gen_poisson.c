/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Finite-difference Poisson matrices with Dirichlet boundaries: the 5-point
 * stencil in 2D and the 7-point stencil in 3D, lexicographic order (x fastest).
 * Rows are written in column order, so no sorting is needed. */
#include "cgmodel/sparse.h"

cgm_status cgm_gen_poisson(int dim, int32_t n, cgm_csr *A, cgm_error *err) {
  if (dim != 2 && dim != 3)
    return cgm_fail(err, CGM_EINPUT, "Poisson grids are 2D or 3D (got %dD)", dim);
  if (n < 1) return cgm_fail(err, CGM_EINPUT, "grid size must be >= 1 (got %d)", n);
  int64_t rows = dim == 2 ? (int64_t)n * n : (int64_t)n * n * n;
  if (rows > INT32_MAX)
    return cgm_fail(err, CGM_EINPUT, "grid %d^%d has %lld rows, more than 2^31 - 1", n, dim,
                    (long long)rows);
  int64_t nnz = rows * (2 * dim + 1) - (int64_t)2 * dim * (rows / n); /* minus cut edges */
  cgm_status st = cgm_csr_alloc(A, (int32_t)rows, (int32_t)rows, nnz, err);
  if (st) return st;
  const int64_t sx = 1, sy = n, sz = (int64_t)n * n;
  /* Row i's length is known from its position, so rows are filled in parallel. */
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < rows; i++) {
    int64_t ix = i % n, iy = (i / n) % n, iz = dim == 3 ? i / sz : 0;
    int len = 1 + (ix > 0) + (ix < n - 1) + (iy > 0) + (iy < n - 1);
    if (dim == 3) len += (iz > 0) + (iz < n - 1);
    A->rowptr[i + 1] = len;
  }
  for (int64_t i = 0; i < rows; i++) A->rowptr[i + 1] += A->rowptr[i];
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < rows; i++) {
    int64_t ix = i % n, iy = (i / n) % n, iz = dim == 3 ? i / sz : 0;
    int64_t p = A->rowptr[i];
#define PUT(c, v) (A->colidx[p] = (int32_t)(c), A->val[p] = (v), p++)
    if (dim == 3 && iz > 0) PUT(i - sz, -1.0);
    if (iy > 0) PUT(i - sy, -1.0);
    if (ix > 0) PUT(i - sx, -1.0);
    PUT(i, 2.0 * dim);
    if (ix < n - 1) PUT(i + sx, -1.0);
    if (iy < n - 1) PUT(i + sy, -1.0);
    if (dim == 3 && iz < n - 1) PUT(i + sz, -1.0);
#undef PUT
  }
  A->nnz = A->rowptr[rows];
  return CGM_OK;
}

cgm_status cgm_gen_poisson2d(int32_t n, cgm_csr *A, cgm_error *err) {
  return cgm_gen_poisson(2, n, A, err);
}

cgm_status cgm_gen_poisson3d(int32_t n, cgm_csr *A, cgm_error *err) {
  return cgm_gen_poisson(3, n, A, err);
}
