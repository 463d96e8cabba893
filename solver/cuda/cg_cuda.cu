/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Jacobi-PCG on 1..G GPUs of one node with our kernels, alpha and beta kept on the devices. Two
 * iterations (kernels.h, cgm_gpu_opts.cg):
 *   cgg      (default) the single-reduction CG of Chronopoulos and Gear: one reduction and two
 *            kernels an iteration, 12 vector passes
 *   classic  the paper's Algorithm 2 fused: SpMV+CG3, CG4(+CG2), CG5; two reductions and three
 *            kernels, 13 passes (always in host mode)
 * Each GPU holds one of the plan's segments (segments.c). What the SpMV reads from other GPUs comes
 * by one of four exchange modes:
 *   nccl  the whole vector by ncclAllGather over equal chunks; scalars by ncclAllReduce
 *   p2p   the whole vector by peer stores from a copy kernel; every GPU writes its partial sums
 *         into every GPU's state
 *   halo  only the entries each segment reads, packed into the peers' vectors on a second stream
 *         while the interior rows are multiplied; scalars as p2p
 *   host  the paper's: vector and sums through host memory, no graph
 * Except for host, K iterations of all GPUs are one CUDA graph, and the host looks at the state
 * once per graph while the next one runs. Between devices, p2p and halo use flags in device memory
 * (cgm_sync: graph edges cost ~15 us each on 4 H200s), refined by the late pack (halo) and the ll
 * words (cgg: data and tick in one store, no system-scope fence). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/timer.h"
#include "kernels/stage.h"
#include "solver/cuda/gpu_solver.h"
#include "solver/cuda/segments.h"

/* Send lists of the halo mode (cgm_seg_sends_build): segment j sends to k the entries of k's halo
 * it owns, packed straight into k's vector after k's own rows. */
static cgm_status setup_halo_sends(gpu_solver *S, const cgm_seg_host *seg, cgm_error *err) {
  for (int j = 0; j < S->G; j++) {
    cgm_cuda_dev *d = &S->dev[j];
    cgm_seg_sends sl;
    cgm_status st = cgm_seg_sends_build(&S->pb->plan, seg, j, &sl, err);
    if (st) return st;
    memset(&d->pack, 0, sizeof d->pack);
    for (int k = 0; k <= sl.ndst; k++) d->pack.off[k] = sl.off[k];
    for (int k = 0; k < sl.ndst; k++) {
      d->pack.dst[k] =
          (char *)S->dev[sl.dst[k]].v + sl.dst_at[k] * (size_t)cgm_precision_width(S->prec);
      S->send_mask[j] |= 1u << sl.dst[k];
    }
    d->pack.ndst = sl.ndst;
    const int64_t e = sl.off[sl.ndst];
    cudaError_t ce = cudaSetDevice(d->dev);
    if (ce == cudaSuccess) /* counted in d->bytes */
      ce = cgm_cuda_dmalloc(d, (void **)&d->send_idx, sizeof(int32_t) * (size_t)(e > 0 ? e : 1));
    if (ce == cudaSuccess)
      ce = cudaMemcpyAsync(d->send_idx, sl.idx, sizeof(int32_t) * (size_t)e, cudaMemcpyHostToDevice,
                           d->stream);
    if (ce == cudaSuccess) ce = cudaStreamSynchronize(d->stream);
    cgm_seg_sends_free(&sl);
    CGM_CUDA_TRY(err, ce);
    d->pack.idx = d->send_idx;
  }
  return CGM_OK;
}

static void stop_reason(const cgm_cg_state *h, double bnorm, double tol, cgm_solve_result *res) {
  switch (h->done) {
  case CGM_RUN_BREAKDOWN:
    snprintf(res->stop_reason, sizeof res->stop_reason,
             "CG breakdown after %d iterations: p'Ap (or r'D^-1 r) = %.3g <= 0, the matrix is not "
             "positive definite",
             h->iter, h->bad);
    break;
  case CGM_RUN_NONFINITE:
    snprintf(res->stop_reason, sizeof res->stop_reason,
             "NaN or Inf in a reduction at iteration %d (value %g)", h->iter + 1, h->bad);
    break;
  case CGM_RUN_TIMEOUT:
    snprintf(res->stop_reason, sizeof res->stop_reason,
             "a GPU waited more than %.3g s for another GPU's data at iteration %d; the solve was "
             "abandoned",
             h->wait_ns * 1e-9, h->iter + 1);
    break;
  case CGM_RUN_STALLED:
    break; /* the driver's own message (finish) */
  case CGM_RUN_MAXITER:
    snprintf(res->stop_reason, sizeof res->stop_reason,
             "maximum of %d iterations reached with relative residual %.3g (target %.3g)",
             h->maxiter, sqrt(h->rr_last) / bnorm, tol);
    break;
  default:
    break;
  }
}

