/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Block-Jacobi preconditioning (docs/precond.md): the inverses of the b x b diagonal blocks of A (b
 * the matrix's point block, or given), computed once on the host during set-up and applied by every
 * backend that supports it (the CPU's kernels and our CUDA kernels). */
#include <string.h>
#include <threads.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>

#include "solver/backend.h"

/* Whether A is made of dense, aligned b x b blocks (cgm_csr_point_block): row i's columns are whole
 * runs [cb, cb + b), and equal to the columns of the first row of its block row. */
static bool has_point_block(const cgm_csr *A, int b) {
  if (A->nrows % b) return false;
  bool ok = true;
#pragma omp parallel for schedule(static) reduction(&& : ok)
  for (int32_t i = 0; i < A->nrows; i++) {
    if (!ok) continue;
    const int64_t q0 = A->rowptr[i], q1 = A->rowptr[i + 1], f = A->rowptr[i - i % b];
    if ((q1 - q0) % b || q1 - q0 != A->rowptr[i - i % b + 1] - f) {
      ok = false;
      continue;
    }
    for (int64_t q = q0; q < q1 && ok; q++) {
      const int64_t e = q - q0;
      const int32_t c = A->colidx[q];
      /* a run starts at a multiple of b and climbs by one (sorted columns) */
      if (e % b == 0 ? c % b != 0 : c != A->colidx[q - 1] + 1) ok = false;
      if (A->colidx[f + e] != c) ok = false;
    }
  }
  return ok;
}

int cgm_csr_point_block(const cgm_csr *A, int maxb) {
  if (!A || A->nrows < 2) return 1;
  for (int b = maxb; b >= 2; b--)
    if (has_point_block(A, b)) return b;
  return 1;
}

int cgm_precond_block_fixed(const cgm_csr *A, const cgm_solve_opts *o) {
  if (o->precond_block > 0) return o->precond_block;
  const int b = cgm_csr_point_block(A, CGM_BJACOBI_MAX_BLOCK);
  return b > 1 ? b : 0;
}

int cgm_precond_block_size(const cgm_csr *A, const cgm_solve_opts *o) {
  const int b = cgm_precond_block_fixed(A, o);
  return b > 0 ? b : o->layout.n;
}

cgm_status cgm_bjacobi_size_check(int n, cgm_error *err) {
  if (n < 1 || n > CGM_BJACOBI_MAX_BLOCK)
    return cgm_fail(err, CGM_EINPUT, "block-Jacobi block size %d is not in 1..%d", n,
                    CGM_BJACOBI_MAX_BLOCK);
  return CGM_OK;
}

static once_flag gsl_once = ONCE_FLAG_INIT;
/* GSL's default handler calls abort() on a block that is not positive
 * definite; the library must return an error instead. */
static void gsl_quiet(void) {
  gsl_set_error_handler_off();
}

/* Block k of A (rows and columns [k n, k n + n)), with the rows past the
 * matrix (the last block's padding) as the identity, into a (row-major). */
static void diag_block(const cgm_csr *A, int n, int32_t k, double *a) {
  memset(a, 0, sizeof(double) * (size_t)n * (size_t)n);
  const int32_t r0 = k * n;
  for (int i = 0; i < n; i++) {
    const int32_t row = r0 + i;
    if (row >= A->nrows) {
      a[i * n + i] = 1.0;
      continue;
    }
    for (int64_t q = A->rowptr[row]; q < A->rowptr[row + 1]; q++) {
      const int32_t c = A->colidx[q] - r0;
      if (c >= 0 && c < n) a[i * n + c] += A->val[q];
    }
  }
}

cgm_status cgm_bjacobi_build(const cgm_csr *A, int n, double *inv, double *blk, cgm_error *err) {
  cgm_status st = cgm_bjacobi_size_check(n, err);
  if (st) return st;
  call_once(&gsl_once, gsl_quiet);
  const int32_t nb = cgm_bjacobi_blocks(A->nrows, n);
  const int64_t nn = (int64_t)n * n;
  int32_t bad = nb; /* the first block without a Cholesky factor */
#pragma omp parallel for schedule(static) reduction(min : bad)
  for (int32_t k = 0; k < nb; k++) {
    double a[CGM_BJACOBI_MAX_BLOCK * CGM_BJACOBI_MAX_BLOCK];
    diag_block(A, n, k, a);
    if (blk) memcpy(blk + k * nn, a, sizeof(double) * (size_t)nn);
    gsl_matrix_view m = gsl_matrix_view_array(a, (size_t)n, (size_t)n);
    /* Cholesky fails exactly when the block is not positive definite (it is symmetric: A is); the
     * factor then gives the inverse, symmetric and stored in full. */
    if (gsl_linalg_cholesky_decomp1(&m.matrix) != GSL_SUCCESS ||
        gsl_linalg_cholesky_invert(&m.matrix) != GSL_SUCCESS) {
      if (k < bad) bad = k;
      continue;
    }
    memcpy(inv + k * nn, a, sizeof(double) * (size_t)nn);
  }
  if (bad < nb) {
    const int32_t first = bad * n + 1, last = bad * n + n < A->nrows ? bad * n + n : A->nrows;
    return cgm_fail(err, CGM_ENOCONV,
                    "matrix is not positive definite: its diagonal block of rows %d to %d "
                    "(block-Jacobi, block size %d) has no Cholesky factor",
                    first, last, n);
  }
  return CGM_OK;
}
