/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Kernel launches, optionally with programmatic dependent launch (PDL, sm_90): with `overlap` a
 * kernel may be scheduled while its predecessor drains, hiding the launch gaps of an iteration.
 * Every kernel launched so starts with pdl_begin (device_util.cuh): it touches nothing before its
 * predecessor has finished. */
#pragma once

#include <cuda_runtime.h>

namespace cgm {

template <typename... P, typename... A>
static cudaError_t launch_k(bool overlap, void (*kernel)(P...), int blocks, int threads,
                            cudaStream_t s, A... args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3((unsigned)blocks);
  cfg.blockDim = dim3((unsigned)threads);
  cfg.stream = s;
  cudaLaunchAttribute at[1] = {};
  at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  at[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = at;
  cfg.numAttrs = overlap ? 1 : 0;
  cudaError_t e = cudaLaunchKernelEx(&cfg, kernel, args...);
  cudaError_t last = cudaGetLastError(); /* clears what the launch left */
  return e != cudaSuccess ? e : last;
}

} // namespace cgm
