/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reliable updates on one GPU (gpu_solver.h): the true residual b - A x (mixed: in double, x folded
 * into x_hi) replaces the iterated one between two graphs. */
#include <math.h>

#include "solver/cuda/gpu_solver.h"

cudaError_t gs_spmv_whole(cgm_cuda_dev *d, cgm_precision p, bool hi, const void *x, void *y) {
  cudaError_t e = cgm_launch_spmv(hi ? &d->A.L_hi : &d->A.L, p, x, y, NULL, NULL, NULL,
                                  cgm_cuda_red(d, 0), NULL, NULL, d->sms, d->stream);
  if (e == cudaSuccess && d->B.present) /* the halo's boundary rows (several GPUs: CG1 only) */
    e = cgm_launch_spmv(hi ? &d->B.L_hi : &d->B.L, p, x, y, NULL, NULL, NULL, cgm_cuda_red(d, 3),
                        NULL, NULL, d->sms, d->stream);
  if (e == cudaSuccess && d->C.present) /* the long rows */
    e = cgm_launch_spmv(hi ? &d->C.L_hi : &d->C.L, p, x, y, NULL, NULL, NULL,
                        cgm_cuda_red(d, CGM_RED_LONG), NULL, NULL, d->sms, d->stream);
  return e;
}

cgm_status gs_replace(gpu_solver *S, int restart, double *rt, double *xn, cgm_error *err) {
  cgm_cuda_dev *d = &S->dev[0];
  const cgm_reduce_buf red = cgm_cuda_red(d, CGM_RED_RELIABLE);
  /* Where the iteration keeps its residual: cgg preconditioned in v (the
   * vector its SpMV reads) with s = A p beside; Algorithm 2 in r, with its
   * direction in v (restarted from the new residual after a claim). */
  void *z = S->pol.cgg ? d->v : d->r, *v = S->pol.cgg || !restart ? NULL : d->v;
  const void *sp = S->pol.cgg ? d->s : NULL;
  CGM_CUDA_TRY(err, cudaSetDevice(d->dev));
  if (d->mixed) {
    CGM_CUDA_TRY(err, cgm_launch_fold(d->rows, d->x_hi, (float *)d->x, d->dot_tmp + 3, red, d->sms,
                                      d->stream));
    CGM_CUDA_TRY(err, gs_spmv_whole(d, CGM_PREC_DOUBLE, true, d->x_hi, d->y_hi));
    CGM_CUDA_TRY(err, cgm_launch_replace(CGM_PREC_DOUBLE, CGM_PREC_SINGLE, d->rows, S->pol.cgg,
                                         d->b, d->y_hi, d->dinv, &d->bj, z, v, NULL, sp, d->dot_tmp,
                                         red, d->sms, d->stream));
  } else {
    /* u (A's product's place) is free between iterations: A x goes there */
    CGM_CUDA_TRY(err, gs_spmv_whole(d, S->prec, !S->vs.exact, d->x, d->u));
    CGM_CUDA_TRY(err,
                 cgm_launch_replace(S->prec, S->prec, d->rows, S->pol.cgg, d->b, d->u, d->dinv,
                                    &d->bj, z, v, d->x, sp, d->dot_tmp, red, d->sms, d->stream));
  }
  CGM_CUDA_TRY(err, cgm_launch_resume(d->state, d->dot_tmp, S->pol.cgg, restart, d->stream));
  double out[5];
  const cgm_status st = cgm_cuda_download_double(d, d->dot_tmp, out, 5, err);
  if (!st) *rt = sqrt(out[0]), *xn = sqrt(out[3]);
  return st;
}

cgm_status gs_probe(gpu_solver *S, double *rt, double *xn, double *dxn, cgm_error *err) {
  cgm_cuda_dev *d = &S->dev[0];
  const cgm_reduce_buf red = cgm_cuda_red(d, CGM_RED_RELIABLE);
  if (d->mixed || S->prec != CGM_PREC_DOUBLE)
    return cgm_fail(err, CGM_ERUNTIME, "the floor probe runs in double precision only");
  CGM_CUDA_TRY(err, cudaSetDevice(d->dev));
  /* A x into u (free between iterations), then b - u over it: the replace
   * kernel without a direction, reading each y[i] before it writes z[i] */
  CGM_CUDA_TRY(err, gs_spmv_whole(d, S->prec, !S->vs.exact, d->x, d->u));
  CGM_CUDA_TRY(err, cgm_launch_replace(S->prec, S->prec, d->rows, 0, d->b, d->u, d->dinv, &d->bj,
                                       d->u, NULL, d->x, NULL, d->dot_tmp, red, d->sms, d->stream));
  CGM_CUDA_TRY(err, cgm_launch_diag_norm(d->rows, (const double *)d->x, (const double *)d->dinv,
                                         d->dot_tmp + 5, cgm_cuda_red(d, 0), d->sms, d->stream));
  double out[6];
  const cgm_status st = cgm_cuda_download_double(d, d->dot_tmp, out, 6, err);
  if (!st) *rt = sqrt(out[0]), *xn = sqrt(out[3]), *dxn = sqrt(out[5]);
  return st;
}
