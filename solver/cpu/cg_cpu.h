/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The CPU backend's kernels, visible to tests and the microbenchmarks. */
#pragma once

#include <omp.h>

#include "cgmodel/plan.h"
#include "cgmodel/sparse.h"

/* The OpenMP team of a kernel over vectors of `rows` entries (CGM_CPU_TEAM_ROWS, cgmodel/plan.h).
 */
static inline int cgm_cpu_team(int64_t rows) {
  const int64_t most = omp_get_max_threads(), k = rows / CGM_CPU_TEAM_ROWS;
  return (int)(k < 1 ? 1 : k < most ? k : most);
}

/* y = B x over the MBR layout with the layout's values (val may be B->val or
 * a single-precision copy). x has nbcols*N entries, y nbrows*N. Returns
 * sum_i p[i] y[i] when p is non-NULL (the CG3 dot fused into the SpMV). */
double cgm_cpu_spmv_f64(const cgm_bcsr *B, const double *val, const double *x, double *y,
                        const double *p);
double cgm_cpu_spmv_f32(const cgm_bcsr *B, const float *val, const float *x, float *y,
                        const float *p);
/* A layout's values as the SpMV reads them: s NULL or full: val (the
 * arithmetic's type); F32: val in float; DICT: ccol (cgm_values_encode). */
typedef struct cgm_cpu_vals {
  const cgm_value_set *s;
  const void *val;
  const int32_t *ccol;
} cgm_cpu_vals;
/* cgm_cpu_spmv_f64 over values stored as V says (double arithmetic). */
double cgm_cpu_spmv_vals(const cgm_bcsr *B, const cgm_cpu_vals *V, const double *x, double *y,
                         const double *p);

/* CG4: x += t v, r -= t u; returns r . D^-1 r and stores r . r. */
double cgm_cpu_cg4_f64(int64_t np, double t, double *x, double *r, const double *v, const double *u,
                       const double *dinv, double *rr_out);
double cgm_cpu_cg4_f32(int64_t np, float t, float *x, float *r, const float *v, const float *u,
                       const float *dinv, double *rr_out);
/* CG5: v = D^-1 r + s v. */
void cgm_cpu_cg5_f64(int64_t np, double s, double *v, const double *r, const double *dinv);
void cgm_cpu_cg5_f32(int64_t np, float s, float *v, const float *r, const float *dinv);
