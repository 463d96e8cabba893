/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Telling an indefinite matrix from a CG that rounding broke: k steps of Lanczos in double (no
 * reorthogonalisation: its Ritz values may repeat, but each stays within [lambda_min, lambda_max]
 * of A up to rounding), so a clearly negative Ritz value proves A has a negative eigenvalue. A
 * positive smallest Ritz value proves nothing; it is only the evidence that makes "not positive
 * definite" unfounded. */
#include <math.h>
#include <stdlib.h>

#include "solver/backend.h"

/* How many eigenvalues of the symmetric tridiagonal matrix (diagonal a, off-diagonal b) of order k
 * lie below x: the negative pivots of its LDL^T less x (Sturm's count; a zero pivot counts). */
static int below(const double *a, const double *b, int k, double x) {
  int c = 0;
  double d = 1.0; /* the pivot before i's */
  for (int i = 0; i < k; i++) {
    d = a[i] - x - (i > 0 ? b[i - 1] * b[i - 1] / d : 0.0);
    if (d == 0.0) d = -1e-300;
    c += d < 0.0;
  }
  return c;
}

cgm_status cgm_lanczos_min(const cgm_csr *A, int steps, double *ritz_min, cgm_error *err) {
  const int32_t n = A->nrows;
  if (steps > n) steps = n;
  if (steps < 1) steps = 1;
  double *v = calloc((size_t)n + 1, sizeof *v), *w = calloc((size_t)n + 1, sizeof *w),
         *u = calloc((size_t)n + 1, sizeof *u);
  double *alpha = calloc((size_t)steps + 1, sizeof *alpha),
         *beta = calloc((size_t)steps + 1, sizeof *beta);
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
  /* T_k's smallest eigenvalue by bisection between Gershgorin's bounds, to the last bit */
  double lo = INFINITY, hi = -INFINITY;
  bool finite = true;
  for (int i = 0; i < k; i++) {
    const double r = (i > 0 ? fabs(beta[i - 1]) : 0.0) + (i + 1 < k ? fabs(beta[i]) : 0.0);
    lo = fmin(lo, alpha[i] - r), hi = fmax(hi, alpha[i] + r),
    finite = finite && isfinite(alpha[i] + r);
  }
  if (!finite) {
    st = cgm_fail(err, CGM_ERUNTIME, "the Lanczos check met a value that is not finite");
    goto out;
  }
  for (double mid = 0.5 * (lo + hi); lo < mid && mid < hi; mid = 0.5 * (lo + hi))
    *(below(alpha, beta, k, mid) > 0 ? &hi : &lo) = mid;
  *ritz_min = hi;
out:
  free(v), free(w), free(u), free(alpha), free(beta);
  return st;
}
