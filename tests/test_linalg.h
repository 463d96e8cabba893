/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Helpers the solver tests share: a deterministic PRNG and the true
 * residual computed independently of the library (long double). */
#ifndef CGM_TEST_LINALG_H
#define CGM_TEST_LINALG_H

#include <math.h>
#include <stdint.h>

#include "cgmodel/sparse.h"

/* splitmix64 */
static inline uint64_t test_rng(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
/* Uniform in [0, 1) with 53 random bits. */
static inline double test_urand(uint64_t *state) {
  return (double)(test_rng(state) >> 11) * 0x1.0p-53;
}

/* ||b - A x|| / ||b|| with long-double sums. */
static inline double test_residual(const cgm_csr *A, const double *b, const double *x) {
  long double rr = 0, bb = 0;
  for (int32_t i = 0; i < A->nrows; i++) {
    long double r = b[i];
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      r -= (long double)A->val[k] * x[A->colidx[k]];
    rr += r * r;
    bb += (long double)b[i] * b[i];
  }
  return (double)sqrtl(rr / bb);
}

#endif