/* CG1 on every device: u = A x0, r = b - u, v = D^-1 r; the partial sums go
 * through the host once, then every state starts identical. */
static cgm_status cg1(gpu_solver *S, const cgm_problem *pb, double *rz_rr, cgm_error *err) {
  const size_t w = (size_t)cgm_precision_width(S->prec);
  double tot[2] = {0, 0}, part[CGM_MAX_GPUS][2];
  for (int g = 0; g < S->G; g++) {
    cgm_cuda_dev *d = &S->dev[g];
    CGM_CUDA_TRY(err, cudaSetDevice(d->dev));
    void *v_own = (char *)d->v + d->v_off * w;
    if (d->mixed) {
      /* the true residual in double (reliable.cu), v = D^-1 r in single */
      double rt, xn;
      cgm_status st = gs_replace(S, 1, &rt, &xn, err); /* Algorithm 2: v = D^-1 r */
      if (st) return st;
      S->rt0 = rt;
      CGM_CUDA_TRY(err, cudaMemcpyAsync(part[g], d->dot_tmp + 1, sizeof part[g],
                                        cudaMemcpyDeviceToHost, d->stream));
    } else {
      CGM_CUDA_TRY(err, gs_spmv_whole(d, S->prec, false, d->v, d->u)); /* u = A x0 */
      /* r = b - u; v_own = D^-1 r. */
      CGM_CUDA_TRY(err, cgm_launch_cg1(S->prec, d->rows, d->b, d->u, d->dinv, &d->bj, d->r, v_own,
                                       d->dot_tmp, cgm_cuda_red(d, 2), d->sms, d->stream));
      CGM_CUDA_TRY(err, cudaMemcpyAsync(part[g], d->dot_tmp, sizeof part[g], cudaMemcpyDeviceToHost,
                                        d->stream));
    }
    /* The single-reduction CG keeps p in r: p = 0 before the first step. */
    if (S->pol.cgg) CGM_CUDA_TRY(err, cudaMemsetAsync(d->r, 0, (size_t)d->np * w, d->stream));
    CGM_CUDA_TRY(err, cudaStreamSynchronize(d->stream));
    tot[0] += part[g][0];
    tot[1] += part[g][1];
  }
  cgm_cg_state h = {};
  h.thr = (pb->tol * pb->bnorm) * (pb->tol * pb->bnorm);
  h.maxiter = pb->maxiter;
  h.K = S->pol.K;
  h.wait_ns = S->pol.wait_ns;
  h.slot[0][S->pol.K - 1].rz = tot[0]; /* the slot before slot 0; other devices' parts stay 0 */
  h.slot[0][S->pol.K - 1].rr = tot[1];
  for (int g = 0; g < S->G; g++) {
    cgm_cuda_dev *d = &S->dev[g];
    /* cgg: the first SpMV carries each device's own partials */
    h.local[0].rz = part[g][0];
    h.local[0].rr = part[g][1];
    CGM_CUDA_TRY(err, cudaSetDevice(d->dev));
    CGM_CUDA_TRY(err, cudaMemcpyAsync(d->state, &h, sizeof h, cudaMemcpyHostToDevice, d->stream));
    CGM_CUDA_TRY(err, cudaStreamSynchronize(d->stream));
  }
  rz_rr[0] = tot[0];
  rz_rr[1] = tot[1];
  if (!S->dev[0].mixed) S->rt0 = sqrt(tot[1]);
  /* The first iteration's SpMV needs the whole new v. */
  if (S->pol.mode == MODE_HOST)
    CGM_CUDA_TRY(err, gs_host_exchange(S));
  else
    CGM_CUDA_TRY(err, gs_exchange(S, -1));
  for (int g = 0; g < S->G; g++) { /* under the watchdog: NCCL may hang here */
    cgm_cuda_dev *d = &S->dev[g];
    CGM_CUDA_TRY(err, cudaSetDevice(d->dev));
    CGM_CUDA_TRY(err, cudaEventRecord(d->ev_a, d->stream));
    if (S->pol.mode == MODE_HALO) CGM_CUDA_TRY(err, cudaEventRecord(d->ev_b, d->comm));
    cudaError_t we = gs_event_wait(d->ev_a, S->pol.host_timeout_s);
    if (we == cudaSuccess && S->pol.mode == MODE_HALO)
      we = gs_event_wait(d->ev_b, S->pol.host_timeout_s);
    if (we == cudaErrorTimeout) {
      S->hung = 1;
      return cgm_fail(err, CGM_ERUNTIME,
                      "the first exchange between %d GPUs made no progress for %.0f s; use "
                      "exchange=halo",
                      S->G, S->pol.host_timeout_s);
    }
    CGM_CUDA_TRY(err, we);
  }
  return CGM_OK;
}

