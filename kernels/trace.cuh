/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A diagnostic timeline of the multi-GPU iteration (-DCGMODEL_TRACE=ON;
 * otherwise every call is empty): kernels' entries, waits and ends stamped
 * (%globaltimer, ns), written to the trace file after a solve. */
#ifndef CGM_KERNELS_TRACE_CUH
#define CGM_KERNELS_TRACE_CUH

#include "kernels/kernels.h"

namespace cgm {

__device__ __forceinline__ void trace_at(const cgm_cg_state *st, int what) {
#ifdef CGM_TRACE
  if (!st || !st->trace) return;
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  unsigned long long i = atomicAdd(st->trace + what, 1ull);
  st->trace[CGM_TR_N + (unsigned long long)what * CGM_TRACE_LEN + i % CGM_TRACE_LEN] = t;
#else
  (void)st;
  (void)what;
#endif
}

/* Block 0's thread 0 only. */
__device__ __forceinline__ void trace_first(const cgm_cg_state *st, int what) {
#ifdef CGM_TRACE
  if (blockIdx.x == 0 && threadIdx.x == 0) trace_at(st, what);
#else
  (void)st;
  (void)what;
#endif
}

} // namespace cgm

#endif
