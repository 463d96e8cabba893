/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Per-device resources of the CUDA solver: vectors, the uploaded layouts, reduction scratch and the
 * device-side state. Every transfer is ordered on the device's own stream, never on the legacy
 * default stream, which a non-blocking stream does not wait for. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mutex>
#include <utility>

#include "kernels/cuda_dev.h"
#include "kernels/cuda_util.h"

/* cudaMalloc that counts what it takes. */
cudaError_t cgm_cuda_dmalloc(cgm_cuda_dev *d, void **p, size_t bytes) {
  if (bytes == 0) bytes = 16;
  cudaError_t e = cudaMalloc(p, bytes);
  if (e == cudaSuccess) d->bytes += (int64_t)bytes;
  return e;
}

cgm_status cgm_cuda_free_bytes(int dev, int64_t *avail, int64_t *total, cgm_error *err) {
  int cur;
  CGM_CUDA_TRY(err, cudaGetDevice(&cur));
  CGM_CUDA_TRY(err, cudaSetDevice(dev));
  size_t fr = 0, tot = 0;
  cudaError_t e = cudaMemGetInfo(&fr, &tot);
  cudaSetDevice(cur);
  CGM_CUDA_TRY(err, e);
  *avail = (int64_t)fr - (int64_t)(256 << 20);
  *total = (int64_t)tot;
  return CGM_OK;
}

void cgm_cuda_matrix_free(cgm_dev_matrix *m) {
  cgm_cuda_free_all({m->val, m->val_hi, m->dict, m->slice_ptr, m->bcol, m->brow});
  memset(m, 0, sizeof *m);
}

/* Uploads through a ring of three pinned staging buffers: the host fills one on every core (a
 * copy, or the conversion to single) while the copy engine drains the others (a pageable copy
 * stages on one thread). Small arrays go directly. The buffers are the device's
 * (cgm_cuda_dev.stage), kept across uploads. 8 MB each: pinning costs ~0.3 ms a MB; with the
 * buffers pinned, 600 MB went at 40 GB/s through two of them and 49 through three, 50 through two
 * of 32 MB (one H200, 2026-12-02, bench/upload_bench.c). */
#define STAGE_BYTES ((size_t)8 << 20)

static void stager_release(cgm_stager *s) {
  for (int i = 0; i < CGM_STAGE_BUFS; i++) {
    if (s->done[i]) cudaEventDestroy(s->done[i]);
    if (s->buf[i]) cudaFreeHost(s->buf[i]);
  }
  memset(s, 0, sizeof *s);
}

/* Pinned host memory outlives a solve. Pinning is most of a small solve's setup in a warm process
 * (one H200, 2026-12-02, bench/small_setup.sh: cudaMallocHost 0.5 ms for the state's few bytes,
 * 2.3 ms for an 8 MB staging buffer, cudaFreeHost 0.1-0.4 ms each; 11 of Poisson 64^3's 17 ms of
 * setup, with two buffers), so a device's last staging buffers and host state stay for the
 * process's next solve on it, until cgm_cuda_release_kept. One set a device: a second solve at once
 * on the same device pins its own, freed after it. */
static struct {
  cgm_stager stage;
  cgm_cg_state *state; /* two: one per graph */
} kept[CGM_MAX_GPUS];
static std::mutex kept_lock;

/* d (holding none) takes its device's kept set, or (put) leaves its own for the next solve where
 * none is kept; what d still holds after is its own to free. */
static void kept_swap(cgm_cuda_dev *d, bool put) {
  std::lock_guard<std::mutex> g(kept_lock);
  if (d->dev < 0 || d->dev >= CGM_MAX_GPUS) return;
  if (put == (kept[d->dev].stage.buf[0] || kept[d->dev].state)) return;
  d->stage.k = 0;
  std::swap(kept[d->dev].stage, d->stage);
  std::swap(kept[d->dev].state, d->host_state[0]);
}

