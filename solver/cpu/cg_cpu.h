/* The CPU backend's kernels, visible to tests and the microbenchmarks. */
#ifndef CGM_SOLVER_CPU_CG_CPU_H
#define CGM_SOLVER_CPU_CG_CPU_H

#include "cgmodel/sparse.h"

/* y = B x over the MBR layout with the layout's values (val may be B->val or
 * a single-precision copy). x has nbcols*N entries, y nbrows*N. Returns
 * sum_i p[i] y[i] when p is non-NULL (the CG3 dot fused into the SpMV). */
double cgm_cpu_spmv_f64(const cgm_bcsr *B, const double *val, const double *x, double *y,
                        const double *p);
double cgm_cpu_spmv_f32(const cgm_bcsr *B, const float *val, const float *x, float *y,
                        const float *p);

#endif
