/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Predictions: one configuration's time per iteration (what a solve or a
 * validation run is compared with), and every configuration of the
 * calibrated devices for one matrix with the tuner's choice (predict). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/pipeline.h"
#include "cgmodel/predict.h"
#include "pipeline/steps.h"

void cgm_candidate_device(const cgm_candidate *c, const cgm_tuner_device *devs, char *out,
                          size_t n) {
  snprintf(out, n, "%.200s", c->backend == CGM_BACKEND_CPU ? "cpu" : devs[c->device].name);
}

void cgm_predict_report_free(cgm_predict_report *r) {
  free(r->devs);
  free(r->cand);
  r->devs = NULL;
  r->cand = NULL;
  r->ndev = r->ncand = 0;
}

cgm_status cgm_predict(cgm_db *db, const cgm_predict_opts *o, cgm_predict_report *r,
                       cgm_error *err) {
  memset(r, 0, sizeof *r);
  r->choice = -1;
  cgm_status st = cgm_load_devices(db, o->kind, &r->devs, &r->ndev, err);
  if (st) return st;
  /* Said before anything else: a stale calibration misleads every prediction below. */
  char msg[512];
  cgm_host h;
  cgm_host_describe(&h);
  for (int i = 0; i < r->ndev && o->note; i++) {
    if (cgm_calibration_cg_stale(&r->devs[i], &o->gpu, msg, sizeof msg))
      o->note(o->note_ctx, CGM_NOTE_WARNING, msg);
    snprintf(msg, sizeof msg,
             "the CPU's times are calibration %lld's, for threads=%d (auto runs them)",
             (long long)r->devs[i].calibration_id, r->devs[i].threads);
    if (r->devs[i].is_cpu && r->devs[i].threads != h.threads)
      o->note(o->note_ctx, CGM_NOTE_INFO, msg);
  }
  if (r->ndev == 0)
    return cgm_fail(err, CGM_EINPUT,
                    "no calibration for %s devices in %s: run 'cgmodel calibrate%s' first",
                    o->kind ? o->kind : "any", cgm_db_path(db),
                    o->kind && !strcmp(o->kind, "cuda") ? " --devices cuda:all" : "");
  /* more GPUs than here or than calibrated: priced as what-ifs */
  if ((st = cgm_what_if(db, o->interconnect, o->tuner.max_gpus, &h, r->devs, r->ndev, err)))
    return st;
  cgm_csr file = {0};
  /* what is derived from A is kept beside its entry (a matrix in memory's: by its content) */
  cgm_cache_report *cr = &r->cache;
  if (!o->csr) st = cgm_cache_read_csr(&o->cache, o->matrix, &file, &r->mm, cr, err);
  if (o->csr) cgm_cache_of_memory(&o->cache, o->csr, cr);
  cgm_cache_wait(cr); /* a background write (cgm_cache_opts.background) done before A is freed */
  const cgm_csr *A = o->csr ? o->csr : &file;
  /* What a solve would refuse has no time to predict: bad input here
   * (exit 2), whatever a solve would call it. */
  r->check_cached = !st && pipeline_checked(cr);
  if (!st && !r->check_cached && (st = cgm_solve_check_matrix(A, err))) {
    st = CGM_EINPUT;
    if (err) err->code = CGM_EINPUT;
    cgm_error_prefix(err, "%s: ", o->matrix ? o->matrix : "the matrix");
  }
  bool f_new = false;
  if (!st)
    st = pipeline_features(A, (1u << CGM_NBLOCKSIZES) - 1, cr, &r->features, &r->features_cached,
                           &f_new, err);
  pipeline_keep_extras(cr, &r->features, f_new && !st, !st && !r->check_cached);
  cgm_tuner_opts to = o->tuner;
  if (!(to.tol > 0)) to.tol = CGM_DEFAULT_TOL; /* the one default of predict's tolerance */
  if (!st) {
    const pipeline_k_query q = {
        db, A, o->csr ? NULL : o->matrix, cr, to.tol, o->iters_hint, PIPELINE_PROBE_BUDGET, false};
    pipeline_ratio ratio = {0};
    to.iterations = pipeline_iterations(&q, r->k_source, sizeof r->k_source, &ratio);
    pipeline_ratio_give(ratio, r->devs, r->ndev);
    if (!(to.iterations > 0)) to.iterations = cgm_iterations_estimate(A->nrows, to.tol);
    r->iterations = to.iterations;
    /* the plans of every block size kept beside the entry (counted here for them all) */
    pipeline_plan_set ps;
    st = pipeline_plans(A, cr, cgm_tuner_max_gpus(r->devs, r->ndev, &to), to.exchanges, !to.block,
                        &ps, err);
    r->plans_cached = ps.cached;
    if (!st && ps.plans)
      st = cgm_tuner_price(ps.plans, ps.count, &r->features, r->devs, r->ndev, &to, &r->cand,
                           &r->ncand, err);
    else if (!st)
      st = cgm_tuner_candidates(A, &r->features, r->devs, r->ndev, &to, &r->cand, &r->ncand, err);
    pipeline_plans_keep(cr, &ps);
    free(ps.plans);
  }
  /* never a silent fall back to fewer GPUs than asked */
  int gpu = 0, at = to.max_gpus < 2;
  for (int i = 0; i < r->ncand; i++) {
    gpu += r->cand[i].backend == CGM_BACKEND_CUDA;
    at += r->cand[i].gpus == to.max_gpus;
  }
  snprintf(msg, sizeof msg, "no configuration on %d GPUs: %s", to.max_gpus,
           gpu ? "the matrix has too few block rows" : "no GPU among the calibrated devices asked");
  if (!st && o->note && !at) o->note(o->note_ctx, CGM_NOTE_WARNING, msg);
  if (!st) r->choice = cgm_tuner_choose(r->cand, r->ncand, r->devs, r->why, sizeof r->why);
  if (!st && r->choice >= 0 && r->cand[r->choice].backend != CGM_BACKEND_CUSPARSE) {
    /* what solve --reorder auto would do with the choice, over the same K */
    const cgm_candidate *c = &r->cand[r->choice];
    cgm_solve_opts so = cgm_solve_opts_default();
    so.backend = c->backend;
    so.precision = c->precision;
    so.gpus = c->gpus > 0 ? c->gpus : 1;
    so.layout = cgm_plan_layout_params(A, c->block, so.gpus);
    so.exchange = c->exchange;
    so.gpu = o->gpu;
    so.reorder = CGM_REORDER_AUTO;
    st = cgm_reorder_decide(A, &r->features, &r->devs[c->device], &so, r->iterations, NULL,
                            &r->reorder, err);
    r->have_reorder = st == CGM_OK;
  }
  cgm_csr_free(&file);
  return st;
}
