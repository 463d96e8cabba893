/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The vendor baseline: the same Jacobi-PCG written the way a user of
 * cuSPARSE and cuBLAS would write it (like CuPy's cg): cusparseSpMV on CSR,
 * cuBLAS dot/axpy/scal with the scalars on the host (each dot waits for the
 * GPU), and one small kernel for z = D^-1 r. It is the peer our solver is
 * measured against and a candidate the tuner may pick. cuSPARSE and cuBLAS
 * are called through the tables of vendor_libs.h (cs, cb), opened on the
 * first solve with this backend. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/timer.h"
#include "solver/backend.h"
#include "kernels/cuda_util.h"
#include "kernels/stage.h"
#include "solver/cuda/vendor_libs.h"

/* cs: run's cuSPARSE table, for the status's name */
#define CUSPARSE_TRY(err, call)                                                                    \
  do {                                                                                             \
    cusparseStatus_t _s = (call);                                                                  \
    if (_s != CUSPARSE_STATUS_SUCCESS) {                                                           \
      st = cgm_fail((err), CGM_ERUNTIME, "cuSPARSE error %s in %s at %s:%d",                       \
                    cs->cusparseGetErrorString(_s), #call, __FILE__, __LINE__);                    \
      goto out;                                                                                    \
    }                                                                                              \
  } while (0)
#define CUBLAS_TRY(err, call)                                                                      \
  do {                                                                                             \
    cublasStatus_t _s = (call);                                                                    \
    if (_s != CUBLAS_STATUS_SUCCESS) {                                                             \
      st = cgm_fail((err), CGM_ERUNTIME, "cuBLAS error %d in %s at %s:%d", (int)_s, #call,         \
                    __FILE__, __LINE__);                                                           \
      goto out;                                                                                    \
    }                                                                                              \
  } while (0)

namespace {

template <typename T> __global__ void jacobi(int64_t n, const T *d, const T *r, T *z) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    z[i] = d[i] * r[i];
}

/* cuBLAS by precision. */
cublasStatus_t dot(const cgm_cublas_fns *cb, cublasHandle_t h, int n, const double *x,
                   const double *y, double *out) {
  return cb->cublasDdot(h, n, x, 1, y, 1, out);
}
cublasStatus_t dot(const cgm_cublas_fns *cb, cublasHandle_t h, int n, const float *x,
                   const float *y, double *out) {
  float o = 0;
  cublasStatus_t s = cb->cublasSdot(h, n, x, 1, y, 1, &o);
  *out = o;
  return s;
}
cublasStatus_t axpy(const cgm_cublas_fns *cb, cublasHandle_t h, int n, double a, const double *x,
                    double *y) {
  return cb->cublasDaxpy(h, n, &a, x, 1, y, 1);
}
cublasStatus_t axpy(const cgm_cublas_fns *cb, cublasHandle_t h, int n, double a, const float *x,
                    float *y) {
  float af = (float)a;
  return cb->cublasSaxpy(h, n, &af, x, 1, y, 1);
}
cublasStatus_t scal(const cgm_cublas_fns *cb, cublasHandle_t h, int n, double a, double *x) {
  return cb->cublasDscal(h, n, &a, x, 1);
}
cublasStatus_t scal(const cgm_cublas_fns *cb, cublasHandle_t h, int n, double a, float *x) {
  float af = (float)a;
  return cb->cublasSscal(h, n, &af, x, 1);
}

template <typename T>
cgm_status run(const cgm_problem *pb, const cgm_cusparse_fns *cs, const cgm_cublas_fns *cb,
               cgm_solve_result *res, cgm_error *err) {
  const cgm_csr *A = pb->A;
  const int n = A->nrows;
  const cudaDataType dt = sizeof(T) == 4 ? CUDA_R_32F : CUDA_R_64F;
  const bool idx64 = A->nnz > INT32_MAX;
  const cusparseIndexType_t it = idx64 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
  cgm_status st = CGM_OK;
  cusparseHandle_t sp = NULL;
  cublasHandle_t bl = NULL;
  cusparseSpMatDescr_t mat = NULL;
  cusparseDnVecDescr_t vp = NULL, vq = NULL, vx = NULL, vr = NULL;
  void *rowptr = NULL, *colidx = NULL, *buf = NULL, *hidx = NULL;
  T *val = NULL, *x = NULL, *r = NULL, *z = NULL, *p = NULL, *q = NULL, *dinv = NULL;
  T *hv = NULL;
  double *times = NULL;
  size_t bufsize = 0;
  const size_t w = sizeof(T), idxw = idx64 ? 8 : 4;
  cgm_cuda_context_ready(0);
  double t0 = cgm_now();
  int ntimed = pb->maxiter < CGM_MAX_TIMED ? pb->maxiter : CGM_MAX_TIMED, itn = 0;
  double rz = 0, rr = 0, pq = 0;
  const T one = 1, minus_one = -1, zero = 0;

  CGM_CUDA_GOTO(st, err, out, cudaSetDevice(0));
  {
    cudaDeviceProp prop;
    CGM_CUDA_GOTO(st, err, out, cudaGetDeviceProperties(&prop, 0));
    snprintf(res->device, sizeof res->device, "%s", prop.name);
    size_t fr, tot;
    CGM_CUDA_GOTO(st, err, out, cudaMemGetInfo(&fr, &tot));
    int64_t need = A->nnz * (int64_t)(w + idxw) + ((int64_t)n + 1) * (int64_t)idxw +
                   6 * (int64_t)n * (int64_t)w;
    if (need > (int64_t)fr - (256 << 20)) {
      st = cgm_fail(err, CGM_EINPUT,
                    "the matrix does not fit on GPU 0 for cuSPARSE: needs %.2f GiB, %.2f GiB free",
                    need / 1073741824.0, fr / 1073741824.0);
      goto out;
    }
  }
  CGM_CUDA_GOTO(st, err, out, cudaMalloc(&rowptr, ((size_t)n + 1) * idxw));
  CGM_CUDA_GOTO(st, err, out, cudaMalloc(&colidx, (size_t)A->nnz * idxw + 8));
  CGM_CUDA_GOTO(st, err, out, cudaMalloc((void **)&val, (size_t)A->nnz * w + 8));
  {
    T **vecs[] = {&x, &r, &z, &p, &q, &dinv};
    for (int i = 0; i < 6; i++)
      CGM_CUDA_GOTO(st, err, out, cudaMalloc((void **)vecs[i], (size_t)n * w));
  }
  res->device_bytes =
      (int64_t)(((size_t)n + 1) * idxw + (size_t)A->nnz * (idxw + w) + 6 * (size_t)n * w);
  /* Upload: indices in the width cuSPARSE gets, values in the precision. */
  hidx = malloc(((size_t)(A->nnz > n ? A->nnz : n) + 1) * idxw);
  hv = (T *)malloc(((size_t)(A->nnz > n ? A->nnz : n) + 1) * w);
  if (!hidx || !hv) {
    st = cgm_fail(err, CGM_ERUNTIME, "out of host memory");
    goto out;
  }
  /* the conversions on every core (stage.c): one core took ~0.3 s for the
   * 117M entries of Poisson 256^3, a calibration's largest grid */
  if (idx64)
    memcpy(hidx, A->rowptr, ((size_t)n + 1) * 8);
  else
    cgm_stage_narrow((int32_t *)hidx, A->rowptr, (size_t)n + 1);
  CGM_CUDA_GOTO(st, err, out,
                cudaMemcpy(rowptr, hidx, ((size_t)n + 1) * idxw, cudaMemcpyHostToDevice));
  if (idx64) cgm_stage_widen((int64_t *)hidx, A->colidx, (size_t)A->nnz);
  CGM_CUDA_GOTO(st, err, out,
                cudaMemcpy(colidx, idx64 ? hidx : (const void *)A->colidx, (size_t)A->nnz * idxw,
                           cudaMemcpyHostToDevice));
  if (w == 4) cgm_stage_fill(hv, A->val, (size_t)A->nnz, 1);
  CGM_CUDA_GOTO(st, err, out,
                cudaMemcpy(val, w == 4 ? (const void *)hv : (const void *)A->val,
                           (size_t)A->nnz * w, cudaMemcpyHostToDevice));
  {
    double *d = (double *)malloc((size_t)n * sizeof *d);
    if (!d) {
      st = cgm_fail(err, CGM_ERUNTIME, "out of host memory");
      goto out;
    }
    cgm_csr_diagonal(A, d);
    cgm_stage_slice(d, d, 0, n, n, 1, 0.0); /* in place: 1 / d */
    if (w == 4) cgm_stage_fill(hv, d, (size_t)n, 1);
    const cudaError_t e = cudaMemcpy(dinv, w == 4 ? (const void *)hv : (const void *)d,
                                     (size_t)n * w, cudaMemcpyHostToDevice);
    free(d);
    CGM_CUDA_GOTO(st, err, out, e);
  }
  if (w == 4) cgm_stage_fill(hv, pb->b, (size_t)n, 1);
  CGM_CUDA_GOTO(st, err, out,
                cudaMemcpy(r, w == 4 ? (const void *)hv : (const void *)pb->b, (size_t)n * w,
                           cudaMemcpyHostToDevice));
  if (w == 4) cgm_stage_fill(hv, pb->x, (size_t)n, 1);
  CGM_CUDA_GOTO(st, err, out,
                cudaMemcpy(x, w == 4 ? (const void *)hv : (const void *)pb->x, (size_t)n * w,
                           cudaMemcpyHostToDevice));

  CUSPARSE_TRY(err, cs->cusparseCreate(&sp));
  CUBLAS_TRY(err, cb->cublasCreate(&bl));
  CUSPARSE_TRY(err, cs->cusparseCreateCsr(&mat, n, n, A->nnz, rowptr, colidx, val, it, it,
                                          CUSPARSE_INDEX_BASE_ZERO, dt));
  CUSPARSE_TRY(err, cs->cusparseCreateDnVec(&vp, n, p, dt));
  CUSPARSE_TRY(err, cs->cusparseCreateDnVec(&vq, n, q, dt));
  CUSPARSE_TRY(err, cs->cusparseCreateDnVec(&vx, n, x, dt));
  CUSPARSE_TRY(err, cs->cusparseCreateDnVec(&vr, n, r, dt));
  CUSPARSE_TRY(err,
               cs->cusparseSpMV_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vp,
                                           &zero, vq, dt, CUSPARSE_SPMV_ALG_DEFAULT, &bufsize));
  CGM_CUDA_GOTO(st, err, out, cudaMalloc(&buf, bufsize ? bufsize : 16));

  /* r = b - A x; z = D^-1 r; p = z */
  CUSPARSE_TRY(err, cs->cusparseSpMV(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &minus_one, mat, vx,
                                     &one, vr, dt, CUSPARSE_SPMV_ALG_DEFAULT, buf));
  jacobi<T><<<1024, 256>>>(n, dinv, r, z);
  CGM_CUDA_GOTO(st, err, out, cudaGetLastError());
  CGM_CUDA_GOTO(st, err, out, cudaMemcpy(p, z, (size_t)n * w, cudaMemcpyDeviceToDevice));
  CUBLAS_TRY(err, dot(cb, bl, n, r, z, &rz));
  CUBLAS_TRY(err, dot(cb, bl, n, r, r, &rr));
  res->time_setup_s = cgm_now() - t0;
  times = (double *)malloc(((size_t)ntimed + 1) * sizeof *times);
  if (!times) {
    st = cgm_fail(err, CGM_ERUNTIME, "out of host memory");
    goto out;
  }
  st = CGM_ENOCONV;
  {
    double tstart = cgm_now(), tprev = tstart;
    if (sqrt(rr) / pb->bnorm <= pb->tol) st = CGM_OK;
    while (st != CGM_OK && itn < pb->maxiter) {
      CUSPARSE_TRY(err, cs->cusparseSpMV(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vp, &zero,
                                         vq, dt, CUSPARSE_SPMV_ALG_DEFAULT, buf));
      CUBLAS_TRY(err, dot(cb, bl, n, p, q, &pq));
      if (!(pq > 0) || !isfinite(pq)) {
        snprintf(
            res->stop_reason, sizeof res->stop_reason,
            "CG breakdown after %d iterations: p'Ap = %.3g, the matrix is not positive definite",
            itn, pq);
        break;
      }
      double alpha = rz / pq;
      CUBLAS_TRY(err, axpy(cb, bl, n, alpha, p, x));
      CUBLAS_TRY(err, axpy(cb, bl, n, -alpha, q, r));
      CUBLAS_TRY(err, dot(cb, bl, n, r, r, &rr));
      itn++;
      if (!isfinite(rr)) {
        snprintf(res->stop_reason, sizeof res->stop_reason, "NaN or Inf at iteration %d", itn);
        break;
      }
      if (sqrt(rr) / pb->bnorm <= pb->tol)
        st = CGM_OK;
      else {
        jacobi<T><<<1024, 256>>>(n, dinv, r, z);
        CGM_CUDA_GOTO(st, err, out, cudaGetLastError());
        double rz_new;
        CUBLAS_TRY(err, dot(cb, bl, n, r, z, &rz_new));
        double beta = rz_new / rz;
        rz = rz_new;
        CUBLAS_TRY(err, scal(cb, bl, n, beta, p));
        CUBLAS_TRY(err, axpy(cb, bl, n, 1.0, z, p));
      }
      double now = cgm_now();
      if (itn <= ntimed) times[itn - 1] = now - tprev;
      tprev = now;
    }
    CGM_CUDA_GOTO(st, err, out, cudaDeviceSynchronize());
    res->time_solve_s = cgm_now() - tstart;
  }
  res->iterations = itn;
  res->solver_residual = sqrt(rr) / pb->bnorm;
  res->converged = st == CGM_OK;
  if (st != CGM_OK && !res->stop_reason[0])
    snprintf(res->stop_reason, sizeof res->stop_reason,
             "maximum of %d iterations reached with relative residual %.3g (target %.3g)",
             pb->maxiter, res->solver_residual, pb->tol);
  {
    int nt = itn < ntimed ? itn : ntimed;
    res->time_per_iter_s = nt > 1 ? cgm_median(times + 1, nt - 1) : (nt ? times[0] : 0.0);
  }
  CGM_CUDA_GOTO(
      st, err, out,
      cudaMemcpy(w == 4 ? (void *)hv : (void *)pb->x, x, (size_t)n * w, cudaMemcpyDeviceToHost));
  if (w == 4) cgm_stage_to_double(pb->x, (const float *)hv, (size_t)n);
out:
  if (vp) cs->cusparseDestroyDnVec(vp);
  if (vq) cs->cusparseDestroyDnVec(vq);
  if (vx) cs->cusparseDestroyDnVec(vx);
  if (vr) cs->cusparseDestroyDnVec(vr);
  if (mat) cs->cusparseDestroySpMat(mat);
  if (sp) cs->cusparseDestroy(sp);
  if (bl) cb->cublasDestroy(bl);
  void *ptrs[] = {rowptr, colidx, buf, val, x, r, z, p, q, dinv};
  for (size_t i = 0; i < sizeof ptrs / sizeof *ptrs; i++) cudaFree(ptrs[i]);
  free(hidx);
  free(hv);
  free(times);
  return st;
}

} // namespace

extern "C" cgm_status cgm_cusparse_cg(const cgm_problem *pb, cgm_solve_result *res,
                                      cgm_error *err) {
  if (pb->opts.gpus > 1)
    return cgm_fail(err, CGM_EINPUT, "gpus %d: the cusparse backend runs on one GPU",
                    pb->opts.gpus);
  if (cgm_cuda_device_count() < 1) return cgm_fail(err, CGM_ERUNTIME, "no CUDA device is present");
  const cgm_cusparse_fns *cs;
  const cgm_cublas_fns *cb;
  cgm_status st = cgm_cusparse_load(&cs, err);
  if (st == CGM_OK) st = cgm_cublas_load(&cb, err);
  if (st != CGM_OK) return st;
  return pb->opts.precision == CGM_PREC_SINGLE ? run<float>(pb, cs, cb, res, err)
                                               : run<double>(pb, cs, cb, res, err);
}