/* Block-Jacobi: the inverses of segment g's diagonal blocks and the blocks,
 * in the iteration's precision. Segments start at multiples of the block
 * (cgm_plan_opts.row_align); blocks past the matrix are the identity. */
static cgm_status upload_bjacobi(gpu_solver *S, const cgm_problem *pb, cgm_cuda_dev *d, int g,
                                 cgm_error *err) {
  const int n = pb->opts.precond_block;
  const int64_t r0 = (int64_t)S->bounds[g] * S->n;
  if (n < 1 || r0 % n)
    return cgm_fail(err, CGM_ERUNTIME, "segment %d starts at row %lld, not a multiple of %d", g,
                    (long long)r0, n);
  const int64_t nn = (int64_t)n * n, nb = (d->rows + n - 1) / n, k0 = r0 / n;
  const int64_t nba = cgm_bjacobi_blocks(pb->A->nrows, n), len = nb * nn;
  const size_t bytes = (size_t)(len > 0 ? len : 1) * (size_t)cgm_precision_width(S->prec);
  if (!pb->bblk) return cgm_fail(err, CGM_ERUNTIME, "block-Jacobi without its blocks");
  double *h = (double *)malloc(sizeof(double) * (size_t)(len > 0 ? len : 1));
  if (!h) return cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  void *inv = NULL, *blk = NULL;
  cgm_status st = CGM_OK;
  CGM_CUDA_GOTO(st, err, out, cudaSetDevice(d->dev));
  CGM_CUDA_GOTO(st, err, out, cudaMalloc(&inv, bytes));
  d->bj.inv = inv; /* owned by d from here (cgm_cuda_dev_free) */
  CGM_CUDA_GOTO(st, err, out, cudaMalloc(&blk, bytes));
  d->bj.blk = blk;
  d->bytes += 2 * (int64_t)bytes;
  for (int which = 0; which < 2 && !st; which++) {
    const double *src = which == 0 ? pb->binv : pb->bblk;
    for (int64_t k = 0; k < nb; k++)
      for (int64_t e = 0; e < nn; e++)
        h[k * nn + e] = k0 + k < nba ? src[(k0 + k) * nn + e] : (e / n == e % n ? 1.0 : 0.0);
    st = cgm_cuda_upload_vec(d, which == 0 ? inv : blk, h, len, err);
  }
  if (!st) d->bj.n = n;
out:
  free(h);
  return st;
}

/* Uploads D^-1 (unless the GPU built the layout, and D^-1 with it), b, x0 (own rows) and x0 into
 * v as the first SpMV reads it;
 * in mixed precision x0 goes to x_hi, the correction x starting at zero.
 * Filled straight into the pinned buffers on every core; x0 = 0 (the
 * default) is not sent at all: x, x_hi and v start at zero (cgm_cuda_dev_init). */
static cgm_status upload_vectors(gpu_solver *S, const cgm_problem *pb, const cgm_seg_host *seg,
                                 bool dev_layout, cgm_error *err) {
  const cgm_csr *A = pb->A;
  const int n = S->n;
  const int64_t nglob = (int64_t)S->bounds[S->G] * n;
  const bool x0 = !cgm_stage_all_zero(pb->x, A->nrows);
  /* + the halo layout's gap of up to CGM_VEC_ALIGN entries */
  int64_t blen = (nglob > S->chunk * S->G ? nglob : S->chunk * S->G) + CGM_VEC_ALIGN;
  const bool packed = x0 && !S->dev[0].mixed &&
                      (S->pol.mode == MODE_HALO || S->pol.mode == MODE_NCCL); /* v by hand */
  double *buf = packed ? (double *)malloc(sizeof(double) * (size_t)(blen + 1)) : NULL;
  if (packed && !buf) return cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  cgm_status st = CGM_OK;
  for (int g = 0; g < S->G && !st; g++) {
    cgm_cuda_dev *d = &S->dev[g];
    const int64_t r0 = (int64_t)S->bounds[g] * n;
    /* D^-1, x and v in the iteration's precision; b single only in an all-single solve */
    const int single = d->prec == CGM_PREC_SINGLE, b_single = pb->opts.precision == CGM_PREC_SINGLE;
    const cgm_stage_rows_src dinv = {NULL, A, r0, A->nrows, 1.0, single},
                             b = {pb->b, NULL, r0, A->nrows, 0.0, b_single},
                             x = {pb->x, NULL, r0, A->nrows, 0.0, single && !d->mixed},
                             v = {pb->x, NULL, 0, A->nrows, 0.0, single};
    if (!dev_layout && (st = cgm_cuda_upload_rows(d, d->dinv, &dinv, d->rows, err))) break;
    if (pb->binv && (st = upload_bjacobi(S, pb, d, g, err))) break;
    if ((st = cgm_cuda_upload_rows(d, d->b, &b, d->rows, err)) || !x0) continue;
    /* the solution in double in mixed; the iteration solves for its correction */
    if ((st = cgm_cuda_upload_rows(d, d->mixed ? (void *)d->x_hi : d->x, &x, d->rows, err)) ||
        d->mixed)
      continue;
    /* v = x0 as the SpMV of CG1 sees it */
    if (S->pol.mode == MODE_HALO) {
      const cgm_halo *h = &seg[g].h;
      int64_t own = (int64_t)seg[g].halo_start * n;
      for (int64_t i = 0; i < own; i++)
        buf[i] = i < d->rows && r0 + i < A->nrows ? pb->x[r0 + i] : 0.0;
      for (int32_t c = 0; c < h->nhalo; c++)
        for (int t = 0; t < n; t++) {
          int64_t gi = (int64_t)h->cols[c] * n + t;
          buf[own + (int64_t)c * n + t] = gi < A->nrows ? pb->x[gi] : 0.0;
        }
      st = cgm_cuda_upload_vec(d, d->v, buf, own + (int64_t)h->nhalo * n, err);
    } else if (S->pol.mode == MODE_NCCL) { /* chunk j holds segment j's rows */
      for (int j = 0; j < S->G; j++)
        for (int64_t i = 0; i < S->chunk; i++) {
          int64_t gi = (int64_t)S->bounds[j] * n + i;
          bool in = gi < (int64_t)S->bounds[j + 1] * n && gi < A->nrows;
          buf[j * S->chunk + i] = in ? pb->x[gi] : 0.0;
        }
      st = cgm_cuda_upload_vec(d, d->v, buf, S->chunk * S->G, err);
    } else {
      st = cgm_cuda_upload_rows(d, d->v, &v, nglob, err);
    }
  }
  free(buf);
  return st;
}

