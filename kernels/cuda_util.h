/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Error handling for CUDA host code: every runtime call and every launch is
 * checked and turned into a cgm_error naming the call, file and line. */
#ifndef CGM_KERNELS_CUDA_UTIL_H
#define CGM_KERNELS_CUDA_UTIL_H

#include <cuda_runtime.h>

#include "cgmodel/status.h"
#include "common/fault.h"

/* A grid-stride loop in a kernel: i over [0, n) by the whole grid. */
#define CGM_GRID_LOOP(i, n)                                                                        \
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < (n);                        \
       i += (int64_t)gridDim.x * blockDim.x)

/* The injected failure of common/fault.h: not sticky, the call not made. */
#define CGM_CUDA_INJECTED cudaErrorMemoryAllocation

#define CGM_CUDA_TRY(err, call)                                                                    \
  do {                                                                                             \
    cudaError_t _ce = cgm_fault_hit() ? CGM_CUDA_INJECTED : (call);                                \
    if (_ce != cudaSuccess) {                                                                      \
      (void)cudaGetLastError(); /* clear sticky-free errors so later calls can report */           \
      return cgm_fail((err), CGM_ERUNTIME, "CUDA error %s (%s) in %s at %s:%d",                    \
                      cudaGetErrorName(_ce), cudaGetErrorString(_ce), #call, __FILE__, __LINE__);  \
    }                                                                                              \
  } while (0)

/* Same, but records the failure in `st` and jumps to `label` for cleanup. */
#define CGM_CUDA_GOTO(st, err, label, call)                                                        \
  do {                                                                                             \
    cudaError_t _ce = cgm_fault_hit() ? CGM_CUDA_INJECTED : (call);                                \
    if (_ce != cudaSuccess) {                                                                      \
      (void)cudaGetLastError();                                                                    \
      st = cgm_fail((err), CGM_ERUNTIME, "CUDA error %s (%s) in %s at %s:%d",                      \
                    cudaGetErrorName(_ce), cudaGetErrorString(_ce), #call, __FILE__, __LINE__);    \
      goto label;                                                                                  \
    }                                                                                              \
  } while (0)

#endif
