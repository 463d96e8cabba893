/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgm_solve for a matrix, right-hand side and solution in a GPU's memory (cgm_csr_device: a CuPy
 * matrix): everything cgm_solve does on the host (checks, scaling, layout, vectors, the residual
 * recomputed) is done on the device. Only scalars come back, and a row a message must name. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/timer.h"
#include "solver/cuda/gpu_solver.h"

namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 1024; /* partial sums a reduction leaves, added on the host in order */

int grid_for(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  return (int)(b < 1 ? 1 : b > kMaxBlocks ? kMaxBlocks : b);
}

/* The first row (or entry) where each check fails, INT32_MAX where none. */
struct Findings {
  int structure, nonfinite, range, asymmetric, diagonal, b, x;
  unsigned long long anorm; /* max_i sum_j |a_ij| as the bits of a double >= 0 */
};

template <typename IP>
__device__ int64_t find_col(const IP *rp, const int32_t *col, int64_t r, int32_t c) {
  int64_t lo = rp[r], hi = rp[r + 1];
  while (lo < hi) {
    const int64_t mid = (lo + hi) / 2;
    if (col[mid] < c)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < rp[r + 1] && col[lo] == c ? lo : -1;
}

/* Rows: columns in range and strictly rising, finite values, single
 * precision's range (when asked), and ||A||_inf. */
template <typename IP>
__global__ void check_rows(int32_t n, int32_t ncols, int64_t nnz, const IP *rp, const int32_t *col,
                           const double *val, int want_range, Findings *f) {
  CGM_GRID_LOOP(i, n) {
    const int64_t k0 = rp[i], k1 = rp[i + 1];
    if (k1 < k0 || k0 < 0 || k1 > nnz) {
      atomicMin(&f->structure, (int)i);
      continue;
    }
    bool ok = true, finite = true, in_range = true;
    double sum = 0.0;
    for (int64_t k = k0; k < k1; k++) {
      const int32_t c = col[k];
      if (c < 0 || c >= ncols || (k > k0 && c <= col[k - 1])) ok = false;
      const double v = val[k];
      if (!isfinite(v)) finite = false;
      if (want_range && cgm_check_float(v)) in_range = false;
      sum += fabs(v);
    }
    if (!ok) atomicMin(&f->structure, (int)i);
    if (!finite) atomicMin(&f->nonfinite, (int)i);
    if (!in_range) atomicMin(&f->range, (int)i);
    if (finite) atomicMax(&f->anorm, (unsigned long long)__double_as_longlong(sum));
  }
}

/* Once the structure is sound: each entry's mirror, equal, and a positive diagonal. */
template <typename IP>
__global__ void check_symmetry(int32_t n, const IP *rp, const int32_t *col, const double *val,
                               Findings *f) {
  CGM_GRID_LOOP(i, n) {
    const int64_t kd = find_col(rp, col, i, (int32_t)i);
    if (!(kd >= 0 && val[kd] > 0.0)) atomicMin(&f->diagonal, (int)i);
    for (int64_t k = rp[i]; k < rp[i + 1]; k++) {
      const int32_t j = col[k];
      if (j == i) continue;
      const int64_t m = find_col(rp, col, j, (int32_t)i);
      if (m < 0 || val[m] != val[k]) {
        atomicMin(&f->asymmetric, (int)i);
        break;
      }
    }
  }
}

__global__ void check_vectors(int32_t n, const double *b, const double *x, Findings *f) {
  CGM_GRID_LOOP(i, n) {
    if (!isfinite(b[i])) atomicMin(&f->b, (int)i);
    if (!isfinite(x[i])) atomicMin(&f->x, (int)i);
  }
}

/* One partial a block (its threads' values added in a fixed order). */
__device__ void block_sum(double v, double *part) {
  __shared__ double sh[kThreads];
  sh[threadIdx.x] = v;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) part[blockIdx.x] = sh[0];
}

__global__ void abs_max(int32_t n, const double *v, unsigned long long *out) {
  double m = 0.0;
  CGM_GRID_LOOP(i, n) m = fmax(m, fabs(v[i]));
  atomicMax(out, (unsigned long long)__double_as_longlong(m));
}

/* sum (v_i / scale)^2, scale = max |v_i|: no overflow or underflow. */
__global__ void scaled_squares(int32_t n, const double *v, double scale, double *part) {
  double s = 0.0;
  CGM_GRID_LOOP(i, n) {
    const double t = v[i] / scale;
    s += t * t;
  }
  block_sum(s, part);
}

