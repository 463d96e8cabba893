/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Helpers the solver tests share: the generators' deterministic PRNG
 * (sparse/rng.h) and the true residual computed independently of the
 * library (long double). */
#ifndef CGM_TEST_LINALG_H
#define CGM_TEST_LINALG_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/solver.h"
#include "cgmodel/sparse.h"
#include "sparse/rng.h" /* splitmix64, unif01: the generators' own */

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

/* cgm_solve from zero towards a known solution (1 + sin(i) / 2: b = A x),
 * with o; *res the true residual recomputed here (test_residual) where
 * the solve returned CGM_OK. */
static inline cgm_status test_solve_known(const cgm_csr *A, const cgm_solve_opts *o,
                                          cgm_solve_result *r, cgm_error *err, double *res) {
  double *b = malloc(A->nrows * sizeof *b), *x = calloc(A->nrows, sizeof *x);
  if (!b || !x) {
    free(b), free(x);
    return CGM_ERUNTIME;
  }
  for (int32_t i = 0; i < A->nrows; i++) x[i] = 1.0 + 0.5 * sin(i);
  cgm_csr_spmv(A, x, b);
  memset(x, 0, A->nrows * sizeof *x);
  const cgm_status st = cgm_solve(A, b, x, o, r, err);
  *res = st == CGM_OK ? test_residual(A, b, x) : NAN;
  free(b), free(x);
  return st;
}

/* A monitor that keeps the iterate (cgm_solve_opts.monitor_x = x): the
 * calls and whether their iterations rise, the largest relative gap
 * between x_k's recomputed residual and the one reported, x_0's largest
 * relative distance from x0, and the last call's x_k (last, nrows). */
typedef struct {
  const cgm_csr *A;
  const double *b, *x0;
  double *x, *last;
  int calls, iteration;
  int rising;
  double worst, first_err;
} test_iterates;

static inline void test_keep_iterate(void *ctx, int iteration, double relres) {
  test_iterates *k = (test_iterates *)ctx;
  const double gap = fabs(test_residual(k->A, k->b, k->x) - relres) / relres;
  if (gap > k->worst) k->worst = gap;
  k->rising = k->calls == 0 ? iteration == 0 : k->rising && iteration > k->iteration;
  for (int32_t i = 0; i < k->A->nrows; i++) {
    if (k->calls == 0) k->first_err = fmax(k->first_err, fabs(k->x[i] - k->x0[i]) / fabs(k->x0[i]));
    k->last[i] = k->x[i];
  }
  k->calls++;
  k->iteration = iteration;
}

/* L (x) S: the 3D Laplacian of m^3 nodes with 4 unknowns a node coupled by
 * the Kac-Murdock-Szego matrix s_ij = 0.9^|i - j| (condition 57): blocks
 * of 4 hold a node's S, the case block-Jacobi is for. */
static inline cgm_status test_coupled_laplacian(int m, cgm_csr *A, cgm_error *err) {
  cgm_csr L;
  cgm_status st = cgm_gen_poisson3d(m, &L, err);
  if (st) return st;
  const int k = 4;
  const int64_t nnz = L.nnz * k * k;
  int32_t *ri = malloc(nnz * sizeof *ri), *ci = malloc(nnz * sizeof *ci);
  double *v = malloc(nnz * sizeof *v);
  if (!ri || !ci || !v) {
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory");
  } else {
    int64_t e = 0;
    for (int32_t i = 0; i < L.nrows; i++)
      for (int64_t q = L.rowptr[i]; q < L.rowptr[i + 1]; q++)
        for (int a = 0; a < k; a++)
          for (int c = 0; c < k; c++) {
            ri[e] = i * k + a, ci[e] = L.colidx[q] * k + c;
            v[e++] = L.val[q] * pow(0.9, abs(a - c));
          }
    st = cgm_csr_from_coo(L.nrows * k, L.nrows * k, e, ri, ci, v, A, NULL, err);
  }
  free(ri), free(ci), free(v);
  cgm_csr_free(&L);
  return st;
}

/* 6 x 6, positive diagonal, whose 2 x 2 block of rows 3 and 4 is [1 2; 2 1]
 * (eigenvalue -1): Jacobi's check lets it through, block-Jacobi with N = 2
 * must refuse it. */
static inline cgm_status test_bad_block(cgm_csr *A, cgm_error *err) {
  const int32_t ri[] = {0, 0, 1, 1, 2, 2, 3, 3, 4, 5};
  const int32_t ci[] = {0, 1, 0, 1, 2, 3, 2, 3, 4, 5};
  const double v[] = {4, 1, 1, 4, 1, 2, 2, 1, 3, 3};
  return cgm_csr_from_coo(6, 6, 10, ri, ci, v, A, NULL, err);
}

#endif