/* Whether A (on the host) crosses as CSR and the GPU builds its layout
 * (milliseconds, against the host's 0.11-0.14 s at 49M nonzeros): the plan
 * allows it and the CSR fits beside the plan's footprint during the build. */
static cgm_status want_device_layout(const gpu_solver *S, const cgm_problem *pb, bool *yes,
                                     cgm_error *err) {
  *yes = false;
  if (!S->pol.device_layout) return CGM_OK;
  int64_t avail = 0, total = 0;
  cgm_status st = cgm_cuda_free_bytes(0, &avail, &total, err);
  if (st) return st;
  const cgm_csr *A = pb->A;
  /* the CSR, and the build's own scratch (kernels/device_layout.cu) */
  const int64_t csr = ((int64_t)A->nrows + 1) * 8 + A->nnz * 12, scratch = 48 * (int64_t)A->nrows;
  *yes = pb->plan.seg[0].device_bytes + csr + scratch + (16 << 20) <= avail;
  return CGM_OK;
}

/* The values' storage (A on the host; a matrix in GPU memory keeps its values), read from a copy
 * of A's values on d where there is one (dval: no pass of the host over them); values not exact
 * only where reliable updates replace the residual by the true one in double (one GPU), as in
 * single precision. */
static cgm_status choose_values(gpu_solver *S, const cgm_problem *pb, cgm_cuda_dev *d,
                                const double *dval, cgm_error *err) {
  const cgm_csr *A = pb->A;
  const int32_t nbc = (pb->plan.nrows + S->n - 1) / S->n;
  cgm_value_set c;
  cgm_cuda_values ctx = {d, dval, A->nnz, err, CGM_OK};
  if (!dval)
    c = cgm_values_choose(A->val, A->nnz, S->n, nbc, pb->opts.storage, pb->opts.precision);
  else if (!cgm_values_choose_by(&c, A->val, A->nnz, S->n, nbc, pb->opts.storage,
                                 pb->opts.precision, cgm_cuda_values_pass, &ctx))
    return ctx.st;
  if (c.exact || S->pol.reliable) S->vs = c;
  if (!S->vs.exact) S->pol.reduced = 1, S->pol.floor_watch = 0;
  return CGM_OK;
}

/* A's CSR to d's device, the values' storage and D^-1 read from it there and the layout of block
 * size 1 built there into d->A (its long rows into d->C), the CSR freed; *tl = the start of the
 * build. */