/* sum ((b_i - (A x)_i) / bnorm)^2 in double: the residual as cgm_solve
 * recomputes it (on the host in long double). */
template <typename IP>
__global__ void residual_squares(int32_t n, const IP *rp, const int32_t *col, const double *val,
                                 const double *b, const double *x, double bnorm, double *part) {
  double s = 0.0;
  CGM_GRID_LOOP(i, n) {
    double r = b[i];
    for (int64_t k = rp[i]; k < rp[i + 1]; k++) r = fma(-val[k], x[col[k]], r);
    r /= bnorm;
    s += r * r;
  }
  block_sum(s, part);
}

__global__ void divide(int32_t n, const double *src, double by, double *dst) {
  CGM_GRID_LOOP(i, n) dst[i] = src[i] / by;
}

/* x = y * scale, and the first entry that overflows doing it. */
__global__ void scale_back(int32_t n, const double *y, double scale, double *x, int *first) {
  CGM_GRID_LOOP(i, n) {
    x[i] = y[i] * scale;
    if (isfinite(y[i]) && !isfinite(x[i])) atomicMin(first, (int)i);
  }
}

/* D^-1 from A's diagonal in the iteration's precision, 1 past A's n rows (cgm_stage_rows'). */
template <typename IP, typename T>
__global__ void inverse_diagonal(int32_t n, int64_t rows, const IP *rp, const int32_t *col,
                                 const double *val, T *dinv) {
  CGM_GRID_LOOP(i, rows) {
    const int64_t k = i < n ? find_col(rp, col, i, (int32_t)i) : -1;
    dinv[i] = (T)(i >= n ? 1.0 : 1.0 / (k >= 0 ? val[k] : 0.0)); /* present and positive: checked */
  }
}

template <typename S, typename T> __global__ void convert(int64_t n, const S *src, T *dst) {
  CGM_GRID_LOOP(i, n) dst[i] = (T)src[i];
}

/* dst = src, n doubles on the device, as floats when f32. */
cudaError_t put_vec(bool f32, int32_t n, const double *src, void *dst, cudaStream_t s) {
  if (!f32) return cudaMemcpyAsync(dst, src, 8 * (size_t)n, cudaMemcpyDeviceToDevice, s);
  convert<<<grid_for(n), kThreads, 0, s>>>(n, src, (float *)dst);
  return cudaGetLastError();
}

typedef struct {
  const cgm_csr_device *A;
  cudaStream_t s;
  double *part; /* kMaxBlocks partial sums */
  double *host_part;
  void *scratch; /* Findings, or an int */
} dctx;

/* f(rowptr): A's row pointer in its own width. */
template <typename F> void with_rowptr(const cgm_csr_device *A, F f) {
  if (A->rowptr64)
    f((const int64_t *)A->rowptr);
  else
    f((const int32_t *)A->rowptr);
}

cudaError_t sum_parts(dctx *c, int blocks, double *out) {
  cudaError_t e = cudaMemcpyAsync(c->host_part, c->part, sizeof(double) * (size_t)blocks,
                                  cudaMemcpyDeviceToHost, c->s);
  if (e == cudaSuccess) e = cudaStreamSynchronize(c->s);
  double t = 0.0;
  for (int k = 0; k < blocks; k++) t += c->host_part[k];
  *out = t;
  return e;
}

/* ||v||_2 without overflow or underflow (as cgm_solve_norm2). */
cudaError_t norm2(dctx *c, int32_t n, const double *v, double *out) {
  unsigned long long *m = (unsigned long long *)c->scratch, bits = 0;
  cudaError_t e = cudaMemsetAsync(m, 0, sizeof *m, c->s);
  if (e != cudaSuccess) return e;
  abs_max<<<grid_for(n), kThreads, 0, c->s>>>(n, v, m);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  if ((e = cudaMemcpyAsync(&bits, m, sizeof bits, cudaMemcpyDeviceToHost, c->s)) != cudaSuccess ||
      (e = cudaStreamSynchronize(c->s)) != cudaSuccess)
    return e;
  double scale;
  memcpy(&scale, &bits, sizeof scale);
  if (!(scale > 0.0) || !isfinite(scale)) {
    *out = scale;
    return cudaSuccess;
  }
  scaled_squares<<<grid_for(n), kThreads, 0, c->s>>>(n, v, scale, c->part);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  double ssq = 0.0;
  e = sum_parts(c, grid_for(n), &ssq);
  *out = scale * sqrt(ssq);
  return e;
}

