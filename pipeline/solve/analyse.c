/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A solve's analysis: the database, the calibrations and this machine's
 * devices, --auto's choice, the prediction of the configuration that runs
 * and --reorder auto's verdict, and the verdict kept beside the cache
 * entry (analysis_blob in solve_steps.h). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgmodel/predict.h"
#include "pipeline/solve/solve_steps.h"

static const char ANALYSIS[] = "analysis";
/* 2: --reorder auto's bound counts the row scatter a numbering may remove
 * (pipeline/reorder.c): a verdict of version 1 may have skipped RCM by it */
enum { ANALYSIS_VERSION = 2 };

/* K, the iterations a solve is expected to take (the tuner's totals and
 * --reorder auto): --iters-hint, else the database's record of a converged
 * solve of this matrix at tol, else the probe (budget < 0: none); 0 when
 * none knows (the caller estimates). src says which: "hint", "database",
 * "probe" or "estimate". */
static double known_iterations(const cgm_run_solve_opts *o, cgm_db *db, const cgm_csr *A,
                               const cgm_features *f, double tol, double budget, char *src,
                               size_t n) {
  double k = o->iters_hint;
  snprintf(src, n, "hint");
  if (!(k > 0)) {
    struct stat fs;
    k = pipeline_known_iterations(db, pipeline_file_name(o->matrix),
                                  stat(o->matrix, &fs) == 0 ? (int64_t)fs.st_size : 0, f, tol);
    snprintf(src, n, "database");
  }
  if (!(k > 0) && budget >= 0) {
    k = pipeline_probe_iterations(A, tol, budget);
    snprintf(src, n, k > 0 ? "probe" : "estimate");
  }
  return k > 0 ? k : 0.0;
}

/* The key of a verdict: what it was decided from. */
static void analysis_key(const cgm_solve_opts *so, const cgm_tuner_device *dev, double k_known,
                         analysis_blob *a) {
  memset(a, 0, sizeof *a); /* the padding too: the key is compared as bytes */
  a->key.backend = so->backend;
  a->key.precision = so->precision;
  a->key.layout = so->layout;
  a->key.gpus = so->gpus;
  a->key.exchange = so->exchange;
  a->key.tol = cgm_solve_tol(so);
  a->key.threads = so->threads;
  a->key.reorder = so->reorder;
  a->key.precond = so->precond;
  a->key.precond_block = so->precond_block;
  a->key.balance = so->gpu.balance;
  a->key.k_known = k_known;
  memcpy(&a->key.dev, dev, sizeof *dev);
  /* what recorded solves teach the tuner changes with every record, and
   * neither the prediction of an iteration nor the reordering's verdict
   * reads it */
  memset(&a->key.dev.setup, 0, sizeof a->key.dev.setup);
  memset(&a->key.dev.setup_dev, 0, sizeof a->key.dev.setup_dev);
  a->key.dev.mixed_ratio = 0.0;
}

/* The database, the calibrations and this machine's devices: --auto's
 * choice (applied to r->opts) and the prediction of the configuration that
 * will run. Solves are recorded once a database exists (calibrate creates
 * it); a solve never creates one, and without --auto one that will not
 * open is said and done without. */
