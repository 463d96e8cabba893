/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Dense-block generator: A = P (x) (J + I) has exactly P's block pattern
 * with d_N = 1, is symmetric with a positive diagonal, and is SPD (CG
 * converges) when P is. */
#include "cgmodel/solver.h"
#include "test_util.h"

int main(void) {
  cgm_csr P, A;
  cgm_error err = {0};
  CHECK_OK(cgm_gen_poisson2d(6, &P, &err));
  for (int bi = 0; bi < CGM_NBLOCKSIZES; bi++) {
    int n = cgm_block_sizes[bi];
    CHECK_OK(cgm_gen_kron(&P, n, &A, &err));
    CHECK(A.nrows == P.nrows * n && A.nnz == P.nnz * n * n);
    cgm_features f;
    CHECK_OK(cgm_plan_features(&A, &f, &err));
    CHECK(f.symmetric && f.positive_diagonal);
    CHECK(f.block[bi].blocks == P.nnz && f.block[bi].density == 1.0);
    /* Entry (I r, J c) = P_IJ (1 + [r == c]). */
    double *x = calloc(A.ncols, sizeof *x), *y = malloc(A.nrows * sizeof *y);
    x[n * 7 + (n - 1)] = 1.0; /* column (J = 7, c = n - 1) */
    cgm_csr_spmv(&A, x, y);
    for (int32_t i = 0; i < P.nrows; i++)
      for (int r = 0; r < n; r++) {
        double pij = 0;
        for (int64_t k = P.rowptr[i]; k < P.rowptr[i + 1]; k++)
          if (P.colidx[k] == 7) pij = P.val[k];
        CHECK(y[i * n + r] == pij * (r == n - 1 ? 2.0 : 1.0));
      }
    /* SPD: CG converges. */
    for (int32_t i = 0; i < A.ncols; i++) x[i] = 1.0;
    cgm_csr_spmv(&A, x, y);
    cgm_solve_opts o = cgm_solve_opts_default();
    cgm_solve_result r;
    for (int32_t i = 0; i < A.ncols; i++) x[i] = 0.0;
    CHECK(cgm_solve(&A, y, x, &o, &r, &err) == CGM_OK && r.relative_residual <= 1e-8);
    free(x), free(y);
    cgm_csr_free(&A);
  }
  CHECK(cgm_gen_kron(&P, 0, &A, &err) == CGM_EINPUT);
  cgm_csr_free(&P);
  TEST_MAIN_END();
}
