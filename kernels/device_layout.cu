/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The MBR layout of block size 1 built on the device from a CSR already there, entry for entry
 * cgm_bcsr_build's (sparse/bcsr_mbr.c): rows sorted by length, longest first, stably (CUB's radix
 * sort); slices padded in steps of B_x, a row's padding reading x at its own index, an empty slot's
 * at 0; where asked, the long rows apart as segments.c puts them. */
#include <cub/cub.cuh>

#include "kernels/cuda_dev.h"
#include "kernels/cuda_util.h"

namespace {

constexpr int kThreads = 256;

int grid_for(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  return (int)(b < 1 ? 1 : b > 65535 ? 65535 : b);
}

template <typename IP>
__global__ void row_lengths(int32_t n, const IP *rowptr, int32_t *len, int32_t *iota) {
  CGM_GRID_LOOP(i, n) {
    len[i] = (int32_t)(rowptr[i + 1] - rowptr[i]);
    iota[i] = (int32_t)i;
  }
}

/* Blocks of slice k: its first (longest) row's length in steps of B_x, times B_y B_x. */
__global__ void slice_sizes(int32_t nslices, int bx, int by, const int32_t *len_sorted,
                            int64_t *size) {
  CGM_GRID_LOOP(k, nslices) {
    const int64_t l = len_sorted[k * by];
    size[k] = (l + bx - 1) / bx * by * bx;
  }
}

__global__ void slot_rows(int64_t nslots, int32_t n, const int32_t *order, int32_t *brow) {
  CGM_GRID_LOOP(s, nslots) brow[s] = s < n ? order[s] : -1;
}

/* One thread a row slot: slot q of step t / B_x of slice k holds the row's
 * t-th entry (cgm_bcsr in include/cgmodel/sparse.h); DICT (vs): no out,
 * the value's code above the column (cgm_values_encode). */
template <typename IP, typename T>
__global__ void fill(int64_t nslots, int bx, int by, const IP *rowptr, const int32_t *col,
                     const double *val, const int32_t *brow, const int64_t *slice_ptr,
                     int32_t *bcol, T *out, double *out_hi, cgm_value_set vs) {
  CGM_GRID_LOOP(s, nslots) {
    const int64_t k = s / by, j = s % by;
    const int32_t r = brow[s];
    const int64_t q0 = slice_ptr[k], steps = (slice_ptr[k + 1] - q0) / ((int64_t)by * bx);
    const int64_t k0 = r >= 0 ? (int64_t)rowptr[r] : 0;
    const int64_t len = r >= 0 ? (int64_t)rowptr[r + 1] - k0 : 0;
    const int32_t pad_col = r >= 0 ? r : 0;
    for (int64_t t = 0; t < steps * bx; t++) {
      const int64_t q = q0 + (t / bx) * by * bx + j * bx + t % bx;
      const bool in = t < len;
      const double v = in ? val[k0 + t] : 0.0;
      int32_t code = 0;
      while (vs.fmt == CGM_VALUES_DICT && code < vs.ndict - 1 && vs.dict[code] != v) code++;
      bcol[q] = (in ? col[k0 + t] : pad_col) | (int32_t)((uint32_t)code << vs.shift);
      if (out) out[q] = (T)v;
      if (out_hi) out_hi[q] = v;
    }
  }
}

/* cgm_values_choose_by's pass: found |= CGM_VALUES_OUTSIDE where a value lies outside vs's
 * dictionary (where vs is DICT; a NaN is in none), one such in *outside (any), | CGM_VALUES_NOT_F32
 * where one is not a float, | CGM_VALUES_FAR where one is outside float's normal range. */
__global__ void values_found(int64_t nnz, const double *val, cgm_value_set vs, unsigned *found,
                             double *outside) {
  unsigned f = 0;
  CGM_GRID_LOOP(k, nnz) {
    const double v = val[k];
    bool in = vs.fmt != CGM_VALUES_DICT;
    for (int i = 0; i < vs.ndict && !in; i++) in = vs.dict[i] == v;
    if (!in) *outside = v, f |= CGM_VALUES_OUTSIDE;
    f |= (double)(float)v == v ? 0u : CGM_VALUES_NOT_F32;
    f |= CGM_FLOAT_NEAR(v) ? 0u : CGM_VALUES_FAR;
  }
  if (f) atomicOr(found, f);
}

/* The values as d stores them (d->vs for d->A; c, the long rows, full). */
template <typename IP>
cudaError_t launch_fill(const cgm_cuda_dev *d, const cgm_csr_device *A, int bx, int by,
                        int64_t nslots, const int64_t *slice_ptr, cgm_dev_matrix *m,
                        cudaStream_t s) {
  const IP *rp = (const IP *)A->rowptr;
  cgm_value_set vs = d->vs;
  if (m == &d->C) vs.fmt = CGM_VALUES_FULL;
  if (d->prec == CGM_PREC_DOUBLE && vs.fmt != CGM_VALUES_F32)
    fill<IP, double><<<grid_for(nslots), kThreads, 0, s>>>(
        nslots, bx, by, rp, A->colidx, A->val, m->brow, slice_ptr, m->bcol,
        vs.fmt == CGM_VALUES_DICT ? nullptr : (double *)m->val, (double *)nullptr, vs);
  else
    fill<IP, float><<<grid_for(nslots), kThreads, 0, s>>>(nslots, bx, by, rp, A->colidx, A->val,
                                                          m->brow, slice_ptr, m->bcol,
                                                          (float *)m->val, m->val_hi, vs);
  return cudaGetLastError();
}

/* The first index whose sorted length is at most limit (lengths sorted
 * longest first): the count of rows longer than limit. */
__global__ void count_above(int32_t n, const int32_t *len_sorted, int32_t limit, int32_t *out) {
  CGM_GRID_LOOP(i, n) {
    if (len_sorted[i] > limit && (i + 1 == n || len_sorted[i + 1] <= limit)) *out = (int32_t)i + 1;
  }
}

/* The layout of the rows order[0..count), sorted longest first with their
 * lengths len_sorted[0..count), in slices of p.by rows (tmp: scan scratch
 * of tmp_bytes for up to the matrix's rows; size: nslices + 1 int64). */
cgm_status build_sorted(cgm_cuda_dev *d, const cgm_csr_device *A, cgm_bcsr_params p,
                        const int32_t *len_sorted, const int32_t *order, int32_t count,
                        int64_t *size, void *tmp, size_t tmp_bytes, cgm_dev_matrix *m,
                        cgm_error *err) {
  const int bx = p.bx, by = p.by;
  const int32_t nslices = (int32_t)(((int64_t)count + by - 1) / by);
  const int64_t nslots = (int64_t)nslices * by;
  const cgm_values fmt = m == &d->C ? CGM_VALUES_FULL : d->vs.fmt;
  const size_t w = (size_t)cgm_values_block_bytes(fmt, 1, d->prec);
  const bool hi = d->mixed || (fmt == CGM_VALUES_F32 && !d->vs.exact); /* val_hi too */
  cudaStream_t s = d->stream;
  int64_t npad = 0;
  size_t scan_bytes = tmp_bytes;
  CGM_CUDA_TRY(err, cgm_cuda_dmalloc(d, (void **)&m->slice_ptr, ((size_t)nslices + 1) * 8));
  CGM_CUDA_TRY(err, cgm_cuda_dmalloc(d, (void **)&m->brow, (size_t)nslots * 4));
  CGM_CUDA_TRY(err, cudaMemsetAsync(m->slice_ptr, 0, 8, s));
  if (nslices > 0) {
    slice_sizes<<<grid_for(nslices), kThreads, 0, s>>>(nslices, bx, by, len_sorted, size);
    CGM_CUDA_TRY(err, cudaGetLastError());
    CGM_CUDA_TRY(
        err, cub::DeviceScan::InclusiveSum(tmp, scan_bytes, size, m->slice_ptr + 1, nslices, s));
  }
  slot_rows<<<grid_for(nslots), kThreads, 0, s>>>(nslots, count, order, m->brow);
  CGM_CUDA_TRY(err, cudaGetLastError());
  CGM_CUDA_TRY(err, cudaMemcpyAsync(&npad, m->slice_ptr + nslices, 8, cudaMemcpyDeviceToHost, s));
  CGM_CUDA_TRY(err, cudaStreamSynchronize(s));
  {
    /* the values and columns are the bulk: checked against free memory before they are allocated,
     * as the plan's footprint is for a layout built on the host */
    int64_t avail = 0, total = 0;
    const int64_t need = npad * (int64_t)(w + 4 + (hi ? 8 : 0));
    cgm_status st = cgm_cuda_free_bytes(d->dev, &avail, &total, err);
    if (st) return st;
    if (need > avail)
      return cgm_fail(err, CGM_EINPUT,
                      "the matrix does not fit on GPU %d: its layout needs %.2f GiB more, %.2f GiB "
                      "are free (%.2f GiB total); use single precision",
                      d->dev, need / 1073741824.0, (avail + (256 << 20)) / 1073741824.0,
                      total / 1073741824.0);
  }
  CGM_CUDA_TRY(err, cgm_cuda_dmalloc(d, (void **)&m->bcol, (size_t)npad * 4));
  CGM_CUDA_TRY(err, cgm_cuda_dmalloc(d, &m->val, (size_t)npad * w));
  if (hi) CGM_CUDA_TRY(err, cgm_cuda_dmalloc(d, (void **)&m->val_hi, (size_t)npad * 8));
  CGM_CUDA_TRY(err, A->rowptr64 ? launch_fill<int64_t>(d, A, bx, by, nslots, m->slice_ptr, m, s)
                                : launch_fill<int32_t>(d, A, bx, by, nslots, m->slice_ptr, m, s));
  CGM_CUDA_TRY(err, cudaStreamSynchronize(s));
  return cgm_dev_matrix_describe(d, m, p, nslices, count, npad, err);
}

} // namespace

