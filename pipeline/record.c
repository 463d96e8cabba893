/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A solve recorded beside its prediction: the matrix (found or added by name, size and counts, with
 * its features), and the solve with the configuration and options it ran with, so `db solves` and
 * `plot accuracy` can compare measured with predicted. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "cgmodel/pipeline.h"
#include "pipeline/json.h"
#include "pipeline/steps.h"

/* The JSON text of obj (freed) in buf, "{}" when it could not be made. */
static void json_text(cJSON *obj, char *buf, size_t n) {
  char *txt = obj ? cJSON_PrintUnformatted(obj) : NULL;
  snprintf(buf, n, "%s", txt ? txt : "{}");
  cJSON_free(txt);
  cJSON_Delete(obj);
}

bool pipeline_solve_disturbed(cgm_db *db, const cgm_solve_opts *o, const cgm_solve_result *r,
                              double predicted, int64_t calibration_id, char *why, size_t n) {
  const double t = r->time_per_iter_s, k = round(t / CGM_SCHED_QUANTUM_S);
  if (o->backend == CGM_BACKEND_CPU && k >= 1 && fabs(t - k * CGM_SCHED_QUANTUM_S) <= 1e-5) {
    snprintf(why, n, "%.2f us an iteration: %.0f scheduler quanta of %g ms, other work's", 1e6 * t,
             k, 1e3 * CGM_SCHED_QUANTUM_S);
    return true;
  }
  cgm_db_calibration c;
  cgm_db_device d;
  cgm_error e = {0};
  if (!(t > CGM_DISTURBED_RATIO * predicted) || calibration_id <= 0 ||
      pipeline_calibration_get(db, calibration_id, &c, &d, &e) ||
      strstr(c.options, "\"disturbed\":true"))
    return false;
  snprintf(why, n,
           "%.2f us an iteration, %.0fx the %.2f us that calibration %lld (timings settled) "
           "predicts: other work held it up",
           1e6 * t, t / predicted, 1e6 * predicted, (long long)calibration_id);
  return true;
}

/* The solve of matrix m (its features f) beside its prediction. */
static cgm_status record(cgm_db *db, cgm_db_matrix *m, const cgm_features *f,
                         const cgm_solve_opts *o, const cgm_solve_result *r, double predicted,
                         int64_t calibration_id, cgm_error *err) {
  m->x = f->x;
  m->nnz = f->nnz;
  json_text(cgm_features_json(f, NULL), m->features, sizeof m->features);
  cgm_status st = cgm_db_matrix_get_or_add(db, m, err);
  if (st) return st;
  cgm_db_solve s = {.matrix_id = m->id, .calibration_id = calibration_id > 0 ? calibration_id : 0};
  snprintf(s.backend, sizeof s.backend, "%s", cgm_backend_name(o->backend));
  snprintf(s.precision, sizeof s.precision, "%s", cgm_precision_name(o->precision));
  snprintf(s.exchange, sizeof s.exchange, "%s",
           o->backend == CGM_BACKEND_CUDA && o->gpus > 1 ? cgm_exchange_name(o->exchange) : "");
  if (r->ranks > 0) /* one process per MPI rank */
    snprintf(s.devices, sizeof s.devices, "cpu x %d mpi ranks", r->ranks);
  else if (o->backend == CGM_BACKEND_CPU)
    snprintf(s.devices, sizeof s.devices, "cpu");
  else if (o->gpus > 1)
    snprintf(s.devices, sizeof s.devices, "cuda:0-%d", o->gpus - 1);
  else
    snprintf(s.devices, sizeof s.devices, "cuda:0");
  s.block = o->layout.n;
  s.bx = o->layout.bx;
  s.gpus = o->backend == CGM_BACKEND_CPU ? 0 : o->gpus;
  s.iterations = r->iterations;
  s.converged = r->converged;
  s.relative_residual = r->relative_residual;
  s.time_per_iter_s = r->time_per_iter_s;
  s.predicted_time_per_iter_s = predicted;
  snprintf(s.model, sizeof s.model, "refined");
  s.time_setup_s = r->time_setup_s > 0 ? r->time_setup_s : NAN;
  s.layout_bytes = r->device_bytes;
  s.layout_on_device = r->layout_on_device;
  char why[256];
  s.disturbed = pipeline_solve_disturbed(db, o, r, predicted, calibration_id, why, sizeof why);
  snprintf(s.precond, sizeof s.precond, "%s", cgm_precond_name(o->precond));
  json_text(cgm_solve_opts_json(o), s.options, sizeof s.options);
  return cgm_db_solve_add(db, &s, err);
}

cgm_status cgm_record_solve(cgm_db *db, const char *matrix_name, const char *path,
                            int64_t file_bytes, const cgm_features *f, const cgm_solve_opts *o,
                            const cgm_solve_result *r, double predicted, int64_t calibration_id,
                            cgm_error *err) {
  cgm_db_matrix m = {0};
  snprintf(m.name, sizeof m.name, "%s", matrix_name);
  snprintf(m.path, sizeof m.path, "%s", path ? path : "");
  m.file_bytes = file_bytes;
  return record(db, &m, f, o, r, predicted, calibration_id, err);
}

cgm_status pipeline_record_file(cgm_db *db, const char *path, bool memory, uint64_t content_id,
                                const cgm_features *f, const cgm_solve_opts *o,
                                const cgm_solve_result *r, double predicted, int64_t calibration_id,
                                cgm_error *err) {
  struct stat sb;
  cgm_db_matrix m = {0};
  /* a matrix in memory (path: its name) is one by its content: a row of its own */
  snprintf(m.name, sizeof m.name, memory && content_id ? "%.100s@%016llx" : "%s",
           memory ? path : pipeline_file_name(path), (unsigned long long)content_id);
  snprintf(m.path, sizeof m.path, "%s", memory ? "" : path);
  m.file_bytes = !memory && stat(path, &sb) == 0 ? (int64_t)sb.st_size : 0;
  m.content_id = (int64_t)content_id;
  return record(db, &m, f, o, r, predicted, calibration_id, err);
}
