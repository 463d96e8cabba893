/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A solve's analysis: the database, the calibrations and this machine's devices, --auto's choice,
 * the prediction of the configuration that runs and --reorder auto's verdict, kept beside the
 * matrix's cache entry (analysis_blob in solve_steps.h) with --auto's plans, so that a warm solve
 * reads its verdict back; a cold --auto first weighs its cost against the most it could save. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgmodel/predict.h"
#include "pipeline/solve/solve_steps.h"

static const char ANALYSIS[] = "analysis";
/* The verdicts kept beside an entry, the newest first: one matrix run in several configurations
 * (double and mixed, --auto beside them) finds each again, not the last one's alone. */
enum { ANALYSIS_KEPT = 8 };
/* 3: --auto's verdicts are kept too (the constraints in the key, the configuration chosen beside
 * the prediction); 5, 7: the mixed ratio, the storage in the key; 8: the walk past one wave; 9, 10:
 * where the ratio came from, mixed's setup priced as double's */
enum { ANALYSIS_VERSION = 10 };

/* What the analysis works from and on. */
typedef struct {
  const cgm_run_solve_opts *o;
  const cgm_csr *A;
  cgm_solve_report *r;
  cgm_features *f;    /* the features counted so far (grown by features()) */
  bool *features_new; /* some were counted here */
  solve_models m;     /* as loaded (open_models) */
  cgm_host here;
  const cgm_host *host;
  pipeline_plan_set *plans; /* --auto's */
} analysis;

/* K, the iterations a solve is expected to take (pipeline_iterations:
 * budget < 0 runs no probe); src says where it came from; *mx (NULL: not
 * asked) mixed's K over double's on this matrix, at its most hopeful where
 * a Jacobi solve records what it runs (pipeline_k_query.explore). */
static double known_iterations(const analysis *a, double tol, double budget, char *src, size_t n,
                               pipeline_ratio *mx) {
  const cgm_run_solve_opts *o = a->o;
  const bool explore = mx && o->record && !o->db_readonly && a->m.db &&
                       a->r->opts.precond == CGM_PRECOND_JACOBI; /* what the records count */
  const pipeline_k_query q = {
      a->m.db, a->A, o->csr ? NULL : o->matrix, &a->r->cache, tol, o->iters_hint, budget, explore};
  return pipeline_iterations(&q, src, n, mx);
}

/* The features of block size n, counted when not yet there. */
static cgm_status features(analysis *a, int n, cgm_error *err) {
  const int bi = cgm_block_index(n);
  if (bi < 0 || a->f->block[bi].n == n) return CGM_OK;
  cgm_features more;
  bool computed = false;
  cgm_status st = pipeline_features(a->A, 1u << bi, &a->r->cache, &more, &a->r->features_cached,
                                    &computed, err);
  if (st) return st;
  if (a->f->x != a->A->nrows) /* the first block size counted */
    *a->f = more;
  else
    a->f->block[bi] = more.block[bi];
  *a->features_new |= computed;
  return CGM_OK;
}

/* The key of a verdict: what it was decided from (analysis_blob.key). */
static void analysis_key(const analysis *a, double k_known, pipeline_ratio ratio,
                         analysis_blob *b) {
  const cgm_solve_opts *so = &a->r->opts;
  memset(b, 0, sizeof *b); /* the padding too: the key is compared as bytes */
  b->key.autotune = a->o->autotune;
  if (a->o->autotune) memcpy(&b->key.constraints, &a->o->constraints, sizeof b->key.constraints);
  b->key.backend = so->backend;
  b->key.precision = so->precision;
  b->key.layout = so->layout;
  b->key.gpus = so->gpus;
  b->key.exchange = so->exchange;
  b->key.tol = so->tol;
  b->key.atol = so->atol;
  b->key.threads = so->threads > 0 ? so->threads : a->host->threads; /* the CPU matched by it */
  b->key.reorder = so->reorder;
  b->key.precond = so->precond;
  b->key.precond_block = so->precond_block;
  b->key.storage = so->storage;
  b->key.balance = so->gpu.balance;
  b->key.k_known = k_known;
  b->key.mixed_ratio = ratio.ratio;
  b->key.mixed_source = (int)ratio.source;
  const cgm_host_devices m = cgm_host_match(a->host, a->m.devs, a->m.ndev, so->threads);
  const int run = so->backend == CGM_BACKEND_CPU ? m.cpu : m.gpu;
  const int at[2] = {a->o->autotune ? m.gpu : run, a->o->autotune ? m.cpu : -1};
  for (int i = 0; i < 2; i++)
    if (at[i] >= 0) {
      b->key.calibration[i] = a->m.devs[at[i]].calibration_id;
      b->key.fingerprint[i] = a->m.devs[at[i]].fingerprint;
    }
}