static cgm_status layout_on_device(gpu_solver *S, const cgm_problem *pb, cgm_cuda_dev *d,
                                   double *tl, cgm_error *err) {
  const cgm_csr *A = pb->A;
  void *rp = NULL, *ci = NULL, *va = NULL;
  const size_t bytes[3] = {((size_t)A->nrows + 1) * 8, (size_t)(A->nnz > 0 ? A->nnz : 1) * 4,
                           (size_t)(A->nnz > 0 ? A->nnz : 1) * 8};
  cgm_status st = CGM_OK;
  *tl = cgm_now();
  CGM_CUDA_TRY(err, cudaSetDevice(d->dev));
  CGM_CUDA_GOTO(st, err, out, cudaMalloc(&rp, bytes[0]));
  CGM_CUDA_GOTO(st, err, out, cudaMalloc(&ci, bytes[1]));
  CGM_CUDA_GOTO(st, err, out, cudaMalloc(&va, bytes[2]));
  {
    void *const dst[3] = {rp, ci, va};
    const void *const src[3] = {A->rowptr, A->colidx, A->val};
    if ((st = cgm_cuda_upload_arrays(d, 3, dst, src, bytes, err))) goto out;
  }
  {
    cgm_csr_device dA = {};
    dA.device = d->dev;
    dA.nrows = A->nrows;
    dA.ncols = A->ncols;
    dA.nnz = A->nnz;
    dA.rowptr = rp;
    dA.rowptr64 = true;
    dA.colidx = (const int32_t *)ci;
    dA.val = (const double *)va;
    *tl = cgm_now(); /* the upload was the CSR's; the build is the layout's */
    if ((st = choose_values(S, pb, d, dA.val, err)) || (st = gs_device_dinv(S, d, &dA, err)))
      goto out;
    d->vs = S->vs;
    st = cgm_cuda_matrix_from_device(d, &dA, pb->opts.layout, &d->A, &d->C, err);
  }
out:
  cgm_cuda_free_all({rp, ci, va});
  return st;
}

/* Kernels for the layout and precision, and the GPUs the solve names. */
static cgm_status check_devices(const cgm_problem *pb, cgm_error *err) {
  const cgm_bcsr_params p = pb->opts.layout;
  const cgm_precision prec = pb->opts.precision;
  cgm_status st = cgm_spmv_supported(p.n, p.bx, p.by, cgm_precision_iter(prec), err);
  if (!st && prec == CGM_PREC_MIXED) /* the true residual's SpMV runs in double */
    st = cgm_spmv_supported(p.n, p.bx, p.by, CGM_PREC_DOUBLE, err);
  if (st) return st;
  const int ndev = cgm_cuda_device_count();
  const int G = pb->opts.gpus;
  if (ndev < 1) return cgm_fail(err, CGM_ERUNTIME, "no CUDA device is present");
  if (G > ndev)
    return cgm_fail(err, CGM_EINPUT, "gpus %d: only %d GPU%s present", G, ndev,
                    ndev == 1 ? " is" : "s are");
  if (pb->dA && (G != 1 || pb->dA->device < 0 || pb->dA->device >= ndev))
    return cgm_fail(err, CGM_EINPUT, "a matrix in the memory of GPU %d is solved on that GPU alone",
                    pb->dA->device);
  return CGM_OK;
}

/* The solver's fields: the plan's cut and exchange, and the policy. */
static void init_solver(gpu_solver *S, const cgm_problem *pb) {
  for (int g = 0; g < CGM_MAX_GPUS; g++) S->dev[g].dev = -1;
  S->G = pb->opts.gpus;
  S->n = pb->opts.layout.n;
  S->prec = cgm_precision_iter(pb->opts.precision);
  S->pb = pb;
  S->bounds = pb->plan.bounds;
  S->chunk = pb->plan.chunk_rows;
  S->pol = gs_policy_make(&pb->opts, &pb->plan);
  S->vs = cgm_values_choose(NULL, 0, S->n, 1, CGM_STORAGE_FULL, CGM_PREC_DOUBLE); /* until chosen */
}

/* Every segment's memory (the plan's), checked before any allocation. */
static cgm_status check_memory(const gpu_solver *S, const cgm_problem *pb, cgm_error *err) {
  for (int g = 0; g < S->G; g++) {
    int64_t avail, total, need = pb->plan.seg[g].device_bytes;
    cgm_status st = cgm_cuda_free_bytes(pb->dA ? pb->dA->device : g, &avail, &total, err);
    if (st) return st;
    if (need > avail)
      return cgm_fail(err, CGM_EINPUT,
                      "the matrix does not fit on GPU %d: this configuration needs %.2f GiB there, "
                      "%.2f GiB are free (%.2f GiB total); use more GPUs, single precision or "
                      "another block size",
                      g, need / 1073741824.0, (avail + (256 << 20)) / 1073741824.0,
                      total / 1073741824.0);
  }
  return CGM_OK;
}

/* Each segment built on the host (segments.c), unless the GPU builds the
 * layout (A in its memory, or *dev_layout). */
