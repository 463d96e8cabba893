/* Jacobi-preconditioned Conjugate Gradient (Algorithm 2 of Verschoor & Jalba
 * 2012) on a backend: the CPU (OpenMP), our CUDA kernels over the BCSR MBR
 * layout on 1..n GPUs, or the cuSPARSE CSR baseline. */
#ifndef CGMODEL_SOLVER_H
#define CGMODEL_SOLVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgmodel/sparse.h"
#include "cgmodel/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CGM_BACKEND_CPU = 0,
  CGM_BACKEND_CUDA = 1,     /* our BCSR MBR kernels */
  CGM_BACKEND_CUSPARSE = 2, /* cusparseSpMV on CSR, the vendor baseline */
} cgm_backend;

typedef enum { CGM_PREC_DOUBLE = 0, CGM_PREC_SINGLE = 1 } cgm_precision;

/* How the multi-GPU solver assembles the vector the SpMV reads. */
typedef enum {
  CGM_EXCHANGE_NCCL =
      0, /* all-gather of the whole vector through NCCL (hung on 4 x H200: docs/perf.md) */
  CGM_EXCHANGE_P2P = 1,  /* direct peer copies of the whole vector */
  CGM_EXCHANGE_HOST = 2, /* the paper's host-staged copy, x*n elements (Eq. 9) */
  CGM_EXCHANGE_HALO = 3, /* only the entries each segment reads, overlapped (the default) */
} cgm_exchange;

const char *cgm_backend_name(cgm_backend b);
const char *cgm_precision_name(cgm_precision p);
const char *cgm_exchange_name(cgm_exchange e);
/* The CG our CUDA kernels run: "cgg", the single-reduction CG (default, or
 * CGMODEL_CG=cgg), or "classic", Algorithm 2's CG4 + CG5 (CGMODEL_CG=classic);
 * NULL when CGMODEL_CG holds anything else (the solver refuses to run). */
const char *cgm_gpu_cg_variant(void);
/* Parse names as the CLI spells them; return false when unknown. */
bool cgm_backend_parse(const char *s, cgm_backend *b);
bool cgm_precision_parse(const char *s, cgm_precision *p);
bool cgm_exchange_parse(const char *s, cgm_exchange *e);

typedef struct cgm_solve_opts {
  cgm_backend backend;
  cgm_precision precision;
  cgm_bcsr_params layout; /* n in {1,2,4,8}; bx, by <= 0 pick the defaults */
  int gpus;               /* number of GPUs (CUDA backend), >= 1 */
  cgm_exchange exchange;
  double tol;      /* relative residual ||r||/||b||; <= 0: 1e-8 double, 1e-5 single */
  int maxiter;     /* <= 0: 10 * dimension, at least 1000 */
  int check_every; /* GPU: test convergence every k iterations (<= 0: automatic) */
  int threads;     /* CPU: OpenMP threads, <= 0: the OpenMP default */
} cgm_solve_opts;

/* Defaults: CPU, double, N = 1, 1 GPU, halo exchange, default tolerance. */
cgm_solve_opts cgm_solve_opts_default(void);
/* The tolerance and iteration cap the solver will really use. */
double cgm_solve_tol(const cgm_solve_opts *o);
int cgm_solve_maxiter(const cgm_solve_opts *o, int32_t dimension);

typedef struct cgm_solve_result {
  bool converged;
  int iterations;
  double relative_residual; /* ||b - A x|| / ||b||, recomputed in double after the solve */
  double solver_residual;   /* the solver's own (recursive) estimate when it stopped */
  double time_per_iter_s;   /* median over the timed iterations */
  double time_solve_s;      /* the whole iteration loop */
  double time_setup_s;      /* layout build, upload, handles */
  int64_t device_bytes;     /* memory the configuration allocated on each device */
  int64_t exchange_bytes;   /* bytes moved between devices per iteration */
  char device[256];         /* "cpu (N threads)", "NVIDIA H100 80GB HBM3", ... */
  char stop_reason[256];    /* empty when converged */
} cgm_solve_result;

/* Solves A x = b. x holds the initial guess on entry (zeros are fine) and the
 * solution on return. A must be square; symmetry, NaN/Inf and the diagonal are
 * checked before any iteration. Returns CGM_OK when converged, CGM_ENOCONV
 * (with res filled in) when maxiter was reached or CG broke down, CGM_EINPUT
 * for bad input and CGM_ERUNTIME for device failures. */
cgm_status cgm_solve(const cgm_csr *A, const double *b, double *x, const cgm_solve_opts *o,
                     cgm_solve_result *res, cgm_error *err);

/* ------------------------------------------------------------ Devices --- */

/* Number of CUDA devices usable by this build (0 in a CPU-only build or when
 * no GPU/driver is present). Never fails. */
int cgm_cuda_device_count(void);
/* True when this library was built with the CUDA backend. */
bool cgm_have_cuda_build(void);

typedef struct cgm_device_info {
  char name[256];
  int cc_major, cc_minor;
  int sms;
  int64_t mem_total, mem_free;
  int clock_khz, mem_clock_khz, bus_width_bits;
  int driver_version, runtime_version;
  int64_t l2_bytes;
} cgm_device_info;
cgm_status cgm_cuda_device_info(int dev, cgm_device_info *info, cgm_error *err);

/* ------------------------------------------------ multi-GPU geometry --- */

/* Segments start at multiples of this many block rows so that every
 * segment's vectors are 16-byte aligned. */
int cgm_partition_align(int n);
/* Rows per chunk of the NCCL all-gather: the longest segment rounded up to
 * whole blocks and 16 bytes. */
int64_t cgm_chunk_rows(const int32_t *bounds, int gpus, int n);
/* Elements an exchange mode moves between devices per iteration: the whole
 * vector to G - 1 others (p2p), G chunks to G - 1 others (nccl), x n through
 * the host (host, Eq. 9), or the halos. */
int64_t cgm_exchange_elements(cgm_exchange mode, int gpus, int64_t rows_total, int64_t chunk_rows,
                              int64_t halo_elems);

/* ---------------------------------------------------------- Footprint --- */

/* Bytes each device must hold for a solve of this layout on `gpus` devices:
 * matrix values, block columns, slice and row metadata, the CG vectors and
 * the exchange buffers. Exact for what the solvers allocate (the model uses it
 * to refuse configurations that do not fit). */
int64_t cgm_footprint_bytes(int64_t rows_padded, int64_t blocks_padded, int64_t slots, int n,
                            cgm_precision prec, int64_t halo_rows);

#ifdef __cplusplus
}
#endif
#endif
