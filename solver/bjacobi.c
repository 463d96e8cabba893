/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Block-Jacobi preconditioning (docs/precond.md): the inverses of the
 * N x N diagonal blocks of A, computed once on the host during set-up and
 * applied by every backend that supports it (the CPU's kernels and our
 * CUDA kernels). */
#include <stdio.h>
#include <string.h>
#include <threads.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>

#include "solver/backend.h"

static const char *precond_names[] = {"jacobi", "block"};

const char *cgm_precond_name(cgm_precond p) {
  return (unsigned)p < 2 ? precond_names[p] : "unknown";
}

bool cgm_precond_parse(const char *s, cgm_precond *p) {
  for (int i = 0; i < 2; i++)
    if (s && !strcmp(s, precond_names[i])) {
      *p = (cgm_precond)i;
      return true;
    }
  return false;
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
  if (n < 1 || n > CGM_BJACOBI_MAX_N)
    return cgm_fail(err, CGM_EINPUT, "block-Jacobi block size %d is not in 1..%d", n,
                    CGM_BJACOBI_MAX_N);
  call_once(&gsl_once, gsl_quiet);
  const int32_t nb = cgm_bjacobi_blocks(A->nrows, n);
  const int64_t nn = (int64_t)n * n;
  int32_t bad = nb; /* the first block without a Cholesky factor */
#pragma omp parallel for schedule(static) reduction(min : bad)
  for (int32_t k = 0; k < nb; k++) {
    double a[CGM_BJACOBI_MAX_N * CGM_BJACOBI_MAX_N];
    diag_block(A, n, k, a);
    if (blk) memcpy(blk + k * nn, a, sizeof(double) * (size_t)nn);
    gsl_matrix_view m = gsl_matrix_view_array(a, (size_t)n, (size_t)n);
    /* Cholesky fails exactly when the block is not positive definite (it
     * is symmetric: A is); the factor then gives the inverse, symmetric and
     * stored in full. */
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
