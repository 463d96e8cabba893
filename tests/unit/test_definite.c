/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The definiteness check behind an honest breakdown message: Lanczos in
 * double finds a negative Ritz value of indefinite matrices (one negative
 * eigenvalue among many positive ones) and none of SPD ones (Ritz values
 * lie inside the spectrum, which is known here in closed form); a solve
 * that breaks down on an indefinite matrix still says so. */
#define _DEFAULT_SOURCE /* M_PI */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "cgmodel/solver.h"
#include "solver/backend.h"
#include "test_util.h"

int main(void) {
  cgm_error err = {0};
  cgm_csr A;
  /* Poisson 2D 30 x 30: eigenvalues 4 - 2 cos(i pi / 31) - 2 cos(j pi / 31) > 0 */
  CHECK_OK(cgm_gen_poisson2d(30, &A, &err));
  const double lmin = 4.0 - 4.0 * cos(M_PI / 31.0);
  double ritz = -1;
  CHECK_OK(cgm_lanczos_min(&A, 60, &ritz, &err));
  CHECK_MSG(ritz >= lmin * (1 - 1e-9) && ritz < 1.0, "SPD: smallest Ritz %g, lambda_min %g", ritz,
            lmin);
  /* Shifted by 0.5: its smallest eigenvalue lmin - 0.5 < 0, the rest mostly
   * positive; 60 steps reach it (an extreme eigenvalue) */
  for (int32_t i = 0; i < A.nrows; i++)
    for (int64_t k = A.rowptr[i]; k < A.rowptr[i + 1]; k++)
      if (A.colidx[k] == i) A.val[k] -= 0.5;
  CHECK_OK(cgm_lanczos_min(&A, 60, &ritz, &err));
  CHECK_MSG(ritz < -0.4 && ritz >= lmin - 0.5 - 1e-9,
            "indefinite: smallest Ritz %g (lambda_min %g)", ritz, lmin - 0.5);
  /* the solve's breakdown message names it as indefinite, with the value */
  double *b = malloc(sizeof(double) * A.nrows), *x = calloc((size_t)A.nrows, sizeof(double));
  for (int32_t i = 0; i < A.nrows; i++) b[i] = 1.0 + (i % 7);
  cgm_solve_opts o = cgm_solve_opts_default();
  o.backend = CGM_BACKEND_CPU;
  cgm_solve_result r;
  cgm_status st = cgm_solve(&A, b, x, &o, &r, &err);
  if (st == CGM_ENOCONV && strncmp(r.stop_reason, "CG breakdown", 12) == 0)
    CHECK_MSG(strstr(r.stop_reason, "not positive definite (it has an eigenvalue at or below"),
              "%s", r.stop_reason);
  else
    fprintf(stderr, "no breakdown on the shifted matrix (%d: %s)\n", st, r.stop_reason);
  /* a tiny matrix: the Krylov space is exhausted before 60 steps */
  int64_t rp[] = {0, 2, 4};
  int32_t ci[] = {0, 1, 0, 1};
  double v[] = {1, 2, 2, 1}; /* eigenvalues 3 and -1 */
  cgm_csr B = {2, 2, 4, rp, ci, v};
  CHECK_OK(cgm_lanczos_min(&B, 60, &ritz, &err));
  CHECK_MSG(fabs(ritz + 1.0) < 1e-9, "2 x 2: smallest Ritz %g, eigenvalue -1", ritz);
  free(b), free(x);
  cgm_csr_free(&A);
  TEST_MAIN_END();
}
