/* SPDX-License-Identifier: GPL-3.0-or-later */
/* CUDA microbenchmarks in a CPU-only build: clear errors. */
#include "microbench/microbench.h"

double cgm_mb_gpu_share(int dev, double seconds) {
  return 1.0;
}

cgm_status cgm_mb_run_cuda(const cgm_mb_opts *o, cgm_mb_sink sink, cgm_mb_progress progress,
                           void *ctx, cgm_error *err) {
  return cgm_fail(err, CGM_ERUNTIME, "%s: this build has no CUDA backend", o->device);
}
