/* SPDX-License-Identifier: GPL-3.0-or-later */
/* db list, db show, db export and db solves in JSON: the database's devices, calibrations, fits,
 * samples and solves; and db import, an export added to a database. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "pipeline/json.h"
#include "pipeline/steps.h"

/* A record's keys in JSON, each a member of its struct: 's' text, 'S' text left out when empty, 'd'
 * a number (NaN: null), 'D' one left out unless finite, 'i' an integer (an int, int64_t or bool by
 * its size), 'I' one left out when 0, 'b' an integer as a boolean, 'B' one left out unless true,
 * 'p' a precision's name, 'k' a fit kind's name. */
typedef struct {
  const char *key;
  char type;
  size_t off, size;
} jfield;
#define JK(T, key, m, type)                                                                        \
  { key, type, offsetof(T, m), sizeof(((T *)0)->m) }
#define JS(m, t) JK(cgm_db_sample, #m, m, t)
#define JF(m, t) JK(cgm_db_fit, #m, m, t)
#define JC(m, t) JK(cgm_db_coef, #m, m, t)
#define JD(k, m, t) JK(cgm_db_device, k, m, t)
#define JL(m, t) JK(cgm_db_calibration, #m, m, t)
#define JV(m, t) JK(cgm_db_solve, #m, m, t)
/* clang-format off */
static const jfield sample_keys[] = {JS(kernel, 's'), JS(variant, 's'), JS(precision, 'p'),
    JS(block, 'i'), JS(m, 'd'), JS(bytes, 'd'), JS(seconds, 'd'), JS(source, 'S'),
    JS(spread, 'D'), JS(unsettled, 'B'), {0}};
static const jfield fit_keys[] = {JF(kernel, 's'), JF(variant, 's'), JF(precision, 'p'),
    JF(block, 'i'), JF(kind, 'k'), JF(mu, 'd'), JF(sigma, 'd'), JF(nu, 'd'), JF(se_mu, 'd'),
    JF(se_sigma, 'd'), JF(se_nu, 'd'), JF(r2, 'D'), JF(rms, 'd'), JF(n, 'i'), JF(m_lo, 'D'),
    JF(m_hi, 'D'), JF(converged, 'b'), JF(message, 'S'), {0}};
static const jfield coef_keys[] = {JC(name, 's'), JC(precision, 'p'), JC(value, 'd'),
    JC(rms, 'd'), JC(n, 'i'), {0}};
/* a GPU's compute capability besides ("9.0") */
static const jfield device_keys[] = {JD("kind", kind, 's'), JD("name", name, 'S'),
    JD("model", model, 's'), JD("host", host, 's'), JD("sms", sms, 'I'),
    JD("clock_khz", clock_khz, 'I'), JD("memory_clock_khz", mem_clock_khz, 'I'),
    JD("bus_width_bits", bus_width_bits, 'I'), JD("driver_version", driver_version, 'I'),
    JD("runtime_version", runtime_version, 'I'), JD("threads", threads, 'I'),
    JD("memory_bytes", mem_total, 'i'), {0}};
/* the options besides, as the object they are */
static const jfield calibration_keys[] = {JL(created, 's'), JL(tool_version, 's'),
    JL(seconds, 'd'), JL(complete, 'b'), JL(interconnect, 'S'), {0}};
static const jfield solve_keys[] = {JV(id, 'i'), JV(matrix_id, 'i'), JV(matrix, 's'),
    JV(created, 's'), JV(backend, 's'), JV(precision, 's'), JV(block, 'i'), JV(gpus, 'i'),
    JV(iterations, 'i'), JV(converged, 'b'), JV(time_per_iter_s, 'd'),
    JV(predicted_time_per_iter_s, 'D'), JV(disturbed, 'b'), {0}};
/* clang-format on */

/* An integer member of `size` bytes. */
static double int_at(const char *p, size_t size) {
  return size == 8 ? (double)*(const int64_t *)p : size == 4 ? *(const int *)p : *(const bool *)p;
}

