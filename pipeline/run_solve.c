/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel solve end to end: the matrix and right-hand side, the prediction
 * of the configuration run (and --auto's choice of it) from the database
 * when there is one, the solve, and its record beside the prediction. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgmodel/pipeline.h"
#include "common/timer.h"
#include "pipeline/steps.h"

void cgm_solve_report_free(cgm_solve_report *r) {
  free(r->x);
  free(r->residual_history);
  r->x = NULL;
  r->residual_history = NULL;
  r->nhistory = 0;
}

/* The solver's monitor calls, kept in the report's residual_history and
 * passed on to the caller's monitor. */
typedef struct {
  cgm_solve_report *r;
  size_t cap;
  void (*fn)(void *ctx, int iteration, double relative_residual);
  void *ctx;
} history;

static void keep_history(void *ctx, int iteration, double relres) {
  history *h = ctx;
  cgm_solve_report *r = h->r;
  if ((size_t)r->nhistory >= h->cap) {
    size_t cap = h->cap ? 2 * h->cap : 64;
    double *p = realloc(r->residual_history, 2 * cap * sizeof *p);
    if (p) { /* out of memory: the history stops growing, the solve goes on */
      r->residual_history = p;
      h->cap = cap;
    }
  }
  if ((size_t)r->nhistory < h->cap) {
    r->residual_history[2 * r->nhistory] = iteration;
    r->residual_history[2 * r->nhistory + 1] = relres;
    r->nhistory++;
  }
  h->fn(h->ctx, iteration, relres);
}

static void note(const cgm_run_solve_opts *o, cgm_note_kind kind, const char *msg) {
  if (o->note) o->note(o->note_ctx, kind, msg);
}

cgm_status pipeline_right_hand_side(const cgm_run_solve_opts *o, const cgm_csr *A, double **b,
                                    bool *generated, cgm_error *err) {
  *b = NULL;
  *generated = !o->rhs && !(o->csr && o->b);
  if (o->csr && o->b) {
    *b = malloc(((size_t)A->nrows + 1) * sizeof **b);
    if (!*b) return cgm_fail(err, CGM_ERUNTIME, "out of memory");
    memcpy(*b, o->b, (size_t)A->nrows * sizeof **b);
    return CGM_OK;
  }
  if (o->rhs && !o->csr) {
    int32_t nb;
    cgm_status st = cgm_mm_read_vector(o->rhs, b, &nb, err);
    if (st) return st;
    if (nb != A->nrows)
      return cgm_fail(err, CGM_EINPUT, "%s has %d entries but %s has %d rows", o->rhs, nb,
                      o->matrix, A->nrows);
    return CGM_OK;
  }
  double *ones = malloc(((size_t)A->ncols + 1) * sizeof *ones);
  *b = malloc(((size_t)A->nrows + 1) * sizeof **b);
  if (!ones || !*b) {
    free(ones);
    return cgm_fail(err, CGM_ERUNTIME, "out of memory");
  }
  for (int32_t i = 0; i < A->ncols; i++) ones[i] = 1.0;
  cgm_csr_spmv(A, ones, *b);
  free(ones);
  return CGM_OK;
}

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

/* What a default solve's analysis decided (the prediction of the
 * configuration that runs and --reorder's verdict), kept beside the cache
 * entry as the extra ANALYSIS: the plan of a 49M-entry matrix and the
 * reordering bound took 0.1-0.2 s of a 1.2 s warm solve. It holds what it
 * was decided from, compared whole on a read: the options that shape the
 * plan and the decision, the device's calibrated model (a recalibration,
 * another database or another machine is a miss), and the K it weighed (a
 * later recorded solve that knows K better is a miss). */
static const char ANALYSIS[] = "analysis";
/* 2: --reorder auto's bound counts the row scatter a numbering may remove
 * (pipeline/reorder.c): a verdict of version 1 may have skipped RCM by it */
enum { ANALYSIS_VERSION = 2 };

typedef struct {
  struct {
    cgm_backend backend;
    cgm_precision precision;
    cgm_bcsr_params layout;
    int gpus;
    cgm_exchange exchange;
    double tol;
    int threads;
    cgm_reorder reorder;
    cgm_precond precond;
    int precond_block;
    bool balance;
    double k_known; /* --iters-hint or the database's K; 0: the probe's */
    cgm_tuner_device dev;
  } key;
  double predicted;
  int64_t calibration_id;
  bool have_reorder;
  cgm_reorder_advice reorder;
  cgm_reorder resolved;
} analysis_blob;

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
static cgm_status analyse(const cgm_run_solve_opts *o, const cgm_csr *A, const cgm_features *f,
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
    note(o, CGM_NOTE_WARNING, why);
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
  const cgm_host_devices m = cgm_host_match(host, devs, ndev);
  const int d = r->opts.backend == CGM_BACKEND_CPU ? m.cpu : m.gpu;
  char msg[512];
  /* Our kernels' prediction from a calibration of another CG. */
  if (d >= 0 && r->opts.backend == CGM_BACKEND_CUDA &&
      cgm_calibration_cg_stale(&devs[d], &r->opts.gpu, msg, sizeof msg))
    note(o, CGM_NOTE_WARNING, msg);
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
        note(o, CGM_NOTE_INFO, r->reorder.why);
      free(devs);
      return CGM_OK;
    }
  }
  /* A calibration is of the default thread count: none predicts --threads. */
  /* its plan serves --reorder auto's bound below (the same configuration) */
  cgm_plan plan;
  bool planned = false;
  if (d >= 0 && r->opts.threads <= 0) {
    cgm_error e = {0};
    cgm_solve_opts po = r->opts;
    (void)cgm_bcsr_params_check(&po.layout, &e);
    if (pipeline_predict_plan(A, f, &devs[d], &po, &r->predicted, &plan, &planned, &e) == CGM_OK &&
        isfinite(r->predicted))
      r->calibration_id = devs[d].calibration_id;
  }
  if (o->autotune) note(o, CGM_NOTE_INFO, r->why);
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
        note(o, CGM_NOTE_INFO, r->reorder.why);
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

