/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Jacobi-preconditioned Conjugate Gradient (Algorithm 2 of Verschoor & Jalba
 * 2012) on a backend: the CPU (OpenMP), our CUDA kernels over the BCSR MBR
 * layout on 1..n GPUs, or the cuSPARSE CSR baseline. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgmodel/export.h"
#include "cgmodel/plan.h"
#include "cgmodel/sparse.h"
#include "cgmodel/status.h"

CGM_BEGIN_DECLS

/* How our CUDA kernels iterate. The defaults are the fastest measured
 * (docs/perf.md); each switch turns its refinement off to measure it. */
typedef struct cgm_gpu_opts {
  cgm_cg_variant cg;
  bool graphs;  /* replay batches of iterations from CUDA graphs (off: enqueue each anew) */
  bool pdl;     /* programmatic dependent launch: a kernel starts while its predecessor drains */
  bool flags;   /* p2p, halo: synchronise by flags in device memory, not by events */
  bool late;    /* halo with flags: the pack waits for the peers', the boundary SpMV for none */
  bool ll;      /* cgg with flags: the sums travel as 8-byte words carrying their tick */
  bool balance; /* halo: boundary rows weigh more in the cut (cgm_plan_opts.balance) */
  bool device_layout;        /* one GPU, block size 1: the GPU builds the layout from the CSR */
  double exchange_timeout_s; /* a solve whose GPUs make no progress this long fails (<= 0: 120) */
} cgm_gpu_opts;

/* The defaults: every refinement on, the single-reduction CG. */
CGM_API cgm_gpu_opts cgm_gpu_opts_default(void);

/* The largest b in [2, maxb] such that A is made of dense aligned b x b blocks (the unknowns of a
 * node, as PETSc's matrix block size); 1 when there is none. */
CGM_API int cgm_csr_point_block(const cgm_csr *A, int maxb);

typedef struct cgm_solve_opts {
  cgm_backend backend;
  cgm_precision precision;
  cgm_storage storage;    /* the matrix's values (default auto) */
  cgm_bcsr_params layout; /* n in {1,2,4,8}; bx, by <= 0 pick the defaults */
  int gpus;               /* number of GPUs (CUDA backend), >= 1 */
  cgm_exchange exchange;
  double tol;       /* the true ||b - Ax|| / ||b|| to reach; 0: CGM_DEFAULT_TOL */
  double atol;      /* also converged at ||b - Ax|| <= atol (SciPy's; cgm_solve_target) */
  int maxiter;      /* <= 0: 10 * dimension, at least 1000 */
  int check_every;  /* GPU: test convergence every k iterations (<= 0: automatic) */
  int threads;      /* CPU: OpenMP threads, <= 0: the OpenMP default */
  bool fallback;    /* mixed precision stopped short of the cap goes on in double, compact storage's
                     * rounded values with full ones (default) */
  cgm_gpu_opts gpu; /* CUDA backend */
  /* Progress: called with the solver's relative residual estimate at
   * iteration 0, every monitor_every iterations (<= 0: 1; on a GPU at the
   * convergence checks) and at the last; not by cuSPARSE. */
  void (*monitor)(void *ctx, int iteration, double relative_residual);
  void *monitor_ctx;
  int monitor_every;
  /* With monitor: host memory for nrows doubles holding the iterate x_k (A's numbering, b's scale;
   * mixed: x_hi + x) at every call. A GPU solve then queues each batch of iterations after the
   * check of the one before (single and mixed then replace their residual a batch earlier) and
   * downloads x there. NULL: none. */
  double *monitor_x;
  /* Reorder the unknowns before the solve (the solution comes back in the
   * original numbering); cgm_solve takes auto as none (cgm_tuner_reorder). */
  cgm_reorder reorder;
  cgm_precond precond; /* default Jacobi */
  /* Block-Jacobi's block (1..8; <= 0: cgm_precond_block_size chooses). */
  int precond_block;
  /* Benchmarks (a fixed iteration count): double computes no true residual before a
   * claim (the CPU's looks, the GPU's floor watch): no early stall; a claim ends it. */
  bool fixed_count;
  /* The caller vouches that A passed the matrix's checks before, unchanged:
   * finite, symmetric and positive diagonal are skipped. */
  bool matrix_checked;
  /* One GPU: each graph timed less the turns another process had on the GPU inside it (a one-thread
   * kernel beside the solve notes them: the calibration's samples); gpu_share in the result. */
  bool share_watch;
  /* Set by cgm_solve_opts_settle: every field checked, defaults filled. */
  bool settled;
} cgm_solve_opts;

