/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The CUDA solver's policy (policy.h). */
#include "solver/cuda/policy.h"

#include "kernels/kernels.h"

static gs_mode pick_mode(const cgm_solve_opts *o) {
  const cgm_exchange e = o->exchange;
  if (o->gpus <= 1) return MODE_ONE;
  return e == CGM_EXCHANGE_P2P    ? MODE_P2P
         : e == CGM_EXCHANGE_HALO ? MODE_HALO
         : e == CGM_EXCHANGE_HOST ? MODE_HOST
                                  : MODE_NCCL;
}

gs_policy gs_policy_make(const cgm_solve_opts *o, const cgm_plan *p) {
  const cgm_gpu_opts *go = &o->gpu;
  const cgm_precision prec = o->precision;
  gs_policy P = {0};
  P.mode = pick_mode(o);
  /* Single and mixed precision replace their residual between graphs, so short graphs keep a
   * replacement from coming late (at 32 a small Poisson matrix took 10x double's iterations on an
   * H100); the launches cost under 1% at the sizes reduced precision pays at. */
  P.K = o->check_every > 0 ? o->check_every : prec == CGM_PREC_DOUBLE ? 32 : 8;
  if (P.K > CGM_MAX_SLOTS) P.K = CGM_MAX_SLOTS;
  if (P.K < 2 || P.mode == MODE_HOST) P.K = 2;
  P.flags = (P.mode == MODE_P2P || P.mode == MODE_HALO) && go->flags;
  P.graphs = go->graphs;
  /* Programmatic dependent launch: on one GPU, and on several with the flags, where no block
   * scheduled early can hold the SMs a peer's progress needs (pdl_begin, cgm_sync.leave). */
  P.pdl = (P.mode == MODE_ONE || P.flags) && go->pdl;
  /* The single-reduction CG: one reduction and one kernel an iteration
   * fewer than CG4 + CG5 (docs/perf.md). The host-staged mode and single and
   * mixed precision run Algorithm 2: cgg's recurrence for p . A p loses its
   * accuracy in single precision past ~1e-7 (it broke down on an H100). */
  P.cgg = P.mode != MODE_HOST && go->cg == CGM_CG_CGG && prec == CGM_PREC_DOUBLE;
  P.late = P.mode == MODE_HALO && P.flags && go->late;
  P.ll = P.cgg && P.flags && go->ll;
  /* Reliable updates on one GPU (backend.h) */
  P.reliable = P.mode == MODE_ONE;
  P.reduced = prec != CGM_PREC_DOUBLE;
  P.floor_watch = P.reliable && !P.reduced && !o->fixed_count;
  P.device_layout = go->device_layout && cgm_plan_layout_on_device(p);
  P.timeout_s = go->exchange_timeout_s > 0 ? go->exchange_timeout_s : 120.0;
  P.host_timeout_s = P.timeout_s + (P.flags ? 5.0 : 0.0);
  const double half = P.timeout_s * 0.5;
  P.wait_ns = (unsigned long long)((half < 1e6 ? half : 1e6) * 1e9); /* <= 11.6 days */
  return P;
}
