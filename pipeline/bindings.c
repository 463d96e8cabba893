/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The steps for a language binding (python/cgmodel over ctypes): the matrix and the vectors travel
 * by pointer, the options as a JSON object and the result as the JSON the command line prints with
 * --json, so a binding mirrors two small structs (cgm_csr, cgm_error) instead of every report, and
 * its results carry the command line's keys. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cgmodel/pipeline.h"
#include "cgmodel/bindings.h"
#include "cgmodel/calibrate.h"
#include "cgmodel/devices.h"
#include "cgmodel/predict.h"
#include "cgmodel/run_solve.h"
#include "common/timer.h"
#include "pipeline/json.h"
#include "pipeline/request.h"

void cgm_json_free(char *text) {
  cJSON_free(text);
}

/* The request of a binding's text (NULL or "": {}): a JSON object. */
static cgm_status request(const char *text, cJSON **out, cgm_error *err) {
  *out = cJSON_Parse(text && *text ? text : "{}");
  if (*out && cJSON_IsObject(*out)) return CGM_OK;
  cJSON_Delete(*out);
  *out = NULL;
  return cgm_fail(err, CGM_EINPUT, "options: not a JSON object");
}

/* Takes the printed object, with the step's notes when given: its text for
 * the caller, the object freed. */
static cgm_status finish(cJSON *j, cJSON *notes, char **out, cgm_error *err) {
  if (notes && !cJSON_AddItemToObject(j, "notes", notes)) cJSON_Delete(notes);
  *out = j ? cJSON_PrintUnformatted(j) : NULL;
  cJSON_Delete(j);
  return *out ? CGM_OK : cgm_fail(err, CGM_ERUNTIME, "out of memory");
}

/* The notes a step makes while it runs, kept for the result's "notes". */
static void collect_note(void *ctx, cgm_note_kind kind, const char *msg) {
  static const char *const kinds[] = {"info", "warning", "error"}; /* by cgm_note_kind */
  cJSON *notes = ctx, *n = cJSON_CreateObject();
  json_add_string(n, "kind", kinds[kind]);
  json_add_string(n, "message", msg); /* a note may carry a file name */
  cJSON_AddItemToArray(notes, n);
}

/* A's arrays sane, and A square: what every step of a matrix in memory needs. */
static cgm_status square(const cgm_csr *A, char **out, cgm_error *err) {
  *out = NULL;
  const cgm_status st = cgm_csr_check(A, err);
  if (st || A->nrows == A->ncols) return st;
  return cgm_fail(err, CGM_EINPUT, "matrix is %d x %d: not square", A->nrows, A->ncols);
}

cgm_status cgm_json_info(const cgm_csr *A, const char *name, char **out, cgm_error *err) {
  cgm_status st = square(A, out, err);
  cgm_features f;
  if (st || (st = cgm_plan_features(A, &f, err))) return st;
  return finish(cgm_info_json(name ? name : "", &f, NULL), NULL, out, err);
}

cgm_status cgm_json_predict(const cgm_csr *A, const char *options, char **out, cgm_error *err) {
  cJSON *o;
  cgm_status st = square(A, out, err);
  if (st || (st = request(options, &o, err))) return st;
  cgm_predict_opts po;
  const char *db_path;
  st = cgm_predict_request(o, &po, &db_path, err);
  po.csr = A;
  if (!st && !db_path) st = cgm_fail(err, CGM_EINPUT, "predict needs a database path");
  cgm_db *db = NULL;
  if (!st) st = cgm_open_database(db_path, CGM_DB_UNCHECKED, &db, err);
  cJSON *notes = cJSON_CreateArray();
  po.note = collect_note;
  po.note_ctx = notes;
  cgm_predict_report r = {0};
  if (!st) st = cgm_predict(db, &po, &r, err);
  if (!st)
    st = finish(cgm_predict_json(&po, &r), notes, out, err);
  else
    cJSON_Delete(notes);
  cgm_predict_report_free(&r);
  if (db) cgm_db_close(db);
  cJSON_Delete(o);
  return st;
}

