/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Telling an indefinite matrix from a CG that rounding broke: k steps of Lanczos in double (no
 * reorthogonalisation: its Ritz values may repeat, but each stays within [lambda_min, lambda_max]
 * of A up to rounding), so a clearly negative Ritz value proves A has a negative eigenvalue. A
 * positive smallest Ritz value proves nothing; it is only the evidence that makes "not positive
 * definite" unfounded. */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_matrix.h>

#include "solver/backend.h"

cgm_status cgm_lanczos_min(const cgm_csr *A, int steps, double *ritz_min, cgm_error *err) {
  const int32_t n = A->nrows;
  if (steps > n) steps = n;
  if (steps < 1) steps = 1;
  double *v = calloc((size_t)n + 1, sizeof *v), *w = calloc((size_t)n + 1, sizeof *w),
         *u = calloc((size_t)n + 1, sizeof *u);
  double *alpha = calloc((size_t)steps + 1, sizeof *alpha),
         *beta = calloc((size_t)steps + 1, sizeof *beta);
  gsl_matrix *T = NULL;
  gsl_vector *ev = NULL;
  gsl_eigen_symm_workspace *ws = NULL;
  cgm_status st = CGM_OK;
  if (!v || !w || !u || !alpha || !beta) {
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory checking definiteness");
    goto out;
  }
  /* a fixed pseudo-random start: every eigenvector is in it */
  uint64_t s = 0x9e3779b97f4a7c15ull;
  double nv = 0;
  for (int32_t i = 0; i < n; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    v[i] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
    nv += v[i] * v[i];
  }
  nv = sqrt(nv);
  for (int32_t i = 0; i < n; i++) v[i] /= nv;
  int k = 0;
  for (; k < steps; k++) {
    cgm_csr_spmv(A, v, w);
    double a = 0;
    for (int32_t i = 0; i < n; i++) a += w[i] * v[i];
    double b = 0;
    for (int32_t i = 0; i < n; i++) {
      w[i] -= a * v[i] + (k > 0 ? beta[k - 1] * u[i] : 0.0);
      b += w[i] * w[i];
    }
    alpha[k] = a;
    beta[k] = sqrt(b);
    if (!isfinite(a) || !(beta[k] > 1e-300)) {
      k++;
      break; /* an invariant subspace: T_k's Ritz values are eigenvalues */
    }
    for (int32_t i = 0; i < n; i++) u[i] = v[i], v[i] = w[i] / beta[k];
  }
  T = gsl_matrix_calloc((size_t)k, (size_t)k);
  ev = gsl_vector_alloc((size_t)k);
  ws = gsl_eigen_symm_alloc((size_t)k);
  if (!T || !ev || !ws) {
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory checking definiteness");
    goto out;
  }
  for (int i = 0; i < k; i++) {
    gsl_matrix_set(T, (size_t)i, (size_t)i, alpha[i]);
    if (i + 1 < k) {
      gsl_matrix_set(T, (size_t)i, (size_t)i + 1, beta[i]);
      gsl_matrix_set(T, (size_t)i + 1, (size_t)i, beta[i]);
    }
  }
  if (gsl_eigen_symm(T, ev, ws)) {
    st = cgm_fail(err, CGM_ERUNTIME, "the Lanczos check's eigenvalues did not converge");
    goto out;
  }
  *ritz_min = gsl_vector_min(ev);
out:
  if (ws) gsl_eigen_symm_free(ws);
  gsl_vector_free(ev);
  gsl_matrix_free(T);
  free(v), free(w), free(u), free(alpha), free(beta);
  return st;
}