cudaError_t residual(dctx *c, const double *b, const double *x, double bnorm, double *out) {
  const cgm_csr_device *A = c->A;
  const int32_t n = A->nrows;
  with_rowptr(A, [&](auto rp) {
    residual_squares<<<grid_for(n), kThreads, 0, c->s>>>(n, rp, A->colidx, A->val, b, x, bnorm,
                                                         c->part);
  });
  cudaError_t e = cudaGetLastError();
  double ssq = 0.0;
  if (e == cudaSuccess) e = sum_parts(c, grid_for(n), &ssq);
  *out = sqrt(ssq);
  return e;
}

/* The first index where `launch` finds something, -1 where nothing. */
template <typename F> cudaError_t first_index(dctx *c, F launch, int *out) {
  int *d = (int *)c->scratch, h = INT32_MAX;
  cudaError_t e = cudaMemcpyAsync(d, &h, sizeof h, cudaMemcpyHostToDevice, c->s);
  if (e == cudaSuccess) {
    launch(d);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, c->s);
  if (e == cudaSuccess) e = cudaStreamSynchronize(c->s);
  *out = h == INT32_MAX ? -1 : h;
  return e;
}

/* *out = rowptr[i], whatever its width. */
cudaError_t rowptr_at(const cgm_csr_device *A, int64_t i, int64_t *out) {
  const size_t w = A->rowptr64 ? 8 : 4;
  int64_t v = 0;
  const cudaError_t e =
      cudaMemcpy(&v, (const char *)A->rowptr + w * (size_t)i, w, cudaMemcpyDeviceToHost);
  *out = A->rowptr64 ? v : (int64_t)(int32_t)v;
  return e;
}

/* A row's columns and values (for a message), freed with it. */
struct Row {
  int64_t len = 0;
  int32_t *cols = nullptr;
  double *vals = nullptr;
  ~Row() {
    free(cols);
    free(vals);
  }
};

/* Row i's offsets, columns and values into r. */
cgm_status fetch_row(dctx *c, int32_t i, Row *r, cgm_error *err) {
  const cgm_csr_device *A = c->A;
  int64_t k[2] = {0, 0};
  CGM_CUDA_TRY(err, rowptr_at(A, i, &k[0]));
  CGM_CUDA_TRY(err, rowptr_at(A, (int64_t)i + 1, &k[1]));
  r->len = k[1] > k[0] ? k[1] - k[0] : 0;
  r->cols = (int32_t *)malloc(sizeof(int32_t) * (size_t)(r->len + 1));
  r->vals = (double *)malloc(sizeof(double) * (size_t)(r->len + 1));
  if (!r->cols || !r->vals) return cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  cudaError_t e = cudaMemcpy(r->cols, A->colidx + k[0], sizeof(int32_t) * (size_t)r->len,
                             cudaMemcpyDeviceToHost);
  if (e == cudaSuccess)
    e = cudaMemcpy(r->vals, A->val + k[0], sizeof(double) * (size_t)r->len, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) CGM_CUDA_TRY(err, e);
  return CGM_OK;
}

/* cgm_solve's input checks (backend.h, cgm_check) on the device, after those of
 * the CSR's structure (cgm_csr_check's on the host); *anorm: ||A||_inf. */
