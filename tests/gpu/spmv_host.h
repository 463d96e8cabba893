/* SPDX-License-Identifier: GPL-3.0-or-later */
/* y = B x on device dev with our SpMV kernel over values stored as vs says
 * (NULL: full), for the GPU tests: x has nbcols * N entries, y nbrows * N.
 * When dot is non-NULL it receives the fused x . y over the layout's rows
 * (x must then be square-indexed). */
#ifndef CGM_TESTS_GPU_SPMV_HOST_H
#define CGM_TESTS_GPU_SPMV_HOST_H

#include <string.h>

#include "kernels/cuda_dev.h"

static cgm_status spmv_host(int dev, const cgm_bcsr *B, cgm_precision prec, const cgm_value_set *vs,
                            const double *x, double *y, double *dot, cgm_error *err) {
  cgm_cuda_dev d;
  const int64_t xlen = (int64_t)B->nbcols * B->p.n;
  cgm_status st = cgm_spmv_supported(B->p.n, B->p.bx, B->p.by, prec, err);
  if (st) return st;
  st = cgm_cuda_dev_init(&d, dev, prec, (int64_t)B->nbrows * B->p.n, xlen, err);
  if (vs) d.vs = *vs;
  if (!st) st = cgm_cuda_matrix_upload(&d, B, &d.A, err);
  if (!st) st = cgm_cuda_upload_vec(&d, d.v, x, xlen, err);
  if (!st) {
    cgm_out o;
    memset(&o, 0, sizeof o);
    o.p[0] = d.dot_tmp;
    o.n = 1;
    cudaError_t e = cgm_launch_spmv(&d.A.L, prec, d.v, d.u, d.v, &o, NULL, cgm_cuda_red(&d, 0),
                                    NULL, NULL, d.sms, d.stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(d.stream);
    if (e == cudaSuccess && dot)
      e = cudaMemcpy(dot, d.dot_tmp, sizeof *dot, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) st = cgm_fail(err, CGM_ERUNTIME, "spmv: %s", cudaGetErrorString(e));
  }
  if (!st) st = cgm_cuda_download_vec(&d, d.u, y, d.rows, err);
  cgm_cuda_dev_free(&d);
  return st;
}

#endif
