/* cgmodel solve end to end: the matrix and right-hand side, the prediction
 * of the configuration run (and --auto's choice of it) from the database
 * when there is one, the solve, and its record beside the prediction. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgmodel/pipeline.h"
#include "common/timer.h"
#include "pipeline/steps.h"

void cgm_solve_report_free(cgm_solve_report *r) {
  free(r->x);
  r->x = NULL;
}

static void note(const cgm_run_solve_opts *o, cgm_note_kind kind, const char *msg) {
  if (o->note) o->note(o->note_ctx, kind, msg);
}

cgm_status pipeline_right_hand_side(const cgm_run_solve_opts *o, const cgm_csr *A, double **b,
                                    bool *generated, cgm_error *err) {
  *b = NULL;
  *generated = !o->rhs;
  if (o->rhs) {
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

/* The database, the calibrations and this machine's devices: --auto's
 * choice (applied to r->opts) and the prediction of the configuration that
 * will run. Solves are recorded once a database exists (calibrate creates
 * it); a solve never creates one, and without --auto one that will not
 * open is said and done without. */
static cgm_status analyse(const cgm_run_solve_opts *o, const cgm_csr *A, const cgm_features *f,
                          cgm_solve_report *r, cgm_db **db, cgm_error *err) {
  const bool need = o->autotune;
  /* Without --auto a database that fails is not the solve's failure. */
  cgm_error mine = {0};
  cgm_error *db_err = need ? err : &mine;
  cgm_status st = CGM_OK;
  struct stat sb;
  if (need && !o->db_path) return cgm_fail(err, CGM_EINPUT, "autotune needs a database");
  if (o->db_path && (need || stat(o->db_path, &sb) == 0) &&
      (st = cgm_open_database(o->db_path, false, db, db_err))) {
    if (need) return st;
    note(o, CGM_NOTE_ERROR, db_err->msg);
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
    st = cgm_autotune(A, f, devs, ndev, host, &o->constraints, &r->opts, &ar, err);
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
  /* A calibration is of the default thread count: none predicts --threads. */
  if (d >= 0 && r->opts.threads <= 0) {
    cgm_error e = {0};
    cgm_solve_opts po = r->opts;
    (void)cgm_bcsr_params_check(&po.layout, &e);
    if (cgm_predict_config(A, f, &devs[d], &po, &r->predicted, &e) == CGM_OK &&
        isfinite(r->predicted))
      r->calibration_id = devs[d].calibration_id;
  }
  if (o->autotune) note(o, CGM_NOTE_INFO, r->why);
  free(devs);
  return CGM_OK;
}

double pipeline_solution_error(const double *x, int32_t n) {
  double e2 = 0.0;
  for (int32_t i = 0; i < n; i++) e2 += (x[i] - 1.0) * (x[i] - 1.0);
  return sqrt(e2 / n);
}

cgm_status cgm_run_solve(const cgm_run_solve_opts *o, cgm_solve_report *r, cgm_error *err) {
  if (o->mpi) return pipeline_run_solve_mpi(o, r, err);
  memset(r, 0, sizeof *r);
  r->matrix = o->matrix;
  r->opts = o->solve;
  r->predicted = NAN;
  r->solution_error = -1.0;
  const double t0 = cgm_now();
  cgm_csr A;
  cgm_status st = cgm_mm_read_csr(o->matrix, &A, NULL, err);
  if (st) return st;
  r->nrows = A.nrows;
  r->ncols = A.ncols;
  r->nnz = A.nnz;
  cgm_plan_layout_resolve(&r->opts.layout, &A, r->opts.gpus); /* reported and recorded as run */
  double *b = NULL, *x = calloc((size_t)A.nrows + 1, sizeof *x);
  bool generated = false;
  cgm_db *db = NULL;
  cgm_features f;
  if (!x)
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory");
  else
    st = pipeline_right_hand_side(o, &A, &b, &generated, err);
  const double t1 = cgm_now();
  r->time_read_s = t1 - t0;
  /* The features only when something needs them: the record, or --auto. */
  if (!st && (o->record || o->autotune)) {
    cgm_status fs = cgm_plan_features(&A, &f, err);
    if (!fs)
      st = analyse(o, &A, &f, r, &db, err);
    else if (o->autotune)
      st = fs;
  }
  r->time_analyse_s = cgm_now() - t1;
  if (!st) {
    st = cgm_solve(&A, b, x, &r->opts, &r->result, err);
    r->solved = st == CGM_OK || st == CGM_ENOCONV;
  }
  if (r->solved) {
    if (generated && A.nrows == A.ncols) r->solution_error = pipeline_solution_error(x, A.nrows);
    r->tol = cgm_solve_tol(&r->opts);
    r->maxiter = cgm_solve_maxiter(&r->opts, A.nrows);
    cgm_error e = {0};
    char msg[1100];
    if (db && o->record &&
        pipeline_record_file(db, o->matrix, &f, &r->opts, &r->result, r->predicted,
                             r->calibration_id, &e)) {
      snprintf(msg, sizeof msg, "the solve was not recorded: %s", e.msg);
      note(o, CGM_NOTE_WARNING, msg);
    }
    r->x = x;
    x = NULL;
  }
  if (db) cgm_db_close(db);
  free(b);
  free(x);
  cgm_csr_free(&A);
  return st;
}