cgm_status solve_analyse(const cgm_run_solve_opts *o, const cgm_csr *A, const cgm_features *f,
                         cgm_solve_report *r, cgm_db **db, analysis_blob *keep, bool *store,
                         cgm_error *err) {
  *store = false;
  /* The tuner picks the block size N. Block-Jacobi whose block followed N
   * would change with it, and the model does not weigh that; a block fixed
   * apart from N (the matrix's point block, or --precond-block) keeps the
   * preconditioner, hence the iterations, the same at every N, so the tuner
   * weighs set-up and time per iteration as for Jacobi (docs/precond.md). */
  bool block_jacobi = false;
  if (o->autotune && r->opts.precond != CGM_PRECOND_JACOBI) {
    const int b = cgm_precond_block_fixed(A, &r->opts);
    if (b <= 1)
      return cgm_fail(err, CGM_EINPUT,
                      "--auto picks the block size, and this matrix has no point block (dense "
                      "aligned blocks of its unknowns) to fix block-Jacobi's block apart from it: "
                      "give --precond-block B, or drop --auto");
    r->opts.precond_block = b;
    block_jacobi = true;
  }
  const bool need = o->autotune;
  /* Without --auto a database that fails is not the solve's failure. */
  cgm_error mine = {0};
  cgm_error *db_err = need ? err : &mine;
  cgm_status st = CGM_OK;
  struct stat sb;
  if (need && !o->db_path) return cgm_fail(err, CGM_EINPUT, "autotune needs a database");
  if (o->db_path && (need || stat(o->db_path, &sb) == 0) &&
      (st = cgm_open_database(o->db_path, o->db_readonly ? CGM_DB_READONLY : 0, db, db_err))) {
    if (need) return st;
    /* a warning: the solve goes on and its exit code is the solve's */
    char why[CGM_ERRMSG_MAX + 64];
    snprintf(why, sizeof why, "the solve will not be recorded: %s", db_err->msg);
    solve_note(o, CGM_NOTE_WARNING, why);
  }
  cgm_tuner_device *devs = NULL;
  int ndev = 0;
  if (*db && (st = cgm_load_devices(*db, NULL, &devs, &ndev, db_err))) {
    if (need) return st;
    ndev = 0;
  }
  cgm_host here;
  if (!o->host) cgm_host_describe(&here);
  const cgm_host *host = o->host ? o->host : &here;
  if (o->autotune) {
    cgm_autotune_result ar;
    cgm_autotune_opts c = o->constraints;
    c.tol = cgm_solve_tol(&r->opts);
    c.block_jacobi = block_jacobi;
    /* K decides between devices here: the probe may run to the solution */
    c.iterations = known_iterations(o, *db, A, f, c.tol, PIPELINE_PROBE_BUDGET, r->k_source,
                                    sizeof r->k_source);
    st = cgm_autotune(A, f, devs, ndev, host, &c, &r->opts, &ar, err);
    r->choice = ar.choice;
    snprintf(r->why, sizeof r->why, "%s", ar.why);
    if (!st && !ar.chosen) {
      r->auto_none = true;
      st = cgm_fail(err, CGM_EINPUT, "%s", ar.why);
    }
    if (st) {
      free(devs);
      return st;
    }
    r->autotuned = true;
  }
  const cgm_host_devices m = cgm_host_match(host, devs, ndev, r->opts.threads);
  int d = r->opts.backend == CGM_BACKEND_CPU ? m.cpu : m.gpu;
  char msg[512];
  /* A CPU calibration predicts solves on the threads it ran, alone. */
  const int threads = r->opts.threads > 0 ? r->opts.threads : host->threads;
  if (r->opts.backend == CGM_BACKEND_CPU && (d < 0 || devs[d].threads != threads) && ndev > 0) {
    pipeline_cpu_advice(host, devs, ndev, threads, msg, sizeof msg);
    if (msg[0]) solve_note(o, CGM_NOTE_WARNING, msg + 2); /* no prediction: past "; " */
    d = -1;
  }
  /* Our kernels' prediction from a calibration of another CG. */
  if (d >= 0 && r->opts.backend == CGM_BACKEND_CUDA &&
      cgm_calibration_cg_stale(&devs[d], &r->opts.gpu, msg, sizeof msg))
    solve_note(o, CGM_NOTE_WARNING, msg);
  /* A default solve of a cached matrix decided before with this model and
   * these options: the same verdict, read back. */
  const bool cacheable = !o->autotune && !o->csr && d >= 0;
  if (cacheable) {
    char src[16];
    const double k_known =
        r->opts.reorder != CGM_REORDER_NONE && r->opts.backend != CGM_BACKEND_CUSPARSE
            ? known_iterations(o, *db, A, f, cgm_solve_tol(&r->opts), -1.0, src, sizeof src)
            : 0.0;
    analysis_key(&r->opts, &devs[d], k_known, keep);
    analysis_blob got;
    if (cgm_cache_extra_get(&r->cache, ANALYSIS, ANALYSIS_VERSION, &got, sizeof got) &&
        !memcmp(&got.key, &keep->key, sizeof got.key)) {
      r->predicted = got.predicted;
      r->calibration_id = got.calibration_id;
      r->have_reorder = got.have_reorder;
      r->reorder = got.reorder;
      r->opts.reorder = got.resolved;
      r->analysis_cached = true;
      if (r->have_reorder && keep->key.reorder == CGM_REORDER_AUTO)
        solve_note(o, CGM_NOTE_INFO, r->reorder.why);
      free(devs);
      return CGM_OK;
    }
  }
  /* its plan serves --reorder auto's bound below (the same configuration) */
  cgm_plan plan;
  bool planned = false;
  if (d >= 0) {
    cgm_error e = {0};
    cgm_solve_opts po = r->opts;
    (void)cgm_bcsr_params_check(&po.layout, &e);
    if (pipeline_predict_plan(A, f, &devs[d], &po, &r->predicted, &plan, &planned, &e) == CGM_OK &&
        isfinite(r->predicted))
      r->calibration_id = devs[d].calibration_id;
  }
  if (o->autotune) solve_note(o, CGM_NOTE_INFO, r->why);
  /* --reorder auto: the model weighs RCM's cost against the iterations */
  /* (and --reorder rcm predicts the numbering that runs) */
  if (r->opts.reorder != CGM_REORDER_NONE && d >= 0 && r->opts.backend != CGM_BACKEND_CUSPARSE) {
    cgm_error e = {0};
    const double tol = cgm_solve_tol(&r->opts);
    char src[16];
    /* --auto found K already (the probe costs up to ~0.1 s: once) */
    double k = r->autotuned && r->choice.iterations > 0
                   ? r->choice.iterations
                   : known_iterations(o, *db, A, f, tol, 0, src, sizeof src);
    if (!(k > 0)) k = cgm_iterations_estimate(A->nrows, tol);
    if (pipeline_reorder_decide(A, f, &devs[d], &r->opts, k, planned ? &plan : NULL, &r->reorder,
                                &e) == CGM_OK) {
      r->have_reorder = true;
      if (r->opts.reorder == CGM_REORDER_AUTO) {
        r->opts.reorder = r->reorder.rcm ? CGM_REORDER_RCM : CGM_REORDER_NONE;
        solve_note(o, CGM_NOTE_INFO, r->reorder.why);
      }
      if (r->opts.reorder == CGM_REORDER_RCM && r->calibration_id)
        r->predicted = r->reorder.t_iter_rcm;
    }
  }
  if (cacheable) {
    keep->predicted = r->predicted;
    keep->calibration_id = r->calibration_id;
    keep->have_reorder = r->have_reorder;
    keep->reorder = r->reorder;
    keep->resolved = r->opts.reorder;
    *store = true;
  }
  free(devs);
  return CGM_OK;
}

void solve_keep_analysis(cgm_solve_report *r, const analysis_blob *a) {
  cgm_cache_extra_put(&r->cache, ANALYSIS, ANALYSIS_VERSION, a, sizeof *a);
}
