/* Jacobi-PCG on one GPU with our kernels (Algorithm 2, fused as in
 * kernels.h): SpMV+CG3, CG4(+CG2), CG5 per iteration, alpha and beta kept on
 * the device, K iterations captured in a CUDA graph, and the host looking at
 * the state once per graph while the next graph already runs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/timer.h"
#include "solver/backend.h"
#include "solver/cuda/cg_cuda.h"
#include "solver/cuda/cuda_util.h"
#include "solver/cuda/kernels.h"

/* Bytes of one element of the precision. */
static size_t elem(cgm_precision p) { return p == CGM_PREC_SINGLE ? 4 : 8; }

int64_t cgm_cuda_vec_len(int64_t n) { return (n + CGM_VEC_ALIGN - 1) / CGM_VEC_ALIGN * CGM_VEC_ALIGN; }

cgm_status cgm_cuda_check_fit(const cgm_bcsr *B, cgm_precision prec, int64_t halo_rows, int dev,
                              int64_t *needed, cgm_error *err) {
  int64_t np = cgm_cuda_vec_len((int64_t)B->nbrows * B->p.n);
  *needed = cgm_footprint_bytes(np, B->nblocks_padded, (int64_t)B->nslices * B->p.by, B->p.n, prec,
                                halo_rows);
  size_t fr = 0, tot = 0;
  CGM_CUDA_TRY(err, cudaMemGetInfo(&fr, &tot));
  /* Leave room for the CUDA context's own allocations and cuSPARSE/NCCL. */
  int64_t avail = (int64_t)fr - (int64_t)(256 << 20);
  if (*needed > avail)
    return cgm_fail(err, CGM_EINPUT,
                    "the matrix does not fit on GPU %d: this configuration needs %.2f GiB, %.2f GiB "
                    "are free (%.2f GiB total); use more GPUs, single precision or another "
                    "block size",
                    dev, *needed / 1073741824.0, fr / 1073741824.0, tot / 1073741824.0);
  return CGM_OK;
}

void cgm_cuda_dev_free(cgm_cuda_dev *d) {
  if (d->dev < 0) return;
  cudaSetDevice(d->dev);
  void *ptrs[] = {d->val, d->slice_ptr, d->bcol, d->brow, d->x, d->r, d->v,
                  d->u, d->dinv, d->partials, d->counters, d->state};
  for (size_t i = 0; i < sizeof ptrs / sizeof *ptrs; i++) cudaFree(ptrs[i]);
  for (int i = 0; i < 2; i++) {
    if (d->graph_exec[i]) cudaGraphExecDestroy(d->graph_exec[i]);
    if (d->host_state[i]) cudaFreeHost(d->host_state[i]);
  }
  for (int i = 0; i < 3; i++)
    if (d->ev[i]) cudaEventDestroy(d->ev[i]);
  if (d->stream) cudaStreamDestroy(d->stream);
  (void)cudaGetLastError();
  memset(d, 0, sizeof *d);
  d->dev = -1;
}

/* cudaMalloc that counts what it takes. */
static cudaError_t dmalloc(cgm_cuda_dev *d, void **p, size_t bytes) {
  cudaError_t e = cudaMalloc(p, bytes ? bytes : 16);
  if (e == cudaSuccess) d->bytes += (int64_t)(bytes ? bytes : 16);
  return e;
}

