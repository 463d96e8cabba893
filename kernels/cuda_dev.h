/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Per-device resources of our kernels (cuda_dev.cu): vectors, uploaded layouts, reduction scratch
 * and the CG state; what the CUDA solver, the tests and the microbenchmarks share. */
#pragma once

#include <cuda_runtime_api.h>

#include "cgmodel/plan.h"
#include "cgmodel/sparse.h"
#include "kernels/kernels.h"
#include "kernels/stage.h"

CGM_BEGIN_DECLS

/* A layout uploaded to a device. */
typedef struct cgm_dev_matrix {
  cgm_dev_layout L;
  cgm_dev_layout L_hi; /* mixed precision: the same layout over the values in double */
  void *val;
  double *val_hi; /* mixed precision; F32 values that are not exact (cgm_value_set) */
  double *dict;   /* DICT: the values */
  int64_t *slice_ptr;
  int32_t *bcol, *brow;
  int present; /* 0 when the layout has no block rows */
} cgm_dev_matrix;

/* The pinned staging buffers of a device's uploads (cuda_dev.cu): a ring of CGM_STAGE_BUFS. */
#define CGM_STAGE_BUFS 3
typedef struct cgm_stager {
  void *buf[CGM_STAGE_BUFS];
  cudaEvent_t done[CGM_STAGE_BUFS];
  int k;
} cgm_stager;

typedef struct cgm_cuda_dev {
  int dev; /* CUDA device ordinal, -1 when unused */
  int sms;
  cgm_precision prec;  /* of the iteration: single in mixed precision */
  int mixed;           /* mixed precision: the solution, b and A x in double too */
  cgm_value_set vs;    /* the values' storage of A and B (C, the long rows, keeps them full) */
  cudaStream_t stream; /* the solver's work */
  cudaStream_t comm;   /* the halo exchange, beside the interior SpMV */
  cgm_dev_matrix A;    /* the segment (or, with a halo, its interior rows) */
  cgm_dev_matrix B;    /* the boundary rows that read the halo */
  cgm_dev_matrix C;    /* the long block rows (cgm_plan_long_part), read by the long-row kernel */
  int64_t rows;        /* own rows (block rows * N) */
  int64_t np;          /* padded length of the own vectors */
  int64_t v_len;       /* padded length of v, the vector the SpMV gathers */
  int64_t v_off;       /* offset of the own rows in v */
  void *x, *r, *v, *u, *dinv;
  cgm_bjac bj; /* block-Jacobi's inverses and blocks (n = 0: Jacobi by dinv) */
  void *s;     /* single-reduction CG: s = A p (p lives in r, which that CG no longer needs) */
  void *b;     /* the right-hand side, for the true residual: double unless in single precision */
  double *x_hi, *y_hi; /* mixed precision: the solution and A x in double */
  double *partials;
  unsigned *counters;
  int red_cap;
  double *dot_tmp; /* the interior rows' part of p . A p; the replacements' sums (8 doubles) */
  cgm_cg_state *state;
  cgm_cg_state *host_state[2]; /* pinned: one per graph */
  cudaGraphExec_t graph_exec[2];
  cudaEvent_t ev[6]; /* timing of graph replays: [0, 3) where each ends, [3, 6) where it starts */
  cudaEvent_t ev_a, ev_b, ev_c, ev_pack, ev_fork; /* cross-device dependencies */
  cgm_pack pack;
  int32_t *send_idx;
  int64_t bytes;    /* device memory allocated */
  cgm_stager stage; /* the uploads' pinned buffers */
} cgm_cuda_dev;

/* Allocates vectors, reduction scratch and the state on device dev for `rows` own rows and a
 * gathered vector of v_len entries (<= rows: the own one) in precision prec: what plan/footprint.c
 * counts. Reduction buffer CGM_RED_RELIABLE holds 5 values a block, the others 2. */
cgm_status cgm_cuda_dev_init(cgm_cuda_dev *d, int dev, cgm_precision prec, int64_t rows,
                             int64_t v_len, cgm_error *err);
/* Uploads a layout into m (values converted to the precision). */
cgm_status cgm_cuda_matrix_upload(cgm_cuda_dev *d, const cgm_bcsr *B, cgm_dev_matrix *m,
                                  cgm_error *err);
/* dst[i] (device) = src[i] (host), bytes[i] each, through the staging buffers. */
cgm_status cgm_cuda_upload_arrays(cgm_cuda_dev *d, int k, void *const *dst, const void *const *src,
                                  const size_t *bytes, cgm_error *err);
/* dst (device) = count rows of a host vector or of 1 / A's diagonal (stage.h), in
 * doubles or floats (src->to_single), through the staging buffers. */
cgm_status cgm_cuda_upload_rows(cgm_cuda_dev *d, void *dst, const cgm_stage_rows_src *src,
                                int64_t count, cgm_error *err);