/* The extras' monitor (when given) in place of the options'. */
static void monitor_of(const cgm_json_extras *x, cgm_solve_opts *s) {
  if (!x || !x->monitor) return;
  s->monitor = x->monitor, s->monitor_ctx = x->monitor_ctx;
  s->monitor_every = x->monitor_every, s->monitor_x = x->monitor_x;
}

/* The database kept open between a process's solves (a loop of time steps), which each would
 * open, start its WAL and checkpoint at close: four syncs of the file system, 3 ms each on a disk,
 * more on a network file system. SQLite checkpoints it every 1000 pages and at cgm_json_release.
 * A solve while it is in use (another thread) opens its own; a file put at its path is opened
 * anew; a forked child closes its copy (its parent's lock keeps that close from checkpointing),
 * so that no connection of its parent's lingers in SQLite's state of the file, and opens its own.
 */
static struct {
  pthread_mutex_t mu;
  cgm_db *db;
  char *path;
  struct stat sb;
  pid_t pid;
  bool ro;
  cgm_devices_kept devs; /* its calibrations as the last solve loaded them */
} kept = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void release_locked(void) {
  cgm_db_close(kept.db);
  free(kept.path);
  free(kept.devs.devs);
  kept.db = NULL, kept.path = NULL, kept.devs = (cgm_devices_kept){0};
}

void cgm_json_release(void) {
  pthread_mutex_lock(&kept.mu);
  release_locked();
  pthread_mutex_unlock(&kept.mu);
  cgm_cuda_release_kept(); /* and the GPUs' pinned memory the solves kept */
}

/* The kept handle of o's database, locked until the solve ends (NULL: the solve opens its own). */
static cgm_db *take_db(const cgm_run_solve_opts *o) {
  struct stat sb;
  if (!o->db_path || stat(o->db_path, &sb) != 0 || pthread_mutex_trylock(&kept.mu)) return NULL;
  if (kept.pid != getpid() ||
      (kept.db && (strcmp(kept.path, o->db_path) || kept.ro != o->db_readonly ||
                   kept.sb.st_dev != sb.st_dev || kept.sb.st_ino != sb.st_ino)))
    release_locked();
  cgm_error e = {0};
  if (!kept.db &&
      (!(kept.path = strdup(o->db_path)) ||
       cgm_open_database(o->db_path, CGM_DB_UNCHECKED | (o->db_readonly ? CGM_DB_READONLY : 0),
                         &kept.db, &e)))
    release_locked();
  kept.sb = sb, kept.pid = getpid(), kept.ro = o->db_readonly;
  if (!kept.db) pthread_mutex_unlock(&kept.mu);
  return kept.db;
}

cgm_status cgm_json_solve(const cgm_csr *A, const double *b, double *x, const char *options,
                          const cgm_json_extras *extras, char **out, cgm_error *err) {
  *out = NULL;
  cgm_status st = cgm_csr_check(A, err);
  if (st) return st;
  cJSON *o;
  if ((st = request(options, &o, err))) return st;
  cgm_run_solve_opts ro;
  st = cgm_solve_request(o, &ro, err);
  static const char *const files[] = {"rhs", "mpi", "partition"}; /* the command line's */
  for (int k = 0; k < 3 && !st; k++)
    if (cJSON_GetObjectItemCaseSensitive(o, files[k]))
      st = cgm_fail(err, CGM_EINPUT, "%s: not for a matrix in memory (b is given, no MPI)",
                    files[k]);
  if (!st && ro.autotune && !ro.db_path)
    st = cgm_fail(err, CGM_EINPUT, "auto needs a database path");
  if (st) {
    cJSON_Delete(o);
    return st;
  }
  ro.csr = A;
  ro.b = b;
  if (extras && extras->x0) ro.x0 = extras->x0;
  monitor_of(extras, &ro.solve);
  cJSON *notes = cJSON_CreateArray();
  ro.note = collect_note;
  ro.note_ctx = notes;
  cgm_solve_report rep;
  ro.db = take_db(&ro);
  ro.kept_devs = ro.db ? &kept.devs : NULL;
  st = cgm_run_solve(&ro, &rep, err);
  if (ro.db) pthread_mutex_unlock(&kept.mu);
  if (rep.solved) {
    memcpy(x, rep.x, (size_t)rep.nrows * sizeof *x);
    cgm_error e = {0};
    if (finish(cgm_solve_report_json(&rep), notes, out, &e))
      st = cgm_fail(err, e.code, "%s", e.msg);
  } else {
    cJSON_Delete(notes);
    if (rep.auto_none) st = cgm_fail(err, CGM_EINPUT, "auto: %s", rep.why);
  }
  cgm_solve_report_free(&rep);
  cJSON_Delete(o);
  return st;
}