/* The features of A are kept beside its cache entry (the extra FEATURES),
 * so that a warm solve does not walk every block size's pattern again
 * (seconds at 49M entries for the record and the prediction); computed
 * ones are stored at the end, once the entry is written. */
static const char FEATURES[] = "features";

/* A cache entry whose matrix passed cgm_solve's checks (a solve of it ran,
 * not refused) carries the extra CHECKED: a warm solve of the same
 * checksummed matrix skips the finite, symmetric and diagonal checks
 * (0.1-0.2 s at 49M entries; cgm_solve_opts.matrix_checked). */
static const char CHECKED[] = "checked";
enum { CHECKED_VERSION = 1 };

static bool check_cached(const cgm_run_solve_opts *o, const cgm_solve_report *r) {
  unsigned char ok = 0;
  return !o->csr && cgm_cache_extra_get(&r->cache, CHECKED, CHECKED_VERSION, &ok, 1) && ok == 1;
}

/* The block sizes whose features f holds (bit i: cgm_block_sizes[i]). */
static unsigned features_blocks(const cgm_features *f) {
  unsigned m = 0;
  for (int b = 0; b < CGM_NBLOCKSIZES; b++)
    if (f->block[b].n == cgm_block_sizes[b]) m |= 1u << b;
  return m;
}

/* The block sizes `mask` of src copied into dst. */
static void features_take(cgm_features *dst, const cgm_features *src, unsigned mask) {
  for (int b = 0; b < CGM_NBLOCKSIZES; b++)
    if (mask & (1u << b)) dst->block[b] = src->block[b];
}

/* A's features of the block sizes `need` asks for (bit i:
 * cgm_block_sizes[i]): those kept beside its cache entry, the missing
 * ones computed and merged with them (*computed: there is something new
 * to keep). */