cgm_status check_input(dctx *c, const double *b, const double *x, cgm_precision prec, double *anorm,
                       cgm_solve_result *res, cgm_error *err) {
  const cgm_csr_device *A = c->A;
  const int32_t n = A->nrows;
  if (!A->rowptr || (A->nnz > 0 && (!A->colidx || !A->val)))
    return cgm_fail(err, CGM_EINPUT, "CSR without its arrays");
  int64_t r0 = 0, rn = 0;
  CGM_CUDA_TRY(err, rowptr_at(A, 0, &r0));
  CGM_CUDA_TRY(err, rowptr_at(A, A->nrows, &rn));
  cgm_status st = CGM_OK;
  if (r0 != 0)
    return cgm_fail(err, CGM_EINPUT, "CSR row pointer starts at %lld, not 0", (long long)r0);
  if (rn != A->nnz)
    return cgm_fail(err, CGM_EINPUT, "CSR row pointer ends at %lld, not at the %lld nonzeros",
                    (long long)rn, (long long)A->nnz);
  Findings h, *f = (Findings *)c->scratch;
  memset(&h, 0, sizeof h);
  h.structure = h.nonfinite = h.range = h.asymmetric = h.diagonal = h.b = h.x = INT32_MAX;
  CGM_CUDA_TRY(err, cudaMemcpyAsync(f, &h, sizeof h, cudaMemcpyHostToDevice, c->s));
  const int want_range = prec != CGM_PREC_DOUBLE;
  check_vectors<<<grid_for(n), kThreads, 0, c->s>>>(n, b, x, f);
  CGM_CUDA_TRY(err, cudaGetLastError());
  with_rowptr(A, [&](auto rp) {
    check_rows<<<grid_for(n), kThreads, 0, c->s>>>(n, A->ncols, A->nnz, rp, A->colidx, A->val,
                                                   want_range, f);
  });
  CGM_CUDA_TRY(err, cudaGetLastError());
  CGM_CUDA_TRY(err, cudaMemcpyAsync(&h, f, sizeof h, cudaMemcpyDeviceToHost, c->s));
  CGM_CUDA_TRY(err, cudaStreamSynchronize(c->s));
  if (h.b < INT32_MAX || h.x < INT32_MAX) {
    const bool is_b = h.b < INT32_MAX;
    const int32_t i = is_b ? h.b : h.x;
    double v = 0.0;
    CGM_CUDA_TRY(err, cudaMemcpy(&v, (is_b ? b : x) + i, 8, cudaMemcpyDeviceToHost));
    return cgm_check_refuse(is_b ? CGM_CHECK_RHS : CGM_CHECK_GUESS, i, 0, v, res, err);
  }
  Row row;
  if (h.structure < INT32_MAX) {
    const int32_t i = h.structure;
    if ((st = fetch_row(c, i, &row, err))) return st;
    st = cgm_fail(err, CGM_EINPUT, "CSR row %d: the row pointer decreases", i);
    for (int64_t k = 0; k < row.len; k++) {
      if (row.cols[k] < 0 || row.cols[k] >= A->ncols) {
        st = cgm_fail(err, CGM_EINPUT, "CSR row %d: column %d out of range 0..%d", i, row.cols[k],
                      A->ncols - 1);
        break;
      }
      if (k > 0 && row.cols[k] <= row.cols[k - 1]) {
        st = cgm_fail(err, CGM_EINPUT, "CSR row %d: columns not sorted and unique (%d after %d)", i,
                      row.cols[k], row.cols[k - 1]);
        break;
      }
    }
    return st;
  }
  if (h.nonfinite < INT32_MAX) {
    const int32_t i = h.nonfinite;
    if ((st = fetch_row(c, i, &row, err))) return st;
    for (int64_t k = 0; k < row.len && !st; k++)
      if (!isfinite(row.vals[k]))
        st = cgm_check_refuse(CGM_CHECK_FINITE, i, row.cols[k], row.vals[k], res, err);
    return st ? st : cgm_fail(err, CGM_ERUNTIME, "row %d changed while it was checked", i + 1);
  }
  /* the mirrors, once every row is sound */
  with_rowptr(A, [&](auto rp) {
    check_symmetry<<<grid_for(n), kThreads, 0, c->s>>>(n, rp, A->colidx, A->val, f);
  });
  CGM_CUDA_TRY(err, cudaGetLastError());
  CGM_CUDA_TRY(err, cudaMemcpyAsync(&h, f, sizeof h, cudaMemcpyDeviceToHost, c->s));
  CGM_CUDA_TRY(err, cudaStreamSynchronize(c->s));
  if (h.asymmetric < INT32_MAX) return cgm_check_refuse(CGM_CHECK_SYMMETRIC, 0, 0, 0, res, err);
  if (h.diagonal < INT32_MAX) {
    const int32_t i = h.diagonal;
    if ((st = fetch_row(c, i, &row, err))) return st;
    double d = 0.0;
    for (int64_t k = 0; k < row.len; k++)
      if (row.cols[k] == i) d = row.vals[k];
    return cgm_check_refuse(CGM_CHECK_DIAGONAL, i, i, d, res, err);
  }
  if (h.range < INT32_MAX) {
    const int32_t i = h.range;
    if ((st = fetch_row(c, i, &row, err))) return st;
    for (int64_t k = 0; k < row.len && !st; k++)
      if (cgm_check_float(row.vals[k]))
        st = cgm_check_refuse(CGM_CHECK_RANGE, i, row.cols[k], row.vals[k], res, err);
    if (st) return st;
  }
  memcpy(anorm, &h.anorm, sizeof *anorm);
  return CGM_OK;
}