static cgm_status build_segments(const gpu_solver *S, const cgm_problem *pb, cgm_seg_host *seg,
                                 bool *dev_layout, cgm_solve_result *res, cgm_error *err) {
  cgm_status st = CGM_OK;
  if (!pb->dA && (st = want_device_layout(S, pb, dev_layout, err))) return st;
  const double tl = cgm_now();
  for (int g = 0; g < S->G && !st && !pb->dA && !*dev_layout; g++)
    st = cgm_seg_build(pb->A, &pb->plan, g, &seg[g], err);
  if (pb->dA || *dev_layout) seg[0].v_len = pb->plan.nrows; /* the layout is built there */
  res->layout_on_device = pb->dA || *dev_layout;
  res->time_layout_s = cgm_now() - tl;
  return st;
}

/* Device g's state and matrix: the segment's layouts uploaded, or built
 * there from a CSR (*built: the builds' time, layout time, not upload). */
static cgm_status setup_device(gpu_solver *S, const cgm_problem *pb, const cgm_seg_host *seg, int g,
                               bool dev_layout, double *built, cgm_solve_result *res,
                               cgm_error *err) {
  const cgm_bcsr_params p = pb->opts.layout;
  cgm_cuda_dev *d = &S->dev[g];
  cgm_status st = cgm_cuda_dev_init(d, pb->dA ? pb->dA->device : g, pb->opts.precision,
                                    pb->plan.seg[g].rows, seg[g].v_len, err);
  d->vs = S->vs;
  d->sms -= pb->opts.share_watch; /* room for its clock kernel (cgm_share_watch) */
  if (!st && (pb->dA || dev_layout)) {
    double tl = 0.0;
    st = pb->dA ? (tl = cgm_now(), cgm_cuda_matrix_from_device(d, pb->dA, p, &d->A, &d->C, err))
                : layout_on_device(S, pb, d, &tl, err);
    *built += cgm_now() - tl;
    res->time_layout_s += cgm_now() - tl;
  } else if (!st) {
    st = cgm_cuda_matrix_upload(d, &seg[g].A, &d->A, err);
  }
  if (!st && (S->pol.mode == MODE_HALO || seg[g].B.nbrows > 0))
    st = cgm_cuda_matrix_upload(d, &seg[g].B, &d->B, err);
  if (!st && seg[g].C.nbrows > 0) { /* long rows (cgm_plan_long_part) */
    const cgm_bcsr *Cl = &seg[g].C; /* a block row a slice, longest first */
    int32_t nhuge = 0;
    while (nhuge < Cl->nslices &&
           cgm_long_row_threads((int32_t)(Cl->slice_ptr[nhuge + 1] - Cl->slice_ptr[nhuge]),
                                Cl->p.n) == CGM_HUGE_ROW_THREADS)
      nhuge++;
    st = cgm_cuda_matrix_upload(d, Cl, &d->C, err);
    d->C.L.long_rows = d->C.L_hi.long_rows = 1;
    d->C.L.nhuge = d->C.L_hi.nhuge = nhuge;
  }
  d->v_off = seg[g].v_off;
  return st;
}

/* The exchange's set-up: send lists, pinned buffers or communicators. */
static cgm_status setup_exchange(gpu_solver *S, const cgm_seg_host *seg, cgm_error *err) {
  if (S->pol.mode == MODE_HALO) return setup_halo_sends(S, seg, err);
  if (S->pol.mode == MODE_HOST) {
    CGM_CUDA_TRY(err, cudaMallocHost(&S->host_v, (size_t)cgm_precision_width(S->prec) *
                                                     (size_t)S->bounds[S->G] * S->n));
    CGM_CUDA_TRY(err, cudaMallocHost((void **)&S->host_red, sizeof(double) * 3 * S->G));
  }
  if (S->pol.mode == MODE_NCCL) return gs_nccl_init(S, err);
  return CGM_OK;
}

/* Set-up from the plan: peers, memory, every device's matrix and vectors, the exchange; res gets
 * the layout's and the upload's times, the memory and the device. */