cgm_status cgm_cuda_matrix_from_device(cgm_cuda_dev *d, const cgm_csr_device *A, cgm_bcsr_params p,
                                       cgm_dev_matrix *m, cgm_dev_matrix *c, cgm_error *err) {
  memset(m, 0, sizeof *m);
  if (c) memset(c, 0, sizeof *c);
  if (p.n != 1)
    return cgm_fail(err, CGM_EINPUT,
                    "a matrix in GPU memory is laid out with block size 1 (got %d)", p.n);
  const int32_t n = A->nrows;
  int32_t *len = NULL, *len_sorted = NULL, *iota = NULL, *order = NULL, *counts = NULL;
  int64_t *size = NULL;
  int32_t nlong = 0, nhuge = 0;
  void *tmp = NULL;
  size_t tmp_bytes = 0, scan_bytes = 0;
  cgm_status st = CGM_OK;
  cudaStream_t s = d->stream;
  CGM_CUDA_TRY(err, cudaSetDevice(d->dev));
  const size_t nn = (size_t)(n > 0 ? n : 1);
  CGM_CUDA_GOTO(st, err, out, cudaMalloc((void **)&len, nn * 4));
  CGM_CUDA_GOTO(st, err, out, cudaMalloc((void **)&len_sorted, nn * 4));
  CGM_CUDA_GOTO(st, err, out, cudaMalloc((void **)&iota, nn * 4));
  CGM_CUDA_GOTO(st, err, out, cudaMalloc((void **)&order, nn * 4));
  CGM_CUDA_GOTO(st, err, out, cudaMalloc((void **)&counts, 2 * 4));
  if (A->rowptr64)
    row_lengths<int64_t><<<grid_for(n), kThreads, 0, s>>>(n, (const int64_t *)A->rowptr, len, iota);
  else
    row_lengths<int32_t><<<grid_for(n), kThreads, 0, s>>>(n, (const int32_t *)A->rowptr, len, iota);
  CGM_CUDA_GOTO(st, err, out, cudaGetLastError());
  CGM_CUDA_GOTO(st, err, out,
                cub::DeviceRadixSort::SortPairsDescending(NULL, tmp_bytes, len, len_sorted, iota,
                                                          order, n, 0, 32, s));
  CGM_CUDA_GOTO(st, err, out,
                cub::DeviceScan::InclusiveSum(NULL, scan_bytes, (int64_t *)NULL, (int64_t *)NULL,
                                              (int)nn, s));
  if (scan_bytes > tmp_bytes) tmp_bytes = scan_bytes;
  CGM_CUDA_GOTO(st, err, out, cudaMalloc(&tmp, tmp_bytes ? tmp_bytes : 16));
  CGM_CUDA_GOTO(st, err, out,
                cub::DeviceRadixSort::SortPairsDescending(tmp, tmp_bytes, len, len_sorted, iota,
                                                          order, n, 0, 32, s));
  if (c) {
    /* the rows longer than CGM_LONG_ROW (sorted first) go to c, a row a
     * slice, as the host's split (solver/cuda/segments.c); of those, the
     * first nhuge (over CGM_HUGE_ROW entries) are read by a block each */
    int32_t h[2] = {0, 0};
    CGM_CUDA_GOTO(st, err, out, cudaMemsetAsync(counts, 0, 2 * 4, s));
    count_above<<<grid_for(n), kThreads, 0, s>>>(n, len_sorted, CGM_LONG_ROW, counts);
    count_above<<<grid_for(n), kThreads, 0, s>>>(n, len_sorted, CGM_HUGE_ROW, counts + 1);
    CGM_CUDA_GOTO(st, err, out, cudaGetLastError());
    CGM_CUDA_GOTO(st, err, out, cudaMemcpyAsync(h, counts, sizeof h, cudaMemcpyDeviceToHost, s));
    CGM_CUDA_GOTO(st, err, out, cudaStreamSynchronize(s));
    nlong = h[0];
    nhuge = h[1];
  }
  { /* the slices' sizes, for the larger of the two layouts */
    const int64_t na = ((int64_t)n - nlong + p.by - 1) / p.by;
    CGM_CUDA_GOTO(st, err, out,
                  cudaMalloc((void **)&size, ((size_t)(na > nlong ? na : nlong) + 1) * 8));
  }
  if (nlong > 0) {
    const cgm_bcsr_params one = {1, 1, 1};
    if ((st = build_sorted(d, A, one, len_sorted, order, nlong, size, tmp, tmp_bytes, c, err)))
      goto out;
    c->L.long_rows = c->L_hi.long_rows = 1;
    c->L.nhuge = c->L_hi.nhuge = nhuge;
  }
  st = build_sorted(d, A, p, len_sorted + nlong, order + nlong, n - nlong, size, tmp, tmp_bytes, m,
                    err);
out:
  /* the temporaries go; on failure m's and c's arrays stay with d (cgm_cuda_dev_free) */
  cgm_cuda_free_all({len, len_sorted, iota, order, counts, size, tmp});
  return st;
}

