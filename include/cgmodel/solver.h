/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Jacobi-preconditioned Conjugate Gradient (Algorithm 2 of Verschoor & Jalba
 * 2012) on a backend: the CPU (OpenMP), our CUDA kernels over the BCSR MBR
 * layout on 1..n GPUs, or the cuSPARSE CSR baseline. */
#ifndef CGMODEL_SOLVER_H
#define CGMODEL_SOLVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgmodel/export.h"
#include "cgmodel/plan.h"
#include "cgmodel/sparse.h"
#include "cgmodel/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How our CUDA kernels iterate. The defaults are the fastest measured
 * (docs/perf.md); each switch exists to measure or debug its refinement,
 * and the command line sets them from its CGMODEL_* variables (docs/cli.md). */
typedef struct cgm_gpu_opts {
  cgm_cg_variant cg;
  bool graphs;  /* replay batches of iterations from CUDA graphs (off: enqueue each anew) */
  bool pdl;     /* programmatic dependent launch: a kernel starts while its predecessor drains */
  bool flags;   /* several GPUs (p2p, halo): synchronise by flags in device memory, not by
                   events between the devices' streams */
  bool late;    /* halo with flags: the pack waits for the peers' packs, so the boundary SpMV
                   starts without a wait */
  bool ll;      /* single-reduction CG with flags: the sums travel as 8-byte words that carry
                   their iteration's tick */
  bool balance; /* halo: boundary rows weigh more in the cut (cgm_plan_opts.balance) */
  bool device_layout; /* one GPU, block size 1: the CSR crosses as it is and the GPU builds the
                         layout (off: the host builds it and the layout crosses) */
  double exchange_timeout_s; /* a solve whose GPUs make no progress this long fails (<= 0: 120) */
  const char *trace_file;    /* -DCGMODEL_TRACE=ON builds: append the timeline here (NULL: none) */
} cgm_gpu_opts;

/* The defaults: every refinement on, the single-reduction CG. */
CGM_API cgm_gpu_opts cgm_gpu_opts_default(void);

/* The largest b in [2, maxb] such that A is made of dense b x b blocks
 * aligned at multiples of b: b divides the dimension, every row's columns
 * are whole aligned runs of b, and the b rows of a block row have the same
 * columns (the unknowns of a node, as PETSc's matrix block size); 1 when
 * there is none. One pass over A per candidate. */
CGM_API int cgm_csr_point_block(const cgm_csr *A, int maxb);

typedef struct cgm_solve_opts {
  cgm_backend backend;
  cgm_precision precision;
  cgm_bcsr_params layout; /* n in {1,2,4,8}; bx, by <= 0 pick the defaults */
  int gpus;               /* number of GPUs (CUDA backend), >= 1 */
  cgm_exchange exchange;
  double tol;      /* the true relative residual ||b - Ax||/||b|| to reach (recomputed in
                      double) whatever the precision; 0: CGM_DEFAULT_TOL */
  double atol;     /* also converged once ||b - Ax|| <= atol (SciPy's atol): the relative
                      target is max(tol, atol / ||b||) (cgm_solve_target); <= 0: none */
  int maxiter;     /* <= 0: 10 * dimension, at least 1000 */
  int check_every; /* GPU: test convergence every k iterations (<= 0: automatic) */
  int threads;     /* CPU: OpenMP threads, <= 0: the OpenMP default */
  /* Mixed precision whose single-precision iteration stops short of the
   * iteration cap (stalled, or broken down in rounding) goes on in double
   * from where it is (default; cgm_solve_result.fallback_iterations says
   * so). */
  bool fallback;
  cgm_gpu_opts gpu; /* CUDA backend */
  /* Progress: when set, called with the solver's relative residual estimate
   * at iteration 0, every monitor_every iterations (<= 0: 1) on the CPU, at
   * each convergence check on a GPU (no extra synchronisation), and at the
   * last iteration (whose value is cgm_solve_result.solver_residual).
   * Iterations count on across a mixed-precision fallback. cuSPARSE does not
   * call it. */
  void (*monitor)(void *ctx, int iteration, double relative_residual);
  void *monitor_ctx;
  int monitor_every;
  /* Reorder the unknowns before the solve (on the host, during setup; the
   * solution comes back in the original numbering). cgm_solve treats auto
   * as none: the pipeline resolves it from the model (cgm_tuner_reorder). */
  cgm_reorder reorder;
  cgm_precond precond; /* default Jacobi */
  /* Block-Jacobi's block (1..8; <= 0: cgm_precond_block_size chooses: the
   * matrix's point block, else the layout's N). Independent of the layout:
   * with several GPUs the segments start at multiples of it. */
  int precond_block;
  /* Benchmarks (a tolerance no solve meets, a fixed iteration count):
   * double precision computes no true residual before a claim of
   * convergence (backend.h, cgm_reliable), so its iteration is timed alone
   * and an unreachable tolerance is not found out early. A solve can still
   * end before the cap: a breakdown, a residual of exactly 0, or the stall
   * of single or mixed precision or of a refused claim of convergence
   * (validate skips such runs). */
  bool fixed_count;
  /* The caller vouches that A passed the matrix's checks before, unchanged
   * since (the pipeline: a checksummed cache entry whose earlier solve ran):
   * finite, symmetric and positive diagonal are skipped; the shape (square,
   * not empty), b, x and single precision's range are still checked. */
  bool matrix_checked;
  /* Set by cgm_solve_opts_settle for the matrix it was given: every field
   * checked and every default filled in; cgm_solve takes them as they are. */
  bool settled;
} cgm_solve_opts;