cgm_status cgm_cuda_dev_setup(cgm_cuda_dev *d, int dev, const cgm_bcsr *B, cgm_precision prec,
                              int64_t x_len, cgm_error *err) {
  memset(d, 0, sizeof *d);
  d->dev = dev;
  d->prec = prec;
  CGM_CUDA_TRY(err, cudaSetDevice(dev));
  CGM_CUDA_TRY(err, cudaDeviceGetAttribute(&d->sms, cudaDevAttrMultiProcessorCount, dev));
  CGM_CUDA_TRY(err, cudaStreamCreateWithFlags(&d->stream, cudaStreamNonBlocking));
  const size_t w = elem(prec);
  const int n = B->p.n;
  d->rows = (int64_t)B->nbrows * n;
  d->np = cgm_cuda_vec_len(d->rows);
  d->x_len = cgm_cuda_vec_len(x_len > d->rows ? x_len : d->rows);
  const int64_t nval = B->nblocks_padded * n * n;
  CGM_CUDA_TRY(err, dmalloc(d, &d->val, (size_t)nval * w));
  CGM_CUDA_TRY(err, dmalloc(d, (void **)&d->slice_ptr, ((size_t)B->nslices + 1) * 8));
  CGM_CUDA_TRY(err, dmalloc(d, (void **)&d->bcol, (size_t)B->nblocks_padded * 4));
  CGM_CUDA_TRY(err, dmalloc(d, (void **)&d->brow, (size_t)B->nslices * B->p.by * 4));
  /* v is the vector the SpMV gathers from: on several GPUs it holds the
   * whole (or halo-extended) vector, the local part at v_local. */
  void **vecs[] = {&d->x, &d->r, &d->u, &d->dinv};
  for (size_t i = 0; i < 4; i++) CGM_CUDA_TRY(err, dmalloc(d, vecs[i], (size_t)d->np * w));
  CGM_CUDA_TRY(err, dmalloc(d, &d->v, (size_t)d->x_len * w));
  d->red_cap = 4096;
  CGM_CUDA_TRY(err, dmalloc(d, (void **)&d->partials, (size_t)3 * 2 * d->red_cap * 8));
  CGM_CUDA_TRY(err, dmalloc(d, (void **)&d->counters, 3 * sizeof(unsigned)));
  CGM_CUDA_TRY(err, dmalloc(d, (void **)&d->state, sizeof(cgm_cg_state)));
  CGM_CUDA_TRY(err, cudaMemsetAsync(d->counters, 0, 3 * sizeof(unsigned), d->stream));
  for (int i = 0; i < 2; i++)
    CGM_CUDA_TRY(err, cudaMallocHost((void **)&d->host_state[i], sizeof(cgm_cg_state)));
  for (int i = 0; i < 3; i++) CGM_CUDA_TRY(err, cudaEventCreate(&d->ev[i]));
  /* Upload the layout; single precision converts the values on the host. */
  if (prec == CGM_PREC_SINGLE) {
    float *tmp = (float *)malloc((size_t)(nval > 0 ? nval : 1) * sizeof(float));
    if (!tmp) return cgm_fail(err, CGM_ERUNTIME, "out of host memory converting the matrix");
    for (int64_t i = 0; i < nval; i++) tmp[i] = (float)B->val[i];
    cudaError_t e = cudaMemcpyAsync(d->val, tmp, (size_t)nval * w, cudaMemcpyHostToDevice, d->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(d->stream); /* before tmp is freed */
    free(tmp);
    CGM_CUDA_TRY(err, e);
  } else {
    CGM_CUDA_TRY(err, cudaMemcpyAsync(d->val, B->val, (size_t)nval * w, cudaMemcpyHostToDevice, d->stream));
  }
  CGM_CUDA_TRY(err, cudaMemcpyAsync(d->slice_ptr, B->slice_ptr, ((size_t)B->nslices + 1) * 8,
                                    cudaMemcpyHostToDevice, d->stream));
  CGM_CUDA_TRY(err, cudaMemcpyAsync(d->bcol, B->bcol, (size_t)B->nblocks_padded * 4,
                                    cudaMemcpyHostToDevice, d->stream));
  CGM_CUDA_TRY(err, cudaMemcpyAsync(d->brow, B->brow, (size_t)B->nslices * B->p.by * 4,
                                    cudaMemcpyHostToDevice, d->stream));
  d->L.n = n;
  d->L.bx = B->p.bx;
  d->L.by = B->p.by;
  d->L.nslices = B->nslices;
  d->L.nbrows = B->nbrows;
  d->L.nblocks_padded = B->nblocks_padded;
  d->L.slice_ptr = d->slice_ptr;
  d->L.bcol = d->bcol;
  d->L.brow = d->brow;
  d->L.val = d->val;
  /* Padding stays zero forever: only the rows of the layout are written. */
  void *zero[] = {d->x, d->r, d->u, d->dinv};
  for (size_t i = 0; i < 4; i++)
    CGM_CUDA_TRY(err, cudaMemsetAsync(zero[i], 0, (size_t)d->np * w, d->stream));
  CGM_CUDA_TRY(err, cudaMemsetAsync(d->v, 0, (size_t)d->x_len * w, d->stream));
  /* Every transfer is ordered on d->stream, never on the legacy default
   * stream, which a non-blocking stream does not wait for. */
  CGM_CUDA_TRY(err, cudaStreamSynchronize(d->stream));
  return CGM_OK;
}

cgm_reduce_buf cgm_cuda_red(const cgm_cuda_dev *d, int which) {
  cgm_reduce_buf r;
  r.partials = d->partials + (size_t)which * 2 * d->red_cap;
  r.counter = d->counters + which;
  r.capacity = d->red_cap;
  return r;
}

/* Copies n doubles (converted to the precision) into a device vector. */
cgm_status cgm_cuda_upload_vec(const cgm_cuda_dev *d, void *dst, const double *src, int64_t n,
                               double pad_value, cgm_error *err) {
  const size_t w = elem(d->prec);
  void *tmp = malloc((size_t)(n > 0 ? n : 1) * w);
  if (!tmp) return cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  for (int64_t i = 0; i < n; i++) {
    double v = src ? src[i] : pad_value;
    if (d->prec == CGM_PREC_SINGLE) ((float *)tmp)[i] = (float)v;
    else ((double *)tmp)[i] = v;
  }
  cudaError_t e = cudaMemcpyAsync(dst, tmp, (size_t)n * w, cudaMemcpyHostToDevice, d->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(d->stream); /* before tmp is freed */
  free(tmp);
  CGM_CUDA_TRY(err, e);
  return CGM_OK;
}

cgm_status cgm_cuda_download_vec(const cgm_cuda_dev *d, const void *src, double *dst, int64_t n,
                                 cgm_error *err) {
  const size_t w = elem(d->prec);
  void *tmp = malloc((size_t)(n > 0 ? n : 1) * w);
  if (!tmp) return cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  cudaError_t e = cudaMemcpyAsync(tmp, src, (size_t)n * w, cudaMemcpyDeviceToHost, d->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(d->stream);
  if (e == cudaSuccess)
    for (int64_t i = 0; i < n; i++)
      dst[i] = d->prec == CGM_PREC_SINGLE ? (double)((float *)tmp)[i] : ((double *)tmp)[i];
  free(tmp);
  CGM_CUDA_TRY(err, e);
  return CGM_OK;
}

/* One iteration (slot i of K) on one device. */
static cudaError_t enqueue_iteration(cgm_cuda_dev *d, int i, int K) {
  const int prev = (i + K - 1) % K;
  cgm_cg_state *st = d->state;
  cudaError_t e = cgm_launch_spmv(&d->L, d->prec, d->v, d->u, d->v, &st->slot[i].pq,
                                  cgm_cuda_red(d, 0), st, d->sms, d->stream);
  if (e == cudaSuccess)
    e = cgm_launch_cg4(d->prec, d->rows, st, i, prev, d->x, d->r, d->v, d->u, d->dinv,
                       &st->slot[i].rz, cgm_cuda_red(d, 1), d->sms, d->stream);
  if (e == cudaSuccess)
    e = cgm_launch_cg5(d->prec, d->rows, st, i, prev, d->v, d->r, d->dinv, d->sms, d->stream);
  return e;
}

cgm_status cgm_cuda_capture(cgm_cuda_dev *d, int K, cgm_error *err) {
  for (int g = 0; g < 2; g++) {
    cudaGraph_t graph;
    CGM_CUDA_TRY(err, cudaStreamBeginCapture(d->stream, cudaStreamCaptureModeThreadLocal));
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < K && e == cudaSuccess; i++) e = enqueue_iteration(d, i, K);
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(d->host_state[g], d->state, sizeof(cgm_cg_state), cudaMemcpyDeviceToHost,
                          d->stream);
    cudaError_t e2 = cudaStreamEndCapture(d->stream, &graph);
    CGM_CUDA_TRY(err, e);
    CGM_CUDA_TRY(err, e2);
    e = cudaGraphInstantiate(&d->graph_exec[g], graph, 0);
    cudaGraphDestroy(graph);
    CGM_CUDA_TRY(err, e);
  }
  return CGM_OK;
}

/* Stop reasons from the device state. */
void cgm_cuda_stop_reason(const cgm_cg_state *h, double bnorm, double tol, cgm_solve_result *res) {
  switch (h->done) {
  case CGM_RUN_BREAKDOWN:
    snprintf(res->stop_reason, sizeof res->stop_reason,
             "CG breakdown at iteration %d: p'Ap = %.3g <= 0, the matrix is not positive definite",
             h->iter + 1, h->bad);
    break;
  case CGM_RUN_NONFINITE:
    snprintf(res->stop_reason, sizeof res->stop_reason,
             "NaN or Inf in a reduction at iteration %d (value %g)", h->iter + 1, h->bad);
    break;
  case CGM_RUN_MAXITER:
    snprintf(res->stop_reason, sizeof res->stop_reason,
             "maximum of %d iterations reached with relative residual %.3g (target %.3g)",
             h->maxiter, sqrt(h->rr_last) / bnorm, tol);
    break;
  default: break;
  }
}

cgm_status cgm_cuda_cg(const cgm_problem *pb, cgm_solve_result *res, cgm_error *err) {
  if (pb->opts.gpus > 1) return cgm_cuda_cg_multi(pb, res, err);
  const cgm_csr *A = pb->A;
  const cgm_bcsr_params p = pb->opts.layout;
  cgm_status st = cgm_spmv_supported(p.n, p.bx, p.by, err);
  if (st) return st;
  int ndev = cgm_cuda_device_count();
  if (ndev < 1) return cgm_fail(err, CGM_ERUNTIME, "no CUDA device is present");
  double t0 = cgm_now();
  cgm_bcsr B;
  st = cgm_bcsr_build(A, 0, (A->nrows + p.n - 1) / p.n, p, &B, err);
  if (st) return st;
  cgm_cuda_dev d;
  memset(&d, 0, sizeof d);
  d.dev = -1;
  int64_t needed;
  double *diag = NULL;
  CGM_CUDA_GOTO(st, err, out, cudaSetDevice(0));
  st = cgm_cuda_check_fit(&B, pb->opts.precision, 0, 0, &needed, err);
  if (st) goto out;
  st = cgm_cuda_dev_setup(&d, 0, &B, pb->opts.precision, 0, err);
  if (st) goto out;
  {
    cudaDeviceProp prop;
    CGM_CUDA_GOTO(st, err, out, cudaGetDeviceProperties(&prop, 0));
    snprintf(res->device, sizeof res->device, "%s", prop.name);
  }
  /* D^-1 (identity on padded rows), b into r, x0 into x. */
  diag = (double *)malloc(((size_t)d.rows + 1) * sizeof *diag);
  if (!diag) {
    st = cgm_fail(err, CGM_ERUNTIME, "out of host memory");
    goto out;
  }
  cgm_csr_diagonal(A, diag);
  for (int64_t i = 0; i < d.rows; i++) diag[i] = i < A->nrows ? 1.0 / diag[i] : 1.0;
  if ((st = cgm_cuda_upload_vec(&d, d.dinv, diag, d.rows, 0, err))) goto out;
  if ((st = cgm_cuda_upload_vec(&d, d.r, pb->b, A->nrows, 0, err))) goto out;
  if ((st = cgm_cuda_upload_vec(&d, d.x, pb->x, A->nrows, 0, err))) goto out;
  st = cgm_cuda_solve_loop(&d, 1, pb, res, err);
  if (st == CGM_OK || st == CGM_ENOCONV) {
    cgm_status st2 = cgm_cuda_download_vec(&d, d.x, pb->x, A->nrows, err);
    if (st2) st = st2;
  }
  res->time_setup_s = (cgm_now() - t0) - res->time_solve_s;
  res->device_bytes = d.bytes;
out:
  free(diag);
  cgm_cuda_dev_free(&d);
  cgm_bcsr_free(&B);
  return st;
}

cgm_status cgm_cuda_solve_loop(cgm_cuda_dev *devs, int G, const cgm_problem *pb,
                               cgm_solve_result *res, cgm_error *err) {
  int K = pb->opts.check_every > 0 ? pb->opts.check_every : 32;
  if (K > CGM_MAX_SLOTS) K = CGM_MAX_SLOTS;
  if (K < 2) K = 2;
  cgm_cuda_dev *d = &devs[0];
  /* CG1: u = A x0, r = b - u, v = D^-1 r, (r.z, r.r) into the slot before 0. */
  cgm_cg_state h;
  memset(&h, 0, sizeof h);
  h.thr = (pb->tol * pb->bnorm) * (pb->tol * pb->bnorm);
  h.maxiter = pb->maxiter;
  CGM_CUDA_TRY(err, cudaSetDevice(d->dev));
  CGM_CUDA_TRY(err, cudaMemcpyAsync(d->state, &h, sizeof h, cudaMemcpyHostToDevice, d->stream));
  CGM_CUDA_TRY(err, cgm_launch_spmv(&d->L, d->prec, d->x, d->u, NULL, NULL, cgm_cuda_red(d, 0), NULL,
                                    d->sms, d->stream));
  CGM_CUDA_TRY(err, cgm_launch_cg1(d->prec, d->rows, d->r, d->u, d->dinv, d->r, d->v,
                                   &d->state->slot[K - 1].rz, cgm_cuda_red(d, 2), d->sms,
                                   d->stream));
  CGM_CUDA_TRY(err, cudaMemcpyAsync(&h, d->state, sizeof h, cudaMemcpyDeviceToHost, d->stream));
  CGM_CUDA_TRY(err, cudaStreamSynchronize(d->stream));
  double rr0 = h.slot[K - 1].rr;
  if (!isfinite(rr0) || !isfinite(h.slot[K - 1].rz))
    return cgm_fail(err, CGM_ENOCONV, "NaN or Inf in the initial residual");
  if (rr0 <= h.thr) {
    res->converged = true;
    res->solver_residual = sqrt(rr0) / pb->bnorm;
    return CGM_OK;
  }
  cgm_status st = cgm_cuda_capture(d, K, err);
  if (st) return st;

  /* Two graphs alternate: graph g+1 is queued before the host waits for g. */
  int nbatch_max = pb->maxiter / K + 3;
  double *batch = (double *)malloc(((size_t)nbatch_max + 1) * sizeof *batch);
  int *active = (int *)malloc(((size_t)nbatch_max + 1) * sizeof *active);
  if (!batch || !active) {
    free(batch);
    free(active);
    return cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  }
  /* Graph g copies the state into host_state[g % 2] and is followed by
   * event ev[g % 3]; the time of graph g is ev[(g - 1) % 3] -> ev[g % 3]. */
  int nb = 0, last_iter = 0;
  const cgm_cg_state *fin = NULL;
  double t_start = cgm_now();
  CGM_CUDA_GOTO(st, err, out, cudaEventRecord(d->ev[2], d->stream));
  CGM_CUDA_GOTO(st, err, out, cudaGraphLaunch(d->graph_exec[0], d->stream));
  CGM_CUDA_GOTO(st, err, out, cudaEventRecord(d->ev[0], d->stream));
  for (int g = 0;; g++) {
    if (g + 1 < nbatch_max) {
      CGM_CUDA_GOTO(st, err, out, cudaGraphLaunch(d->graph_exec[(g + 1) % 2], d->stream));
      CGM_CUDA_GOTO(st, err, out, cudaEventRecord(d->ev[(g + 1) % 3], d->stream));
    }
    CGM_CUDA_GOTO(st, err, out, cudaEventSynchronize(d->ev[g % 3]));
    float ms = 0;
    CGM_CUDA_GOTO(st, err, out, cudaEventElapsedTime(&ms, d->ev[(g + 2) % 3], d->ev[g % 3]));
    const cgm_cg_state *hs = d->host_state[g % 2];
    batch[nb] = ms * 1e-3;
    active[nb] = hs->iter - last_iter;
    last_iter = hs->iter;
    nb++;
    if (hs->done || g + 1 >= nbatch_max) {
      fin = hs;
      break;
    }
  }
  CGM_CUDA_GOTO(st, err, out, cudaStreamSynchronize(d->stream));
  res->time_solve_s = cgm_now() - t_start;
  res->iterations = fin->iter;
  res->solver_residual = sqrt(fin->rr_last) / pb->bnorm;
  res->converged = fin->done == CGM_RUN_CONVERGED;
  {
    /* Median over full batches after the first (warm-up); per iteration. */
    double *tt = (double *)malloc(((size_t)nb + 1) * sizeof *tt);
    int nt = 0;
    double tsum = 0.0;
    int isum = 0;
    for (int b = 0; b < nb; b++) {
      tsum += batch[b];
      isum += active[b];
      if (b > 0 && active[b] == K && tt) tt[nt++] = batch[b] / K;
    }
    res->time_per_iter_s = nt > 0 ? cgm_median(tt, nt) : (isum > 0 ? tsum / isum : 0.0);
    free(tt);
  }
  if (!res->converged) {
    cgm_cuda_stop_reason(fin, pb->bnorm, pb->tol, res);
    st = CGM_ENOCONV;
  }
out:
  free(batch);
  free(active);
  return st;
}

cgm_status cgm_cuda_spmv_host(int dev, const cgm_bcsr *B, cgm_precision prec, const double *x,
                              double *y, double *dot, cgm_error *err) {
  cgm_cuda_dev d;
  int64_t xlen = (int64_t)B->nbcols * B->p.n;
  cgm_status st = cgm_spmv_supported(B->p.n, B->p.bx, B->p.by, err);
  if (st) return st;
  st = cgm_cuda_dev_setup(&d, dev, B, prec, xlen, err);
  double *h = NULL;
  if (st) goto out;
  if ((st = cgm_cuda_upload_vec(&d, d.v, x, xlen, 0, err))) goto out;
  CGM_CUDA_GOTO(st, err, out,
                cgm_launch_spmv(&d.L, prec, d.v, d.u, d.v, d.partials + 4 * d.red_cap,
                                cgm_cuda_red(&d, 0), NULL, d.sms, d.stream));
  CGM_CUDA_GOTO(st, err, out, cudaStreamSynchronize(d.stream));
  if ((st = cgm_cuda_download_vec(&d, d.u, y, d.rows, err))) goto out;
  if (dot) {
    CGM_CUDA_GOTO(st, err, out, cudaMemcpyAsync(dot, d.partials + 4 * d.red_cap, 8,
                                                cudaMemcpyDeviceToHost, d.stream));
    CGM_CUDA_GOTO(st, err, out, cudaStreamSynchronize(d.stream));
  }
out:
  free(h);
  cgm_cuda_dev_free(&d);
  return st;
}