/* The verdicts kept beside r's entry: *n of them (0: none, or not whole ones), malloc'ed (NULL
 * where none was read; the caller frees it even where *n is 0). */
static analysis_blob *kept_verdicts(const cgm_solve_report *r, int *n) {
  size_t bytes = 0;
  analysis_blob *v = cgm_cache_extra_load(&r->cache, ANALYSIS, ANALYSIS_VERSION, &bytes);
  *n = v && bytes % sizeof *v == 0 ? (int)(bytes / sizeof *v) : 0;
  return v;
}

/* cgm_load_devices_kind, or a copy of what the kept database's last solve loaded (most of a warm
 * recorded solve's analysis): a solve writes no calibration and, without its history, reads nothing
 * a solve writes, so only another connection's commit (the data version) can change it. */
static cgm_status load_devices(const cgm_run_solve_opts *o, cgm_db *db, int kind,
                               cgm_tuner_device **devs, int *n, cgm_error *err) {
  cgm_devices_kept *k = db == o->db && (kind & CGM_NO_HISTORY) ? o->kept_devs : NULL;
  const int64_t v = k ? cgm_db_data_version(db) : -1;
  size_t bytes = k ? sizeof **devs * (size_t)k->ndev : 0;
  if (v >= 0 && k->kind == kind && k->version == v) {
    *devs = bytes ? malloc(bytes) : NULL; /* none kept: none, not the caller's freed pointer */
    if (bytes && *devs) memcpy(*devs, k->devs, bytes);
    *n = k->ndev;
    if (!bytes || *devs) return CGM_OK;
  }
  const cgm_status st = cgm_load_devices_kind(db, NULL, kind, devs, n, err);
  if (st || v < 0) return st;
  free(k->devs);
  bytes = sizeof **devs * (size_t)*n;
  *k = (cgm_devices_kept){bytes ? malloc(bytes) : NULL, *n, kind, v};
  if (bytes && k->devs) memcpy(k->devs, *devs, bytes);
  if (bytes && !k->devs) k->kind = 0; /* matches no load */
  return CGM_OK;
}

/* The database (opened when it exists; always with --auto) and the
 * calibrated devices, loaded once a solve (m); whole: with their samples and history whatever is
 * kept. Without --auto one that will not open is said and done without: the solve is not the
 * database's. */
static cgm_status open_models(analysis *a, solve_models *m, bool whole, cgm_error *err) {
  const cgm_run_solve_opts *o = a->o;
  const bool need = o->autotune;
  cgm_error mine = {0};
  cgm_error *db_err = need ? err : &mine;
  cgm_status st = CGM_OK;
  struct stat sb;
  if (need && !o->db_path) return cgm_fail(err, CGM_EINPUT, "auto: it needs a database");
  if (!m->loaded && !m->db) m->db = o->db;
  if (!m->loaded && !m->db && o->db_path && (need || stat(o->db_path, &sb) == 0) &&
      (st = cgm_open_database(o->db_path, CGM_DB_UNCHECKED | (o->db_readonly ? CGM_DB_READONLY : 0),
                              &m->db, db_err))) {
    if (need) return st;
    solve_note(o, CGM_NOTE_WARNING, "the solve will not be recorded: %s", db_err->msg);
  }
  /* history (--auto's choice alone) and samples: not where a verdict kept may serve (whole_models
   * on a miss: half a warm --auto's time); a new content (values changed at each step) at once */
  int kept = 0; /* read only where the models are to be loaded */
  if (!whole && !m->loaded && m->db) free(kept_verdicts(a->r, &kept));
  const bool light = kept > 0;
  const int kind =
      CGM_FIT_REL | (need && !light ? 0 : CGM_NO_HISTORY) | (light ? CGM_NO_SAMPLES : 0);
  if (!m->loaded && m->db && (st = load_devices(o, m->db, kind, &m->devs, &m->ndev, db_err))) {
    if (need) return st;
    m->ndev = 0;
  }
  m->light |= light;
  m->loaded = true;
  a->m = *m;
  if (!o->host) cgm_host_describe(&a->here);
  a->host = o->host ? o->host : &a->here;
  return CGM_OK;
}

