/* SPDX-License-Identifier: GPL-3.0-or-later */
/* solve --auto: the tuner's choice among this machine's calibrated devices,
 * turned into the configuration the solver runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/pipeline.h"
#include "cgmodel/predict.h"
#include "pipeline/steps.h"

cgm_status cgm_autotune(const cgm_csr *A, const cgm_features *f, const cgm_tuner_device *devs,
                        int ndev, const cgm_host *host, const cgm_autotune_opts *c,
                        cgm_solve_opts *o, cgm_autotune_result *r, cgm_error *err) {
  memset(r, 0, sizeof *r);
  const bool cpu_only = c->backend_given && c->backend == CGM_BACKEND_CPU;
  cgm_tuner_device local[2];
  int index[2];
  const int nl =
      pipeline_local_devices(devs, cgm_host_match(host, devs, ndev, o->threads), !cpu_only,
                             host->gpus, !c->backend_given || cpu_only, local, index);
  if (nl == 0) {
    char adv[160], flag[32] = "";
    pipeline_cpu_advice(host, devs, ndev, o->threads > 0 ? o->threads : host->threads, adv,
                        sizeof adv);
    if (o->threads > 0) snprintf(flag, sizeof flag, " --threads %d", o->threads);
    snprintf(r->why, sizeof r->why,
             "no calibration of this machine's devices%s; run 'cgmodel calibrate%s' first", adv,
             flag);
    return CGM_OK;
  }
  cgm_tuner_opts to = cgm_tuner_opts_default();
  to.precisions = c->precision_given
                      ? 1u << c->precision
                      : (1u << CGM_PREC_DOUBLE) | (1u << CGM_PREC_SINGLE) | (1u << CGM_PREC_MIXED);
  to.tol = c->tol;
  to.iterations = c->iterations;
  to.exchanges = (1u << CGM_EXCHANGE_HALO) | (1u << CGM_EXCHANGE_P2P);
  if (c->block_jacobi) to.cusparse = false;
  cgm_candidate *cand = NULL;
  int nc = 0;
  cgm_status st = cgm_tuner_candidates(A, f, local, nl, &to, &cand, &nc, err);
  if (st) return st;
  const int best = cgm_tuner_choose(cand, nc, local, r->why, sizeof r->why);
  if (best >= 0) {
    const cgm_candidate *b = &cand[best];
    const int gpus = b->gpus > 0 ? b->gpus : 1;
    r->chosen = true;
    r->choice = *b;
    r->choice.device = index[b->device];
    o->backend = b->backend;
    o->precision = b->precision;
    o->layout = cgm_plan_layout_params(A, b->block, gpus);
    o->gpus = gpus;
    o->exchange = b->exchange;
    /* the CPU as calibrated: a calibration of T threads serves solves on T */
    const int t = local[b->device].threads;
    if (b->backend == CGM_BACKEND_CPU && o->threads <= 0 && t > 0 && t != host->threads) {
      o->threads = t;
      const size_t l = strlen(r->why);
      snprintf(r->why + l, sizeof r->why - l, " (on %d thread%s, as calibration %lld ran)", t,
               t == 1 ? "" : "s", (long long)local[b->device].calibration_id);
    }
  }
  free(cand);
  return CGM_OK;
}