/* Settles o once, at the entry point of a solve of A: checks every field (CGM_EINPUT naming the
 * request's key) and fills in every default; a NULL A fills what does not depend on a matrix. */
CGM_API cgm_status cgm_solve_opts_settle(cgm_solve_opts *o, const cgm_csr *A, cgm_error *err);

/* Block-Jacobi's block apart from the layout: o->precond_block when > 0,
 * else A's point block (at most 8) when it has one, else 0. */
CGM_API int cgm_precond_block_fixed(const cgm_csr *A, const cgm_solve_opts *o);
/* Block-Jacobi's block: cgm_precond_block_fixed, else the layout's N. */
CGM_API int cgm_precond_block_size(const cgm_csr *A, const cgm_solve_opts *o);
/* Defaults: CPU, double, N = 1, 1 GPU, halo exchange, default tolerance. */
CGM_API cgm_solve_opts cgm_solve_opts_default(void);
/* The plan this configuration builds for A (cgm_plan_make). */
CGM_API cgm_status cgm_solve_plan(const cgm_csr *A, const cgm_solve_opts *o, cgm_plan *p,
                                  cgm_error *err);
/* The same, given A's features (cgm_plan_features; NULL: as cgm_solve_plan):
 * a one-segment plan takes its sectors of x from them (cgm_plan_opts). */
CGM_API cgm_status cgm_solve_plan_known(const cgm_csr *A, const cgm_features *f,
                                        const cgm_solve_opts *o, cgm_plan *p, cgm_error *err);
/* The tolerance and iteration cap the solver will really use. */
CGM_API double cgm_solve_tol(const cgm_solve_opts *o);
/* The relative residual to reach: max(cgm_solve_tol, atol / ||b||). */
CGM_API double cgm_solve_target(const cgm_solve_opts *o, double bnorm);
CGM_API int cgm_solve_maxiter(const cgm_solve_opts *o, int32_t dimension);

typedef struct cgm_solve_result {
  bool converged;
  int iterations;
  double relative_residual; /* ||b - A x|| / ||b||, recomputed in double after the solve */
  double solver_residual;   /* the solver's own (recursive) estimate when it stopped */
  double time_per_iter_s;   /* median over the timed iterations */
  double time_solve_s;      /* the whole iteration loop */
  double time_check_s;      /* before the backend: the input's checks, the plan, b scaled */
  double time_finish_s;     /* after it: x scaled back, the residual recomputed in long double */
  double time_setup_s;      /* layout build, upload, handles */
  double time_layout_s;     /* of time_setup_s: the MBR layouts built on the host */
  double time_upload_s;     /* of time_setup_s: device memory and the upload (0 on the CPU) */
  int64_t device_bytes;     /* memory the configuration allocated on each device */
  int64_t exchange_bytes;   /* bytes moved between devices per iteration */
  bool stalled;            /* stopped because the true residual stopped falling in this precision */
  int fallback_iterations; /* mixed precision that went on in double, or compact storage's rounded
                            * values that went on full: its iterations before */
  int precond_block;       /* block-Jacobi's block size as run (0: Jacobi) */
  int ranks;               /* MPI processes that ran the solve (cgm_solve_mpi); 0: one process */
  double attainable_residual; /* u ||A||_inf ||x|| / ||b||: the least its arithmetic shows */
  char device[256];           /* "cpu (N threads)", "NVIDIA H100 80GB HBM3", ... */
  char stop_reason[512];      /* empty when converged */
  bool refused;               /* before any iteration (not positive definite): nothing to record */
  bool reordered;             /* solved in the reverse Cuthill-McKee numbering */
  double time_reorder_s;      /* the ordering and the permuted copy (host), part of setup */
  bool layout_on_device; /* CUDA: the layout was built on the GPU (cgm_gpu_opts.device_layout) */
  /* The matrix's values as run (cpu, cuda): their format, whether exact,
   * the layout's bytes of values and of column indices, and one
   * iteration's bytes (the model's count at the values' width). */
  cgm_values storage;
  bool storage_exact;
  double value_bytes, index_bytes, iter_bytes;
  double time_per_iter_low_s; /* its low decile (GPU: graphs from their starts) */
  double gpu_share; /* share_watch: the part of the iterations' time our context had the GPU */
} cgm_solve_result;

