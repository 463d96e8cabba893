/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The CUDA entry points of a CPU-only build: no devices, clear errors. */
#include <stdio.h>
#include <string.h>

#include "solver/backend.h"

void cgm_cuda_context_ready(int dev) {}

void cgm_cuda_warm_up(int count) {}
void cgm_cuda_release_kept(void) {}
int cgm_cuda_device_count(void) {
  return 0;
}
double cgm_cuda_driver_start_s(void) {
  return 0;
}
bool cgm_have_cuda_build(void) {
  return false;
}
int cgm_cuda_runtime_version(void) {
  return 0;
}
bool cgm_nccl_available(char *why, size_t n) {
  if (why && n) snprintf(why, n, "not built (CPU-only build)");
  return false;
}

static cgm_status no_cuda(cgm_error *err) {
  return cgm_fail(err, CGM_ERUNTIME,
                  "this build of cgmodel has no CUDA backend (configured without a CUDA "
                  "compiler); use backend=cpu or rebuild with nvcc available");
}

cgm_status cgm_cuda_device_info(int dev, cgm_device_info *info, cgm_error *err) {
  return no_cuda(err);
}
cgm_status cgm_cuda_can_access_peer(int a, int b, bool *ok, cgm_error *err) {
  *ok = false;
  return no_cuda(err);
}
cgm_status cgm_cuda_cg(const cgm_problem *pb, cgm_solve_result *res, cgm_error *err) {
  return no_cuda(err);
}
cgm_status cgm_cusparse_cg(const cgm_problem *pb, cgm_solve_result *res, cgm_error *err) {
  return no_cuda(err);
}
cgm_status cgm_solve_device(const cgm_csr_device *A, const double *b, double *x,
                            const cgm_solve_opts *o, cgm_solve_result *res, cgm_error *err) {
  memset(res, 0, sizeof *res);
  return no_cuda(err);
}
