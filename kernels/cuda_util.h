/* SPDX-License-Identifier: GPL-3.0-or-later */
/* CUDA host code's checks: every call and launch, a cgm_error naming it. */
#pragma once

#include <cuda_runtime.h>

#include "cgmodel/status.h"
#include "common/fault.h"

/* A grid-stride loop in a kernel: i over [0, n) by the whole grid. */
#define CGM_GRID_LOOP(i, n)                                                                        \
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < (n);                        \
       i += (int64_t)gridDim.x * blockDim.x)

/* The injected failure of common/fault.h: not sticky, the call not made. */
#define CGM_CUDA_INJECTED cudaErrorMemoryAllocation

/* The failure of a checked call: the error cleared (not sticky: later
 * calls can report theirs), its message naming the call, file and line. */
#define CGM_CUDA_FAIL(err, ce, what)                                                               \
  ((void)cudaGetLastError(),                                                                       \
   cgm_fail((err), CGM_ERUNTIME, "CUDA error %s (%s) in %s at %s:%d", cudaGetErrorName(ce),        \
            cudaGetErrorString(ce), what, __FILE__, __LINE__))

#define CGM_CUDA_TRY(err, call)                                                                    \
  do {                                                                                             \
    cudaError_t _ce = cgm_fault_hit() ? CGM_CUDA_INJECTED : (call);                                \
    if (_ce != cudaSuccess) return CGM_CUDA_FAIL(err, _ce, #call);                                 \
  } while (0)

/* Same, but records the failure in `st` and jumps to `label` for cleanup. */
#define CGM_CUDA_GOTO(st, err, label, call)                                                        \
  do {                                                                                             \
    cudaError_t _ce = cgm_fault_hit() ? CGM_CUDA_INJECTED : (call);                                \
    if (_ce != cudaSuccess) {                                                                      \
      st = CGM_CUDA_FAIL(err, _ce, #call);                                                         \
      goto label;                                                                                  \
    }                                                                                              \
  } while (0)

/* f(g, &d[g]) for every device g of d[0, n) (anything with a .dev), each made current first: the
 * first failure returned, the devices after it not visited. The per-device loops of the solver. */
template <typename D, typename F> static cudaError_t cgm_each_device(D *d, int n, F f) {
  for (int g = 0; g < n; g++) {
    cudaError_t e = cudaSetDevice(d[g].dev);
    if (e == cudaSuccess) e = f(g, &d[g]);
    if (e) return e;
  }
  return cudaSuccess;
}