/* Solves A x = b, x the initial guess on entry and the solution on return. CGM_OK when converged,
 * CGM_ENOCONV (res filled in) at maxiter or a breakdown, CGM_EINPUT for bad input, CGM_ERUNTIME for
 * device failures. CUDA solves run one at a time in a process. */
CGM_API cgm_status cgm_solve(const cgm_csr *A, const double *b, double *x, const cgm_solve_opts *o,
                             cgm_solve_result *res, cgm_error *err);
/* What cgm_solve checks of A before iterating, with the same messages
 * (CGM_ENOCONV for a diagonal that is not positive). */
CGM_API cgm_status cgm_solve_check_matrix(const cgm_csr *A, cgm_error *err);

/* ------------------------------------------------ A matrix on a GPU --- */

/* cgm_solve for A, b and x in A->device's memory: our CUDA kernels on that GPU over the layout of
 * block size 1 built there. Checks, tolerance, fallback and result as cgm_solve's (no Lanczos
 * recheck of a breakdown). backend cuda, gpus 1, layout.n 1, Jacobi, reorder none or auto. */
CGM_API cgm_status cgm_solve_device(const cgm_csr_device *A, const double *b, double *x,
                                    const cgm_solve_opts *o, cgm_solve_result *res, cgm_error *err);

/* ------------------------------------------------------------ Devices --- */

/* CUDA devices usable by this build (0 without a GPU or in a CPU build). */
CGM_API int cgm_cuda_device_count(void);
/* Seconds the first device count of this process took: the CUDA driver's start (0 before any, and
 * in a CPU build). */
CGM_API double cgm_cuda_driver_start_s(void);
/* Creates the CUDA context on devices 0 .. count - 1 (0.1-0.3 s each), for a thread of its own
 * while the matrix is read; errors are left to the solve. */
CGM_API void cgm_cuda_warm_up(int count);
/* Frees the pinned host memory that the CUDA solver keeps from one solve to the next on each GPU
 * (three 8 MiB upload buffers and the iteration's states: pinning them again is most of a small
 * solve's setup). The CUDA driver frees it at the process's end; call this to give it back sooner,
 * and before cudaDeviceReset. Not while a solve runs. */
CGM_API void cgm_cuda_release_kept(void);
/* True when this library was built with the CUDA backend. */
CGM_API bool cgm_have_cuda_build(void);
/* Whether the nccl exchange's library (opened, not linked) can be opened:
 * false with the loader's reason in why. It stays open. */
CGM_API bool cgm_nccl_available(char *why, size_t n);
/* The CUDA runtime this library uses (12030: 12.3); 0 in a CPU-only build. */
CGM_API int cgm_cuda_runtime_version(void);

typedef struct cgm_device_info {
  char name[256];
  int cc_major, cc_minor;
  int sms;
  int64_t mem_total, mem_free;
  int clock_khz, mem_clock_khz, bus_width_bits;
  int driver_version, runtime_version;
  int64_t l2_bytes;
} cgm_device_info;
CGM_API cgm_status cgm_cuda_device_info(int dev, cgm_device_info *info, cgm_error *err);
/* Whether GPU a reads GPU b's memory directly (p2p and halo need it). */
CGM_API cgm_status cgm_cuda_can_access_peer(int a, int b, bool *ok, cgm_error *err);

CGM_END_DECLS