/* rec's keys added to o. */
static cJSON *record_json(cJSON *o, const jfield *f, const void *rec) {
  for (; f->key; f++) {
    const char *p = (const char *)rec + f->off, t = f->type;
    const double v = t == 'd' || t == 'D'  ? *(const double *)p
                     : strchr("iIbBpk", t) ? int_at(p, f->size)
                                           : 0;
    if (t == 's' || (t == 'S' && *p))
      json_add_string(o, f->key, p);
    else if (t == 'p' || t == 'k')
      json_add_string(o, f->key,
                      t == 'p' ? cgm_precision_name((cgm_precision)v) : cgm_fit_kind_name((int)v));
    else if (t == 'b' || (t == 'B' && v))
      cJSON_AddBoolToObject(o, f->key, v != 0);
    else if (t == 'i' || t == 'd' || (t == 'I' && v) || (t == 'D' && isfinite(v)))
      cJSON_AddNumberToObject(o, f->key, v);
  }
  return o;
}

/* The record of an object into rec (zeroed): NULL, or the key that is bad
 * (of type 's', 'p' or 'k' missing or none of its values, a text too long). */
static const char *record_of(const cJSON *o, const jfield *f, void *rec) {
  for (; f->key; f++) {
    char *p = (char *)rec + f->off, t = f->type;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, f->key);
    const char *s = cJSON_IsString(v) ? v->valuestring : NULL;
    const double x = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    int64_t i = fabs(x) < 9e18 ? (int64_t)x : cJSON_IsTrue(v);
    cgm_precision q;
    if (t == 'p' && !(s && cgm_precision_parse(s, &q))) return f->key;
    for (i = t == 'p' ? (int64_t)q : t == 'k' ? 0 : i; t == 'k' && s && i <= CGM_FIT_INTERP; i++)
      if (!strcmp(s, cgm_fit_kind_name((int)i))) break;
    if ((t == 'k' && (!s || i > CGM_FIT_INTERP)) || (t == 's' && !s) ||
        ((t == 's' || t == 'S') && s && strlen(s) >= f->size))
      return f->key;
    if (t == 's' || t == 'S')
      snprintf(p, f->size, "%s", s ? s : "");
    else if (t == 'd' || t == 'D')
      *(double *)p = x;
    else if (f->size == 8)
      *(int64_t *)p = i;
    else if (f->size == 4)
      *(int *)p = (int)i;
    else
      *(bool *)p = i != 0;
  }
  return NULL;
}

static cJSON *device_json(const cgm_db_device *d) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "id", (double)d->id);
  char cc[32];
  snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
  if (!strcmp(d->kind, "cuda")) json_add_string(o, "compute_capability", cc);
  return record_json(o, device_keys, d);
}

/* A calibration with its device. */
static cJSON *calibration_json(const cgm_db_calibration *c, const cgm_db_device *d) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "id", (double)c->id);
  record_json(o, calibration_keys, c);
  cJSON *opt = cJSON_Parse(c->options);
  if (opt) cJSON_AddItemToObject(o, "options", opt);
  cJSON_AddItemToObject(o, "device", device_json(d));
  return o;
}

static int add_calibration(const cgm_db_calibration *c, const cgm_db_device *d, void *ctx) {
  cJSON_AddItemToArray((cJSON *)ctx, calibration_json(c, d));
  return 0;
}

static int add_sample(const cgm_db_sample *s, void *ctx) {
  cJSON *o = record_json(cJSON_CreateObject(), sample_keys, s);
  cJSON_AddNumberToObject(o, "gbps", cgm_sample_gbps(s));
  cJSON_AddItemToArray((cJSON *)ctx, o);
  return 0;
}

/* A listing's callback `name`: each record of type T the object of its keys, in the array ctx. */
#define ADD(name, T, keys)                                                                         \
  static int name(const T *rec, void *ctx) {                                                       \
    cJSON_AddItemToArray((cJSON *)ctx, record_json(cJSON_CreateObject(), keys, rec));              \
    return 0;                                                                                      \
  }
ADD(add_fit, cgm_db_fit, fit_keys)
ADD(add_coef, cgm_db_coef, coef_keys)
ADD(add_solve, cgm_db_solve, solve_keys)

/* {key: []}, and the array a listing fills. */
static cJSON *listing(const char *key, cJSON **arr) {
  cJSON *o = cJSON_CreateObject();
  *arr = cJSON_AddArrayToObject(o, key);
  return o;
}

/* o into *out once its listing (st) is done; deleted where it failed (*out NULL). */
static cgm_status listed(cgm_status st, cJSON *o, cJSON **out) {
  if (st) cJSON_Delete(o);
  *out = st ? NULL : o;
  return st;
}

cgm_status cgm_db_calibrations_json(cgm_db *db, cJSON **out, cgm_error *err) {
  cJSON *arr, *o = listing("calibrations", &arr);
  return listed(cgm_db_calibrations(db, add_calibration, arr, err), o, out);
}

