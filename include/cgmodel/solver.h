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

/* The CG our CUDA kernels run. */
typedef enum {
  CGM_CG_CGG = 0,     /* the single-reduction CG of Chronopoulos and Gear (default) */
  CGM_CG_CLASSIC = 1, /* Algorithm 2's CG4 + CG5 (always in the host-staged exchange) */
} cgm_cg_variant;
CGM_API const char *cgm_cg_variant_name(cgm_cg_variant v);
CGM_API bool cgm_cg_variant_parse(const char *s, cgm_cg_variant *v);

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
  double exchange_timeout_s; /* a solve whose GPUs make no progress this long fails (<= 0: 120) */
  const char *trace_file;    /* -DCGMODEL_TRACE=ON builds: append the timeline here (NULL: none) */
} cgm_gpu_opts;

/* The defaults: every refinement on, the single-reduction CG. */
CGM_API cgm_gpu_opts cgm_gpu_opts_default(void);

typedef struct cgm_solve_opts {
  cgm_backend backend;
  cgm_precision precision;
  cgm_bcsr_params layout; /* n in {1,2,4,8}; bx, by <= 0 pick the defaults */
  int gpus;               /* number of GPUs (CUDA backend), >= 1 */
  cgm_exchange exchange;
  double tol;      /* the true relative residual ||b - Ax||/||b|| to reach (recomputed in
                      double) whatever the precision; <= 0: 1e-8 */
  int maxiter;     /* <= 0: 10 * dimension, at least 1000 */
  int check_every; /* GPU: test convergence every k iterations (<= 0: automatic) */
  int threads;     /* CPU: OpenMP threads, <= 0: the OpenMP default */
  /* Mixed precision whose single-precision iteration stops making progress
   * (cgm_solve_result.stalled) goes on in double from where it is (default;
   * cgm_solve_result.fallback_iterations says so). */
  bool fallback;
  cgm_gpu_opts gpu; /* CUDA backend */
} cgm_solve_opts;

/* Defaults: CPU, double, N = 1, 1 GPU, halo exchange, default tolerance. */
CGM_API cgm_solve_opts cgm_solve_opts_default(void);
/* The plan this configuration builds for A (cgm_plan_make). */
CGM_API cgm_status cgm_solve_plan(const cgm_csr *A, const cgm_solve_opts *o, cgm_plan *p,
                                  cgm_error *err);
/* The tolerance and iteration cap the solver will really use. */
CGM_API double cgm_solve_tol(const cgm_solve_opts *o);
CGM_API int cgm_solve_maxiter(const cgm_solve_opts *o, int32_t dimension);

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
  bool stalled;            /* stopped because the true residual stopped falling in this precision */
  int fallback_iterations; /* mixed precision that went on in double: its iterations before */
  int ranks;               /* MPI processes that ran the solve (cgm_solve_mpi); 0: one process */
  char device[256];        /* "cpu (N threads)", "NVIDIA H100 80GB HBM3", ... */
  char stop_reason[256];   /* empty when converged */
} cgm_solve_result;

/* Solves A x = b. x holds the initial guess on entry (zeros are fine) and the
 * solution on return. A must be square; symmetry, NaN/Inf and the diagonal are
 * checked before any iteration. Returns CGM_OK when converged, CGM_ENOCONV
 * (with res filled in) when maxiter was reached or CG broke down, CGM_EINPUT
 * for bad input and CGM_ERUNTIME for device failures. CUDA solves are not
 * reentrant: run one at a time in a process (CPU solves may overlap). */
CGM_API cgm_status cgm_solve(const cgm_csr *A, const double *b, double *x, const cgm_solve_opts *o,
                             cgm_solve_result *res, cgm_error *err);

/* ------------------------------------------------------------ Devices --- */

/* Number of CUDA devices usable by this build (0 in a CPU-only build or when
 * no GPU/driver is present). Never fails. */
CGM_API int cgm_cuda_device_count(void);
/* True when this library was built with the CUDA backend. */
CGM_API bool cgm_have_cuda_build(void);

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

#ifdef __cplusplus
}
#endif
#endif