/* What cgm_solve_device accepts of o, with the reason for the rest. */
cgm_status check_opts(const cgm_solve_opts *o, cgm_error *err) {
  if (o->backend != CGM_BACKEND_CUDA)
    return cgm_fail(err, CGM_EINPUT,
                    "a matrix in GPU memory is solved by the cuda backend (got %s): pass a "
                    "host (SciPy) matrix for the %s backend",
                    cgm_backend_name(o->backend), cgm_backend_name(o->backend));
  if (o->gpus != 1)
    return cgm_fail(err, CGM_EINPUT,
                    "a matrix in GPU memory is solved on the GPU that holds it (got %d GPUs): "
                    "pass a host matrix to spread it over several",
                    o->gpus);
  if (o->layout.n != 1)
    return cgm_fail(err, CGM_EINPUT,
                    "a matrix in GPU memory is laid out with block size 1 (got %d): pass a host "
                    "matrix for larger blocks",
                    o->layout.n);
  if (o->precond != CGM_PRECOND_JACOBI)
    return cgm_fail(err, CGM_EINPUT,
                    "a matrix in GPU memory is preconditioned by Jacobi only: pass a host matrix "
                    "for block-Jacobi");
  if (o->reorder == CGM_REORDER_RCM)
    return cgm_fail(err, CGM_EINPUT,
                    "a matrix in GPU memory is solved in its own numbering: pass a host matrix to "
                    "reorder it");
  return CGM_OK;
}

} // namespace

cgm_status gs_device_dinv(const gpu_solver *S, cgm_cuda_dev *d, const cgm_csr_device *A,
                          cgm_error *err) {
  CGM_CUDA_TRY(err, cudaSetDevice(d->dev));
  with_rowptr(A, [&](auto rp) {
    if (S->prec == CGM_PREC_SINGLE) /* the iteration's: single in mixed too */
      inverse_diagonal<<<grid_for(d->rows), kThreads, 0, d->stream>>>(
          A->nrows, d->rows, rp, A->colidx, A->val, (float *)d->dinv);
    else
      inverse_diagonal<<<grid_for(d->rows), kThreads, 0, d->stream>>>(
          A->nrows, d->rows, rp, A->colidx, A->val, (double *)d->dinv);
  });
  CGM_CUDA_TRY(err, cudaGetLastError());
  return CGM_OK;
}

cgm_status gs_device_vectors(gpu_solver *S, const cgm_problem *pb, cgm_error *err) {
  cgm_cuda_dev *d = &S->dev[0];
  const cgm_csr_device *A = pb->dA;
  const int32_t n = A->nrows;
  const bool f32 = S->prec == CGM_PREC_SINGLE; /* the iteration's: single in mixed too */
  cgm_status st = gs_device_dinv(S, d, A, err);
  if (st) return st;
  /* b: double unless in single precision */
  CGM_CUDA_TRY(err, put_vec(pb->opts.precision == CGM_PREC_SINGLE, n, pb->b, d->b, d->stream));
  if (d->mixed) { /* the solution in double; the iteration solves for its correction */
    CGM_CUDA_TRY(err, put_vec(false, n, pb->x, d->x_hi, d->stream));
  } else { /* x0 in x and, for CG1's SpMV, in v */
    CGM_CUDA_TRY(err, put_vec(f32, n, pb->x, d->x, d->stream));
    CGM_CUDA_TRY(err, put_vec(f32, n, pb->x, d->v, d->stream));
  }
  CGM_CUDA_TRY(err, cudaStreamSynchronize(d->stream));
  return CGM_OK;
}

