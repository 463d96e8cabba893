/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The steps for a language binding (python/cgmodel over ctypes): the matrix
 * and the vectors travel by pointer, the options as a JSON object and the
 * result as the JSON the command line prints with --json, so a binding
 * mirrors two small structs (cgm_csr, cgm_error) instead of every report,
 * and its results carry the command line's keys. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cgmodel/pipeline.h"
#include "cgmodel/bindings.h"
#include "cgmodel/calibrate.h"
#include "cgmodel/devices.h"
#include "cgmodel/predict.h"
#include "cgmodel/run_solve.h"
#include "common/timer.h"
#include "pipeline/json.h"

void cgm_json_free(char *text) {
  cJSON_free(text);
}

/* The options object: NULL or "" is {}. Every key must be one of `known`
 * (a typo is refused, not ignored). */
static cgm_status parse_options(const char *text, const char *const *known, cJSON **out,
                                cgm_error *err) {
  *out = cJSON_Parse(text && *text ? text : "{}");
  if (!*out || !cJSON_IsObject(*out)) {
    cJSON_Delete(*out);
    *out = NULL;
    return cgm_fail(err, CGM_EINPUT, "options: not a JSON object");
  }
  for (const cJSON *it = (*out)->child; it; it = it->next) {
    bool ok = false;
    for (int k = 0; known[k] && !ok; k++) ok = !strcmp(it->string, known[k]);
    if (!ok) {
      cgm_status st = cgm_fail(err, CGM_EINPUT, "options: unknown key '%s'", it->string);
      cJSON_Delete(*out);
      *out = NULL;
      return st;
    }
  }
  return CGM_OK;
}

/* The value of key when present and not null: a string, a number in
 * [lo, hi] (an integer when `integer`), or a boolean. */
static const cJSON *get(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return v && !cJSON_IsNull(v) ? v : NULL;
}
static cgm_status get_string(const cJSON *o, const char *key, const char **s, cgm_error *err) {
  const cJSON *v = get(o, key);
  if (!v) return CGM_OK;
  if (!cJSON_IsString(v)) return cgm_fail(err, CGM_EINPUT, "options: '%s' is not a string", key);
  *s = v->valuestring;
  return CGM_OK;
}
static cgm_status get_number(const cJSON *o, const char *key, double lo, double hi, bool integer,
                             double *d, cgm_error *err) {
  const cJSON *v = get(o, key);
  if (!v) return CGM_OK;
  if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= hi) ||
      (integer && v->valuedouble != floor(v->valuedouble)))
    return cgm_fail(err, CGM_EINPUT, "options: '%s' is not %s in [%g, %g]", key,
                    integer ? "an integer" : "a number", lo, hi);
  *d = v->valuedouble;
  return CGM_OK;
}
static cgm_status get_bool(const cJSON *o, const char *key, bool *b, cgm_error *err) {
  const cJSON *v = get(o, key);
  if (!v) return CGM_OK;
  if (!cJSON_IsBool(v)) return cgm_fail(err, CGM_EINPUT, "options: '%s' is not a boolean", key);
  *b = cJSON_IsTrue(v);
  return CGM_OK;
}

/* "both" or a comma-separated list of single, double (and mixed when
 * `mixed`), each once, as bits (1 << cgm_precision): the command line's
 * --precision of predict and calibrate. */
static bool precisions_parse(const char *s, bool mixed, unsigned *out) {
  if (!strcmp(s, "both")) {
    *out = (1u << CGM_PREC_SINGLE) | (1u << CGM_PREC_DOUBLE) | (mixed ? 1u << CGM_PREC_MIXED : 0u);
    return true;
  }
  unsigned set = 0;
  for (const char *t = s; *t;) {
    size_t n = strcspn(t, ",");
    char name[16];
    cgm_precision p;
    if (n == 0 || n >= sizeof name) return false;
    memcpy(name, t, n);
    name[n] = '\0';
    if (!cgm_precision_parse(name, &p) || (p == CGM_PREC_MIXED && !mixed) || (set & (1u << p)))
      return false;
    set |= 1u << p;
    t += n + (t[n] == ',');
  }
  *out = set;
  return set != 0;
}

