/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel solve end to end, as named steps: read the matrix, the right-hand side, analyse (the
 * prediction of the configuration run, and --auto's choice of it, from the database when there is
 * one), solve, and record the solve beside its prediction. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/grow.h"
#include "common/timer.h"
#include "solver/backend.h"
#include "pipeline/solve/solve_steps.h"

void cgm_solve_report_free(cgm_solve_report *r) {
  CGM_FREE(r->x, r->residual_history);
  r->x = NULL;
  r->residual_history = NULL;
  r->nhistory = 0;
}

/* The solver's monitor calls, kept in the report's residual_history and
 * passed on to the caller's monitor. */
typedef struct {
  cgm_solve_report *r;
  int cap;
  void (*fn)(void *ctx, int iteration, double relative_residual);
  void *ctx;
} history;

static void keep_history(void *ctx, int iteration, double relres) {
  history *h = ctx;
  const double pair[2] = {iteration, relres};
  /* out of memory: the history stops growing, the solve goes on */
  (void)cgm_push(&h->r->residual_history, &h->r->nhistory, &h->cap, pair, sizeof pair, 64);
  h->fn(h->ctx, iteration, relres);
}

/* What the steps hand each other. */
typedef struct {
  const cgm_run_solve_opts *o;
  cgm_solve_report *r;
  double t0;
  warm_up wu;
  cgm_csr file; /* the matrix read (unless o->csr gives it) */
  const cgm_csr *A;
  double *b, *x;
  bool generated;      /* b = A * ones */
  solve_models models; /* the database and its devices */
  cgm_features f;
  bool features_new;       /* computed here: to keep beside the cache entry */
  pipeline_plan_set plans; /* --auto's, counted here: to keep beside it too */
  cgm_host host;           /* this machine, for the analysis */
  analysis_blob *verdict;  /* large: the devices' models */
  bool verdict_new;
  double start_wait_s; /* the GPU's start waited for within the analysis (--auto, CPU first) */
} solve_run;

/* --auto on a small matrix weighs the CPU before starting a GPU (0.35-0.45 s on an H200 node),
 * whose start would hide a short read; a larger one starts it beside the read. */
enum { CPU_FIRST_FILE_BYTES = 16 << 20, CPU_FIRST_NNZ = 1 << 20 };
static bool gpu_deferred(const cgm_run_solve_opts *o) {
  struct stat st;
  const bool small = o->csr ? o->csr->nnz <= CPU_FIRST_NNZ
                            : stat(o->matrix, &st) == 0 && st.st_size <= CPU_FIRST_FILE_BYTES;
  return small && o->autotune && !o->constraints.backend_given && !o->host &&
         cgm_have_cuda_build() && o->db_path && stat(o->db_path, &st) == 0;
}

/* The matrix, from the cache or parsed (a miss writes the cache entry while
 * the solve goes on: A is not changed), and the options settled for it:
 * checked, and every default filled in (the layout as it will run). */
static cgm_status step_read(solve_run *s, cgm_error *err) {
  const cgm_run_solve_opts *o = s->o;
  cgm_cache_opts co = o->cache;
  co.background = true;
  co.square = true; /* CG's: refused at the size line, before any work per column */
  cgm_status st =
      o->csr ? CGM_OK : cgm_cache_read_csr(&co, o->matrix, &s->file, NULL, &s->r->cache, err);
  if (st) return st;
  s->A = o->csr ? o->csr : &s->file;
  s->r->nrows = s->A->nrows;
  s->r->ncols = s->A->ncols;
  s->r->nnz = s->A->nnz;
  /* the shape first: a cached entry was not read by the square reader, and
   * b = A * ones would work over every column */
  if (s->A->nrows != s->A->ncols || s->A->nrows == 0) {
    st = cgm_check_refuse(s->A->nrows ? CGM_CHECK_SQUARE : CGM_CHECK_EMPTY, s->A->nrows,
                          s->A->ncols, 0, NULL, err);
    cgm_error_prefix(err, "%s: ", o->matrix);
    return st;
  }
  return cgm_solve_opts_settle(&s->r->opts, s->A, err);
}

