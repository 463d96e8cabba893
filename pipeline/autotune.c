/* SPDX-License-Identifier: GPL-3.0-or-later */
/* solve --auto: the tuner's choice among this machine's calibrated devices,
 * turned into the configuration the solver runs. */
#include <math.h>
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
    if (o->threads > 0) snprintf(flag, sizeof flag, " with threads=%d", o->threads);
    snprintf(r->why, sizeof r->why,
             "no calibration of this machine's devices%s; run 'cgmodel calibrate'%s first", adv,
             flag);
    return CGM_OK;
  }
  cgm_tuner_opts to = cgm_tuner_opts_default();
  to.precisions = c->precision_given
                      ? 1u << c->precision
                      : (1u << CGM_PREC_DOUBLE) | (1u << CGM_PREC_SINGLE) | (1u << CGM_PREC_MIXED);
  to.tol = c->tol;
  to.iterations = c->iterations;
  to.storage = o->storage;
  to.exchanges = (1u << CGM_EXCHANGE_HALO) | (1u << CGM_EXCHANGE_P2P);
  /* The cuSPARSE baseline stays out unless asked for: loading cuSPARSE and cuBLAS (and their
   * teardown at exit) is no part of the model, and cost the command 90 ms on one H200 (bcsstm25,
   * 2026-11-29: 0.48 s against 0.39 s on our kernels), more than its iterations saved */
  if (c->block_jacobi || !(c->backend_given && c->backend == CGM_BACKEND_CUSPARSE))
    to.cusparse = false;
  if (o->storage == CGM_STORAGE_COMPACT) /* beside double on our kernels alone (settle) */
    to.precisions &= 1u << CGM_PREC_DOUBLE, to.cusparse = false;
  cgm_candidate *cand = NULL;
  int nc = 0;
  cgm_status st = c->plans
                      ? cgm_tuner_price(c->plans, c->nplans, f, local, nl, &to, &cand, &nc, err)
                      : cgm_tuner_candidates(A, f, local, nl, &to, &cand, &nc, err);
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

/* Device d's double-precision solve of nrows rows and nnz entries on a uniform N = 1 plan: its
 * setup and k iterations; NaN where it cannot be priced. */
static double uniform_total(const cgm_tuner_device *d, int64_t nrows, double nnz, double k,
                            double *per_iter) {
  cgm_plan_opts po = cgm_plan_opts_default();
  po.backend = d->is_cpu ? CGM_BACKEND_CPU : CGM_BACKEND_CUDA;
  cgm_plan p;
  cgm_error e = {0};
  if (!d->have[CGM_PREC_DOUBLE] || cgm_plan_uniform(nrows, nnz, &po, &p, &e)) return NAN;
  *per_iter = cgm_refined_time(&d->model[CGM_PREC_DOUBLE], &p);
  return cgm_setup_time(&d->setup, (double)p.device_bytes) + k * *per_iter;
}

bool pipeline_auto_worth(const cgm_tuner_device *devs, int ndev, const cgm_host *host,
                         const cgm_solve_opts *def, const cgm_csr *A, double k, double cost_s,
                         const cgm_candidate *c, double *bound_s) {
  const double nnz = (double)A->nnz, v = (CGM_CG4_PASSES + CGM_CG5_PASSES + 2.0) * A->nrows;
  *bound_s = c ? c->total_s - fmin(k, c->iterations) * c->time_per_iter_s * 4.0 * (nnz + v) /
                                  (nnz * (cgm_values_block_bytes(c->values, 1, c->precision) + 4) +
                                   v * cgm_precision_width(c->precision))
               : NAN;
  if (c) return !(*bound_s < cost_s); /* NaN: nothing to weigh it by */
  const cgm_host_devices m = cgm_host_match(host, devs, ndev, def->threads);
  const int d = def->backend == CGM_BACKEND_CPU ? m.cpu : m.gpu;
  double t = NAN;
  const double total = d < 0 ? NAN : uniform_total(&devs[d], A->nrows, (double)A->nnz, k, &t);
  if (!isfinite(total)) return true; /* nothing to weigh it by */
  /* no configuration's iterations take less than CGM_AUTO_FLOOR of the
   * default's, and its setup at best nothing */
  *bound_s = total - CGM_AUTO_FLOOR * k * t;
  return cost_s < *bound_s;
}

bool pipeline_cpu_first(const cgm_tuner_device *devs, int ndev, const cgm_host *host, int threads,
                        const cgm_csr *A, double k, double *cpu_s, double *start_s) {
  const int c = cgm_host_match(host, devs, ndev, threads).cpu;
  *start_s = INFINITY;
  for (int i = 0; i < ndev; i++)
    if (!devs[i].is_cpu && devs[i].start_s > 0) *start_s = fmin(*start_s, devs[i].start_s);
  double t;
  *cpu_s = c < 0 ? NAN : uniform_total(&devs[c], A->nrows, (double)A->nnz, k, &t);
  return *cpu_s < *start_s && isfinite(*start_s);
}