/* Takes the printed object: its text for the caller, the object freed. */
static cgm_status finish(cJSON *j, char **out, cgm_error *err) {
  *out = j ? cJSON_PrintUnformatted(j) : NULL;
  cJSON_Delete(j);
  return *out ? CGM_OK : cgm_fail(err, CGM_ERUNTIME, "out of memory");
}

/* The notes a step makes while it runs, kept for the result's "notes". */
static void collect_note(void *ctx, cgm_note_kind kind, const char *msg) {
  cJSON *notes = ctx, *n = cJSON_CreateObject();
  json_add_string(n, "kind",
                  kind == CGM_NOTE_ERROR     ? "error"
                  : kind == CGM_NOTE_WARNING ? "warning"
                                             : "info");
  json_add_string(n, "message", msg); /* a note may carry a file name */
  cJSON_AddItemToArray(notes, n);
}

cgm_status cgm_json_info(const cgm_csr *A, const char *name, char **out, cgm_error *err) {
  *out = NULL;
  cgm_status st = cgm_csr_check(A, err);
  if (st) return st;
  if (A->nrows != A->ncols)
    return cgm_fail(err, CGM_EINPUT, "matrix is %d x %d: not square", A->nrows, A->ncols);
  cgm_features f;
  if ((st = cgm_plan_features(A, &f, err))) return st;
  cJSON *j = cgm_info_json(name ? name : "", &f, NULL);
  return finish(j, out, err);
}

cgm_status cgm_json_predict(const cgm_csr *A, const char *options, char **out, cgm_error *err) {
  static const char *const known[] = {"db",    "name",     "gpus",    "block",    "precision",
                                      "model", "exchange", "devices", "cusparse", NULL};
  *out = NULL;
  cgm_status st = cgm_csr_check(A, err);
  if (st) return st;
  if (A->nrows != A->ncols)
    return cgm_fail(err, CGM_EINPUT, "matrix is %d x %d: not square", A->nrows, A->ncols);
  cJSON *o;
  if ((st = parse_options(options, known, &o, err))) return st;
  cgm_predict_opts po;
  memset(&po, 0, sizeof po);
  po.tuner = cgm_tuner_opts_default();
  /* every precision, as predict and solve --auto */
  po.tuner.precisions = (1u << CGM_PREC_DOUBLE) | (1u << CGM_PREC_SINGLE) | (1u << CGM_PREC_MIXED);
  po.gpu = cgm_gpu_opts_default();
  po.csr = A;
  po.matrix = "matrix";
  const char *db_path = NULL, *precision = NULL, *model = NULL, *exchange = NULL, *devices = NULL;
  double gpus = 0, block = 0, tol = po.tuner.tol, iters = 0;
  if (!st) st = get_string(o, "db", &db_path, err);
  if (!st) st = get_number(o, "tol", 1e-300, 1.0, false, &tol, err);
  if (!st) st = get_number(o, "iters_hint", 1.0, 1e9, false, &iters, err);
  po.tuner.tol = tol;
  po.iters_hint = iters;
  if (!st) st = get_string(o, "name", &po.matrix, err);
  if (!st) st = get_number(o, "gpus", 1, CGM_MAX_GPUS, true, &gpus, err);
  if (!st) st = get_number(o, "block", 0, 8, true, &block, err);
  if (!st) st = get_string(o, "precision", &precision, err);
  if (!st) st = get_string(o, "model", &model, err);
  if (!st) st = get_string(o, "exchange", &exchange, err);
  if (!st) st = get_string(o, "devices", &devices, err);
  if (!st) st = get_bool(o, "cusparse", &po.tuner.cusparse, err);
  po.tuner.max_gpus = (int)gpus;
  po.tuner.block = (int)block;
  if (!st && block != 0 && block != 1 && block != 2 && block != 4 && block != 8)
    st = cgm_fail(err, CGM_EINPUT, "block: %g is not 1, 2, 4, 8 or 0 (all)", block);
  if (!st && precision && !precisions_parse(precision, true, &po.tuner.precisions))
    st = cgm_fail(err, CGM_EINPUT,
                  "precision: '%s' is not a list of double, single, mixed (or both)", precision);
  if (!st && model) {
    if (!strcmp(model, "paper"))
      po.tuner.paper = true;
    else if (strcmp(model, "refined"))
      st = cgm_fail(err, CGM_EINPUT, "model: '%s' is not refined or paper", model);
  }
  cgm_exchange e;
  if (!st && exchange) {
    if (!strcmp(exchange, "all"))
      po.tuner.exchanges = 0xf;
    else if (cgm_exchange_parse(exchange, &e))
      po.tuner.exchanges = 1u << e;
    else
      st =
          cgm_fail(err, CGM_EINPUT, "exchange: '%s' is not halo, p2p, host, nccl or all", exchange);
  }
  if (!st && devices) {
    if (!strcmp(devices, "cpu") || !strcmp(devices, "cuda"))
      po.kind = devices;
    else if (strcmp(devices, "all"))
      st = cgm_fail(err, CGM_EINPUT, "devices: '%s' is not cpu, cuda or all", devices);
  }
  if (!st && !db_path) st = cgm_fail(err, CGM_EINPUT, "predict needs a database path");
  cgm_db *db = NULL;
  if (!st) st = cgm_open_database(db_path, false, &db, err);
  cJSON *notes = cJSON_CreateArray();
  po.note = collect_note;
  po.note_ctx = notes;
  cgm_predict_report r;
  memset(&r, 0, sizeof r);
  if (!st) st = cgm_predict(db, &po, &r, err);
  cJSON *j = NULL;
  if (!st) {
    j = cgm_predict_json(&po, &r);
    cJSON_AddItemToObject(j, "notes", notes);
    notes = NULL;
    st = finish(j, out, err);
  }
  cJSON_Delete(notes);
  cgm_predict_report_free(&r);
  if (db) cgm_db_close(db);
  cJSON_Delete(o);
  return st;
}