/* No verdict kept for this key: the models whole (open_models read no samples without --auto).
 * Where they cannot be read (the samples' pages damaged) none, said, and no verdict kept: false. */
static bool whole_models(analysis *a, solve_models *m) {
  cgm_error e = {0};
  free(m->devs);
  const int kind = CGM_FIT_REL | (a->o->autotune ? 0 : CGM_NO_HISTORY);
  const bool ok = !load_devices(a->o, m->db, kind, &m->devs, &m->ndev, &e);
  if (!ok) {
    m->devs = NULL, m->ndev = 0;
    solve_note(a->o, CGM_NOTE_WARNING, "no prediction: %s", e.msg);
  }
  m->light = false;
  a->m = *m;
  return ok;
}

/* The calibrated device of the configuration that runs; -1: none, also a
 * CPU calibrated on other threads than the solve runs (with `say`, a
 * warning names the calibration and the threads it serves). */
static int run_device(const analysis *a, bool say) {
  const cgm_solve_opts *so = &a->r->opts;
  const cgm_host_devices m = cgm_host_match(a->host, a->m.devs, a->m.ndev, so->threads);
  const int threads = so->threads > 0 ? so->threads : a->host->threads;
  if (so->backend != CGM_BACKEND_CPU || (m.cpu >= 0 && a->m.devs[m.cpu].threads == threads))
    return so->backend == CGM_BACKEND_CPU ? m.cpu : m.gpu;
  char msg[200];
  pipeline_cpu_advice(a->host, a->m.devs, a->m.ndev, threads, msg, sizeof msg);
  if (say && msg[0])
    solve_note(a->o, CGM_NOTE_WARNING, "%s", msg + 2); /* no prediction: past "; " */
  return -1;
}

/* A verdict kept beside the cache entry with this key: applied. */
static bool read_back(analysis *a, const analysis_blob *key) {
  analysis_blob got;
  cgm_solve_report *r = a->r;
  int n = 0, i = 0;
  analysis_blob *kept = kept_verdicts(r, &n);
  while (i < n && memcmp(&kept[i].key, &key->key, sizeof key->key)) i++;
  if (i < n) got = kept[i];
  free(kept);
  if (i >= n) return false;
  r->predicted = got.predicted;
  r->calibration_id = got.calibration_id;
  r->have_reorder = got.have_reorder;
  r->reorder = got.reorder;
  r->analysis_cached = true;
  if (a->o->autotune) {
    r->opts = got.chosen;
    r->choice = got.choice;
    r->autotuned = got.autotuned;
    r->auto_declined = got.declined;
    r->auto_analysis_s = got.analysis_s;
    r->auto_bound_s = got.bound_s;
    snprintf(r->why, sizeof r->why, "%s", got.why);
    snprintf(r->k_source, sizeof r->k_source, "%s", got.k_source);
    solve_note(a->o, CGM_NOTE_INFO, "%s", r->why);
  }
  r->opts.reorder = got.resolved;
  if (r->have_reorder && key->key.reorder == CGM_REORDER_AUTO)
    solve_note(a->o, CGM_NOTE_INFO, "%s", r->reorder.why);
  return true;
}

/* The block-Jacobi block --auto keeps: the tuner picks the block size N, and a block that followed
 * N would change the preconditioner, hence the iterations, with it; a block fixed apart from N (the
 * matrix's point block, or precond_block) keeps them the same at every N, so the tuner weighs
 * set-up and time per iteration as for Jacobi (docs/precond.md). */
static cgm_status fix_precond_block(analysis *a, cgm_error *err) {
  cgm_solve_opts *so = &a->r->opts;
  if (so->precond == CGM_PRECOND_JACOBI) return CGM_OK;
  const int b = cgm_precond_block_fixed(a->A, so);
  if (b <= 1)
    return cgm_fail(err, CGM_EINPUT,
                    "auto: it picks the block size, and this matrix has no point block (dense "
                    "aligned blocks of its unknowns) to fix block-Jacobi's block apart from it: "
                    "give precond_block=B, or drop auto");
  so->precond_block = b;
  return CGM_OK;
}

/* Whether counting the tuner's plans cannot pay for itself (the default, or the size plan's choice
 * c, runs, and why says so; pipeline_auto_worth): c given, on one GPU with Jacobi, where the plans
 * add the block sizes N > 1 alone. */
