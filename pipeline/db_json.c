/* SPDX-License-Identifier: GPL-3.0-or-later */
/* db list, db show, db export and db solves in JSON: the database's
 * devices, calibrations, fits, samples and solves. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/json.h"
#include "pipeline/steps.h"

static cJSON *device_json(const cgm_db_device *d) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "id", (double)d->id);
  json_add_string(o, "kind", d->kind);
  json_add_string(o, "model", d->model);
  json_add_string(o, "host", d->host);
  if (!strcmp(d->kind, "cuda")) {
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
    json_add_string(o, "compute_capability", cc);
    cJSON_AddNumberToObject(o, "sms", d->sms);
    cJSON_AddNumberToObject(o, "clock_khz", d->clock_khz);
    cJSON_AddNumberToObject(o, "memory_clock_khz", d->mem_clock_khz);
    cJSON_AddNumberToObject(o, "bus_width_bits", d->bus_width_bits);
    cJSON_AddNumberToObject(o, "driver_version", d->driver_version);
    cJSON_AddNumberToObject(o, "runtime_version", d->runtime_version);
  } else {
    cJSON_AddNumberToObject(o, "threads", d->threads);
  }
  cJSON_AddNumberToObject(o, "memory_bytes", (double)d->mem_total);
  return o;
}

/* A calibration with its device (the options as the object they are). */
static cJSON *calibration_json(const cgm_db_calibration *c, const cgm_db_device *d) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "id", (double)c->id);
  json_add_string(o, "created", c->created);
  json_add_string(o, "tool_version", c->tool_version);
  cJSON *opt = cJSON_Parse(c->options);
  if (opt) cJSON_AddItemToObject(o, "options", opt);
  cJSON_AddNumberToObject(o, "seconds", c->seconds);
  cJSON_AddBoolToObject(o, "complete", c->complete);
  cJSON_AddItemToObject(o, "device", device_json(d));
  return o;
}

static int add_calibration(const cgm_db_calibration *c, const cgm_db_device *d, void *ctx) {
  cJSON_AddItemToArray((cJSON *)ctx, calibration_json(c, d));
  return 0;
}

static int add_fit(const cgm_db_fit *f, void *ctx) {
  cJSON *o = cJSON_CreateObject();
  json_add_string(o, "kernel", f->kernel);
  json_add_string(o, "variant", f->variant);
  json_add_string(o, "precision", cgm_precision_name((cgm_precision)f->precision));
  cJSON_AddNumberToObject(o, "block", f->block);
  json_add_string(o, "kind", cgm_fit_kind_name(f->kind));
  cJSON_AddNumberToObject(o, "mu", f->mu);
  cJSON_AddNumberToObject(o, "sigma", f->sigma);
  cJSON_AddNumberToObject(o, "nu", f->nu);
  cJSON_AddNumberToObject(o, "se_mu", f->se_mu);
  cJSON_AddNumberToObject(o, "se_sigma", f->se_sigma);
  cJSON_AddNumberToObject(o, "se_nu", f->se_nu);
  if (isfinite(f->r2)) cJSON_AddNumberToObject(o, "r2", f->r2);
  cJSON_AddNumberToObject(o, "rms", f->rms);
  cJSON_AddNumberToObject(o, "n", f->n);
  if (f->m_lo > 0) cJSON_AddNumberToObject(o, "m_lo", f->m_lo); /* where the fit's regime starts */
  if (f->m_hi > 0) cJSON_AddNumberToObject(o, "m_hi", f->m_hi); /* ... and ends */
  cJSON_AddBoolToObject(o, "converged", f->converged);
  if (f->message[0]) json_add_string(o, "message", f->message);
  cJSON_AddItemToArray((cJSON *)ctx, o);
  return 0;
}

static int add_sample(const cgm_db_sample *s, void *ctx) {
  cJSON *o = cJSON_CreateObject();
  json_add_string(o, "kernel", s->kernel);
  json_add_string(o, "variant", s->variant);
  json_add_string(o, "precision", cgm_precision_name((cgm_precision)s->precision));
  cJSON_AddNumberToObject(o, "block", s->block);
  cJSON_AddNumberToObject(o, "m", s->m);
  cJSON_AddNumberToObject(o, "bytes", s->bytes);
  cJSON_AddNumberToObject(o, "seconds", s->seconds);
  cJSON_AddNumberToObject(o, "gbps", cgm_sample_gbps(s));
  if (s->source[0]) json_add_string(o, "source", s->source);
  if (isfinite(s->spread)) cJSON_AddNumberToObject(o, "spread", s->spread);
  if (s->unsettled) cJSON_AddBoolToObject(o, "unsettled", true);
  cJSON_AddItemToArray((cJSON *)ctx, o);
  return 0;
}

static int add_solve(const cgm_db_solve *s, void *ctx) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "id", (double)s->id);
  cJSON_AddNumberToObject(o, "matrix_id", (double)s->matrix_id);
  json_add_string(o, "matrix", s->matrix);
  json_add_string(o, "created", s->created);
  json_add_string(o, "backend", s->backend);
  json_add_string(o, "precision", s->precision);
  cJSON_AddNumberToObject(o, "block", s->block);
  cJSON_AddNumberToObject(o, "gpus", s->gpus);
  cJSON_AddNumberToObject(o, "iterations", s->iterations);
  cJSON_AddBoolToObject(o, "converged", s->converged);
  cJSON_AddNumberToObject(o, "time_per_iter_s", s->time_per_iter_s);
  if (isfinite(s->predicted_time_per_iter_s))
    cJSON_AddNumberToObject(o, "predicted_time_per_iter_s", s->predicted_time_per_iter_s);
  cJSON_AddBoolToObject(o, "disturbed", s->disturbed);
  cJSON_AddItemToArray((cJSON *)ctx, o);
  return 0;
}

/* {key: []}, and the array a listing fills. */
static cJSON *listing(const char *key, cJSON **arr) {
  cJSON *o = cJSON_CreateObject();
  *arr = cJSON_AddArrayToObject(o, key);
  return o;
}

cgm_status cgm_db_calibrations_json(cgm_db *db, cJSON **out, cgm_error *err) {
  cJSON *arr, *o = listing("calibrations", &arr);
  cgm_status st = cgm_db_calibrations(db, add_calibration, arr, err);
  if (st) cJSON_Delete(o);
  *out = st ? NULL : o;
  return st;
}

cgm_status cgm_db_solves_json(cgm_db *db, cJSON **out, cgm_error *err) {
  cJSON *arr, *o = listing("solves", &arr);
  cgm_status st = cgm_db_solves(db, add_solve, arr, err);
  if (st) cJSON_Delete(o);
  *out = st ? NULL : o;
  return st;
}

cgm_status cgm_db_calibration_json(cgm_db *db, int64_t id, bool samples, cJSON **out,
                                   cgm_error *err) {
  cgm_db_calibration c;
  cgm_db_device d;
  *out = NULL;
  cgm_status st = pipeline_calibration_get(db, id, &c, &d, err);
  if (st) return st;
  cJSON *o = calibration_json(&c, &d);
  st = cgm_db_fits(db, id, add_fit, cJSON_AddArrayToObject(o, "fits"), err);
  if (!st && samples)
    st = cgm_db_samples(db, id, add_sample, cJSON_AddArrayToObject(o, "samples"), err);
  if (st) {
    cJSON_Delete(o);
    return st;
  }
  *out = o;
  return CGM_OK;
}