/* The solver's options both solve steps take, each applied to s when
 * given: backend, precision, precond, precond_block, block (B_y then chosen anew), bx,
 * gpus, tol, maxiter, check_every. */
static cgm_status solver_options(const cJSON *o, cgm_solve_opts *s, cgm_error *err) {
  const char *backend = NULL, *precision = NULL, *precond = NULL;
  double block = s->layout.n, bx = s->layout.bx, gpus = s->gpus, tol = s->tol, maxiter = s->maxiter,
         check = s->check_every, pblock = s->precond_block;
  cgm_status st = get_string(o, "backend", &backend, err);
  if (!st) st = get_string(o, "precision", &precision, err);
  if (!st) st = get_string(o, "precond", &precond, err);
  if (!st) st = get_number(o, "block", 1, 8, true, &block, err);
  if (!st) st = get_number(o, "precond_block", 1, 8, true, &pblock, err);
  if (!st) st = get_number(o, "bx", 1, 1024, true, &bx, err);
  if (!st) st = get_number(o, "gpus", 1, CGM_MAX_GPUS, true, &gpus, err);
  if (!st) st = get_number(o, "tol", 1e-300, 1.0, false, &tol, err);
  if (!st) st = get_number(o, "maxiter", 1, 1e9, true, &maxiter, err);
  if (!st) st = get_number(o, "check_every", 1, 100000, true, &check, err);
  if (!st && backend && !cgm_backend_parse(backend, &s->backend))
    st = cgm_fail(err, CGM_EINPUT, "backend: '%s' is not cpu, cuda or cusparse", backend);
  if (!st && precision && !cgm_precision_parse(precision, &s->precision))
    st = cgm_fail(err, CGM_EINPUT, "precision: '%s' is not double, mixed or single", precision);
  if (!st && precond && !cgm_precond_parse(precond, &s->precond))
    st = cgm_fail(err, CGM_EINPUT, "precond: '%s' is not jacobi or block", precond);
  if (st) return st;
  if (get(o, "block")) s->layout.n = (int)block, s->layout.by = 0;
  if (get(o, "bx")) s->layout.bx = (int)bx;
  if (get(o, "precond_block")) s->precond_block = (int)pblock;
  s->gpus = (int)gpus;
  s->tol = tol;
  s->maxiter = (int)maxiter;
  s->check_every = (int)check;
  return CGM_OK;
}