cgm_status gs_device_solution(gpu_solver *S, double *x, int64_t n, cgm_error *err) {
  cgm_cuda_dev *d = &S->dev[0];
  CGM_CUDA_TRY(err, cudaSetDevice(d->dev));
  if (d->mixed) { /* the solution is x_hi + x */
    CGM_CUDA_TRY(err, cgm_launch_fold(d->rows, d->x_hi, (float *)d->x, d->dot_tmp + 3,
                                      cgm_cuda_red(d, CGM_RED_RELIABLE), d->sms, d->stream));
    CGM_CUDA_TRY(err,
                 cudaMemcpyAsync(x, d->x_hi, 8 * (size_t)n, cudaMemcpyDeviceToDevice, d->stream));
  } else if (S->prec == CGM_PREC_SINGLE) {
    convert<<<grid_for(n), kThreads, 0, d->stream>>>(n, (const float *)d->x, x);
    CGM_CUDA_TRY(err, cudaGetLastError());
  } else {
    CGM_CUDA_TRY(err, cudaMemcpyAsync(x, d->x, 8 * (size_t)n, cudaMemcpyDeviceToDevice, d->stream));
  }
  CGM_CUDA_TRY(err, cudaStreamSynchronize(d->stream));
  return CGM_OK;
}

/* The driver: solve.c's solve_in_order, every pass over A, b, x on the device. */
static cgm_status solve_device(dctx *c, const double *b, double *x, const cgm_solve_opts *o,
                               double *bs, double *ys, cgm_solve_result *res, cgm_error *err) {
  const cgm_csr_device *A = c->A;
  const int32_t n = A->nrows;
  const double t_check = cgm_now();
  double anorm = 0.0, bnorm = 0.0;
  cgm_status st = check_input(c, b, x, o->precision, &anorm, res, err);
  if (st == CGM_ENOCONV) { /* refused before iterating: the initial guess's residual */
    if (norm2(c, n, b, &bnorm) == cudaSuccess && bnorm > 0)
      (void)residual(c, b, x, bnorm, &res->relative_residual);
    (void)cudaGetLastError();
  }
  if (st) return st;
  cgm_problem pb = {};
  pb.opts = *o;
  pb.opts.reorder = CGM_REORDER_NONE;
  cgm_plan_opts po = cgm_plan_opts_default(); /* one segment of every row */
  po.backend = CGM_BACKEND_CUDA;
  po.precision = o->precision;
  po.layout = o->layout;
  po.layout.by = 0; /* one warp a slice */
  if ((st = cgm_plan_device_csr(n, A->nnz, &po, &pb.plan, err))) return st;
  pb.opts.layout = pb.plan.o.layout;
  pb.dA = A;
  pb.anorm = anorm;
  pb.maxiter = cgm_solve_maxiter(o, n);
  CGM_CUDA_TRY(err, norm2(c, n, b, &bnorm));
  pb.tol = cgm_solve_target(o, bnorm);
  if (bnorm == 0.0) { /* b = 0: x = 0 is the exact solution */
    CGM_CUDA_TRY(err, cudaMemset(x, 0, 8 * (size_t)n));
    res->converged = true;
    snprintf(res->device, sizeof res->device, "none (b = 0)");
    return CGM_OK;
  }
  /* CG is scale invariant: A y = b / ||b||, x = ||b|| y (as cgm_solve) */
  divide<<<grid_for(n), kThreads, 0, c->s>>>(n, b, bnorm, bs);
  divide<<<grid_for(n), kThreads, 0, c->s>>>(n, x, bnorm, ys);
  CGM_CUDA_TRY(err, cudaGetLastError());
  CGM_CUDA_TRY(err, cudaStreamSynchronize(c->s));
  pb.b = bs;
  pb.x = ys;
  pb.bnorm = 1.0;
  cgm_monitor_map unscale; /* the monitor's x (host memory) as the caller's */
  cgm_monitor_map_set(&pb.opts, &unscale, NULL, bnorm, NULL, n);
  const double time_check = cgm_now() - t_check;
  st = cgm_cuda_cg(&pb, res, err);
  if (st == CGM_ENOCONV && o->precision == CGM_PREC_MIXED && o->fallback &&
      res->iterations < pb.maxiter) {
    double ry = NAN, r0 = NAN; /* as cgm_solve: from x0 unless single got nearer */
    CGM_CUDA_TRY(err, residual(c, bs, ys, 1.0, &ry));
    CGM_CUDA_TRY(err, residual(c, b, x, bnorm, &r0));
    if (!(ry < r0)) {
      divide<<<grid_for(n), kThreads, 0, c->s>>>(n, x, bnorm, ys);
      CGM_CUDA_TRY(err, cudaGetLastError());
      CGM_CUDA_TRY(err, cudaStreamSynchronize(c->s)); /* the next solve's stream reads ys */
    }
    st = cgm_solve_fallback(&pb, res, err);
  }
  res->time_check_s = time_check;
  const double t_finish = cgm_now();
  if (st == CGM_ENOCONV && strncmp(res->stop_reason, "CG breakdown", 12) == 0) {
    static const char blame[] = ", the matrix is not positive definite";
    char *tail = strstr(res->stop_reason, blame);
    if (tail)
      snprintf(tail, sizeof res->stop_reason - (size_t)(tail - res->stop_reason),
               " in %s precision (not rechecked: the matrix is in GPU memory; a solve from host "
               "memory tells rounding from a matrix that is not positive definite)",
               cgm_precision_name(o->precision));
  }
  if (st == CGM_OK || st == CGM_ENOCONV) {
    int inf_at = -1;
    CGM_CUDA_TRY(
        err,
        first_index(
            c, [&](int *d) { scale_back<<<grid_for(n), kThreads, 0, c->s>>>(n, ys, bnorm, x, d); },
            &inf_at));
    if (inf_at >= 0) {
      double y = 0.0;
      CGM_CUDA_TRY(err, cudaMemcpy(&y, ys + inf_at, 8, cudaMemcpyDeviceToHost));
      st = cgm_solve_overflow(res, inf_at, y, bnorm);
    } else {
      CGM_CUDA_TRY(err, residual(c, b, x, bnorm, &res->relative_residual));
    }
    double ynorm = 0.0;
    CGM_CUDA_TRY(err, norm2(c, n, ys, &ynorm));
    res->attainable_residual = cgm_residual_roundoff(o->precision) * anorm * ynorm;
    st = cgm_solve_conclude(st, o->precision, pb.tol, err, res);
  }
  res->time_finish_s = cgm_now() - t_finish;
  if (st == CGM_ENOCONV) return cgm_fail(err, CGM_ENOCONV, "%s", res->stop_reason);
  return st;
}

