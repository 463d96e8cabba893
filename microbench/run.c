/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Dispatches a calibration run to the device's sweeps. */
#include <string.h>

#include "microbench/microbench.h"

cgm_status cgm_mb_run_cpu(const cgm_mb_opts *o, cgm_mb_sink sink, cgm_mb_progress progress,
                          void *ctx, cgm_error *err);

cgm_status cgm_mb_run(const cgm_mb_opts *o, cgm_mb_sink sink, cgm_mb_progress progress, void *ctx,
                      cgm_error *err) {
  if (!o->precisions) return cgm_fail(err, CGM_EINPUT, "no precision to calibrate");
  if (strcmp(o->device, "cpu") == 0) return cgm_mb_run_cpu(o, sink, progress, ctx, err);
  if (strncmp(o->device, "cuda:", 5) == 0) return cgm_mb_run_cuda(o, sink, progress, ctx, err);
  return cgm_fail(err, CGM_EINPUT, "unknown device '%s' (cpu or cuda:K)", o->device);
}