void cgm_cuda_dev_release_kept(void) {
  std::lock_guard<std::mutex> g(kept_lock);
  int cur = -1; /* the caller's device, set again after (no CUDA call where nothing is kept) */
  for (int d = 0; d < CGM_MAX_GPUS; d++) {
    if (!kept[d].stage.buf[0] && !kept[d].state) continue;
    if (cur < 0 && cudaGetDevice(&cur) != cudaSuccess) cur = 0;
    if (cudaSetDevice(d) != cudaSuccess) continue; /* kept: nothing is lost */
    stager_release(&kept[d].stage);
    cudaFreeHost(kept[d].state);
    kept[d].state = NULL;
  }
  if (cur >= 0) (void)cudaSetDevice(cur);
  (void)cudaGetLastError();
}

void cgm_cuda_dev_drop_graphs(cgm_cuda_dev *d) {
  if (d->dev < 0) return;
  cudaSetDevice(d->dev);
  for (int i = 0; i < 2; i++) {
    if (d->graph_exec[i]) cudaGraphExecDestroy(d->graph_exec[i]);
    d->graph_exec[i] = NULL;
  }
}

void cgm_cuda_dev_free(cgm_cuda_dev *d) {
  if (d->dev < 0) return;
  cgm_cuda_dev_drop_graphs(d);
  cudaSetDevice(d->dev);
  cgm_cuda_matrix_free(&d->A);
  cgm_cuda_matrix_free(&d->B);
  cgm_cuda_matrix_free(&d->C);
  cgm_cuda_free_all({d->x, d->r, d->v, d->u, d->dinv, d->s, d->partials, d->counters, d->state,
                     d->dot_tmp, d->send_idx, d->b, d->x_hi, d->y_hi, d->bj.inv, d->bj.blk});
  bool done = true; /* a device in error keeps nothing: its transfers may still read the buffers */
  for (int i = 0; i < CGM_STAGE_BUFS && d->stage.done[i]; i++)
    done = done && cudaEventSynchronize(d->stage.done[i]) == cudaSuccess;
  if (done) kept_swap(d, true);
  stager_release(&d->stage);
  cudaFreeHost(d->host_state[0]); /* [1] lies in the same allocation */
  cudaEvent_t evs[] = {d->ev[0], d->ev[1], d->ev[2], d->ev[3],   d->ev[4],  d->ev[5],
                       d->ev_a,  d->ev_b,  d->ev_c,  d->ev_pack, d->ev_fork};
  for (size_t i = 0; i < sizeof evs / sizeof *evs; i++)
    if (evs[i]) cudaEventDestroy(evs[i]);
  if (d->stream) cudaStreamDestroy(d->stream);
  if (d->comm) cudaStreamDestroy(d->comm);
  (void)cudaGetLastError();
  memset(d, 0, sizeof *d);
  d->dev = -1;
}