static cgm_status setup(gpu_solver *S, const cgm_problem *pb, cgm_seg_host *seg,
                        cgm_solve_result *res, cgm_error *err) {
  init_solver(S, pb);
  const int G = S->G;
  bool dev_layout = false; /* A on the host, its layout built on the GPU */
  double built = 0.0;      /* the layouts built on the GPUs: layout time, not upload */
  cgm_status st = CGM_OK;
  if (S->pol.mode == MODE_P2P || S->pol.mode == MODE_HALO)
    if ((st = gs_enable_peers(G, err))) return st;
  if ((st = check_memory(S, pb, err)) || (st = build_segments(S, pb, seg, &dev_layout, res, err)) ||
      (!pb->dA && !dev_layout && (st = choose_values(S, pb, &S->dev[0], NULL, err))))
    return st;
  const double tu = cgm_now(); /* the start of the upload */
  for (int g = 0; g < G && !st; g++) st = setup_device(S, pb, seg, g, dev_layout, &built, res, err);
  if (st || (st = setup_exchange(S, seg, err))) return st;
  int64_t nb = 0, ns = 0, nsl = 0, nlong = 0;
  for (int g = 0; g < G; g++) {
    res->device_bytes = S->dev[g].bytes > res->device_bytes ? S->dev[g].bytes : res->device_bytes;
    for (const cgm_dev_layout *L : {&S->dev[g].A.L, &S->dev[g].B.L, &S->dev[g].C.L})
      nb += L->nblocks_padded, nsl += L->nslices, ns += (int64_t)L->nslices * L->by;
    nlong += S->dev[g].C.L.nblocks_padded;
  }
  const int w = cgm_precision_width(S->prec);
  cgm_storage_report(res, &S->vs, S->n, nb, ns, nsl, pb->plan.nrows, w);
  /* the long rows (C) keep full values */
  const double full_extra =
      (double)nlong * (S->n * S->n * w - cgm_values_block_bytes(S->vs.fmt, S->n, S->prec));
  res->value_bytes += full_extra, res->iter_bytes += full_extra;
  if (S->pol.pdl) { /* the kernels must hold the wait: code built for sm_90 or later */
    CGM_CUDA_TRY(err, cudaSetDevice(S->dev[0].dev));
    S->pol.pdl = cgm_pdl_supported();
  }
  if ((st = pb->dA ? gs_device_vectors(S, pb, err) : upload_vectors(S, pb, seg, dev_layout, err)))
    return st;
  res->time_upload_s = cgm_now() - tu - built;       /* with the exchange's and NCCL's setup */
  for (int g = 0; g < G; g++) cgm_seg_free(&seg[g]); /* the host copies are no longer needed */
  cudaDeviceProp prop;
  CGM_CUDA_TRY(err, cudaGetDeviceProperties(&prop, S->dev[0].dev));
  if (G > 1)
    snprintf(res->device, sizeof res->device, "%d x %.200s", G, prop.name);
  else
    snprintf(res->device, sizeof res->device, "%.200s", prop.name);
  res->exchange_bytes = pb->plan.exchange_elems * (int64_t)cgm_precision_width(S->prec);
  return CGM_OK;
}

/* CG1; *settled where the initial residual ends the solve. */
static cgm_status first_step(gpu_solver *S, const cgm_problem *pb, cgm_solve_result *res,
                             bool *settled, cgm_error *err) {
  double rzrr[2] = {0.0, 0.0};
  cgm_status st = cg1(S, pb, rzrr, err);
  if (st) return st;
  if (!isfinite(rzrr[0]) || !isfinite(rzrr[1])) {
    snprintf(res->stop_reason, sizeof res->stop_reason, "NaN or Inf in the initial residual");
    *settled = true;
    return CGM_ENOCONV;
  }
  if (rzrr[1] <= (pb->tol * pb->bnorm) * (pb->tol * pb->bnorm)) {
    res->converged = true;
    res->solver_residual = sqrt(rzrr[1]) / pb->bnorm;
    *settled = true;
  }
  return CGM_OK;
}

/* The loop, host-staged or by graphs; *fin: the state it ended in. */
static cgm_status run_loop(gpu_solver *S, const cgm_problem *pb, cgm_solve_result *res,
                           const cgm_cg_state **fin, cgm_error *err) {
  cgm_status st;
  S->mon_last = -1;
  cgm_monitor_report(&pb->opts, &S->mon_last, 0, S->rt0 / pb->bnorm, false, gs_monitor_x, S);
  if (S->pol.mode == MODE_HOST) {
    st = gs_host_loop(S, pb, res, &S->final, err);
    *fin = &S->final;
  } else {
    if ((st = gs_capture(S, err))) return st;
    st = gs_graph_loop(S, pb, res, fin, err);
  }
  return st;
}

/* The result of a run that ended in state fin: its count, residual and stop reason; *settled unless
 * a GPU gave up waiting for another (an error: nothing is downloaded). */
static cgm_status finish(gpu_solver *S, const cgm_problem *pb, const cgm_cg_state *fin,
                         cgm_solve_result *res, bool *settled, cgm_error *err) {
  res->iterations = fin->iter;
  res->solver_residual = sqrt(fin->rr_last) / pb->bnorm;
  if (fin->done != CGM_RUN_TIMEOUT) /* (a GPU that hung: nothing to download) */
    cgm_monitor_report(&pb->opts, &S->mon_last, fin->iter, res->solver_residual, true, gs_monitor_x,
                       S);
  res->converged = fin->done == CGM_RUN_CONVERGED;
  if (fin->done == CGM_RUN_TIMEOUT) {
    stop_reason(fin, pb->bnorm, pb->tol, res);
    return cgm_fail(err, CGM_ERUNTIME, "%s (%s exchange)", res->stop_reason,
                    cgm_exchange_name(pb->opts.exchange));
  }
  *settled = true;
  if (res->converged) return CGM_OK;
  stop_reason(fin, pb->bnorm, pb->tol, res);
  if (fin->done == CGM_RUN_STALLED) {
    cgm_solve_stall_reason(pb->opts.precision, res->solver_residual, pb->tol, fin->iter,
                           res->stop_reason, sizeof res->stop_reason);
    res->stalled = true;
  }
  return CGM_ENOCONV;
}