cgm_status cgm_db_solves_json(cgm_db *db, cJSON **out, cgm_error *err) {
  cJSON *arr, *o = listing("solves", &arr);
  return listed(cgm_db_solves(db, add_solve, arr, err), o, out);
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
  if (!st && samples)
    st = cgm_db_coefs(db, id, add_coef, cJSON_AddArrayToObject(o, "coefficients"), err);
  return listed(st, o, out);
}

/* A calibration is the same by its device (kind, model, host) and when it was made. */
typedef struct {
  const cgm_db_device *d;
  const char *created;
  int64_t id;
} same_ctx;

static int find_same(const cgm_db_calibration *c, const cgm_db_device *d, void *ctx) {
  same_ctx *s = ctx;
  if (!strcmp(c->created, s->created) && !strcmp(d->kind, s->d->kind) &&
      !strcmp(d->model, s->d->model) && !strcmp(d->host, s->d->host))
    s->id = c->id;
  return s->id != 0;
}

/* The device and the calibration of an export; false when it is none. */
static bool import_head(const cJSON *j, cgm_db_device *d, cgm_db_calibration *cal) {
  const cJSON *dj = cJSON_GetObjectItemCaseSensitive(j, "device"),
              *cc = cJSON_GetObjectItemCaseSensitive(dj, "compute_capability");
  memset(d, 0, sizeof *d);
  memset(cal, 0, sizeof *cal);
  char *opt = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(j, "options"));
  const bool ok = !record_of(dj, device_keys, d) && !record_of(j, calibration_keys, cal) &&
                  (!strcmp(d->kind, "cpu") || !strcmp(d->kind, "cuda")) && opt &&
                  strlen(opt) < sizeof cal->options &&
                  cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(j, "fits")) &&
                  cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(j, "samples"));
  snprintf(cal->options, sizeof cal->options, "%s", ok ? opt : "");
  cJSON_free(opt);
  if (cJSON_IsString(cc)) sscanf(cc->valuestring, "%d.%d", &d->cc_major, &d->cc_minor);
  return ok;
}

cgm_status cgm_db_import(cgm_db *db, const char *path, int64_t *id, cgm_error *err) {
  *id = 0;
  cJSON *j = NULL;
  cgm_status st = json_read_file(path, &j, err);
  cgm_db_device d;
  cgm_db_calibration cal;
  if (!st && !import_head(j, &d, &cal))
    st = cgm_fail(err, CGM_EINPUT,
                  "%s: not a calibration as 'cgmodel db export' writes it (a device with its "
                  "kind, model and host; created, options, fits and samples)",
                  path);
  same_ctx same = {&d, cal.created, 0};
  if (!st) st = cgm_db_calibrations(db, find_same, &same, err);
  if (!st && same.id)
    st = cgm_fail(err, CGM_EINPUT,
                  "%s: this calibration of %s on %s (made %s) is calibration %lld of %s already: "
                  "nothing imported",
                  path, d.model, d.host, cal.created, (long long)same.id, cgm_db_path(db));
  if (!st && !(st = cgm_db_begin(db, err))) { /* all of it, or nothing */
    if (!(st = cgm_db_device_get_or_add(db, &d, err))) cal.device_id = d.id;
    if (!st) st = cgm_db_calibration_add(db, &cal, err);
    static const char *const keys[] = {"samples", "fits", "coefficients"};
    static const jfield *const fields[] = {sample_keys, fit_keys, coef_keys};
    for (int k = 0, i = 0; k < 3 && !st; k++, i = 0) {
      const cJSON *e;
      cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(j, keys[k])) {
        union {
          cgm_db_sample s;
          cgm_db_fit f;
          cgm_db_coef c;
        } u;
        memset(&u, 0, sizeof u);
        const char *bad = record_of(e, fields[k], &u);
        st = bad      ? cgm_fail(err, CGM_EINPUT, "'%s' is missing or not of its kind", bad)
             : k == 0 ? cgm_db_sample_add(db, cal.id, &u.s, err)
             : k == 1 ? cgm_db_fit_add(db, cal.id, &u.f, err)
                      : cgm_db_coef_add(db, cal.id, &u.c, err);
        if (st) {
          cgm_error_prefix(err, "%s: %s[%d]: ", path, keys[k], i);
          break;
        }
        i++;
      }
    }
    st = cgm_db_end(db, st, err);
  }
  if (!st) *id = cal.id;
  cJSON_Delete(j);
  return st;
}