static cgm_status features_of(const cgm_run_solve_opts *o, const cgm_csr *A, unsigned need,
                              cgm_solve_report *r, cgm_features *f, bool *computed,
                              cgm_error *err) {
  *computed = false;
  cgm_features have;
  unsigned got = 0;
  if (!o->csr &&
      cgm_cache_extra_get(&r->cache, FEATURES, CGM_PLAN_FEATURES_VERSION, &have, sizeof have) &&
      have.x == A->nrows && have.nnz == A->nnz)
    got = features_blocks(&have);
  if (got && !(need & ~got)) {
    *f = have;
    r->features_cached = true;
    return CGM_OK;
  }
  cgm_status st = cgm_plan_features_blocks(A, need & ~got, f, err);
  if (st) return st;
  features_take(f, &have, got);
  *computed = true;
  return CGM_OK;
}

/* The features a record needs beyond the block size that runs, computed
 * on a thread of their own while the GPU sets up and iterates (the host
 * mostly waits then): three block sizes' patterns, 0.2 s of a cold Poisson
 * 192^3 solve on 16 cores, no longer in its way. */
typedef struct {
  pthread_t thread;
  const cgm_csr *A;
  unsigned blocks;
  cgm_features f;
  cgm_status st;
  cgm_error err;
  bool started;
} features_later;

static void *features_later_main(void *arg) {
  features_later *l = arg;
  l->st = cgm_plan_features_blocks(l->A, l->blocks, &l->f, &l->err);
  return NULL;
}

static void features_later_start(features_later *l, const cgm_csr *A, unsigned blocks) {
  memset(l, 0, sizeof *l);
  l->A = A;
  l->blocks = blocks;
  l->started = blocks && pthread_create(&l->thread, NULL, features_later_main, l) == 0;
  if (blocks && !l->started) features_later_main(l); /* no thread: here and now */
}

/* Joins the thread and merges its block sizes into f; CGM_OK also when
 * there was nothing to compute. */
static cgm_status features_later_end(features_later *l, cgm_features *f, cgm_error *err) {
  if (l->started) pthread_join(l->thread, NULL);
  l->started = false;
  const unsigned blocks = l->blocks;
  l->blocks = 0;
  if (!blocks) return CGM_OK;
  if (l->st) {
    if (err) *err = l->err;
    return l->st;
  }
  features_take(f, &l->f, blocks);
  return CGM_OK;
}

/* The CUDA context made on a thread of its own while the matrix is read and
 * analysed (a solve's first CUDA call would make it: 0.1-0.3 s a device).
 * The thread first counts the GPUs, which starts the driver (0.2 s on an
 * H200 node): a solve whose backend was not chosen learns from it whether
 * there is a GPU without waiting for that before the read. */
typedef struct {
  pthread_t thread;
  int gpus;
  bool started;
  pthread_mutex_t mu;
  pthread_cond_t counted;
  int ndev; /* the GPUs present; -1 until counted */
} warm_up;

static void *warm_up_main(void *arg) {
  warm_up *w = arg;
  const int n = cgm_cuda_device_count();
  pthread_mutex_lock(&w->mu);
  w->ndev = n;
  pthread_cond_broadcast(&w->counted);
  pthread_mutex_unlock(&w->mu);
  if (n > 0) cgm_cuda_warm_up(w->gpus);
  return NULL;
}

static void warm_up_start(const cgm_run_solve_opts *o, warm_up *w) {
  w->started = false;
  w->ndev = -1;
  const bool gpu = o->solve.backend != CGM_BACKEND_CPU || o->autotune || o->backend_default;
  if (!gpu || !cgm_have_cuda_build()) return;
  w->gpus = o->solve.gpus > 1 && !o->autotune ? o->solve.gpus : 1;
  if (pthread_mutex_init(&w->mu, NULL)) return;
  if (pthread_cond_init(&w->counted, NULL)) {
    pthread_mutex_destroy(&w->mu);
    return;
  }
  w->started = pthread_create(&w->thread, NULL, warm_up_main, w) == 0;
  if (!w->started) {
    pthread_cond_destroy(&w->counted);
    pthread_mutex_destroy(&w->mu);
  }
}

/* The GPUs present: the thread's count, else counted here. */
static int warm_up_devices(warm_up *w) {
  if (!w->started) return cgm_cuda_device_count();
  pthread_mutex_lock(&w->mu);
  while (w->ndev < 0) pthread_cond_wait(&w->counted, &w->mu);
  const int n = w->ndev;
  pthread_mutex_unlock(&w->mu);
  return n;
}