cgm_status cgm_json_solve(const cgm_csr *A, const double *b, double *x, const char *options,
                          char **out, cgm_error *err) {
  static const char *const known[] = {
      "db",          "name",    "record",  "auto",       "backend",       "precision",
      "block",       "bx",      "gpus",    "exchange",   "tol",           "maxiter",
      "check_every", "threads", "precond", "iters_hint", "precond_block", NULL};
  *out = NULL;
  cgm_status st = cgm_csr_check(A, err);
  if (st) return st;
  cJSON *o;
  if ((st = parse_options(options, known, &o, err))) return st;
  cgm_run_solve_opts ro;
  memset(&ro, 0, sizeof ro);
  ro.csr = A;
  ro.b = b;
  ro.matrix = "matrix";
  ro.record = true;
  ro.solve = cgm_solve_opts_default();
  ro.solve.backend = cgm_have_cuda_build() ? CGM_BACKEND_CUDA : CGM_BACKEND_CPU;
  const char *exchange = NULL;
  double threads = ro.solve.threads;
  if (!st) st = get_string(o, "db", &ro.db_path, err);
  if (!st) st = get_string(o, "name", &ro.matrix, err);
  if (!st) st = get_bool(o, "record", &ro.record, err);
  if (!st) st = get_bool(o, "auto", &ro.autotune, err);
  if (!st) st = get_string(o, "exchange", &exchange, err);
  if (!st) st = get_number(o, "threads", 1, 4096, true, &threads, err);
  if (!st) st = get_number(o, "iters_hint", 1.0, 1e9, false, &ro.iters_hint, err);
  if (!st) st = solver_options(o, &ro.solve, err);
  if (!st && exchange && !cgm_exchange_parse(exchange, &ro.solve.exchange))
    st = cgm_fail(err, CGM_EINPUT, "exchange: '%s' is not nccl, p2p, host or halo", exchange);
  const char *layout = get(o, "block")  ? "block"
                       : get(o, "bx")   ? "bx"
                       : get(o, "gpus") ? "gpus"
                                        : (exchange ? "exchange" : NULL);
  if (!st && ro.autotune && layout)
    st = cgm_fail(err, CGM_EINPUT, "auto chooses the block size, B_x, GPUs and exchange: drop %s",
                  layout);
  if (!st && ro.autotune && !ro.db_path)
    st = cgm_fail(err, CGM_EINPUT, "auto needs a database path");
  if (st) {
    cJSON_Delete(o);
    return st;
  }
  ro.solve.threads = (int)threads;
  ro.constraints.backend_given = get(o, "backend") != NULL;
  /* no backend given: CUDA where a GPU is present (cgm_run_solve finds it) */
  ro.backend_default = !ro.constraints.backend_given && cgm_have_cuda_build();
  ro.constraints.backend = ro.solve.backend;
  ro.constraints.precision_given = get(o, "precision") != NULL;
  ro.constraints.precision = ro.solve.precision;
  cJSON *notes = cJSON_CreateArray();
  ro.note = collect_note;
  ro.note_ctx = notes;
  cgm_solve_report rep;
  st = cgm_run_solve(&ro, &rep, err);
  if (rep.solved) {
    memcpy(x, rep.x, (size_t)rep.nrows * sizeof *x);
    cJSON *j = cgm_solve_report_json(&rep);
    cJSON_AddItemToObject(j, "notes", notes);
    notes = NULL;
    cgm_error e = {0};
    if (finish(j, out, &e)) st = cgm_fail(err, e.code, "%s", e.msg);
  } else if (rep.auto_none)
    st = cgm_fail(err, CGM_EINPUT, "auto: %s", rep.why);
  cJSON_Delete(notes);
  cgm_solve_report_free(&rep);
  cJSON_Delete(o);
  return st;
}

