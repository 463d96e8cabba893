/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A program of another project, built against an installed cgmodel
 * (find_package or pkg-config): solves the 1-D Laplacian through the public
 * API and checks the residual itself. Exit 0 when it holds. */
#include <math.h>
#include <stdio.h>

#include <cgmodel/cgmodel.h>

int main(void) {
  enum { N = 50 };
  cgm_csr A;
  cgm_error err = {0};
  if (cgm_csr_alloc(&A, N, N, 3 * N - 2, &err)) {
    fprintf(stderr, "downstream: %s\n", err.msg);
    return 1;
  }
  int64_t k = 0;
  for (int32_t i = 0; i < N; i++) {
    A.rowptr[i] = k;
    if (i > 0) A.colidx[k] = i - 1, A.val[k++] = -1.0;
    A.colidx[k] = i, A.val[k++] = 2.0;
    if (i < N - 1) A.colidx[k] = i + 1, A.val[k++] = -1.0;
  }
  A.rowptr[N] = k;
  double b[N], x[N] = {0}, Ax[N];
  for (int i = 0; i < N; i++) b[i] = 1.0 + i % 3;
  cgm_solve_opts o = cgm_solve_opts_default();
  o.tol = 1e-10;
  cgm_solve_result r;
  cgm_status st = cgm_solve(&A, b, x, &o, &r, &err);
  if (st) {
    fprintf(stderr, "downstream: cgm_solve: %s\n", err.msg);
    cgm_csr_free(&A);
    return 1;
  }
  cgm_csr_spmv(&A, x, Ax);
  double rn = 0, bn = 0;
  for (int i = 0; i < N; i++) rn += (b[i] - Ax[i]) * (b[i] - Ax[i]), bn += b[i] * b[i];
  const double rel = sqrt(rn / bn);
  printf("cgmodel %s: %d iterations, residual %.3e\n", cgm_version(), r.iterations, rel);
  cgm_csr_free(&A);
  return rel <= 1e-10 && r.converged ? 0 : 1;
}