/* b, x's room, and the backend when none was chosen. */
static cgm_status step_rhs(solve_run *s, cgm_error *err) {
  s->x = calloc((size_t)s->A->nrows + 1, sizeof *s->x);
  s->verdict = calloc(1, sizeof *s->verdict);
  if (!s->x || !s->verdict) return cgm_fail(err, CGM_ERUNTIME, "out of memory");
  cgm_status st = pipeline_right_hand_side(s->o, s->A, &s->b, &s->generated, err);
  if (!st) st = pipeline_initial_guess(s->o, s->A->nrows, s->x, err);
  cgm_host h; /* the GPUs present: the warm-up thread's count (cgm_host_describe_gpus waits) */
  if (!st && s->o->backend_default && !s->wu.cpu_only)
    s->r->opts.backend = solve_default_backend(cgm_host_describe_gpus(&h));
  return st;
}

/* Whether the analysis runs: for the record, --auto, --reorder. The record and --reorder auto need
 * a database (a calibration decides, the solve is kept there): without one nothing is recorded, the
 * numbering stays, and the features (a pass over A) are not worth counting. */
static bool analysis_needed(const solve_run *s) {
  const cgm_run_solve_opts *o = s->o;
  struct stat dbs;
  const bool have_db = o->db_path && stat(o->db_path, &dbs) == 0;
  return o->autotune || (have_db && (o->record || s->r->opts.reorder == CGM_REORDER_AUTO)) ||
         s->r->opts.reorder == CGM_REORDER_RCM;
}

/* The analysis. The prediction, --reorder auto's verdict and the record read the block size that
 * runs (--auto counts its own once it has chosen); a record keeps what is known of the others and
 * counts none: recording never slows the answer. */
static cgm_status step_analyse(solve_run *s, cgm_error *err) {
  const cgm_run_solve_opts *o = s->o;
  cgm_solve_report *r = s->r;
  const int bi = cgm_block_index(r->opts.layout.n);
  if (!o->autotune && pipeline_features(s->A, 1u << bi, &r->cache, &s->f, &r->features_cached,
                                        &s->features_new, err) != CGM_OK)
    return CGM_OK; /* the solve goes on without a prediction */
  cgm_run_solve_opts with_host = *o;
  if (!o->host) with_host.host = &s->host;
  if (s->wu.cpu_only && solve_cpu_first(&with_host, s->A, r, &s->models)) {
    with_host.constraints.backend_given = true;
    with_host.constraints.backend = r->opts.backend = CGM_BACKEND_CPU;
  } else if (s->wu.cpu_only) { /* the GPU's start now, and this machine with it */
    const double t = cgm_now();
    s->wu.cpu_only = false;
    warm_up_start(o, &s->wu);
    warm_up_host(&s->wu, &s->host);
    s->start_wait_s = cgm_now() - t;
  }
  return solve_analyse(&with_host, s->A, &s->f, &s->features_new, r, &s->models, s->verdict,
                       &s->verdict_new, &s->plans, err);
}

/* The solver's run, its monitor calls kept in the report. */
static cgm_status step_solve(solve_run *s, cgm_error *err) {
  const cgm_run_solve_opts *o = s->o;
  cgm_solve_report *r = s->r;
  history h = {r, 0, r->opts.monitor, r->opts.monitor_ctx};
  cgm_solve_opts so = r->opts;
  if (so.monitor) {
    so.monitor = keep_history;
    so.monitor_ctx = &h;
  }
  /* A GPU solve's first CUDA call waits for the context the warm-up thread is making (the runtime
   * serialises the two), so the solve's checks on the host run meanwhile; a CPU solve is timed on
   * cores the thread, and the cache's write, would share. */
  if (so.backend == CGM_BACKEND_CPU) {
    warm_up_end(&s->wu);
    cgm_cache_wait(&r->cache);
  }
  so.matrix_checked = r->check_cached = pipeline_checked(&r->cache);
  cgm_status st = cgm_solve(s->A, s->b, s->x, &so, &r->result, err);
  r->solved = st == CGM_OK || st == CGM_ENOCONV;
  /* cgm_solve knows no file names: its input errors get the file's */
  if (st == CGM_EINPUT && err) { /* b's and x0's errors the vector's file, or none in memory */
    const bool about_rhs = !strncmp(err->msg, "right-hand side", 15),
               about_x0 = !strncmp(err->msg, "initial guess", 13);
    const char *file = about_rhs ? o->rhs : about_x0 ? o->x0_path : o->matrix;
    if (file) cgm_error_prefix(err, "%s: ", file);
  }
  if (r->solved) {
    if (s->generated && s->A->nrows == s->A->ncols)
      r->solution_error = pipeline_solution_error(s->x, s->A->nrows);
    r->tol = cgm_solve_target(&r->opts, cgm_solve_norm2(s->b, s->A->nrows));
    r->maxiter = cgm_solve_maxiter(&r->opts, s->A->nrows);
    r->x = s->x;
    s->x = NULL;
  }
  return st;
}