cgm_status cgm_cuda_dev_init(cgm_cuda_dev *d, int dev, cgm_precision prec, int64_t rows,
                             int64_t v_len, cgm_error *err) {
  memset(d, 0, sizeof *d);
  d->dev = dev;
  d->mixed = prec == CGM_PREC_MIXED;
  d->prec = cgm_precision_iter(prec);
  CGM_CUDA_TRY(err, cudaSetDevice(dev));
  CGM_CUDA_TRY(err, cudaDeviceGetAttribute(&d->sms, cudaDevAttrMultiProcessorCount, dev));
  CGM_CUDA_TRY(err, cudaStreamCreateWithFlags(&d->stream, cudaStreamNonBlocking));
  /* The halo pack runs on `comm` beside kernels that may spin on flags (cgm_sync) and fill the GPU:
   * at the highest priority its blocks are placed first as slots free up, so a peer never waits on
   * a pack that cannot get onto this GPU. */
  int prio_low = 0, prio_high = 0;
  CGM_CUDA_TRY(err, cudaDeviceGetStreamPriorityRange(&prio_low, &prio_high));
  CGM_CUDA_TRY(err, cudaStreamCreateWithPriority(&d->comm, cudaStreamNonBlocking, prio_high));
  const size_t w = (size_t)cgm_precision_width(d->prec);
  d->rows = rows;
  d->np = cgm_vec_len(rows);
  d->v_len = cgm_vec_len(v_len > rows ? v_len : rows);
  void **vecs[] = {&d->x, &d->r, &d->u, &d->dinv, &d->s};
  for (size_t i = 0; i < 5; i++) CGM_CUDA_TRY(err, cgm_cuda_dmalloc(d, vecs[i], (size_t)d->np * w));
  CGM_CUDA_TRY(err, cgm_cuda_dmalloc(d, &d->v, (size_t)d->v_len * w));
  /* b for the true residual, in double unless the solve is all single */
  CGM_CUDA_TRY(err, cgm_cuda_dmalloc(d, &d->b, (size_t)d->np * (prec == CGM_PREC_SINGLE ? 4 : 8)));
  if (d->mixed) {
    CGM_CUDA_TRY(err, cgm_cuda_dmalloc(d, (void **)&d->x_hi, (size_t)d->np * 8));
    CGM_CUDA_TRY(err, cgm_cuda_dmalloc(d, (void **)&d->y_hi, (size_t)d->np * 8));
  }
  d->red_cap = 4096;
  /* Six reduction buffers of 2 values a block, and CGM_RED_RELIABLE of 5;
   * the plan counts this scratch as CGM_DEVICE_SCRATCH_BYTES at most. */
  static_assert((6 * 2 + 5) * 4096 * 8 + 7 * sizeof(unsigned) + 8 * sizeof(double) +
                        sizeof(cgm_cg_state) <=
                    CGM_DEVICE_SCRATCH_BYTES,
                "the plan's device scratch is too small");
  CGM_CUDA_TRY(err,
               cgm_cuda_dmalloc(d, (void **)&d->partials, (size_t)(6 * 2 + 5) * d->red_cap * 8));
  CGM_CUDA_TRY(err, cgm_cuda_dmalloc(d, (void **)&d->counters, 7 * sizeof(unsigned)));
  CGM_CUDA_TRY(err, cgm_cuda_dmalloc(d, (void **)&d->dot_tmp, 8 * sizeof(double)));
  CGM_CUDA_TRY(err, cgm_cuda_dmalloc(d, (void **)&d->state, sizeof(cgm_cg_state)));
  CGM_CUDA_TRY(err, cudaMemsetAsync(d->counters, 0, 7 * sizeof(unsigned), d->stream));
  CGM_CUDA_TRY(err, cudaMemsetAsync(d->state, 0, sizeof(cgm_cg_state), d->stream));
  kept_swap(d, false);
  if (!d->host_state[0])
    CGM_CUDA_TRY(err, cudaMallocHost((void **)&d->host_state[0], 2 * sizeof(cgm_cg_state)));
  memset(d->host_state[0], 0, 2 * sizeof(cgm_cg_state));
  d->host_state[1] = d->host_state[0] + 1;
  for (int i = 0; i < 6; i++) CGM_CUDA_TRY(err, cudaEventCreate(&d->ev[i]));
  cudaEvent_t *dep[] = {&d->ev_a, &d->ev_b, &d->ev_c, &d->ev_pack, &d->ev_fork};
  for (size_t i = 0; i < 5; i++)
    CGM_CUDA_TRY(err, cudaEventCreateWithFlags(dep[i], cudaEventDisableTiming));
  /* Padding stays zero forever: only the rows of the layout are written. */
  for (size_t i = 0; i < 5; i++)
    CGM_CUDA_TRY(err, cudaMemsetAsync(*vecs[i], 0, (size_t)d->np * w, d->stream));
  CGM_CUDA_TRY(
      err, cudaMemsetAsync(d->b, 0, (size_t)d->np * (prec == CGM_PREC_SINGLE ? 4 : 8), d->stream));
  if (d->mixed) {
    CGM_CUDA_TRY(err, cudaMemsetAsync(d->x_hi, 0, (size_t)d->np * 8, d->stream));
    CGM_CUDA_TRY(err, cudaMemsetAsync(d->y_hi, 0, (size_t)d->np * 8, d->stream));
  }
  CGM_CUDA_TRY(err, cudaMemsetAsync(d->v, 0, (size_t)d->v_len * w, d->stream));
  CGM_CUDA_TRY(err, cudaStreamSynchronize(d->stream));
  return CGM_OK;
}