static void warm_up_end(warm_up *w) {
  if (!w->started) return;
  pthread_join(w->thread, NULL);
  pthread_cond_destroy(&w->counted);
  pthread_mutex_destroy(&w->mu);
  w->started = false;
}

static cgm_backend default_backend(int gpus_present) {
  return gpus_present > 0 ? CGM_BACKEND_CUDA : CGM_BACKEND_CPU;
}

double pipeline_solution_error(const double *x, int32_t n) {
  double e2 = 0.0;
  for (int32_t i = 0; i < n; i++) e2 += (x[i] - 1.0) * (x[i] - 1.0);
  return sqrt(e2 / n);
}

cgm_status cgm_run_solve(const cgm_run_solve_opts *o, cgm_solve_report *r, cgm_error *err) {
  if (o->mpi) {
    cgm_run_solve_opts m = *o;
    if (m.backend_default) m.solve.backend = default_backend(cgm_cuda_device_count());
    m.backend_default = false;
    return pipeline_run_solve_mpi(&m, r, err);
  }
  memset(r, 0, sizeof *r);
  r->matrix = o->matrix;
  r->opts = o->solve;
  r->predicted = NAN;
  r->solution_error = -1.0;
  const double t0 = cgm_now();
  warm_up wu;
  warm_up_start(o, &wu);
  cgm_csr file;
  memset(&file, 0, sizeof file);
  /* a miss writes the cache entry while the solve goes on (A is not changed) */
  cgm_cache_opts co = o->cache;
  co.background = true;
  cgm_status st = o->csr ? CGM_OK : cgm_cache_read_csr(&co, o->matrix, &file, NULL, &r->cache, err);
  if (st) {
    warm_up_end(&wu);
    return st;
  }
  const cgm_csr *A = o->csr ? o->csr : &file;
  r->nrows = A->nrows;
  r->ncols = A->ncols;
  r->nnz = A->nnz;
  cgm_plan_layout_resolve(&r->opts.layout, A, r->opts.gpus); /* reported and recorded as run */
  double *b = NULL, *x = calloc((size_t)A->nrows + 1, sizeof *x);
  bool generated = false;
  cgm_db *db = NULL;
  cgm_features f;
  bool features_computed = false;
  features_later more = {0};
  analysis_blob *verdict = calloc(1, sizeof *verdict); /* large: the device's model */
  bool verdict_new = false;
  if (!x || !verdict)
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory");
  else
    st = pipeline_right_hand_side(o, A, &b, &generated, err);
  if (!st && o->backend_default) r->opts.backend = default_backend(warm_up_devices(&wu));
  const double t1 = cgm_now();
  r->time_read_s = t1 - t0;
  /* The features only when something needs them: the record, or --auto. */
  /* --reorder auto decides by a calibration: without a database to hold
   * one it stays as numbered, and the features (every block size's
   * pattern, ~0.5 s at 1M rows) are not worth computing */
  struct stat dbs;
  const bool have_db = o->db_path && stat(o->db_path, &dbs) == 0;
  if (!st && (o->record || o->autotune || (r->opts.reorder == CGM_REORDER_AUTO && have_db) ||
              r->opts.reorder == CGM_REORDER_RCM)) {
    /* --auto weighs every block size and the record keeps them all; the
     * prediction and --reorder auto's verdict read the block size that
     * runs: a quarter of the work (all four took 0.6 s at Poisson 192^3 on
     * 16 cores, a cold solve's largest part after the parse) */
    const unsigned all = (1u << CGM_NBLOCKSIZES) - 1;
    unsigned need = all;
    const int bi = cgm_block_index(r->opts.layout.n);
    /* a GPU solve's record gets the other block sizes from a thread
     * (features_later); without a database there is no record */
    const bool recording = o->record && have_db;
    const bool later = recording && r->opts.backend != CGM_BACKEND_CPU;
    if (!o->autotune && bi >= 0 && (!recording || later)) need = 1u << bi;
    cgm_status fs = features_of(o, A, need, r, &f, &features_computed, err);
    if (!fs && later && !o->autotune) {
      const unsigned rest = all & ~features_blocks(&f);
      features_later_start(&more, A, rest);
      features_computed |= rest != 0;
    }
    if (!fs)
      st = analyse(o, A, &f, r, &db, verdict, &verdict_new, err);
    else if (o->autotune) {
      st = fs;
      cgm_error_prefix(err, "%s: ", o->matrix);
    }
  }
  r->time_analyse_s = cgm_now() - t1;
  /* auto without a model to decide by: as numbered */
  if (r->opts.reorder == CGM_REORDER_AUTO) r->opts.reorder = CGM_REORDER_NONE;
  if (!st) {
    history h = {r, 0, r->opts.monitor, r->opts.monitor_ctx};
    cgm_solve_opts so = r->opts;
    if (so.monitor) {
      so.monitor = keep_history;
      so.monitor_ctx = &h;
    }
    /* A GPU solve's first CUDA call waits for the context the warm-up
     * thread is making (the runtime serialises the two), so the solve's
     * checks on the host run meanwhile (0.08 s of Poisson 192^3's, the
     * context taking 0.2-0.25 s on an H200 node); a CPU solve is timed on
     * cores the thread, and the cache's write, would share. */
    if (so.backend == CGM_BACKEND_CPU) {
      warm_up_end(&wu);
      cgm_cache_wait(&r->cache);
    }
    so.matrix_checked = r->check_cached = check_cached(o, r);
    st = cgm_solve(A, b, x, &so, &r->result, err);
    r->solved = st == CGM_OK || st == CGM_ENOCONV;
    /* cgm_solve knows no file names: its input errors get the file's */
    if (st == CGM_EINPUT && err) {
      bool about_rhs = o->rhs && !strncmp(err->msg, "right-hand side", 15);
      cgm_error_prefix(err, "%s: ", about_rhs ? o->rhs : o->matrix);
    }
  }
  if (r->solved) {
    if (generated && A->nrows == A->ncols) r->solution_error = pipeline_solution_error(x, A->nrows);
    r->tol = cgm_solve_tol(&r->opts);
    r->maxiter = cgm_solve_maxiter(&r->opts, A->nrows);
    cgm_error e = {0};
    char msg[1100];
    /* The thread shared the cores with the solve's setup (a layout built
     * on the host, the uploads' staging): the record keeps no setup time,
     * which the tuner's setup line (cgm_setup_fit) would learn from. */
    cgm_solve_result rec = r->result;
    if (more.blocks) rec.time_setup_s = 0.0;
    if (features_later_end(&more, &f, &e)) {
      snprintf(msg, sizeof msg, "the solve was not recorded: its features: %s", e.msg);
      note(o, CGM_NOTE_WARNING, msg);
      features_computed = false;
    }
    /* A refused solve ran nothing: no measurement to record. */
    else if (db && o->record && !r->result.refused &&
             pipeline_record_file(db, o->matrix, &f, &r->opts, &rec, r->predicted,
                                  r->calibration_id, &e)) {
      snprintf(msg, sizeof msg, "the solve was not recorded: %s", e.msg);
      note(o, CGM_NOTE_WARNING, msg);
    }
    r->x = x;
    x = NULL;
  }
  warm_up_end(&wu);
  if (features_later_end(&more, &f, NULL)) features_computed = false; /* not solved */
  cgm_cache_wait(&r->cache);
  if (features_computed && !o->csr)
    cgm_cache_extra_put(&r->cache, FEATURES, CGM_PLAN_FEATURES_VERSION, &f, sizeof f);
  if (verdict_new)
    cgm_cache_extra_put(&r->cache, ANALYSIS, ANALYSIS_VERSION, verdict, sizeof *verdict);
  free(verdict);
  /* past the checks: solved, not refused (a refusal is the checks' verdict) */
  if (r->solved && !r->result.refused && !r->check_cached && !o->csr) {
    const unsigned char ok = 1;
    cgm_cache_extra_put(&r->cache, CHECKED, CHECKED_VERSION, &ok, 1);
  }
  if (db) cgm_db_close(db);
  free(b);
  free(x);
  cgm_csr_free(&file);
  r->time_wall_s = cgm_now() - t0;
  return st;
}