cgm_status cgm_json_solve_device(const cgm_csr_device *A, const double *b, double *x,
                                 const char *options, const cgm_json_extras *extras, char **out,
                                 cgm_error *err) {
  *out = NULL;
  const double t0 = cgm_now();
  cJSON *o;
  cgm_run_solve_opts ro;
  cgm_status st = request(options, &o, err);
  if (!st) st = cgm_solve_request(o, &ro, err);
  if (st) {
    cJSON_Delete(o);
    return st;
  }
  cgm_solve_report rep = {.matrix = ro.matrix,
                          .opts = ro.solve,
                          .nrows = A->nrows,
                          .ncols = A->ncols,
                          .nnz = A->nnz,
                          .solution_error = -1.0,
                          .predicted = NAN};
  monitor_of(extras, &rep.opts);
  st = cgm_solve_device(A, b, x, &rep.opts, &rep.result, err);
  if (st == CGM_OK || st == CGM_ENOCONV) {
    rep.solved = true;
    rep.tol = cgm_solve_tol(&rep.opts);
    rep.maxiter = cgm_solve_maxiter(&rep.opts, A->nrows);
    if (rep.opts.layout.bx <= 0) rep.opts.layout.bx = 1;
    rep.time_wall_s = cgm_now() - t0;
    cJSON *j = cgm_solve_report_json(&rep);
    cJSON_AddStringToObject(j, "memory", "device"); /* A, b and x stayed in the GPU's memory */
    cgm_error e = {0};
    if (finish(j, NULL, out, &e)) st = cgm_fail(err, e.code, "%s", e.msg);
  }
  cJSON_Delete(o);
  return st;
}

cgm_status cgm_json_calibrate(const char *options, char **out, cgm_error *err) {
  *out = NULL;
  cJSON *o;
  cgm_status st = request(options, &o, err);
  if (st) return st;
  cgm_calibrate_opts co;
  const char *db_path = NULL;
  st = cgm_calibrate_request(o, &co, &db_path, err);
  if (!st && !db_path) st = cgm_fail(err, CGM_EINPUT, "calibrate needs a database path");
  cgm_calibrate_plan_t plan; /* checked before the database is created */
  if (!st) st = cgm_calibrate_plan(co.devices, &plan, err);
  cgm_db *db = NULL;
  if (!st) st = cgm_open_database(db_path, true, &db, err);
  cgm_calibration_report rep;
  if (!st) st = cgm_calibrate(db, &co, &rep, err);
  if (!st) st = finish(cgm_calibration_report_json(&rep, cgm_db_path(db)), NULL, out, err);
  if (db) cgm_db_close(db);
  cJSON_Delete(o);
  return st;
}

cgm_status cgm_json_devices(const char *db_path, char **out, cgm_error *err) {
  *out = NULL;
  const cgm_gpu_opts gpu = cgm_gpu_opts_default();
  cgm_devices_report r;
  cgm_status st = cgm_devices(db_path, 0, &gpu, &r, err);
  return st ? st : finish(cgm_devices_json(&r), NULL, out, err);
}