static bool declined(analysis *a, double k, const cgm_candidate *c) {
  cgm_solve_report *r = a->r;
  const double cost = CGM_AUTO_S_PER_NNZ * (double)a->A->nnz,
               kk = k > 0 ? k : cgm_iterations_estimate(a->A->nrows, r->opts.tol);
  if (a->plans->cached || (c && (a->host->gpus > 1 || r->opts.precond != CGM_PRECOND_JACOBI)) ||
      pipeline_auto_worth(a->m.devs, a->m.ndev, a->host, &r->opts, a->A, kk, cost, c,
                          &r->auto_bound_s))
    return false;
  r->auto_declined = true, r->auto_analysis_s = cost;
  return true;
}

/* Where counting the plans cannot pay: one plan from the matrix's size alone (cgm_plan_uniform at N
 * = 1, no pass over it), on which the tuner still weighs the devices and the precisions. */
static cgm_status size_plan(const cgm_csr *A, cgm_tuner_plan *tp, cgm_error *err) {
  memset(tp, 0, sizeof *tp);
  cgm_plan_opts po = cgm_plan_opts_default();
  po.backend = CGM_BACKEND_CUDA;
  /* what its values allow from a sample of them (a whole pass is what declining saves): a stencil
   * in double at its dictionary's 4 bytes a nonzero, not the 12 that made mixed look cheaper */
  po.value_class = cgm_values_class_sampled(A->val, A->nnz, A->ncols);
  return cgm_plan_uniform(A->nrows, (double)A->nnz, &po, &tp->plan, err);
}

/* --auto: the tuner's choice, applied to r->opts and settled. */
static cgm_status choose(analysis *a, double k, cgm_error *err) {
  const cgm_run_solve_opts *o = a->o;
  cgm_solve_report *r = a->r;
  const unsigned ex = (1u << CGM_EXCHANGE_HALO) | (1u << CGM_EXCHANGE_P2P);
  const int maxg = a->host->gpus > 1 ? a->host->gpus : 1;
  cgm_status st = pipeline_plans(a->A, &r->cache, maxg, ex, false, a->plans, err);
  const bool kept = !st && a->plans->cached;
  bool cheap = !st && declined(a, k, NULL);
  cgm_tuner_plan by_size;
  cgm_autotune_opts c = o->constraints;
  c.tol = r->opts.tol, c.iterations = k, c.block_jacobi = r->opts.precond != CGM_PRECOND_JACOBI;
  cgm_autotune_result ar = {0};
  cgm_solve_opts chosen = r->opts;
  /* what the pricing reads of the matrix: the plans hold the rest */
  const cgm_features sizes = {.x = a->A->nrows, .nnz = a->A->nnz};
  /* the size plan's choice first (the plans not kept): what counting them could improve on */
  for (int pass = kept; pass < 2 && !st; pass++) {
    st = pass ? (kept ? CGM_OK : pipeline_plans(a->A, &r->cache, maxg, ex, true, a->plans, err))
              : size_plan(a->A, &by_size, err);
    c.plans = pass ? a->plans->plans : &by_size, c.nplans = pass ? a->plans->count : 1;
    chosen = r->opts;
    if (!st) st = cgm_autotune(a->A, &sizes, a->m.devs, a->m.ndev, a->host, &c, &chosen, &ar, err);
    if (!st && !pass && (cheap = cheap || (ar.chosen && declined(a, k, &ar.choice)))) break;
  }
  if (st) return st;
  r->opts = chosen;
  r->choice = ar.choice;
  char first[128] = "";
  if (r->cpu_first)
    snprintf(first, sizeof first,
             "on the CPU before any GPU's start (predicted %.3g s, a GPU's start %.3g s): ",
             r->cpu_first_s, r->gpu_start_s);
  if (cheap)
    snprintf(r->why, sizeof r->why,
             "%sby the matrix's size alone (counting every configuration would cost about %.3g s, "
             "more than the %.3g s the best could save at most): %.250s",
             first, r->auto_analysis_s, r->auto_bound_s, ar.why);
  else
    snprintf(r->why, sizeof r->why, "%s%s", first, ar.why);
  if (!ar.chosen) {
    r->auto_none = true;
    return cgm_fail(err, CGM_EINPUT, "%s", ar.why);
  }
  r->autotuned = true;
  /* the tuner's configuration, settled as the given one was */
  return cgm_solve_opts_settle(&r->opts, a->A, err);
}