/* Frees the pinned memory kept for the devices' next solves (cgm_cuda_release_kept). */
void cgm_cuda_dev_release_kept(void);
/* Frees an uploaded layout's arrays (m zeroed). */
void cgm_cuda_matrix_free(cgm_dev_matrix *m);
/* cudaMalloc on d's current device, counted in d->bytes (16 bytes for 0). */
cudaError_t cgm_cuda_dmalloc(cgm_cuda_dev *d, void **p, size_t bytes);
/* m's descriptors (L, and L_hi over the double values) once its arrays are
 * in place: a layout of parameters p, nslices slices, nbrows block rows. */
cgm_status cgm_dev_matrix_describe(cgm_cuda_dev *d, cgm_dev_matrix *m, cgm_bcsr_params p,
                                   int32_t nslices, int32_t nbrows, int64_t nblocks_padded,
                                   cgm_error *err);
/* cgm_values_choose_by's pass over val[0..nnz) on d's device (ctx: a cgm_cuda_values; st and
 * err say why it returned -1). */
typedef struct cgm_cuda_values {
  cgm_cuda_dev *d;
  const double *val;
  int64_t nnz;
  cgm_error *err;
  cgm_status st;
} cgm_cuda_values;
int cgm_cuda_values_pass(void *ctx, const cgm_value_set *vs, double *outside);
/* Builds into m, on d's device, the layout of block size 1 of a CSR already there, entry for entry
 * cgm_bcsr_build's (device_layout.cu); with c, the rows longer than CGM_LONG_ROW go to c as the
 * host's split puts them. Refused when its values do not fit. */
cgm_status cgm_cuda_matrix_from_device(cgm_cuda_dev *d, const cgm_csr_device *A, cgm_bcsr_params p,
                                       cgm_dev_matrix *m, cgm_dev_matrix *c, cgm_error *err);
void cgm_cuda_dev_free(cgm_cuda_dev *d);
/* Destroys the device's graphs (before ncclCommDestroy, which they block). */
void cgm_cuda_dev_drop_graphs(cgm_cuda_dev *d);
cgm_reduce_buf cgm_cuda_red(const cgm_cuda_dev *d, int which);
#define CGM_RED_RELIABLE 5
#define CGM_RED_LONG 6 /* the long rows' SpMV, beside the MBR kernels' (0 and 3) */
/* n doubles from the device, whatever the iteration's precision. */
cgm_status cgm_cuda_download_double(const cgm_cuda_dev *d, const double *src, double *dst,
                                    int64_t n, cgm_error *err);
/* n doubles to the device in its precision (cgm_cuda_upload_rows). */
cgm_status cgm_cuda_upload_vec(cgm_cuda_dev *d, void *dst, const double *src, int64_t n,
                               cgm_error *err);
cgm_status cgm_cuda_download_vec(const cgm_cuda_dev *d, const void *src, double *dst, int64_t n,
                                 cgm_error *err);
/* Free memory on device dev, less a reserve for the context, cuSPARSE, NCCL. */
cgm_status cgm_cuda_free_bytes(int dev, int64_t *avail, int64_t *total, cgm_error *err);

/* Another process's turns on the current GPU (docs/calibration.md, "Another process on the GPU"):
 * one-thread kernels on a stream of their own, from the work queued on `after` (NULL: now), note
 * each stretch of more than 20 us in which our context was switched out. Each runs 20 ms at most,
 * two queued (cgm_share_watch_feed): a kernel's first launch, whose load may wait for the context's
 * work, waits for them at most that long. While they watch, our grids are sized for one SM less:
 * room for them. */
typedef struct cgm_share_watch {
  cudaStream_t s;
  cudaEvent_t origin, ran[2];   /* ran[k % 2]: after the k-th kernel */
  int launched, *stop, *stop_d; /* stop: mapped host memory, their end */
  /* mapped host memory: count, origin, ns watched, ns switched out, then a ring of the stretches
   * (ns from origin) */
  unsigned long long *d, *h;
} cgm_share_watch;
cudaError_t cgm_share_watch_begin(cgm_share_watch *w, cudaStream_t after);
/* Keeps two kernels queued: call it at least every 20 ms while watching. */
cudaError_t cgm_share_watch_feed(cgm_share_watch *w);
/* Stops the kernels queued (a feed starts them again); *share (NULL: none) of the time they watched
 * in which our context ran. */
cudaError_t cgm_share_watch_pause(cgm_share_watch *w, double *share);
/* Seconds switched out within [t0, t1] (seconds from the origin event), so far; 0 for a window
 * switched out throughout (its whole time then serves as an upper bound). */
double cgm_share_watch_gaps(const cgm_share_watch *w, double t0, double t1);
void cgm_share_watch_free(cgm_share_watch *w);

CGM_END_DECLS

#ifdef __cplusplus
#include <initializer_list>
/* cudaFree of each (NULL too), its result ignored: the releases of cleanup paths. */
static inline void cgm_cuda_free_all(std::initializer_list<const void *> ps) {
  for (const void *p : ps) cudaFree(const_cast<void *>(p));
}
#endif
