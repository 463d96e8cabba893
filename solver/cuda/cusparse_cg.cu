/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The vendor baseline: the same Jacobi-PCG written the way a user of cuSPARSE and cuBLAS would
 * write it (like CuPy's cg): cusparseSpMV on CSR, cuBLAS dot/axpy/scal with the scalars on the host
 * (each dot waits for the GPU), and one small kernel for z = D^-1 r. It is the peer our solver is
 * measured against and a candidate the tuner may pick. cuSPARSE and cuBLAS are called through the
 * tables of vendor_libs.h (cs, cb), opened on the first solve with this backend. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/timer.h"
#include "solver/backend.h"
#include "kernels/cuda_util.h"
#include "kernels/stage.h"
#include "solver/cuda/vendor_libs.h"

/* cs: the cuSPARSE table in scope, for the status's name */
#define CUSPARSE_TRY(err, call)                                                                    \
  do {                                                                                             \
    cusparseStatus_t _s = (call);                                                                  \
    if (_s != CUSPARSE_STATUS_SUCCESS)                                                             \
      return cgm_fail((err), CGM_ERUNTIME, "cuSPARSE error %s in %s at %s:%d",                     \
                      cs->cusparseGetErrorString(_s), #call, __FILE__, __LINE__);                  \
  } while (0)
#define CUBLAS_TRY(err, call)                                                                      \
  do {                                                                                             \
    cublasStatus_t _s = (call);                                                                    \
    if (_s != CUBLAS_STATUS_SUCCESS)                                                               \
      return cgm_fail((err), CGM_ERUNTIME, "cuBLAS error %d in %s at %s:%d", (int)_s, #call,       \
                      __FILE__, __LINE__);                                                         \
  } while (0)

namespace {

template <typename T> __global__ void jacobi(int64_t n, const T *d, const T *r, T *z) {
  CGM_GRID_LOOP(i, n) z[i] = d[i] * r[i];
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

/* One solve: the libraries' tables and handles, the descriptors, and the
 * arrays on the GPU and their staging on the host (freed by release). */
template <typename T> struct cs_solve {
  const cgm_cusparse_fns *cs;
  const cgm_cublas_fns *cb;
  int n;
  bool idx64; /* 64-bit indices: more nonzeros than int32 holds */
  cudaDataType dt;
  cusparseHandle_t sp;
  cublasHandle_t bl;
  cusparseSpMatDescr_t mat;
  cusparseDnVecDescr_t vp, vq, vx, vr;
  void *rowptr, *colidx, *buf, *hidx;
  T *val, *x, *r, *z, *p, *q, *dinv;
  T *hv; /* the host's copies in T */
};

/* n doubles of src to dst in T (float: converted through hv first). */
template <typename T> cudaError_t put(T *dst, const double *src, size_t n, T *hv) {
  if (sizeof(T) == 4) cgm_stage_fill(hv, src, n, 1);
  return cudaMemcpy(dst, sizeof(T) == 4 ? (const void *)hv : (const void *)src, n * sizeof(T),
                    cudaMemcpyHostToDevice);
}

/* GPU 0's name, room there for A and six vectors, and their memory. */
template <typename T>
cgm_status allocate(cs_solve<T> *R, const cgm_csr *A, cgm_solve_result *res, cgm_error *err) {
  const int n = R->n;
  const size_t w = sizeof(T), idxw = R->idx64 ? 8 : 4;
  CGM_CUDA_TRY(err, cudaSetDevice(0));
  cudaDeviceProp prop;
  CGM_CUDA_TRY(err, cudaGetDeviceProperties(&prop, 0));
  snprintf(res->device, sizeof res->device, "%s", prop.name);
  size_t fr, tot;
  CGM_CUDA_TRY(err, cudaMemGetInfo(&fr, &tot));
  const int64_t need = /* the CSR and six vectors */
      A->nnz * (int64_t)(w + idxw) + ((int64_t)n + 1) * (int64_t)idxw + 6 * (int64_t)n * (int64_t)w;
  if (need > (int64_t)fr - (256 << 20))
    return cgm_fail(err, CGM_EINPUT,
                    "the matrix does not fit on GPU 0 for cuSPARSE: needs %.2f GiB, %.2f GiB free",
                    need / 1073741824.0, fr / 1073741824.0);
  CGM_CUDA_TRY(err, cudaMalloc(&R->rowptr, ((size_t)n + 1) * idxw));
  CGM_CUDA_TRY(err, cudaMalloc(&R->colidx, (size_t)A->nnz * idxw + 8));
  CGM_CUDA_TRY(err, cudaMalloc((void **)&R->val, (size_t)A->nnz * w + 8));
  T **vecs[] = {&R->x, &R->r, &R->z, &R->p, &R->q, &R->dinv};
  for (int i = 0; i < 6; i++) CGM_CUDA_TRY(err, cudaMalloc((void **)vecs[i], (size_t)n * w));
  res->device_bytes = need;
  return CGM_OK;
}

/* A (values in T), D^-1, b into r and x0 to the GPU. */
template <typename T> cgm_status upload(cs_solve<T> *R, const cgm_problem *pb, cgm_error *err) {
  const cgm_csr *A = pb->A;
  const int n = R->n;
  const size_t w = sizeof(T), idxw = R->idx64 ? 8 : 4;
  R->hidx = malloc(((size_t)(A->nnz > n ? A->nnz : n) + 1) * idxw);
  R->hv = (T *)malloc(((size_t)(A->nnz > n ? A->nnz : n) + 1) * w);
  if (!R->hidx || !R->hv) return cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  /* the conversions on every core (stage.c) */
  if (R->idx64)
    memcpy(R->hidx, A->rowptr, ((size_t)n + 1) * 8);
  else
    cgm_stage_narrow((int32_t *)R->hidx, A->rowptr, (size_t)n + 1);
  CGM_CUDA_TRY(err, cudaMemcpy(R->rowptr, R->hidx, ((size_t)n + 1) * idxw, cudaMemcpyHostToDevice));
  if (R->idx64) cgm_stage_widen((int64_t *)R->hidx, A->colidx, (size_t)A->nnz);
  CGM_CUDA_TRY(err, cudaMemcpy(R->colidx, R->idx64 ? R->hidx : (const void *)A->colidx,
                               (size_t)A->nnz * idxw, cudaMemcpyHostToDevice));
  CGM_CUDA_TRY(err, put(R->val, A->val, (size_t)A->nnz, R->hv));
  double *d = (double *)malloc((size_t)n * sizeof *d);
  if (!d) return cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  const cgm_stage_rows_src inv = {NULL, A, 0, n, 0.0, 0}; /* 1 / A's diagonal */
  cgm_stage_rows(d, 0, (size_t)n, &inv);
  const cudaError_t e = put(R->dinv, d, (size_t)n, R->hv);
  free(d);
  CGM_CUDA_TRY(err, e);
  CGM_CUDA_TRY(err, put(R->r, pb->b, (size_t)n, R->hv));
  CGM_CUDA_TRY(err, put(R->x, pb->x, (size_t)n, R->hv));
  return CGM_OK;
}

/* The handles, the descriptors of A and the vectors, the SpMV's buffer. */
template <typename T> cgm_status describe(cs_solve<T> *R, int64_t nnz, cgm_error *err) {
  const cgm_cusparse_fns *cs = R->cs;
  const int n = R->n;
  const cusparseIndexType_t it = R->idx64 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
  const T one = 1, zero = 0;
  size_t bufsize = 0;
  CUSPARSE_TRY(err, cs->cusparseCreate(&R->sp));
  CUBLAS_TRY(err, R->cb->cublasCreate(&R->bl));
  CUSPARSE_TRY(err, cs->cusparseCreateCsr(&R->mat, n, n, nnz, R->rowptr, R->colidx, R->val, it, it,
                                          CUSPARSE_INDEX_BASE_ZERO, R->dt));
  CUSPARSE_TRY(err, cs->cusparseCreateDnVec(&R->vp, n, R->p, R->dt));
  CUSPARSE_TRY(err, cs->cusparseCreateDnVec(&R->vq, n, R->q, R->dt));
  CUSPARSE_TRY(err, cs->cusparseCreateDnVec(&R->vx, n, R->x, R->dt));
  CUSPARSE_TRY(err, cs->cusparseCreateDnVec(&R->vr, n, R->r, R->dt));
  CUSPARSE_TRY(err, cs->cusparseSpMV_bufferSize(R->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                                R->mat, R->vp, &zero, R->vq, R->dt,
                                                CUSPARSE_SPMV_ALG_DEFAULT, &bufsize));
  CGM_CUDA_TRY(err, cudaMalloc(&R->buf, bufsize ? bufsize : 16));
  return CGM_OK;
}

/* CG1: r = b - A x; z = D^-1 r; p = z; *rz = r . z, *rr = r . r. */
template <typename T>
cgm_status first_step(cs_solve<T> *R, double *rz, double *rr, cgm_error *err) {
  const cgm_cusparse_fns *cs = R->cs;
  const cgm_cublas_fns *cb = R->cb;
  const int n = R->n;
  const T one = 1, minus_one = -1;
  CUSPARSE_TRY(err, cs->cusparseSpMV(R->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &minus_one, R->mat,
                                     R->vx, &one, R->vr, R->dt, CUSPARSE_SPMV_ALG_DEFAULT, R->buf));
  jacobi<T><<<1024, 256>>>(n, R->dinv, R->r, R->z);
  CGM_CUDA_TRY(err, cudaGetLastError());
  CGM_CUDA_TRY(err, cudaMemcpy(R->p, R->z, (size_t)n * sizeof(T), cudaMemcpyDeviceToDevice));
  CUBLAS_TRY(err, dot(cb, R->bl, n, R->r, R->z, rz));
  CUBLAS_TRY(err, dot(cb, R->bl, n, R->r, R->r, rr));
  return CGM_OK;
}

/* The iteration from CG1's rz and rr, each dot product waiting for the GPU: CGM_OK when converged,
 * CGM_ENOCONV (res->stop_reason set on a breakdown); *itn iterations and *rr = r . r where it
 * ended, their times into times[0, ntimed). */
template <typename T>
cgm_status iterate(cs_solve<T> *R, const cgm_problem *pb, double rz, double *rr, int *itn,
                   double *times, int ntimed, cgm_solve_result *res, cgm_error *err) {
  const cgm_cusparse_fns *cs = R->cs;
  const cgm_cublas_fns *cb = R->cb;
  const int n = R->n;
  const T one = 1, zero = 0;
  double pq = 0;
  cgm_status st = CGM_ENOCONV;
  double tstart = cgm_now(), tprev = tstart;
  if (sqrt(*rr) / pb->bnorm <= pb->tol) st = CGM_OK;
  while (st != CGM_OK && *itn < pb->maxiter) {
    CUSPARSE_TRY(err, cs->cusparseSpMV(R->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, R->mat, R->vp,
                                       &zero, R->vq, R->dt, CUSPARSE_SPMV_ALG_DEFAULT, R->buf));
    CUBLAS_TRY(err, dot(cb, R->bl, n, R->p, R->q, &pq));
    if (!(pq > 0) || !isfinite(pq)) {
      snprintf(res->stop_reason, sizeof res->stop_reason,
               "CG breakdown after %d iterations: p'Ap = %.3g, the matrix is not positive definite",
               *itn, pq);
      break;
    }
    double alpha = rz / pq;
    CUBLAS_TRY(err, axpy(cb, R->bl, n, alpha, R->p, R->x));
    CUBLAS_TRY(err, axpy(cb, R->bl, n, -alpha, R->q, R->r));
    CUBLAS_TRY(err, dot(cb, R->bl, n, R->r, R->r, rr));
    (*itn)++;
    if (!isfinite(*rr)) {
      snprintf(res->stop_reason, sizeof res->stop_reason, "NaN or Inf at iteration %d", *itn);
      break;
    }
    if (sqrt(*rr) / pb->bnorm <= pb->tol)
      st = CGM_OK;
    else {
      jacobi<T><<<1024, 256>>>(n, R->dinv, R->r, R->z);
      CGM_CUDA_TRY(err, cudaGetLastError());
      double rz_new;
      CUBLAS_TRY(err, dot(cb, R->bl, n, R->r, R->z, &rz_new));
      double beta = rz_new / rz;
      rz = rz_new;
      CUBLAS_TRY(err, scal(cb, R->bl, n, beta, R->p));
      CUBLAS_TRY(err, axpy(cb, R->bl, n, 1.0, R->z, R->p));
    }
    double now = cgm_now();
    if (*itn <= ntimed) times[*itn - 1] = now - tprev;
    tprev = now;
  }
  CGM_CUDA_TRY(err, cudaDeviceSynchronize());
  res->time_solve_s = cgm_now() - tstart;
  return st;
}

/* x back to the host, in double. */
template <typename T> cgm_status download(cs_solve<T> *R, double *x, cgm_error *err) {
  CGM_CUDA_TRY(err, cudaMemcpy(sizeof(T) == 4 ? (void *)R->hv : (void *)x, R->x,
                               (size_t)R->n * sizeof(T), cudaMemcpyDeviceToHost));
  if (sizeof(T) == 4) cgm_stage_to_double(x, (const float *)R->hv, (size_t)R->n);
  return CGM_OK;
}

/* Everything of R, freed; what was never made is NULL. */
template <typename T> void release(cs_solve<T> *R) {
  const cgm_cusparse_fns *cs = R->cs;
  const cusparseDnVecDescr_t vecs[] = {R->vp, R->vq, R->vx, R->vr};
  for (cusparseDnVecDescr_t v : vecs)
    if (v) cs->cusparseDestroyDnVec(v);
  if (R->mat) cs->cusparseDestroySpMat(R->mat);
  if (R->sp) cs->cusparseDestroy(R->sp);
  if (R->bl) R->cb->cublasDestroy(R->bl);
  void *ptrs[] = {R->rowptr, R->colidx, R->buf, R->val, R->x, R->r, R->z, R->p, R->q, R->dinv};
  for (size_t i = 0; i < sizeof ptrs / sizeof *ptrs; i++) cudaFree(ptrs[i]);
  free(R->hidx);
  free(R->hv);
}

/* The solve, step by step (each dot product waits for the GPU). */
template <typename T>
cgm_status run(const cgm_problem *pb, const cgm_cusparse_fns *cs, const cgm_cublas_fns *cb,
               cgm_solve_result *res, cgm_error *err) {
  const cgm_csr *A = pb->A;
  /* the tables, n, idx64 and dt; the rest NULL until made */
  cs_solve<T> R = {cs, cb, A->nrows, A->nnz > INT32_MAX, sizeof(T) == 4 ? CUDA_R_32F : CUDA_R_64F};
  cgm_cuda_context_ready(0);
  const double t0 = cgm_now();
  const int ntimed = pb->maxiter < CGM_MAX_TIMED ? pb->maxiter : CGM_MAX_TIMED;
  double rz = 0, rr = 0, *times = NULL;
  int itn = 0;
  cgm_status st = allocate(&R, A, res, err);
  if (!st) st = upload(&R, pb, err);
  if (!st) st = describe(&R, A->nnz, err);
  if (!st) st = first_step(&R, &rz, &rr, err);
  if (!st) {
    res->time_setup_s = cgm_now() - t0;
    times = (double *)malloc(((size_t)ntimed + 1) * sizeof *times);
    if (!times) st = cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  }
  if (!st) {
    st = iterate(&R, pb, rz, &rr, &itn, times, ntimed, res, err);
    if (st == CGM_OK || st == CGM_ENOCONV) { /* not an error: the result, x */
      cgm_cg_result_close(res, st, itn, sqrt(rr) / pb->bnorm, pb->maxiter, pb->tol,
                          pb->opts.precision, times, ntimed);
      const cgm_status st2 = download(&R, pb->x, err);
      if (st2) st = st2;
    }
  }
  release(&R);
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
