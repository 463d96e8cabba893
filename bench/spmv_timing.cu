/* SPDX-License-Identifier: GPL-3.0-or-later */
/* CUDA timings for cg_bench: the solver's SpMV kernel on its own, and the
 * copy ceiling. */
#include <stdlib.h>

#include "bench/spmv_timing.h"
#include "common/timer.h"
#include "kernels/cuda_dev.h"
#include "kernels/cuda_util.h"

/* Times `reps` launches of enqueue() with events, after 3 warm-up runs. */
template <typename F>
static cgm_status time_median(cudaStream_t s, int reps, F enqueue, double *median_s,
                              cgm_error *err) {
  cudaEvent_t a, b;
  CGM_CUDA_TRY(err, cudaEventCreate(&a));
  CGM_CUDA_TRY(err, cudaEventCreate(&b));
  double *t = (double *)malloc(sizeof(double) * (reps > 0 ? reps : 1));
  cgm_status st = CGM_OK;
  if (!t) {
    st = cgm_fail(err, CGM_ERUNTIME, "out of host memory");
    goto out;
  }
  for (int i = 0; i < 3; i++) CGM_CUDA_GOTO(st, err, out, enqueue());
  for (int i = 0; i < reps; i++) {
    CGM_CUDA_GOTO(st, err, out, cudaEventRecord(a, s));
    CGM_CUDA_GOTO(st, err, out, enqueue());
    CGM_CUDA_GOTO(st, err, out, cudaEventRecord(b, s));
    CGM_CUDA_GOTO(st, err, out, cudaEventSynchronize(b));
    float ms;
    CGM_CUDA_GOTO(st, err, out, cudaEventElapsedTime(&ms, a, b));
    t[i] = ms * 1e-3;
  }
  *median_s = cgm_median(t, reps);
out:
  free(t);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return st;
}

extern "C" cgm_status cgm_mb_spmv_seconds(int dev, const cgm_bcsr *B, cgm_precision prec, int reps,
                                          double *median_s, cgm_error *err) {
  cgm_status st = cgm_spmv_supported(B->p.n, B->p.bx, B->p.by, prec, err);
  if (st) return st;
  cgm_cuda_dev d;
  int64_t xlen = (int64_t)B->nbcols * B->p.n;
  double *x = (double *)malloc(sizeof(double) * (size_t)(xlen > 0 ? xlen : 1));
  if (!x) return cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  for (int64_t i = 0; i < xlen; i++) x[i] = 1.0 + 0.25 * (double)((i * 2654435761u) % 1000) / 1000;
  st = cgm_cuda_dev_init(&d, dev, prec, (int64_t)B->nbrows * B->p.n, xlen, err);
  if (!st) st = cgm_cuda_matrix_upload(&d, B, &d.A, err);
  if (!st) st = cgm_cuda_upload_vec(&d, d.v, x, xlen, err);
  if (!st) {
    cgm_out dot = {};
    dot.p[0] = d.dot_tmp;
    dot.n = 1;
    auto launch = [&]() {
      return cgm_launch_spmv(&d.A.L, prec, d.v, d.u, d.v, &dot, NULL, cgm_cuda_red(&d, 0), NULL,
                             NULL, d.sms, d.stream);
    };
    st = time_median(d.stream, reps, launch, median_s, err);
  }
  free(x);
  cgm_cuda_dev_free(&d);
  return st;
}

extern "C" cgm_status cgm_mb_copy_bandwidth(int dev, int64_t bytes, int reps, double *bytes_per_s,
                                            cgm_error *err) {
  CGM_CUDA_TRY(err, cudaSetDevice(dev));
  void *a = NULL, *b = NULL;
  cudaStream_t s = NULL;
  cgm_status st = CGM_OK;
  double med = 0;
  CGM_CUDA_GOTO(st, err, out, cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CGM_CUDA_GOTO(st, err, out, cudaMalloc(&a, (size_t)bytes));
  CGM_CUDA_GOTO(st, err, out, cudaMalloc(&b, (size_t)bytes));
  CGM_CUDA_GOTO(st, err, out, cudaMemsetAsync(a, 0x3f, (size_t)bytes, s)); /* not zeros */
  {
    auto copy = [&]() { return cudaMemcpyAsync(b, a, (size_t)bytes, cudaMemcpyDeviceToDevice, s); };
    st = time_median(s, reps, copy, &med, err);
  }
  if (!st) *bytes_per_s = 2.0 * (double)bytes / med;
out:
  cudaFree(a);
  cudaFree(b);
  if (s) cudaStreamDestroy(s);
  return st;
}
