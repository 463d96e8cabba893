/* SPDX-License-Identifier: GPL-3.0-or-later */
/* solver/cuda/policy.h (CUDA builds; no GPU needed): over every GPU count,
 * exchange, precision, CG variant, batch length and switch of
 * cgm_gpu_opts, each decision of gs_policy_make is the rule the solver's
 * comments give it, and none contradicts another (the ll words only with
 * the single-reduction CG and flags, the late pack only with the halo's
 * flags, PDL only on one GPU or with flags, ...). */
#include "cgmodel/solver.h"
#include "kernels/kernels.h"
#include "solver/cuda/policy.h"
#include "test_util.h"

static cgm_plan one_segment(int n) {
  cgm_plan p;
  memset(&p, 0, sizeof p);
  p.nseg = 1;
  p.o.layout.n = n;
  return p;
}

static void check_one(const cgm_solve_opts *o, const cgm_plan *p) {
  const gs_policy P = gs_policy_make(o, p);
  const cgm_gpu_opts *g = &o->gpu;
  const bool dbl = o->precision == CGM_PREC_DOUBLE;
  const gs_mode want = o->gpus <= 1                       ? MODE_ONE
                       : o->exchange == CGM_EXCHANGE_P2P  ? MODE_P2P
                       : o->exchange == CGM_EXCHANGE_HALO ? MODE_HALO
                       : o->exchange == CGM_EXCHANGE_HOST ? MODE_HOST
                                                          : MODE_NCCL;
  CHECK(P.mode == want);
  int K = o->check_every > 0 ? o->check_every : dbl ? 32 : 8;
  if (K > CGM_MAX_SLOTS) K = CGM_MAX_SLOTS;
  if (K < 2 || want == MODE_HOST) K = 2; /* the host-staged loop: two slots */
  CHECK_MSG(P.K == K && P.K >= 2 && P.K <= CGM_MAX_SLOTS, "K %d, check_every %d", P.K,
            o->check_every);
  const bool peers = want == MODE_P2P || want == MODE_HALO;
  CHECK(P.flags == (peers && g->flags));
  CHECK(P.graphs == g->graphs);
  CHECK(P.pdl == ((want == MODE_ONE || P.flags) && g->pdl));
  CHECK(P.cgg == (want != MODE_HOST && g->cg == CGM_CG_CGG && dbl));
  CHECK(P.late == (want == MODE_HALO && P.flags && g->late));
  CHECK(P.ll == (P.cgg && P.flags && g->ll));
  CHECK(!P.ll || (P.cgg && P.flags));
  CHECK(!P.late || (want == MODE_HALO && P.flags));
  CHECK(P.reliable == (want == MODE_ONE));
  CHECK(P.reduced == !dbl);
  CHECK(P.floor_watch == (P.reliable && dbl && !o->fixed_count));
  CHECK(P.device_layout == (g->device_layout && p->nseg == 1 && p->o.layout.n == 1));
  const double t = g->exchange_timeout_s > 0 ? g->exchange_timeout_s : 120.0;
  CHECK(P.timeout_s == t);
  CHECK(P.host_timeout_s == t + (P.flags ? 5.0 : 0.0));
  CHECK(P.wait_ns == (unsigned long long)((t < 2e6 ? t / 2 : 1e6) * 1e9));
}

int main(void) {
  static const int gpus[] = {1, 2, 4}, every[] = {0, 1, 5, 64, 1000};
  static const double timeouts[] = {0.0, 3.0, 1e7};
  long combos = 0;
  for (int gi = 0; gi < 3; gi++)
    for (int e = 0; e < CGM_NEXCHANGES; e++)
      for (int pr = 0; pr < CGM_NPRECISIONS; pr++)
        for (int k = 0; k < 5; k++)
          for (unsigned bits = 0; bits < 256; bits++) {
            cgm_solve_opts o = cgm_solve_opts_default();
            o.backend = CGM_BACKEND_CUDA;
            o.gpus = gpus[gi];
            o.exchange = (cgm_exchange)e;
            o.precision = (cgm_precision)pr;
            o.check_every = every[k];
            o.gpu.cg = bits & 1 ? CGM_CG_CLASSIC : CGM_CG_CGG;
            o.gpu.flags = bits >> 1 & 1;
            o.gpu.late = bits >> 2 & 1;
            o.gpu.ll = bits >> 3 & 1;
            o.gpu.pdl = bits >> 4 & 1;
            o.gpu.graphs = bits >> 5 & 1;
            o.gpu.device_layout = bits >> 6 & 1;
            o.fixed_count = bits >> 7 & 1;
            o.gpu.exchange_timeout_s = timeouts[(bits + k) % 3];
            const cgm_plan p = one_segment(bits & 2 ? 1 : 4);
            check_one(&o, &p);
            combos++;
          }
  /* the defaults on one GPU: every refinement the one GPU has */
  cgm_solve_opts o = cgm_solve_opts_default();
  const cgm_plan p = one_segment(1);
  const gs_policy P = gs_policy_make(&o, &p);
  CHECK(P.mode == MODE_ONE && P.K == 32 && P.cgg && P.pdl && P.graphs && P.reliable &&
        P.floor_watch && P.device_layout && !P.flags && !P.late && !P.ll && P.timeout_s == 120.0);
  printf("%ld configurations\n", combos);
  TEST_MAIN_END();
}