/* The plan of the configuration that runs among the tuner's (NULL: not there). */
static const cgm_plan *plan_of(const analysis *a) {
  const cgm_solve_opts *so = &a->r->opts;
  for (int i = 0; i < a->plans->count && so->backend != CGM_BACKEND_CUSPARSE; i++) {
    const cgm_tuner_plan *t = &a->plans->plans[i];
    const cgm_plan *p = so->backend == CGM_BACKEND_CPU && t->cpu_split ? &t->cpu_plan : &t->plan;
    if (p->o.layout.n == so->layout.n && p->o.layout.bx == so->layout.bx && p->nseg == so->gpus &&
        (so->gpus == 1 || p->o.exchange == so->exchange))
      return p;
  }
  return NULL;
}

/* The prediction of the configuration that runs on device d, and
 * --reorder auto's verdict over K iterations. */
static cgm_status predict_run(analysis *a, int d, double k, cgm_error *err) {
  cgm_solve_report *r = a->r;
  cgm_plan plan;
  bool planned = false;
  const cgm_plan *kept = plan_of(a);
  cgm_status st = features(a, r->opts.layout.n, err);
  if (st) return st;
  if (kept) {
    plan = *kept;
    planned = true;
    plan.o.storage = r->opts.storage;
    cgm_plan_set_precision(&plan, r->opts.precision);
    r->predicted =
        cgm_refined_time(&a->m.devs[d].model[cgm_precision_iter(r->opts.precision)], &plan);
  } else {
    cgm_error e = {0};
    (void)pipeline_predict_plan(a->A, a->f, &a->m.devs[d], &r->opts, &r->predicted, &plan, &planned,
                                &e);
  }
  if (isfinite(r->predicted)) r->calibration_id = a->m.devs[d].calibration_id;
  /* --reorder auto: the model weighs RCM's cost against the iterations
   * (and --reorder rcm predicts the numbering that runs) */
  if (r->opts.reorder == CGM_REORDER_NONE || r->opts.backend == CGM_BACKEND_CUSPARSE) return CGM_OK;
  cgm_error e = {0};
  if (!(k > 0)) k = cgm_iterations_estimate(a->A->nrows, r->opts.tol);
  if (cgm_reorder_decide(a->A, a->f, &a->m.devs[d], &r->opts, k, planned ? &plan : NULL,
                         &r->reorder, &e) == CGM_OK) {
    r->have_reorder = true;
    if (r->opts.reorder == CGM_REORDER_AUTO) {
      r->opts.reorder = r->reorder.rcm ? CGM_REORDER_RCM : CGM_REORDER_NONE;
      solve_note(a->o, CGM_NOTE_INFO, "%s", r->reorder.why);
    }
    if (r->opts.reorder == CGM_REORDER_RCM && r->calibration_id)
      r->predicted = r->reorder.t_iter_rcm;
  }
  return CGM_OK;
}

/* The verdict beside the key, to keep. */
static void verdict(const analysis *a, analysis_blob *b) {
  const cgm_solve_report *r = a->r;
  b->predicted = r->predicted;
  b->calibration_id = r->calibration_id;
  b->have_reorder = r->have_reorder;
  b->reorder = r->reorder;
  b->resolved = r->opts.reorder;
  b->chosen = r->opts;
  b->choice = r->choice;
  b->autotuned = r->autotuned;
  b->declined = r->auto_declined;
  b->analysis_s = r->auto_analysis_s;
  b->bound_s = r->auto_bound_s;
  snprintf(b->why, sizeof b->why, "%s", r->why);
  snprintf(b->k_source, sizeof b->k_source, "%s", r->k_source);
}

bool solve_cpu_first(const cgm_run_solve_opts *o, const cgm_csr *A, cgm_solve_report *r,
                     solve_models *m) {
  analysis a = {.o = o, .A = A, .r = r};
  cgm_error e = {0};
  char src[16];
  r->cpu_first = !open_models(&a, m, true, &e); /* the GPU's start: the history's */
  double k = r->cpu_first ? known_iterations(&a, r->opts.tol, -1.0, src, sizeof src, NULL) : 0;
  r->cpu_first =
      r->cpu_first && pipeline_cpu_first(a.m.devs, a.m.ndev, a.host, r->opts.threads, A,
                                         k > 0 ? k : A->nrows, &r->cpu_first_s, &r->gpu_start_s);
  return r->cpu_first;
}

/* K, which --auto decides by (the probe may run to the solution) and --reorder auto weighs RCM
 * against; *ratio: mixed's K over double's where --auto weighs mixed and it is known (0: not). */