extern "C" cgm_status cgm_solve_device(const cgm_csr_device *A, const double *b, double *x,
                                       const cgm_solve_opts *o, cgm_solve_result *res,
                                       cgm_error *err) {
  memset(res, 0, sizeof *res);
  if (!A || !b || !x || !o)
    return cgm_fail(err, CGM_EINPUT, "cgm_solve_device needs A, b, x and the options");
  cgm_status st = check_opts(o, err);
  if (st) return st;
  if (A->nrows < 0 || A->ncols < 0 || A->nnz < 0)
    return cgm_fail(err, CGM_EINPUT, "CSR of %d x %d with %lld nonzeros: negative size", A->nrows,
                    A->ncols, (long long)A->nnz);
  if (A->nrows != A->ncols)
    return cgm_check_refuse(CGM_CHECK_SQUARE, A->nrows, A->ncols, 0, res, err);
  if (A->nrows == 0) return cgm_check_refuse(CGM_CHECK_EMPTY, 0, 0, 0, res, err);
  const int ndev = cgm_cuda_device_count();
  if (A->device < 0 || A->device >= ndev)
    return cgm_fail(err, CGM_EINPUT, "the matrix is said to be on GPU %d, but %d GPU%s present",
                    A->device, ndev, ndev == 1 ? " is" : "s are");
  CGM_CUDA_TRY(err, cudaSetDevice(A->device));
  dctx c = {};
  c.A = A;
  double *bs = NULL, *ys = NULL;
  const size_t vb = 8 * ((size_t)A->nrows + 1);
  cudaError_t e = cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking);
  if (e == cudaSuccess) e = cudaMalloc((void **)&c.part, sizeof(double) * kMaxBlocks);
  if (e == cudaSuccess) e = cudaMallocHost((void **)&c.host_part, sizeof(double) * kMaxBlocks);
  if (e == cudaSuccess) e = cudaMalloc(&c.scratch, sizeof(Findings));
  if (e == cudaSuccess) e = cudaMalloc((void **)&bs, vb);
  if (e == cudaSuccess) e = cudaMalloc((void **)&ys, vb);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    st = cgm_fail(err, CGM_ERUNTIME, "CUDA error %s setting up a solve in GPU memory",
                  cudaGetErrorName(e));
  } else {
    st = solve_device(&c, b, x, o, bs, ys, res, err);
  }
  cgm_cuda_free_all({bs, ys, c.scratch, c.part});
  if (c.host_part) cudaFreeHost(c.host_part);
  if (c.s) cudaStreamDestroy(c.s);
  return st;
}