/* Settles o once, at the entry point of a solve of A: checks every field
 * alone and against the others (CGM_EINPUT naming the request's key:
 * "gpus 3: ...", cgmodel/options.h) and fills in every default (the
 * tolerance, the iteration cap, B_x and B_y for A). A NULL A checks the
 * fields alone and fills what does not depend on a matrix. */
CGM_API cgm_status cgm_solve_opts_settle(cgm_solve_opts *o, const cgm_csr *A, cgm_error *err);

/* Block-Jacobi's block when it is fixed apart from the layout:
 * o->precond_block when > 0, else A's point block (cgm_csr_point_block, at
 * most 8) when it has one, else 0. */
CGM_API int cgm_precond_block_fixed(const cgm_csr *A, const cgm_solve_opts *o);
/* Block-Jacobi's block size for A under o: cgm_precond_block_fixed, else
 * the layout's N. */
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
/* The relative residual a solve of a right-hand side of norm bnorm must
 * reach: max(cgm_solve_tol, atol / bnorm). */
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
  int fallback_iterations; /* mixed precision that went on in double: its iterations before */
  int precond_block;       /* block-Jacobi's block size as run (0: Jacobi) */
  int ranks;               /* MPI processes that ran the solve (cgm_solve_mpi); 0: one process */
  double attainable_residual; /* u ||A||_inf ||x|| / ||b||, u the unit roundoff of the arithmetic
                                 that forms the residual: the least relative residual it can show
                                 for this A and b (a tolerance below it is out of reach) */
  char device[256];           /* "cpu (N threads)", "NVIDIA H100 80GB HBM3", ... */
  char stop_reason[512];      /* empty when converged */
  /* Refused before any iteration (the matrix is not positive definite):
   * nothing was run or timed, so there is no measurement to record. */
  bool refused;
  bool reordered;        /* solved in the reverse Cuthill-McKee numbering */
  double time_reorder_s; /* the ordering and the permuted copy (host), part of setup */
  bool layout_on_device; /* CUDA: the layout was built on the GPU (cgm_gpu_opts.device_layout) */
} cgm_solve_result;

/* Solves A x = b. x holds the initial guess on entry (zeros are fine) and the
 * solution on return. A must be square; symmetry, NaN/Inf and the diagonal are
 * checked before any iteration. Returns CGM_OK when converged, CGM_ENOCONV
 * (with res filled in) when maxiter was reached or CG broke down, CGM_EINPUT
 * for bad input and CGM_ERUNTIME for device failures. CUDA solves are not
 * reentrant: run one at a time in a process (CPU solves may overlap). */
CGM_API cgm_status cgm_solve(const cgm_csr *A, const double *b, double *x, const cgm_solve_opts *o,
                             cgm_solve_result *res, cgm_error *err);
/* What cgm_solve checks of A before iterating, with the same messages: square,
 * not empty, finite values, symmetric (CGM_EINPUT), and a positive diagonal
 * (CGM_ENOCONV: a matrix that is not positive definite, as a solve reports it).
 * predict and validate use it to refuse what a solve would refuse. */
CGM_API cgm_status cgm_solve_check_matrix(const cgm_csr *A, cgm_error *err);

/* ------------------------------------------------ A matrix on a GPU --- */

/* cgm_solve for A, b and x in A->device's memory (b and x: nrows doubles
 * there; x holds the initial guess on entry): our CUDA kernels on that GPU,
 * over the MBR layout of block size 1 built on it from A's arrays. The
 * checks (with the same messages), the meaning of the tolerance (the
 * residual recomputed in double, on the GPU), mixed precision's fallback
 * and the result are cgm_solve's. Of o: precision, tol, maxiter,
 * check_every, layout.bx, fallback, gpu and monitor; backend must be cuda,
 * gpus 1, layout.n 1, precond Jacobi and reorder none or auto (anything
 * else is refused, CGM_EINPUT). A breakdown is reported without the
 * Lanczos recheck of cgm_solve, which reads A on the host. */
CGM_API cgm_status cgm_solve_device(const cgm_csr_device *A, const double *b, double *x,
                                    const cgm_solve_opts *o, cgm_solve_result *res, cgm_error *err);

/* ------------------------------------------------------------ Devices --- */

/* Number of CUDA devices usable by this build (0 in a CPU-only build or when
 * no GPU/driver is present). Never fails. */
CGM_API int cgm_cuda_device_count(void);
/* Creates the CUDA runtime's context on devices 0 .. count - 1 (what the
 * first CUDA call of a solve would do, 0.1-0.3 s a device), so that a caller
 * can have it made on a thread of its own while it reads the matrix. Errors
 * are left to the solve that follows (a no-op without CUDA). */
CGM_API void cgm_cuda_warm_up(int count);
/* True when this library was built with the CUDA backend. */
CGM_API bool cgm_have_cuda_build(void);
/* Whether the nccl exchange's library (opened on first use, not linked)
 * can be opened now: false, with the loader's reason in why (n bytes), when
 * it cannot or in a CPU-only build. Opens it (it stays open). */
CGM_API bool cgm_nccl_available(char *why, size_t n);
/* The CUDA runtime this library uses (cudaRuntimeGetVersion: 12030 is
 * 12.3); 0 in a CPU-only build. Needs no GPU. */
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
/* Whether GPU a can read GPU b's memory directly (cudaDeviceCanAccessPeer;
 * true for a == b): what the p2p and halo exchanges need. */
CGM_API cgm_status cgm_cuda_can_access_peer(int a, int b, bool *ok, cgm_error *err);

#ifdef __cplusplus
}
#endif
#endif