int cgm_cuda_values_pass(void *ctx, const cgm_value_set *vs, double *outside) {
  cgm_cuda_values *c = (cgm_cuda_values *)ctx;
  struct {
    unsigned found;
    double outside;
  } h = {0u, 0.0}, *f = NULL;
  CGM_CUDA_GOTO(c->st, c->err, out, cudaSetDevice(c->d->dev));
  CGM_CUDA_GOTO(c->st, c->err, out, cudaMalloc((void **)&f, sizeof *f));
  CGM_CUDA_GOTO(c->st, c->err, out, cudaMemsetAsync(f, 0, sizeof *f, c->d->stream));
  values_found<<<grid_for(c->nnz), kThreads, 0, c->d->stream>>>(c->nnz, c->val, *vs, &f->found,
                                                                &f->outside);
  CGM_CUDA_GOTO(c->st, c->err, out, cudaGetLastError());
  CGM_CUDA_GOTO(c->st, c->err, out,
                cudaMemcpyAsync(&h, f, sizeof h, cudaMemcpyDeviceToHost, c->d->stream));
  CGM_CUDA_GOTO(c->st, c->err, out, cudaStreamSynchronize(c->d->stream));
  *outside = h.outside;
out:
  cgm_cuda_free_all({f});
  return c->st ? -1 : (int)h.found;
}