cgm_status cgm_json_solve_device(const cgm_csr_device *A, const double *b, double *x,
                                 const char *options, char **out, cgm_error *err) {
  static const char *const known[] = {"name",        "backend", "precision",     "block",
                                      "bx",          "gpus",    "tol",           "maxiter",
                                      "check_every", "precond", "precond_block", NULL};
  *out = NULL;
  const double t0 = cgm_now();
  cJSON *o;
  cgm_status st = parse_options(options, known, &o, err);
  if (st) return st;
  cgm_solve_report rep;
  memset(&rep, 0, sizeof rep);
  rep.matrix = "matrix";
  rep.opts = cgm_solve_opts_default();
  rep.opts.backend = CGM_BACKEND_CUDA;
  if (!st) st = get_string(o, "name", &rep.matrix, err);
  if (!st) st = solver_options(o, &rep.opts, err);
  if (st) {
    cJSON_Delete(o);
    return st;
  }
  rep.nrows = A->nrows;
  rep.ncols = A->ncols;
  rep.nnz = A->nnz;
  rep.solution_error = -1.0;
  rep.predicted = NAN;
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
    if (finish(j, out, &e)) st = cgm_fail(err, e.code, "%s", e.msg);
  }
  cJSON_Delete(o);
  return st;
}

cgm_status cgm_json_calibrate(const char *options, char **out, cgm_error *err) {
  static const char *const known[] = {"db", "devices", "quick", "precision", "threads", NULL};
  *out = NULL;
  cJSON *o;
  cgm_status st = parse_options(options, known, &o, err);
  if (st) return st;
  cgm_calibrate_opts co;
  memset(&co, 0, sizeof co);
  co.precisions = 3;
  co.gpu = cgm_gpu_opts_default();
  snprintf(co.devices, sizeof co.devices, "%s",
           cgm_cuda_device_count() > 0 ? "cpu,cuda:all" : "cpu");
  const char *db_path = NULL, *devices = NULL, *precision = NULL;
  double threads = 0;
  if (!st) st = get_string(o, "db", &db_path, err);
  if (!st) st = get_string(o, "devices", &devices, err);
  if (!st) st = get_bool(o, "quick", &co.quick, err);
  if (!st) st = get_string(o, "precision", &precision, err);
  if (!st) st = get_number(o, "threads", 1, 4096, true, &threads, err);
  co.threads = (int)threads;
  if (!st && devices) snprintf(co.devices, sizeof co.devices, "%s", devices);
  if (!st && precision && !precisions_parse(precision, false, &co.precisions))
    st = cgm_fail(err, CGM_EINPUT, "precision: '%s' is not single, double or both", precision);
  if (!st && !db_path) st = cgm_fail(err, CGM_EINPUT, "calibrate needs a database path");
  cgm_calibrate_plan_t plan; /* checked before the database is created */
  if (!st) st = cgm_calibrate_plan(co.devices, &plan, err);
  cgm_db *db = NULL;
  if (!st) st = cgm_open_database(db_path, true, &db, err);
  cgm_calibration_report rep;
  if (!st) st = cgm_calibrate(db, &co, &rep, err);
  if (!st) st = finish(cgm_calibration_report_json(&rep, cgm_db_path(db)), out, err);
  if (db) cgm_db_close(db);
  cJSON_Delete(o);
  return st;
}

cgm_status cgm_json_devices(const char *db_path, char **out, cgm_error *err) {
  *out = NULL;
  const cgm_gpu_opts gpu = cgm_gpu_opts_default();
  cgm_devices_report r;
  cgm_status st = cgm_devices(db_path, 0, &gpu, &r, err);
  return st ? st : finish(cgm_devices_json(&r), out, err);
}