static cgm_status stager_alloc(const cgm_cuda_dev *d, cgm_stager *s, cgm_error *err) {
  if (s->buf[CGM_STAGE_BUFS - 1]) return CGM_OK; /* this device's, or the kept ones */
  cgm_status st = CGM_OK;
  for (int i = 0; i < CGM_STAGE_BUFS; i++) {
    CGM_CUDA_GOTO(st, err, fail, cudaMallocHost(&s->buf[i], STAGE_BYTES));
    CGM_CUDA_GOTO(st, err, fail, cudaEventCreateWithFlags(&s->done[i], cudaEventDisableTiming));
  }
  return CGM_OK;
fail:
  stager_release(s);
  return st;
}

/* Waits for the transfers in flight (also after a failure: the copy
 * engine must be done with the buffers before they are filled again). */
static cgm_status stager_finish(const cgm_cuda_dev *d, cgm_status st, cgm_error *err) {
  const cudaError_t e = cudaStreamSynchronize(d->stream);
  if (st) return st;
  CGM_CUDA_TRY(err, e);
  return CGM_OK;
}

/* dst (device) = count elements of `width` bytes that fill_with(buf, first, c, ctx)
 * writes: past one buffer's size through the buffers, filled on every core
 * while the copy engine drains the other; below it from one pageable copy. */
