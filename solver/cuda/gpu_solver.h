/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The CUDA solver's state and the pieces its files share (CUDA C++, internal to solver/cuda). The
 * solve is split by job:
 *   policy.c      how a solve runs: each choice the options and the plan settle (plain C)
 *   cg_cuda.cu    the driver, in steps: set-up from the plan (devices, layouts, vectors, exchange),
 *                 CG1, the loop, the finish (result, stop reason, download), teardown
 *   segments.c    host-side segment layouts and halo send lists (plain C)
 *   iteration.cu  one iteration on every device (SpMV, cgg or CG4 + CG5)
 *   exchange.cu   the vector and reduction exchanges between devices
 *   graph.cu      batches of iterations in CUDA graphs, the host's loop over them and the watchdogs
 *   host_loop.cu  the paper's host-staged loop (the host exchange)
 *   reliable.cu   the true residual replacing the iterated one (one GPU); A x whole (CG1 too)
 *   startup.cu    peer access and NCCL's communicators
 *   device_input.cu  a matrix already in a GPU's memory: its checks, the
 *                 vectors set from it there, the solution written back */
#pragma once

#include "solver/backend.h"
#include "solver/cuda/policy.h"
#include "solver/cuda/vendor_libs.h"
#include "kernels/cuda_dev.h"
#include "kernels/cuda_util.h"
#include "kernels/kernels.h"

typedef struct gpu_solver {
  int G, n;
  gs_policy pol; /* how it runs (policy.h) */
  cgm_precision prec;
  cgm_value_set vs;      /* the values' storage (cgm_cuda_dev.vs) */
  const cgm_problem *pb; /* what is solved, and its plan */
  const int32_t *bounds; /* the plan's segment block rows */
  int64_t chunk;         /* rows per all-gather chunk (nccl) */
  cgm_cuda_dev dev[CGM_MAX_GPUS];
  ncclComm_t comm[CGM_MAX_GPUS];
  const cgm_nccl_fns *nccl; /* NCCL's calls (vendor_libs.h): set by gs_nccl_init */
  int have_comm;
  int nccl_stuck;     /* ncclCommInitAll never returned: see gs_nccl_init */
  int hung;           /* a watchdog fired: abort, do not wait, on the way out */
  int pack_recorded;  /* ev_pack was recorded in the current capture */
  double rt0;         /* the true residual after CG1 */
  int mon_last;       /* cgm_monitor_report: the iteration last reported */
  cgm_cg_state final; /* the state reported when the host ended the run (host mode: the last) */
  unsigned send_mask[CGM_MAX_GPUS]; /* halo: the devices segment g sends to */
  void *host_v;                     /* pinned: host mode */
  double *host_red;                 /* pinned: host mode partials */
} gpu_solver;

static inline unsigned gs_all_mask(const gpu_solver *S) {
  return (1u << S->G) - 1u;
}

/* The devices whose halo packs write into device g's vector. */
static inline unsigned gs_recv_mask(const gpu_solver *S, int g) {
  unsigned m = 0;
  for (int j = 0; j < S->G; j++)
    if ((S->send_mask[j] >> g) & 1u) m |= 1u << j;
  return m;
}

/* Halo with flags: device g's pack also raises g's own flag, which g's
 * boundary SpMV waits for (gs_spmv). Not with late (policy.h): there the boundary
 * SpMV follows the own pack by an event and waits for no flag. */
static inline unsigned gs_own_pack_flag(const gpu_solver *S, int g) {
  return S->pol.flags && !S->pol.late && S->send_mask[g] ? 1u << g : 0u;
}

/* Flags (cgm_sync): device g waits for the `wait_kind` flags of the
 * devices in wait_mask to reach tick(wait_off), and raises its own
 * `raise_kind` flag in the states of raise_mask to tick(raise_off). */
