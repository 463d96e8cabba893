/* SPDX-License-Identifier: GPL-3.0-or-later */
/* How the CUDA solver runs a solve: every choice that follows from the settled options and the
 * plan, made once (gs_policy_make) and read from this struct by the rest of solver/cuda. Plain C;
 * CUDA builds only (the batch's cap is the kernels' CGM_MAX_SLOTS). */
#pragma once

#include "cgmodel/solver.h"

CGM_BEGIN_DECLS

/* How the vector the SpMV reads and the reductions' sums travel between
 * the devices (cg_cuda.cu's opening comment): one GPU, nothing. */
typedef enum { MODE_ONE, MODE_NCCL, MODE_P2P, MODE_HALO, MODE_HOST } gs_mode;

typedef struct gs_policy {
  gs_mode mode;
  int K;             /* iterations a batch (one CUDA graph), between the host's looks */
  int cgg;           /* the single-reduction CG (cgm_launch_cgg), not CG4 + CG5 */
  int flags;         /* cross-device sync by flags (cgm_sync), not graph edges */
  int graphs;        /* batches replayed from CUDA graphs */
  int pdl;           /* kernels overlap their predecessor's tail (launch.cuh) where built for */
  int late;          /* halo with flags: the pack waits for the peers' packs */
  int ll;            /* cgg with flags: the SpMV sums travel as ll words */
  int reliable;      /* one GPU: reliable updates (reliable.cu) */
  int reduced;       /* single or mixed: also when the residual fell by CGM_RELIABLE_DELTA */
  int floor_watch;   /* double precision's floor watch (cgm_floor_watch) */
  int device_layout; /* A on the host: its layout built on the GPU, where the CSR fits */
  /* A solve must not hang: the exchange (NCCL hung on a node with 4 H200s) gets timeout_s without
   * progress before the solve fails. With flags a device waits at most wait_ns (half of it) for a
   * peer and ends the run itself; the host's own deadline, host_timeout_s, is the last resort. */
  double timeout_s;
  double host_timeout_s;
  unsigned long long wait_ns;
} gs_policy;

gs_policy gs_policy_make(const cgm_solve_opts *o, const cgm_plan *p);

CGM_END_DECLS
