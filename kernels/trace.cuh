/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A diagnostic timeline of the multi-GPU iteration (configure with
 * -DCGMODEL_TRACE=ON; off by default, and then every call is empty).
 * Thread 0 of block 0 stamps a kernel's entry and the end of its wait, the
 * last block its end (%globaltimer, ns); cg_cuda.cu writes the stamps of
 * each device to $CGMODEL_TRACE_FILE after a solve (bench/trace_timeline.py
 * reads them). */
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
