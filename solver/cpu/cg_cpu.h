/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The CPU backend's kernels, visible to tests and the microbenchmarks. */
#ifndef CGM_SOLVER_CPU_CG_CPU_H
#define CGM_SOLVER_CPU_CG_CPU_H

#include <omp.h>

#include "cgmodel/sparse.h"

/* The OpenMP team of a kernel that moves `bytes`: a thread per
 * CGM_CPU_TEAM_BYTES, at least one, at most the solve's threads. A
 * parallel region's fork and barrier cost a microsecond or more on a
 * 16-core node, the whole of a small matrix's kernel: with 16 threads the
 * 14 rows of LFAT5 took 0.28 to 1.36 ms a solve by block size, its threads
 * waiting on each other. The calibration's kernels (microbench/
 * cpu_sweeps.c) run through the same rule, so its curves are of the teams
 * the solves use. */
#define CGM_CPU_TEAM_BYTES 65536.0
static inline int cgm_cpu_team(double bytes) {
  const int most = omp_get_max_threads();
  const double k = bytes / CGM_CPU_TEAM_BYTES;
  return k < 1.0 ? 1 : k < most ? (int)k : most;
}

/* y = B x over the MBR layout with the layout's values (val may be B->val or
 * a single-precision copy). x has nbcols*N entries, y nbrows*N. Returns
 * sum_i p[i] y[i] when p is non-NULL (the CG3 dot fused into the SpMV). */
double cgm_cpu_spmv_f64(const cgm_bcsr *B, const double *val, const double *x, double *y,
                        const double *p);
double cgm_cpu_spmv_f32(const cgm_bcsr *B, const float *val, const float *x, float *y,
                        const float *p);

/* CG4: x += t v, r -= t u; returns r . D^-1 r and stores r . r. */
double cgm_cpu_cg4_f64(int64_t np, double t, double *x, double *r, const double *v, const double *u,
                       const double *dinv, double *rr_out);
double cgm_cpu_cg4_f32(int64_t np, float t, float *x, float *r, const float *v, const float *u,
                       const float *dinv, double *rr_out);
/* CG5: v = D^-1 r + s v. */
void cgm_cpu_cg5_f64(int64_t np, double s, double *v, const double *r, const double *dinv);
void cgm_cpu_cg5_f32(int64_t np, float s, float *v, const float *r, const float *dinv);

#endif