static inline cgm_sync gs_sync_for(const gpu_solver *S, int g, unsigned wait_mask, int wait_kind,
                                   int wait_off, unsigned raise_mask, int raise_kind,
                                   int raise_off) {
  cgm_sync y = {};
  y.overlap = S->pol.pdl;
  if (!S->pol.flags) return y;
  y.wait_mask = wait_mask;
  y.wait_kind = wait_kind;
  y.wait_off = wait_off;
  y.raise_off = raise_off;
  for (int k = 0; k < S->G; k++)
    if ((raise_mask >> k) & 1u) y.raise[y.nraise++] = &S->dev[k].state->flag[raise_kind][g];
  return y;
}

/* iteration.cu: the launches on every device of SpMV + CG3 (the reduction of p . A p; cgg: u . A u
 * with the carried r . u and r . r), of CG4 and of CG5, each without the exchange that follows it;
 * gs_iteration, one iteration with its exchanges. */
cudaError_t gs_spmv(gpu_solver *S, int slot);
cudaError_t gs_cg4(gpu_solver *S, int slot, int prev);
cudaError_t gs_cg5(gpu_solver *S, int slot, int prev);
cudaError_t gs_iteration(gpu_solver *S, int slot);

/* exchange.cu; gs_reduce: reduction `which`'s count sums at slot to every device by NCCL's
 * all-reduce, else every stream waits for the others' latest event ev (flags: the kernels wait) */
cudaError_t gs_reduce(gpu_solver *S, int slot, int which, int count, cudaEvent_t cgm_cuda_dev::*ev);
cudaError_t gs_exchange(gpu_solver *S, int slot);
cudaError_t gs_host_reduce(gpu_solver *S, int slot, int which, int count);
cudaError_t gs_host_exchange(gpu_solver *S);

/* cg_cuda.cu: cgm_monitor_report's fill (S), x downloaded into dst after the stream's work
 * (gs_graph_loop queues nothing ahead while the monitor keeps x); false when that fails. */
bool gs_monitor_x(void *S, double *dst);

/* graph.cu */
cudaError_t gs_event_wait(cudaEvent_t ev, double timeout_s);
cgm_status gs_capture(gpu_solver *S, cgm_error *err);
cgm_status gs_graph_loop(gpu_solver *S, const cgm_problem *pb, cgm_solve_result *res,
                         const cgm_cg_state **fin, cgm_error *err);

/* host_loop.cu */
cgm_status gs_host_loop(gpu_solver *S, const cgm_problem *pb, cgm_solve_result *res,
                        cgm_cg_state *fin, cgm_error *err);

/* reliable.cu: y = A x over every layout of d, the MBR rows, the halo's boundary rows and the long
 * rows (hi: the double values, of mixed precision or of F32 values that are not exact). */
cudaError_t gs_spmv_whole(cgm_cuda_dev *d, cgm_precision p, bool hi, const void *x, void *y);
/* reliable.cu: replaces the iterated residual by the true one after the stream's work, resuming the
 * run (restart: from a new direction); *rt the true residual's norm, *xn the solution's. */
cgm_status gs_replace(gpu_solver *S, int restart, double *rt, double *xn, cgm_error *err);
/* reliable.cu: the true residual's norm *rt, the solution's *xn and ||D x||
 * *dxn (D = diag(A)) after the stream's work, changing nothing the run reads
 * (double precision only: its floor watch, cgm_floor_watch). */
cgm_status gs_probe(gpu_solver *S, double *rt, double *xn, double *dxn, cgm_error *err);

/* device_input.cu: A, b and x0 in the GPU's memory (cgm_problem.dA): the
 * vectors D^-1, b, x0 and v set from them on the device, and the solution
 * (x_hi + x in mixed precision) written back into x there (n rows). */
cgm_status gs_device_vectors(gpu_solver *S, const cgm_problem *pb, cgm_error *err);
/* D^-1 (d->rows of it) from a CSR in d's memory: a layout built there needs none sent. */
cgm_status gs_device_dinv(const gpu_solver *S, cgm_cuda_dev *d, const cgm_csr_device *A,
                          cgm_error *err);
cgm_status gs_device_solution(gpu_solver *S, double *x, int64_t n, cgm_error *err);

/* startup.cu */
cgm_status gs_enable_peers(int G, cgm_error *err);
cgm_status gs_nccl_init(gpu_solver *S, cgm_error *err);