/* x from every device into dst (mixed: x_hi + x), in the GPU's memory when
 * on_device (pb->dA's solution), else the host's. */
static cgm_status download_x(gpu_solver *S, const cgm_problem *pb, double *dst, bool on_device,
                             cgm_error *err) {
  for (int g = 0; g < S->G; g++) {
    cgm_cuda_dev *d = &S->dev[g];
    int64_t r0 = (int64_t)S->bounds[g] * S->n, cnt = d->rows;
    if (r0 + cnt > pb->plan.nrows) cnt = pb->plan.nrows - r0;
    if (cnt <= 0) continue;
    cgm_status st2 = CGM_OK;
    if (on_device) {
      st2 = gs_device_solution(S, dst, cnt, err);
    } else if (d->mixed) { /* x_hi + x, added here: the run's own x_hi and x stay as they are */
      double *lo = (double *)malloc((size_t)cnt * sizeof *lo);
      st2 = lo ? cgm_cuda_download_double(d, d->x_hi, dst + r0, cnt, err)
               : cgm_fail(err, CGM_ERUNTIME, "out of host memory");
      if (!st2) st2 = cgm_cuda_download_vec(d, d->x, lo, cnt, err);
      for (int64_t i = 0; !st2 && i < cnt; i++) dst[r0 + i] += lo[i];
      free(lo);
    } else {
      st2 = cgm_cuda_download_vec(d, d->x, dst + r0, cnt, err);
    }
    if (st2) return st2;
  }
  return CGM_OK;
}

bool gs_monitor_x(void *S, double *dst) {
  return download_x((gpu_solver *)S, ((gpu_solver *)S)->pb, dst, false, NULL) == CGM_OK;
}

/* Everything the set-up made, freed: S too, unless NCCL's set-up never
 * returned (its thread may still write S->comm; see gs_nccl_init). */
static void teardown(gpu_solver *S, cgm_seg_host *seg) {
  for (int g = 0; g < CGM_MAX_GPUS; g++) cgm_seg_free(&seg[g]);
  free(seg);
  if (S->nccl_stuck) return; /* left to the process's end */
  /* Graphs first: a graph that captured NCCL collectives holds its communicator, and
   * ncclCommDestroy waits for it forever (on the H200 nodes: the "NCCL hang" of docs/perf.md). */
  for (int g = 0; g < CGM_MAX_GPUS; g++) cgm_cuda_dev_drop_graphs(&S->dev[g]);
  if (S->have_comm) /* after a hang, abort: that unblocks NCCL's kernels */
    for (int g = 0; g < S->G; g++)
      S->hung ? S->nccl->ncclCommAbort(S->comm[g]) : S->nccl->ncclCommDestroy(S->comm[g]);
  if (S->host_v) cudaFreeHost(S->host_v);
  if (S->host_red) cudaFreeHost(S->host_red);
  for (int g = 0; g < CGM_MAX_GPUS; g++) cgm_cuda_dev_free(&S->dev[g]);
  free(S);
}

/* A on the host, or in a GPU's memory (pb->dA: one GPU, built there). */
cgm_status cgm_cuda_cg(const cgm_problem *pb, cgm_solve_result *res, cgm_error *err) {
  cgm_status st = check_devices(pb, err);
  if (st) return st;
  for (int g = 0; g < pb->opts.gpus; g++) cgm_cuda_context_ready(pb->dA ? pb->dA->device : g);
  const double t0 = cgm_now();
  gpu_solver *S = (gpu_solver *)calloc(1, sizeof *S);
  cgm_seg_host *seg = (cgm_seg_host *)calloc(CGM_MAX_GPUS, sizeof *seg);
  if (!S || !seg) {
    free(S);
    free(seg);
    return cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  }
  bool settled = false; /* the outcome is known: x is downloaded */
  st = setup(S, pb, seg, res, err);
  if (!st) st = first_step(S, pb, res, &settled, err);
  if (!st && !settled) {
    res->time_setup_s = cgm_now() - t0;
    const cgm_cg_state *fin = NULL;
    st = run_loop(S, pb, res, &fin, err);
    if (!st) st = finish(S, pb, fin, res, &settled, err);
  }
  if (settled) {
    cgm_status st2 = download_x(S, pb, pb->x, pb->dA != NULL, err);
    if (st2) st = st2;
    if (res->time_setup_s == 0.0) res->time_setup_s = cgm_now() - t0;
  }
  teardown(S, seg);
  return st;
}
