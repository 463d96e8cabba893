/* The CUDA solver's per-device state and the steps the single- and
 * multi-GPU drivers share. */
#ifndef CGM_SOLVER_CUDA_CG_CUDA_H
#define CGM_SOLVER_CUDA_CG_CUDA_H

#include <cuda_runtime_api.h>

#include "solver/backend.h"
#include "solver/cuda/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cgm_cuda_dev {
  int dev; /* CUDA device ordinal, -1 when unused */
  int sms;
  cgm_precision prec;
  cudaStream_t stream;
  cgm_dev_layout L;
  int64_t rows;  /* rows of the layout (block rows * N) */
  int64_t np;    /* padded length of the local vectors */
  int64_t x_len; /* padded length of v, the vector the SpMV gathers from */
  void *val;
  int64_t *slice_ptr;
  int32_t *bcol, *brow;
  void *x, *r, *v, *u, *dinv; /* v: the search direction (p of the paper's v) */
  double *partials;
  unsigned *counters;
  int red_cap;
  cgm_cg_state *state;
  cgm_cg_state *host_state[2]; /* pinned: one per graph */
  cudaGraphExec_t graph_exec[2];
  cudaEvent_t ev[3];
  int64_t bytes; /* device memory allocated */
} cgm_cuda_dev;

int64_t cgm_cuda_vec_len(int64_t n);
/* Refuses (CGM_EINPUT, with needed and free bytes) a layout that does not fit
 * on the current device. */
cgm_status cgm_cuda_check_fit(const cgm_bcsr *B, cgm_precision prec, int64_t halo_rows, int dev,
                              int64_t *needed, cgm_error *err);
/* Allocates and uploads a layout on device dev; x_len > rows makes room for
 * the whole gathered vector (several GPUs). */
cgm_status cgm_cuda_dev_setup(cgm_cuda_dev *d, int dev, const cgm_bcsr *B, cgm_precision prec,
                              int64_t x_len, cgm_error *err);
void cgm_cuda_dev_free(cgm_cuda_dev *d);
cgm_reduce_buf cgm_cuda_red(const cgm_cuda_dev *d, int which);
cgm_status cgm_cuda_upload_vec(const cgm_cuda_dev *d, void *dst, const double *src, int64_t n,
                               double pad_value, cgm_error *err);
cgm_status cgm_cuda_download_vec(const cgm_cuda_dev *d, const void *src, double *dst, int64_t n,
                                 cgm_error *err);
cgm_status cgm_cuda_capture(cgm_cuda_dev *d, int K, cgm_error *err);
cgm_status cgm_cuda_solve_loop(cgm_cuda_dev *devs, int G, const cgm_problem *pb,
                               cgm_solve_result *res, cgm_error *err);
void cgm_cuda_stop_reason(const cgm_cg_state *h, double bnorm, double tol, cgm_solve_result *res);
cgm_status cgm_cuda_cg_multi(const cgm_problem *pb, cgm_solve_result *res, cgm_error *err);

/* y = B x on device dev with our SpMV kernel (tests, microbenchmarks): x has
 * nbcols * N entries, y nbrows * N. When dot is non-NULL it receives the
 * fused x . y over the layout's rows (x must then be square-indexed). */
cgm_status cgm_cuda_spmv_host(int dev, const cgm_bcsr *B, cgm_precision prec, const double *x,
                              double *y, double *dot, cgm_error *err);

#ifdef __cplusplus
}
#endif
#endif
