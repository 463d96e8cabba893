/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The right-hand side of a solve (given, or b = A * ones so that x = ones)
 * and the error of a solve of b = A * ones. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/par.h"
#include "pipeline/solve/solve_steps.h"

cgm_status pipeline_right_hand_side(const cgm_run_solve_opts *o, const cgm_csr *A, double **b,
                                    bool *generated, cgm_error *err) {
  *b = NULL;
  *generated = !o->rhs && !(o->csr && o->b);
  if (o->csr && o->b) {
    *b = malloc(((size_t)A->nrows + 1) * sizeof **b);
    if (!*b) return cgm_fail(err, CGM_ERUNTIME, "out of memory");
    memcpy(*b, o->b, (size_t)A->nrows * sizeof **b);
    return CGM_OK;
  }
  if (o->rhs && !o->csr) {
    int32_t nb;
    cgm_status st = cgm_mm_read_vector(o->rhs, b, &nb, err);
    if (st) return st;
    if (nb != A->nrows)
      return cgm_fail(err, CGM_EINPUT, "%s has %d entries but %s has %d rows", o->rhs, nb,
                      o->matrix, A->nrows);
    return CGM_OK;
  }
  double *ones = malloc(((size_t)A->ncols + 1) * sizeof *ones);
  *b = malloc(((size_t)A->nrows + 1) * sizeof **b);
  if (!ones || !*b) {
    free(ones);
    return cgm_fail(err, CGM_ERUNTIME, "out of memory");
  }
  for (int32_t i = 0; i < A->ncols; i++) ones[i] = 1.0;
  cgm_csr_spmv(A, ones, *b);
  free(ones);
  return CGM_OK;
}

cgm_status pipeline_initial_guess(const cgm_run_solve_opts *o, int32_t n, double *x,
                                  cgm_error *err) {
  if (o->x0) {
    memcpy(x, o->x0, (size_t)n * sizeof *x);
    return CGM_OK;
  }
  if (!o->x0_path) return CGM_OK; /* zeros: x came from calloc */
  double *v = NULL;
  int32_t nv = 0;
  cgm_status st = cgm_mm_read_vector(o->x0_path, &v, &nv, err);
  if (!st && nv != n)
    st = cgm_fail(err, CGM_EINPUT, "%s has %d entries but %s has %d rows", o->x0_path, nv,
                  o->matrix, n);
  if (!st) memcpy(x, v, (size_t)n * sizeof *x);
  free(v);
  return st;
}

double pipeline_solution_error(const double *x, int32_t n) {
  double e2 = 0.0; /* on every core: 7M rows took 10-20 ms on one */
#pragma omp parallel for schedule(static) reduction(+ : e2) if (n >= CGM_PAR_MIN)
  for (int32_t i = 0; i < n; i++) e2 += (x[i] - 1.0) * (x[i] - 1.0);
  return sqrt(e2 / n);
}