static double weigh_k(analysis *a, pipeline_ratio *ratio) {
  const cgm_run_solve_opts *o = a->o;
  cgm_solve_report *r = a->r;
  *ratio = (pipeline_ratio){0};
  if (!o->autotune &&
      (r->opts.reorder == CGM_REORDER_NONE || r->opts.backend == CGM_BACKEND_CUSPARSE))
    return 0;
  /* --auto's probe where it can pay: its two runs against what the choice could save at the size's
   * K (a small matrix's runs are whole solves). Without --auto none (a run kept still serves):
   * every new content paid it for --reorder auto's K, which the size's estimate gives about as
   * well. Nor on models without their samples (a verdict kept: its key's K is what is kept). */
  double budget = o->autotune && !a->m.light ? PIPELINE_PROBE_BUDGET : -1.0, bound;
  const double ke = cgm_iterations_estimate(a->A->nrows, r->opts.tol);
  if (budget > 0 &&
      !pipeline_auto_worth(a->m.devs, a->m.ndev, a->host, &r->opts, a->A, ke,
                           2.0 * CGM_PROBE_S_PER_NNZ * fmin(budget, (double)a->A->nnz * ke), NULL,
                           &bound))
    budget = -1.0; /* a run kept beside the entry still serves */
  const bool mixed = o->autotune && !o->constraints.precision_given;
  const double k = known_iterations(a, r->opts.tol, budget, r->k_source, sizeof r->k_source,
                                    mixed ? ratio : NULL);
  pipeline_ratio_give(*ratio, a->m.devs, a->m.ndev);
  return k;
}

cgm_status solve_analyse(const cgm_run_solve_opts *o, const cgm_csr *A, cgm_features *f,
                         bool *f_new, cgm_solve_report *r, solve_models *m, analysis_blob *keep,
                         bool *store, pipeline_plan_set *plans, cgm_error *err) {
  *store = false;
  analysis a = {.o = o, .A = A, .r = r, .f = f, .features_new = f_new, .plans = plans};
  cgm_status st = o->autotune ? fix_precond_block(&a, err) : CGM_OK;
  if (!st) st = open_models(&a, m, false, err);
  pipeline_ratio ratio = {0};
  double k = st ? 0 : weigh_k(&a, &ratio);
  int d = st ? -1 : run_device(&a, false);
  /* a verdict decided before with this model and these options, read back */
  if (!st && (d >= 0 || o->autotune)) {
    analysis_key(&a, k, ratio, keep);
    if (read_back(&a, keep)) return CGM_OK;
    *store = true;
  }
  if (!st && *store && m->light) {
    *store = whole_models(&a, m);
    if (o->autotune) { /* the probe where it pays, by the whole models: the key of what it finds */
      k = weigh_k(&a, &ratio);
      analysis_key(&a, k, ratio, keep);
    }
  }
  if (!st && o->autotune) st = choose(&a, k, err);
  if (!st && (d = run_device(&a, true)) >= 0) {
    char msg[512]; /* our kernels' prediction from a calibration of another CG */
    if (r->opts.backend == CGM_BACKEND_CUDA &&
        cgm_calibration_cg_stale(&a.m.devs[d], &r->opts.gpu, msg, sizeof msg))
      solve_note(o, CGM_NOTE_WARNING, "%s", msg);
    if (r->autotuned && r->choice.iterations > 0 && r->opts.precision != CGM_PREC_MIXED)
      k = r->choice.iterations;
    st = predict_run(&a, d, k, err);
  }
  if (!st && o->autotune) solve_note(o, CGM_NOTE_INFO, "%s", r->why);
  /* the record's features: the block size that runs (the prediction counted
   * them already where there is a calibration) */
  if (!st && o->record && a.m.db && f->x != A->nrows) (void)features(&a, r->opts.layout.n, NULL);
  if (!st && *store) verdict(&a, keep);
  *store = !st && *store;
  return st;
}

void solve_keep_analysis(cgm_solve_report *r, const analysis_blob *a) {
  int n = 0;
  analysis_blob *kept = kept_verdicts(r, &n);
  analysis_blob *v = malloc(ANALYSIS_KEPT * sizeof *v);
  if (v) { /* this one first, then the others of other keys, the oldest dropped */
    int k = 0;
    v[k++] = *a;
    for (int i = 0; i < n && k < ANALYSIS_KEPT; i++)
      if (memcmp(&kept[i].key, &a->key, sizeof a->key)) v[k++] = kept[i];
    cgm_cache_extra_put(&r->cache, ANALYSIS, ANALYSIS_VERSION, v, (size_t)k * sizeof *v);
  }
  free(v);
  free(kept);
}
