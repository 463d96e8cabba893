/* SPDX-License-Identifier: GPL-3.0-or-later */
/* CUDA microbenchmarks in a CPU-only build: clear errors. */
#include "microbench/microbench.h"

cgm_status cgm_mb_spmv_seconds(int dev, const cgm_bcsr *B, cgm_precision prec, int reps,
                               double *median_s, cgm_error *err) {
  return cgm_fail(err, CGM_ERUNTIME, "this build has no CUDA backend");
}
cgm_status cgm_mb_copy_bandwidth(int dev, int64_t bytes, int reps, double *bytes_per_s,
                                 cgm_error *err) {
  return cgm_fail(err, CGM_ERUNTIME, "this build has no CUDA backend");
}
cgm_status cgm_mb_run_cuda(const cgm_mb_opts *o, cgm_mb_sink sink, cgm_mb_progress progress,
                           void *ctx, cgm_error *err) {
  return cgm_fail(err, CGM_ERUNTIME, "%s: this build has no CUDA backend", o->device);
}