typedef void (*stage_fill_fn)(void *buf, size_t first, size_t count, const void *ctx);
static cgm_status stage_upload(cgm_stager *s, const cgm_cuda_dev *d, void *dst, size_t count,
                               size_t width, stage_fill_fn fill_with, const void *ctx,
                               cgm_error *err) {
  if (count * width < STAGE_BYTES) {
    void *tmp = malloc(count * width + 8);
    if (!tmp) return cgm_fail(err, CGM_ERUNTIME, "out of host memory (%zu bytes)", count * width);
    fill_with(tmp, 0, count, ctx);
    cudaError_t e = cudaMemcpyAsync(dst, tmp, count * width, cudaMemcpyHostToDevice, d->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(d->stream); /* before tmp is freed */
    free(tmp);
    CGM_CUDA_TRY(err, e);
    return CGM_OK;
  }
  cgm_status st = stager_alloc(d, s, err);
  if (st) return st;
  const size_t per = STAGE_BYTES / width; /* elements a buffer holds */
  for (size_t i = 0; i < count; i += per) {
    const size_t c = count - i < per ? count - i : per;
    CGM_CUDA_TRY(err, cudaEventSynchronize(s->done[s->k])); /* its last transfer is done */
    fill_with(s->buf[s->k], i, c, ctx);
    CGM_CUDA_TRY(err, cudaMemcpyAsync((char *)dst + i * width, s->buf[s->k], c * width,
                                      cudaMemcpyHostToDevice, d->stream));
    CGM_CUDA_TRY(err, cudaEventRecord(s->done[s->k], d->stream));
    s->k = (s->k + 1) % CGM_STAGE_BUFS;
  }
  return CGM_OK;
}

typedef struct {
  const char *src;
  size_t width;
  int to_single; /* src holds doubles, dst receives floats */
} copy_src;

static void fill_copy(void *buf, size_t first, size_t count, const void *ctx) {
  const copy_src *c = (const copy_src *)ctx;
  cgm_stage_fill(buf, c->src + first * (c->to_single ? 8 : c->width),
                 c->to_single ? count : count * c->width, c->to_single);
}

/* dst (device) = src (host): count elements of `width` bytes on the device;
 * to_single: src holds doubles, dst receives floats (width 4). */
static cgm_status stage_copy(cgm_stager *s, const cgm_cuda_dev *d, void *dst, const void *src,
                             size_t count, size_t width, int to_single, cgm_error *err) {
  if (count * width < STAGE_BYTES && !to_single) { /* as it is */
    CGM_CUDA_TRY(err, cudaMemcpyAsync(dst, src, count * width, cudaMemcpyHostToDevice, d->stream));
    return CGM_OK;
  }
  const copy_src c = {(const char *)src, width, to_single};
  return stage_upload(s, d, dst, count, width, fill_copy, &c, err);
}

cgm_status cgm_cuda_upload_arrays(cgm_cuda_dev *d, int k, void *const *dst, const void *const *src,
                                  const size_t *bytes, cgm_error *err) {
  CGM_CUDA_TRY(err, cudaSetDevice(d->dev));
  cgm_status st = CGM_OK;
  for (int i = 0; i < k && !st; i++)
    st = stage_copy(&d->stage, d, dst[i], src[i], bytes[i], 1, 0, err);
  return stager_finish(d, st, err);
}

cgm_status cgm_cuda_upload_rows(cgm_cuda_dev *d, void *dst, const cgm_stage_rows_src *src,
                                int64_t count, cgm_error *err) {
  CGM_CUDA_TRY(err, cudaSetDevice(d->dev));
  return stager_finish(d,
                       stage_upload(&d->stage, d, dst, (size_t)count, src->to_single ? 4 : 8,
                                    cgm_stage_rows, src, err),
                       err);
}

/* m's values in d's storage (d->vs; the long rows d->C full): DICT in the
 * columns' codes; F32, or mixed precision's single, made on the device from
 * the double values where those stay too (val_hi); else converted here. */
static cgm_status upload_values(cgm_cuda_dev *d, const cgm_bcsr *B, cgm_dev_matrix *m,
                                cgm_error *err) {
  const int64_t nval = B->nblocks_padded * B->p.n * B->p.n;
  const cgm_values fmt = m == &d->C ? CGM_VALUES_FULL : d->vs.fmt;
  const bool hi = d->mixed || (fmt == CGM_VALUES_F32 && !d->vs.exact);
  const size_t w = (size_t)cgm_values_block_bytes(fmt, 1, d->prec);
  CGM_CUDA_TRY(err, cgm_cuda_dmalloc(d, &m->val, (size_t)nval * w));
  if (hi) CGM_CUDA_TRY(err, cgm_cuda_dmalloc(d, (void **)&m->val_hi, (size_t)nval * 8));
  if (fmt == CGM_VALUES_DICT) {
    int32_t *cc = (int32_t *)malloc((size_t)(B->nblocks_padded > 0 ? B->nblocks_padded : 1) * 4);
    if (!cc) return cgm_fail(err, CGM_ERUNTIME, "out of host memory for the coded columns");
    cgm_values_encode(B, &d->vs, cc);
    /* cc is the driver's or a staging buffer's once stage_copy returns */
    const cgm_status st =
        stage_copy(&d->stage, d, m->bcol, cc, (size_t)B->nblocks_padded, 4, 0, err);
    free(cc);
    return st;
  }
  if (!hi) return stage_copy(&d->stage, d, m->val, B->val, (size_t)nval, w, w == 4, err);
  cgm_status st = stage_copy(&d->stage, d, m->val_hi, B->val, (size_t)nval, 8, 0, err);
  if (!st)
    CGM_CUDA_TRY(err, cgm_launch_to_single(m->val_hi, (float *)m->val, nval, d->sms, d->stream));
  return st;
}

cgm_status cgm_cuda_matrix_upload(cgm_cuda_dev *d, const cgm_bcsr *B, cgm_dev_matrix *m,
                                  cgm_error *err) {
  memset(m, 0, sizeof *m);
  CGM_CUDA_TRY(err, cudaSetDevice(d->dev));
  CGM_CUDA_TRY(err, cgm_cuda_dmalloc(d, (void **)&m->slice_ptr, ((size_t)B->nslices + 1) * 8));
  CGM_CUDA_TRY(err, cgm_cuda_dmalloc(d, (void **)&m->bcol, (size_t)B->nblocks_padded * 4));
  CGM_CUDA_TRY(err, cgm_cuda_dmalloc(d, (void **)&m->brow, (size_t)B->nslices * B->p.by * 4));
  cgm_status st = upload_values(d, B, m, err);
  if (!st)
    st = stage_copy(&d->stage, d, m->slice_ptr, B->slice_ptr, (size_t)B->nslices + 1, 8, 0, err);
  if (!st && (m == &d->C || d->vs.fmt != CGM_VALUES_DICT)) /* else upload_values' */
    st = stage_copy(&d->stage, d, m->bcol, B->bcol, (size_t)B->nblocks_padded, 4, 0, err);
  if (!st) st = stage_copy(&d->stage, d, m->brow, B->brow, (size_t)B->nslices * B->p.by, 4, 0, err);
  if ((st = stager_finish(d, st, err))) return st; /* the first failure's message stays */
  return cgm_dev_matrix_describe(d, m, B->p, B->nslices, B->nbrows, B->nblocks_padded, err);
}

cgm_status cgm_dev_matrix_describe(cgm_cuda_dev *d, cgm_dev_matrix *m, cgm_bcsr_params p,
                                   int32_t nslices, int32_t nbrows, int64_t nblocks_padded,
                                   cgm_error *err) {
  m->L.n = p.n;
  m->L.bx = p.bx;
  m->L.by = p.by;
  m->L.nslices = nslices;
  m->L.nbrows = nbrows;
  m->L.nblocks_padded = nblocks_padded;
  m->L.slice_ptr = m->slice_ptr;
  m->L.bcol = m->bcol;
  m->L.brow = m->brow;
  m->L.val = m->val;
  m->present = nbrows > 0;
  if (m != &d->C) m->L.fmt = d->vs.fmt;
  m->L_hi = m->L; /* the true residual's: full values where val_hi holds them */
  if (m->val_hi) m->L_hi.val = m->val_hi, m->L_hi.fmt = CGM_VALUES_FULL;
  if (m->L.fmt != CGM_VALUES_DICT) return CGM_OK;
  m->L.shift = m->L_hi.shift = d->vs.shift;
  CGM_CUDA_TRY(err, cgm_cuda_dmalloc(d, (void **)&m->dict, sizeof d->vs.dict));
  CGM_CUDA_TRY(err, cudaMemcpyAsync(m->dict, d->vs.dict, sizeof d->vs.dict, cudaMemcpyHostToDevice,
                                    d->stream));
  m->L.dict = m->L_hi.dict = m->dict;
  return CGM_OK;
}

cgm_reduce_buf cgm_cuda_red(const cgm_cuda_dev *d, int which) {
  cgm_reduce_buf r;
  /* CGM_RED_RELIABLE's 5 values a block lie before CGM_RED_LONG's */
  r.partials = d->partials + ((size_t)which * 2 + (which > CGM_RED_RELIABLE ? 3 : 0)) * d->red_cap;
  r.counter = d->counters + which;
  r.capacity = d->red_cap;
  return r;
}

cgm_status cgm_cuda_upload_vec(cgm_cuda_dev *d, void *dst, const double *src, int64_t n,
                               cgm_error *err) {
  const cgm_stage_rows_src rows = {src, NULL, 0, n, 0.0, d->prec == CGM_PREC_SINGLE};
  return cgm_cuda_upload_rows(d, dst, &rows, n, err);
}

cgm_status cgm_cuda_download_double(const cgm_cuda_dev *d, const double *src, double *dst,
                                    int64_t n, cgm_error *err) {
  CGM_CUDA_TRY(err, cudaSetDevice(d->dev));
  CGM_CUDA_TRY(err, cudaMemcpyAsync(dst, src, (size_t)n * 8, cudaMemcpyDeviceToHost, d->stream));
  CGM_CUDA_TRY(err, cudaStreamSynchronize(d->stream));
  return CGM_OK;
}

cgm_status cgm_cuda_download_vec(const cgm_cuda_dev *d, const void *src, double *dst, int64_t n,
                                 cgm_error *err) {
  /* doubles straight into dst; floats widened on every core */
  if (d->prec != CGM_PREC_SINGLE)
    return cgm_cuda_download_double(d, (const double *)src, dst, n, err);
  float *tmp = (float *)malloc((size_t)(n > 0 ? n : 1) * sizeof *tmp);
  if (!tmp) return cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  cudaError_t e = cudaSetDevice(d->dev);
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(tmp, src, (size_t)n * sizeof *tmp, cudaMemcpyDeviceToHost, d->stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(d->stream);
  if (e == cudaSuccess) cgm_stage_to_double(dst, tmp, (size_t)n);
  free(tmp);
  CGM_CUDA_TRY(err, e);
  return CGM_OK;
}

enum { kWatchCap = 4096 };
constexpr unsigned long long kWatchSliceNs = 20000000; /* what a kernel's first load may wait */

/* g: mapped host memory, read while the kernels run: each stretch, then the count */
__global__ void share_watch(const volatile int *stop, volatile unsigned long long *g) {
  unsigned long long t0, t, last, n = g[0];
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  if (g[1] == 0) g[1] = t0; /* the first: the origin */
  for (last = t0; last - t0 < kWatchSliceNs && !*stop; last = t) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (t - last > 20000) { /* a ring: the last kWatchCap stretches */
      g[4 + 2 * (n % kWatchCap)] = last - g[1], g[5 + 2 * (n % kWatchCap)] = t - g[1];
      g[3] += t - last;
      __threadfence_system();
      g[0] = ++n;
    }
  }
  g[2] += last - t0; /* one kernel at a time: the stream orders them */
}

cudaError_t cgm_share_watch_begin(cgm_share_watch *w, cudaStream_t after) {
  memset(w, 0, sizeof *w);
  const size_t bytes = (4 + 2 * kWatchCap) * sizeof *w->h;
  cudaError_t e = cudaStreamCreateWithFlags(&w->s, cudaStreamNonBlocking);
  for (int k = 0; k < 3 && e == cudaSuccess; k++)
    e = cudaEventCreate(k ? &w->ran[k - 1] : &w->origin);
  if (e == cudaSuccess) e = cudaEventRecord(w->origin, after ? after : w->s);
  if (e == cudaSuccess) e = cudaStreamWaitEvent(w->s, w->origin, 0);
  if (e == cudaSuccess) e = cudaHostAlloc((void **)&w->stop, sizeof(int), cudaHostAllocMapped);
  if (e == cudaSuccess) *w->stop = 0, e = cudaHostGetDevicePointer((void **)&w->stop_d, w->stop, 0);
  if (e == cudaSuccess) e = cudaHostAlloc((void **)&w->h, bytes, cudaHostAllocMapped);
  if (e == cudaSuccess)
    memset(w->h, 0, bytes), e = cudaHostGetDevicePointer((void **)&w->d, w->h, 0);
  return e == cudaSuccess ? cgm_share_watch_feed(w) : e;
}

cudaError_t cgm_share_watch_feed(cgm_share_watch *w) {
  cudaError_t e = cudaSuccess;
  /* another once the older of the two queued has run (two at most a call: none spins forever) */
  for (int k = 0; k < 2 && e == cudaSuccess; k++) {
    if (w->launched >= 2 && cudaEventQuery(w->ran[w->launched % 2]) != cudaSuccess) break;
    share_watch<<<1, 1, 0, w->s>>>(w->stop_d, w->d);
    e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaEventRecord(w->ran[w->launched++ % 2], w->s);
  }
  return e;
}

cudaError_t cgm_share_watch_pause(cgm_share_watch *w, double *share) {
  *(volatile int *)w->stop = 1;
  const cudaError_t e = cudaStreamSynchronize(w->s);
  *(volatile int *)w->stop = 0;
  if (share) *share = w->h[2] > 0 ? 1.0 - (double)w->h[3] / (double)w->h[2] : 1.0;
  return e;
}

double cgm_share_watch_gaps(const cgm_share_watch *w, double t0, double t1) {
  const volatile unsigned long long *h = w->h;
  double s = 0;
  const unsigned long long n = h ? h[0] : 0;
  for (unsigned long long i = n > kWatchCap ? n - kWatchCap : 0, j; i < n; i++) {
    j = i % kWatchCap;
    const double a = fmax(t0, h[4 + 2 * j] * 1e-9), b = fmin(t1, h[5 + 2 * j] * 1e-9);
    if (b > a) s += b - a;
  }
  /* a window wholly within another's turns (the watch polls: its stretches' ends are late by a
   * poll) says nothing of our own time: none taken off, its whole time an upper bound */
  return s < 0.999 * (t1 - t0) ? s : 0.0;
}

void cgm_share_watch_free(cgm_share_watch *w) {
  if (w->stop) *(volatile int *)w->stop = 1; /* kernels still queued after an error */
  if (w->s) cudaStreamSynchronize(w->s), cudaStreamDestroy(w->s);
  if (w->origin) cudaEventDestroy(w->origin);
  for (int k = 0; k < 2; k++)
    if (w->ran[k]) cudaEventDestroy(w->ran[k]);
  cudaFreeHost(w->h), cudaFreeHost(w->stop);
  memset(w, 0, sizeof *w);
}