/* The solve beside its prediction, when a database is open. A failure is a
 * warning: the solve's answer stands. */
static void step_record(solve_run *s) {
  const cgm_run_solve_opts *o = s->o;
  cgm_solve_report *r = s->r;
  /* A refused solve ran nothing: no measurement to record. */
  if (!s->models.db || !o->record || r->result.refused || s->f.x != s->A->nrows) return;
  cgm_cache_wait(&r->cache); /* the entry's content id */
  cgm_error e = {0};
  char msg[1100];
  if (pipeline_record_file(s->models.db, o->matrix, o->csr != NULL, r->cache.content_id, &s->f,
                           &r->opts, &r->result, r->predicted, r->calibration_id, &e)) {
    solve_note(o, CGM_NOTE_WARNING, "the solve was not recorded: %s", e.msg);
  } else if (pipeline_solve_disturbed(s->models.db, &r->opts, &r->result, r->predicted,
                                      r->calibration_id, msg, sizeof msg)) {
    r->disturbed = true;
    solve_note(o, CGM_NOTE_WARNING, "%s; recorded as disturbed", msg);
  }
}

/* What outlives the run is kept beside the cache entry; the rest is freed. */
static void step_finish(solve_run *s) {
  warm_up_end(&s->wu);
  s->r->time_gpu_start_s = s->wu.start_s;
  cgm_cache_wait(&s->r->cache);
  const cgm_solve_report *r = s->r; /* past the checks: solved, not refused (their verdict) */
  pipeline_keep_extras(&r->cache, &s->f, s->features_new,
                       r->solved && !r->result.refused && !r->check_cached);
  if (s->verdict_new) solve_keep_analysis(s->r, s->verdict);
  pipeline_plans_keep(&s->r->cache, &s->plans);
  if (s->models.db != s->o->db) cgm_db_close(s->models.db); /* not the caller's */
  CGM_FREE(s->plans.plans, s->verdict, s->models.devs, s->b, s->x);
  cgm_csr_free(&s->file);
}

cgm_status cgm_run_solve(const cgm_run_solve_opts *o, cgm_solve_report *r, cgm_error *err) {
  memset(r, 0, sizeof *r);
  r->matrix = o->matrix;
  r->opts = o->solve;
  r->predicted = NAN;
  r->solution_error = -1.0;
  if (o->mpi) {
    cgm_run_solve_opts m = *o;
    if (m.backend_default)
      r->opts.backend = m.solve.backend = solve_default_backend(cgm_cuda_device_count());
    m.backend_default = false;
    return pipeline_run_solve_mpi(&m, r, err);
  }
  solve_run s = {.o = o, .r = r, .t0 = cgm_now()};
  s.wu.cpu_only = gpu_deferred(o); /* after t0: the initializers' order is unspecified */
  if (!s.wu.cpu_only) warm_up_start(o, &s.wu);
  cgm_status st = step_read(&s, err);
  if (!st) st = step_rhs(&s, err);
  const bool analyse = !st && analysis_needed(&s);
  /* a matrix in memory is known by its content: what its analysis keeps is found again */
  if (analyse && o->csr) cgm_cache_of_memory(&o->cache, o->csr, &r->cache);
  /* this machine, its GPUs from the warm-up thread (a GPU solve waits for
   * the driver's start whatever it does: not the analysis' time) */
  if (analyse && !o->host) warm_up_host(&s.wu, &s.host);
  const double t1 = cgm_now();
  r->time_read_s = t1 - s.t0;
  if (analyse) st = step_analyse(&s, err);
  r->time_analyse_s = cgm_now() - t1 - s.start_wait_s; /* that wait is time_gpu_start_s's */
  /* auto without a model to decide by: as numbered */
  if (r->opts.reorder == CGM_REORDER_AUTO) r->opts.reorder = CGM_REORDER_NONE;
  if (!st) st = step_solve(&s, err);
  if (r->solved) step_record(&s);
  step_finish(&s);
  r->time_wall_s = cgm_now() - s.t0;
  return st;
}
