/* SPDX-License-Identifier: GPL-3.0-or-later */
/* CUDA timings for cg_bench (spmv_timing.cu). */
#ifndef CGM_BENCH_SPMV_TIMING_H
#define CGM_BENCH_SPMV_TIMING_H

#include "cgmodel/solver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Median seconds of one SpMV (our kernel, with the fused dot of CG3) over
 * the layout on CUDA device dev; x is random, never zero. */
cgm_status cgm_mb_spmv_seconds(int dev, const cgm_bcsr *B, cgm_precision prec, int reps,
                               double *median_s, cgm_error *err);
/* Device-to-device copy of `bytes` bytes: returns (read + written) bytes per
 * second, the measured ceiling for bandwidth-bound kernels. */
cgm_status cgm_mb_copy_bandwidth(int dev, int64_t bytes, int reps, double *bytes_per_s,
                                 cgm_error *err);

#ifdef __cplusplus
}
#endif
#endif
