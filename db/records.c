/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Inserts and queries of the records of cgmodel/db.h, all through prepared
 * statements. SQLite stores NaN as NULL; every REAL read turns NULL back
 * into NaN. Ids of 0 mean "none" and are stored as NULL. */
#define _POSIX_C_SOURCE 200809L
#include "db/db_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------- binding, reading --- */

/* Binds parameters 1, 2, ... in order and keeps the first error. */
typedef struct binder {
  sqlite3_stmt *st;
  int i;
  int rc;
} binder;

static void b_int(binder *b, int64_t v) {
  b->i++;
  if (b->rc == SQLITE_OK) b->rc = sqlite3_bind_int64(b->st, b->i, v);
}

static void b_double(binder *b, double v) {
  b->i++;
  if (b->rc == SQLITE_OK) b->rc = sqlite3_bind_double(b->st, b->i, v);
}

/* A fixed-size struct field: it need not be NUL-terminated. */
static void b_text(binder *b, const char *s, size_t cap) {
  b->i++;
  if (b->rc == SQLITE_OK)
    b->rc =
        sqlite3_bind_text(b->st, b->i, s ? s : "", s ? (int)strnlen(s, cap) : 0, SQLITE_TRANSIENT);
}
#define B_FIELD(b, field) b_text((b), (field), sizeof(field))

/* An id where 0 means none. */
static void b_ref(binder *b, int64_t id) {
  b->i++;
  if (b->rc == SQLITE_OK)
    b->rc = id > 0 ? sqlite3_bind_int64(b->st, b->i, id) : sqlite3_bind_null(b->st, b->i);
}

/* Reads columns 0, 1, ... in order. */
typedef struct reader {
  sqlite3_stmt *st;
  int i;
} reader;

static int64_t r_int64(reader *r) {
  return sqlite3_column_int64(r->st, r->i++);
}
static int r_int(reader *r) {
  return (int)sqlite3_column_int64(r->st, r->i++);
}
static double r_double(reader *r) {
  int i = r->i++;
  return sqlite3_column_type(r->st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(r->st, i);
}
static void r_text(reader *r, char *dst, size_t size) {
  int i = r->i++;
  cgm_db__copy(dst, size, (const char *)sqlite3_column_text(r->st, i));
}
#define R_FIELD(r, field) r_text((r), (field), sizeof(field))

/* Prepares sql and binds nothing yet. */
static cgm_status start(cgm_db *db, const char *sql, binder *b, cgm_error *err) {
  b->st = NULL;
  b->i = 0;
  b->rc = SQLITE_OK;
  if (!db) return cgm_fail(err, CGM_EINPUT, "no database");
  return cgm_db__prepare(db, sql, &b->st, err);
}

/* Steps a statement that returns no rows, finalizes it. */
static cgm_status run(cgm_db *db, binder *b, const char *what, cgm_error *err) {
  int rc = b->rc == SQLITE_OK ? sqlite3_step(b->st) : b->rc;
  /* finalize keeps the error message on the connection for sqlfail. */
  sqlite3_finalize(b->st);
  b->st = NULL;
  if (rc == SQLITE_DONE || rc == SQLITE_OK) return CGM_OK;
  return cgm_db__sqlfail(db, err, rc, what);
}

/* Steps a query to its first row: CGM_OK with *found. The statement stays
 * open for reading (finalize it) unless an error is returned. */
static cgm_status first_row(cgm_db *db, binder *b, bool *found, const char *what, cgm_error *err) {
  int rc = b->rc == SQLITE_OK ? sqlite3_step(b->st) : b->rc;
  *found = rc == SQLITE_ROW;
  if (rc == SQLITE_ROW || rc == SQLITE_DONE) return CGM_OK;
  sqlite3_finalize(b->st);
  b->st = NULL;
  return cgm_db__sqlfail(db, err, rc, what);
}

/* Calls row(st, ctx) for every row until it returns non-zero, finalizes. */
static cgm_status each_row(cgm_db *db, binder *b, int (*row)(sqlite3_stmt *st, void *ctx),
                           void *ctx, const char *what, cgm_error *err) {
  int rc = b->rc;
  while (rc == SQLITE_OK || rc == SQLITE_ROW) {
    rc = sqlite3_step(b->st);
    if (rc == SQLITE_ROW && row(b->st, ctx)) {
      rc = SQLITE_DONE;
      break;
    }
  }
  sqlite3_finalize(b->st);
  b->st = NULL;
  return rc == SQLITE_DONE ? CGM_OK : cgm_db__sqlfail(db, err, rc, what);
}

/* ------------------------------------------------------------- devices --- */

#define DEVICE_COLS                                                                                \
  "id, name, model, kind, cc_major, cc_minor, sms, threads, mem_total, clock_khz, "                \
  "mem_clock_khz, bus_width_bits, driver_version, runtime_version, host"

static void read_device(reader *r, cgm_db_device *d) {
  memset(d, 0, sizeof *d);
  d->id = r_int64(r);
  R_FIELD(r, d->name);
  R_FIELD(r, d->model);
  R_FIELD(r, d->kind);
  d->cc_major = r_int(r);
  d->cc_minor = r_int(r);
  d->sms = r_int(r);
  d->threads = r_int(r);
  d->mem_total = r_int64(r);
  d->clock_khz = r_int(r);
  d->mem_clock_khz = r_int(r);
  d->bus_width_bits = r_int(r);
  d->driver_version = r_int(r);
  d->runtime_version = r_int(r);
  R_FIELD(r, d->host);
}

/* Looks up the id of the row matching a unique key: *id = 0 when absent. */
static cgm_status find_id(cgm_db *db, binder *b, int64_t *id, const char *what, cgm_error *err) {
  bool found = false;
  cgm_status s = first_row(db, b, &found, what, err);
  if (s != CGM_OK) return s;
  *id = found ? sqlite3_column_int64(b->st, 0) : 0;
  sqlite3_finalize(b->st);
  b->st = NULL;
  return CGM_OK;
}

static cgm_status device_find(cgm_db *db, const cgm_db_device *dev, int64_t *id, cgm_error *err) {
  binder b;
  cgm_status s =
      start(db, "SELECT id FROM devices WHERE kind = ? AND model = ? AND host = ?", &b, err);
  if (s != CGM_OK) return s;
  B_FIELD(&b, dev->kind);
  B_FIELD(&b, dev->model);
  B_FIELD(&b, dev->host);
  return find_id(db, &b, id, "looking up a device", err);
}

cgm_status cgm_db_device_get_or_add(cgm_db *db, cgm_db_device *dev, cgm_error *err) {
  if (!db || !dev)
    return cgm_fail(err, CGM_EINPUT, "cgm_db_device_get_or_add: no database or device");
  /* Looking first lets a read-only database find a known device. */
  int64_t id = 0;
  cgm_status s = device_find(db, dev, &id, err);
  if (s != CGM_OK || id > 0) {
    if (s == CGM_OK) dev->id = id;
    return s;
  }
  s = cgm_db__writable(db, err);
  if (s != CGM_OK) return s;
  binder b;
  /* DO NOTHING: another process may add the same device between the two
   * statements; the second lookup then finds its row. */
  s = start(db,
            "INSERT INTO devices (name, model, kind, cc_major, cc_minor, sms, threads, mem_total, "
            "clock_khz, mem_clock_khz, bus_width_bits, driver_version, runtime_version, host) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (kind, model, host) DO NOTHING",
            &b, err);
  if (s != CGM_OK) return s;
  B_FIELD(&b, dev->name);
  B_FIELD(&b, dev->model);
  B_FIELD(&b, dev->kind);
  b_int(&b, dev->cc_major);
  b_int(&b, dev->cc_minor);
  b_int(&b, dev->sms);
  b_int(&b, dev->threads);
  b_int(&b, dev->mem_total);
  b_int(&b, dev->clock_khz);
  b_int(&b, dev->mem_clock_khz);
  b_int(&b, dev->bus_width_bits);
  b_int(&b, dev->driver_version);
  b_int(&b, dev->runtime_version);
  B_FIELD(&b, dev->host);
  s = run(db, &b, "adding a device", err);
  if (s == CGM_OK) s = device_find(db, dev, &id, err);
  if (s == CGM_OK && id <= 0)
    s = cgm_fail(err, CGM_ERUNTIME, "%s: the device just added is missing", db->path);
  if (s == CGM_OK) dev->id = id;
  return s;
}

cgm_status cgm_db_device_get(cgm_db *db, int64_t id, cgm_db_device *d, cgm_error *err) {
  if (!d) return cgm_fail(err, CGM_EINPUT, "cgm_db_device_get: no output");
  binder b;
  cgm_status s = start(db, "SELECT " DEVICE_COLS " FROM devices WHERE id = ?", &b, err);
  if (s != CGM_OK) return s;
  b_int(&b, id);
  bool found = false;
  s = first_row(db, &b, &found, "reading a device", err);
  if (s != CGM_OK) return s;
  if (found) {
    reader r = {b.st, 0};
    read_device(&r, d);
  }
  sqlite3_finalize(b.st);
  return found ? CGM_OK
               : cgm_fail(err, CGM_EINPUT, "%s: no device with id %lld", db->path, (long long)id);
}

/* -------------------------------------------------------- calibrations --- */

#define CAL_COLS "id, device_id, created, tool_version, options, seconds, complete, interconnect"

static void read_calibration(reader *r, cgm_db_calibration *c) {
  memset(c, 0, sizeof *c);
  c->id = r_int64(r);
  c->device_id = r_int64(r);
  R_FIELD(r, c->created);
  R_FIELD(r, c->tool_version);
  R_FIELD(r, c->options);
  c->seconds = r_double(r);
  c->complete = r_int(r);
  R_FIELD(r, c->interconnect);
}

cgm_status cgm_db_calibration_add(cgm_db *db, cgm_db_calibration *cal, cgm_error *err) {
  if (!db || !cal)
    return cgm_fail(err, CGM_EINPUT, "cgm_db_calibration_add: no database or calibration");
  cgm_status s = cgm_db__writable(db, err);
  if (s != CGM_OK) return s;
  if (!cal->created[0]) cgm_db__now(cal->created, sizeof cal->created);
  binder b;
  s = start(
      db,
      "INSERT INTO calibrations (device_id, created, tool_version, options, seconds, complete, "
      "interconnect) VALUES (?, ?, ?, ?, ?, ?, ?)",
      &b, err);
  if (s != CGM_OK) return s;
  b_int(&b, cal->device_id);
  B_FIELD(&b, cal->created);
  B_FIELD(&b, cal->tool_version);
  B_FIELD(&b, cal->options);
  b_double(&b, cal->seconds);
  b_int(&b, cal->complete ? 1 : 0);
  B_FIELD(&b, cal->interconnect);
  char what[80];
  snprintf(what, sizeof what, "adding a calibration of device %lld", (long long)cal->device_id);
  s = run(db, &b, what, err);
  if (s == CGM_OK) cal->id = sqlite3_last_insert_rowid(db->h);
  return s;
}

cgm_status cgm_db_calibration_finish(cgm_db *db, int64_t cal_id, double seconds, cgm_error *err) {
  if (!db) return cgm_fail(err, CGM_EINPUT, "no database");
  cgm_status s = cgm_db__writable(db, err);
  if (s != CGM_OK) return s;
  binder b;
  s = start(db, "UPDATE calibrations SET complete = 1, seconds = ? WHERE id = ?", &b, err);
  if (s != CGM_OK) return s;
  b_double(&b, seconds);
  b_int(&b, cal_id);
  s = run(db, &b, "marking a calibration complete", err);
  if (s == CGM_OK && sqlite3_changes(db->h) == 0)
    s = cgm_fail(err, CGM_EINPUT, "%s: no calibration with id %lld", db->path, (long long)cal_id);
  return s;
}

/* One calibration from a query with CAL_COLS and one bound id. */
static cgm_status calibration_one(cgm_db *db, const char *sql, int64_t id, cgm_db_calibration *c,
                                  bool *found, cgm_error *err) {
  binder b;
  cgm_status s = start(db, sql, &b, err);
  if (s != CGM_OK) return s;
  if (id > 0) b_int(&b, id);
  s = first_row(db, &b, found, "reading a calibration", err);
  if (s != CGM_OK) return s;
  if (*found) {
    reader r = {b.st, 0};
    read_calibration(&r, c);
  }
  sqlite3_finalize(b.st);
  return CGM_OK;
}

cgm_status cgm_db_calibration_get(cgm_db *db, int64_t id, cgm_db_calibration *c, cgm_error *err) {
  if (!c) return cgm_fail(err, CGM_EINPUT, "cgm_db_calibration_get: no output");
  if (id <= 0) return cgm_fail(err, CGM_EINPUT, "no calibration with id %lld", (long long)id);
  bool found = false;
  cgm_status s =
      calibration_one(db, "SELECT " CAL_COLS " FROM calibrations WHERE id = ?", id, c, &found, err);
  if (s != CGM_OK || found) return s;
  return cgm_fail(err, CGM_EINPUT, "%s: no calibration with id %lld", db->path, (long long)id);
}

typedef struct cal_iter {
  int (*fn)(const cgm_db_calibration *c, const cgm_db_device *d, void *ctx);
  void *ctx;
} cal_iter;

static int cal_row(sqlite3_stmt *st, void *ctx) {
  cal_iter *it = ctx;
  cgm_db_calibration c;
  cgm_db_device d;
  reader r = {st, 0};
  read_calibration(&r, &c);
  read_device(&r, &d);
  return it->fn(&c, &d, it->ctx);
}

cgm_status cgm_db_calibrations(cgm_db *db,
                               int (*fn)(const cgm_db_calibration *c, const cgm_db_device *d,
                                         void *ctx),
                               void *ctx, cgm_error *err) {
  if (!fn) return cgm_fail(err, CGM_EINPUT, "cgm_db_calibrations: no callback");
  binder b;
  cgm_status s = start(
      db,
      "SELECT c.id, c.device_id, c.created, c.tool_version, c.options, c.seconds, "
      "c.complete, c.interconnect, d.id, d.name, d.model, d.kind, d.cc_major, d.cc_minor, d.sms, "
      "d.threads, d.mem_total, d.clock_khz, d.mem_clock_khz, d.bus_width_bits, "
      "d.driver_version, d.runtime_version, d.host "
      "FROM calibrations c JOIN devices d ON d.id = c.device_id "
      "ORDER BY c.created DESC, c.id DESC",
      &b, err);
  if (s != CGM_OK) return s;
  cal_iter it = {fn, ctx};
  return each_row(db, &b, cal_row, &it, "listing calibrations", err);
}

/* ------------------------------------------------------------- samples --- */

cgm_status cgm_db_sample_add(cgm_db *db, int64_t cal_id, const cgm_db_sample *smp, cgm_error *err) {
  if (!db || !smp) return cgm_fail(err, CGM_EINPUT, "cgm_db_sample_add: no database or sample");
  cgm_status s = cgm_db__writable(db, err);
  if (s != CGM_OK) return s;
  /* NaN would become NULL and break the NOT NULL columns with a vaguer
   * message; a non-finite measurement is a caller's bug. */
  if (!isfinite(smp->m) || !isfinite(smp->bytes) || !isfinite(smp->seconds))
    return cgm_fail(err, CGM_EINPUT,
                    "%s: sample of %.32s has a non-finite value (m %g, bytes %g, "
                    "seconds %g)",
                    db->path, smp->kernel, smp->m, smp->bytes, smp->seconds);
  binder b;
  s = start(db,
            "INSERT INTO samples (calibration_id, kernel, variant, precision, block, m, bytes, "
            "seconds, source, spread, unsettled) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            &b, err);
  if (s != CGM_OK) return s;
  b_int(&b, cal_id);
  B_FIELD(&b, smp->kernel);
  B_FIELD(&b, smp->variant);
  b_int(&b, smp->precision);
  b_int(&b, smp->block);
  b_double(&b, smp->m);
  b_double(&b, smp->bytes);
  b_double(&b, smp->seconds);
  B_FIELD(&b, smp->source);
  b_double(&b, smp->spread);
  b_int(&b, smp->unsettled);
  char what[80];
  snprintf(what, sizeof what, "adding a sample to calibration %lld", (long long)cal_id);
  return run(db, &b, what, err);
}

typedef struct sample_iter {
  int (*fn)(const cgm_db_sample *s, void *ctx);
  void *ctx;
} sample_iter;

static int sample_row(sqlite3_stmt *st, void *ctx) {
  sample_iter *it = ctx;
  cgm_db_sample smp;
  memset(&smp, 0, sizeof smp);
  reader r = {st, 0};
  R_FIELD(&r, smp.kernel);
  R_FIELD(&r, smp.variant);
  smp.precision = r_int(&r);
  smp.block = r_int(&r);
  smp.m = r_double(&r);
  smp.bytes = r_double(&r);
  smp.seconds = r_double(&r);
  R_FIELD(&r, smp.source);
  smp.spread = r_double(&r);
  smp.unsettled = r_int(&r) != 0;
  return it->fn(&smp, it->ctx);
}

cgm_status cgm_db_samples(cgm_db *db, int64_t cal_id, int (*fn)(const cgm_db_sample *s, void *ctx),
                          void *ctx, cgm_error *err) {
  if (!fn) return cgm_fail(err, CGM_EINPUT, "cgm_db_samples: no callback");
  binder b;
  cgm_status s = start(db,
                       "SELECT kernel, variant, precision, block, m, bytes, seconds, source, "
                       "spread, unsettled FROM samples WHERE calibration_id = ? ORDER BY id",
                       &b, err);
  if (s != CGM_OK) return s;
  b_int(&b, cal_id);
  sample_iter it = {fn, ctx};
  return each_row(db, &b, sample_row, &it, "reading samples", err);
}

/* ---------------------------------------------------------------- fits --- */

#define FIT_COLS                                                                                   \
  "kernel, variant, precision, block, kind, mu, sigma, nu, se_mu, se_sigma, se_nu, r2, rms, n, "   \
  "converged, message, m_lo, m_hi"

static void read_fit(reader *r, cgm_db_fit *f) {
  memset(f, 0, sizeof *f);
  R_FIELD(r, f->kernel);
  R_FIELD(r, f->variant);
  f->precision = r_int(r);
  f->block = r_int(r);
  f->kind = r_int(r);
  f->mu = r_double(r);
  f->sigma = r_double(r);
  f->nu = r_double(r);
  f->se_mu = r_double(r);
  f->se_sigma = r_double(r);
  f->se_nu = r_double(r);
  f->r2 = r_double(r);
  f->rms = r_double(r);
  f->n = r_int(r);
  f->converged = r_int(r);
  R_FIELD(r, f->message);
  f->m_lo = r_double(r);
  f->m_hi = r_double(r);
}

cgm_status cgm_db_fit_add(cgm_db *db, int64_t cal_id, const cgm_db_fit *f, cgm_error *err) {
  if (!db || !f) return cgm_fail(err, CGM_EINPUT, "cgm_db_fit_add: no database or fit");
  cgm_status s = cgm_db__writable(db, err);
  if (s != CGM_OK) return s;
  binder b;
  s = start(db,
            "INSERT INTO fits (calibration_id, " FIT_COLS ") "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            &b, err);
  if (s != CGM_OK) return s;
  b_int(&b, cal_id);
  B_FIELD(&b, f->kernel);
  B_FIELD(&b, f->variant);
  b_int(&b, f->precision);
  b_int(&b, f->block);
  b_int(&b, f->kind);
  b_double(&b, f->mu);
  b_double(&b, f->sigma);
  b_double(&b, f->nu);
  b_double(&b, f->se_mu);
  b_double(&b, f->se_sigma);
  b_double(&b, f->se_nu);
  b_double(&b, f->r2);
  b_double(&b, f->rms);
  b_int(&b, f->n);
  b_int(&b, f->converged ? 1 : 0);
  B_FIELD(&b, f->message);
  b_double(&b, f->m_lo);
  b_double(&b, f->m_hi);
  char what[160];
  snprintf(what, sizeof what,
           "adding the fit of %.32s/%.32s (precision %d, block %d, kind %d) to "
           "calibration %lld",
           f->kernel, f->variant, f->precision, f->block, f->kind, (long long)cal_id);
  return run(db, &b, what, err);
}

cgm_status cgm_db_fits_delete(cgm_db *db, int64_t cal_id, cgm_error *err) {
  if (!db) return cgm_fail(err, CGM_EINPUT, "no database");
  cgm_status s = cgm_db__writable(db, err);
  if (s != CGM_OK) return s;
  binder b;
  s = start(db, "DELETE FROM fits WHERE calibration_id = ?", &b, err);
  if (s != CGM_OK) return s;
  b_int(&b, cal_id);
  char what[80];
  snprintf(what, sizeof what, "deleting the fits of calibration %lld", (long long)cal_id);
  return run(db, &b, what, err);
}

/* -------------------------------------------------------- coefficients --- */

cgm_status cgm_db_coef_add(cgm_db *db, int64_t cal_id, const cgm_db_coef *c, cgm_error *err) {
  if (!db || !c) return cgm_fail(err, CGM_EINPUT, "cgm_db_coef_add: no database or coefficient");
  cgm_status s = cgm_db__writable(db, err);
  if (s != CGM_OK) return s;
  binder b;
  s = start(db,
            "INSERT OR REPLACE INTO coefficients (calibration_id, name, precision, value, rms, n) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            &b, err);
  if (s != CGM_OK) return s;
  b_int(&b, cal_id);
  B_FIELD(&b, c->name);
  b_int(&b, c->precision);
  b_double(&b, c->value);
  b_double(&b, c->rms);
  b_int(&b, c->n);
  char what[128];
  snprintf(what, sizeof what, "adding the coefficient %.32s (precision %d) to calibration %lld",
           c->name, c->precision, (long long)cal_id);
  return run(db, &b, what, err);
}

typedef struct coef_iter {
  int (*fn)(const cgm_db_coef *c, void *ctx);
  void *ctx;
} coef_iter;

static int coef_row(sqlite3_stmt *st, void *ctx) {
  coef_iter *it = ctx;
  cgm_db_coef c;
  memset(&c, 0, sizeof c);
  reader r = {st, 0};
  R_FIELD(&r, c.name);
  c.precision = r_int(&r);
  c.value = r_double(&r);
  c.rms = r_double(&r);
  c.n = r_int(&r);
  return it->fn(&c, it->ctx);
}

cgm_status cgm_db_coefs(cgm_db *db, int64_t cal_id, int (*fn)(const cgm_db_coef *c, void *ctx),
                        void *ctx, cgm_error *err) {
  if (!fn) return cgm_fail(err, CGM_EINPUT, "cgm_db_coefs: no callback");
  binder b;
  cgm_status s = start(db,
                       "SELECT name, precision, value, rms, n FROM coefficients WHERE "
                       "calibration_id = ? ORDER BY precision, name",
                       &b, err);
  if (s != CGM_OK) return s;
  b_int(&b, cal_id);
  coef_iter it = {fn, ctx};
  return each_row(db, &b, coef_row, &it, "reading coefficients", err);
}

typedef struct fit_iter {
  int (*fn)(const cgm_db_fit *f, void *ctx);
  void *ctx;
} fit_iter;

static int fit_row(sqlite3_stmt *st, void *ctx) {
  fit_iter *it = ctx;
  cgm_db_fit f;
  reader r = {st, 0};
  read_fit(&r, &f);
  return it->fn(&f, it->ctx);
}

cgm_status cgm_db_fits(cgm_db *db, int64_t cal_id, int (*fn)(const cgm_db_fit *f, void *ctx),
                       void *ctx, cgm_error *err) {
  if (!fn) return cgm_fail(err, CGM_EINPUT, "cgm_db_fits: no callback");
  binder b;
  cgm_status s =
      start(db, "SELECT " FIT_COLS " FROM fits WHERE calibration_id = ? ORDER BY id", &b, err);
  if (s != CGM_OK) return s;
  b_int(&b, cal_id);
  fit_iter it = {fn, ctx};
  return each_row(db, &b, fit_row, &it, "reading fits", err);
}

/* ------------------------------------------- matrices, predictions, solves --- */

static cgm_status matrix_find(cgm_db *db, const cgm_db_matrix *m, int64_t *id, cgm_error *err) {
  binder b;
  cgm_status s =
      start(db, "SELECT id FROM matrices WHERE name = ? AND file_bytes = ? AND x = ? AND nnz = ?",
            &b, err);
  if (s != CGM_OK) return s;
  B_FIELD(&b, m->name);
  b_int(&b, m->file_bytes);
  b_int(&b, m->x);
  b_int(&b, m->nnz);
  return find_id(db, &b, id, "looking up a matrix", err);
}

cgm_status cgm_db_matrix_find(cgm_db *db, cgm_db_matrix *m, cgm_error *err) {
  if (!db || !m) return cgm_fail(err, CGM_EINPUT, "cgm_db_matrix_find: no database or matrix");
  int64_t id = 0;
  cgm_status s = matrix_find(db, m, &id, err);
  m->id = s == CGM_OK && id > 0 ? id : 0;
  return s;
}

cgm_status cgm_db_matrix_get_or_add(cgm_db *db, cgm_db_matrix *m, cgm_error *err) {
  if (!db || !m)
    return cgm_fail(err, CGM_EINPUT, "cgm_db_matrix_get_or_add: no database or matrix");
  int64_t id = 0;
  cgm_status s = matrix_find(db, m, &id, err);
  binder b;
  if (s == CGM_OK && id > 0) {
    m->id = id;
    if (!m->content_id || cgm_db__writable(db, NULL)) return CGM_OK;
    if ((s = start(db, "UPDATE matrices SET content_id = ? WHERE id = ? AND content_id = 0", &b,
                   err)))
      return s;
    b_int(&b, m->content_id);
    b_int(&b, id);
    return run(db, &b, "recording a matrix's content", err);
  }
  if (s != CGM_OK) return s;
  s = cgm_db__writable(db, err);
  if (s != CGM_OK) return s;
  s = start(db,
            "INSERT INTO matrices (name, path, file_bytes, x, nnz, features, content_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name, file_bytes, x, nnz) DO NOTHING",
            &b, err);
  if (s != CGM_OK) return s;
  B_FIELD(&b, m->name);
  B_FIELD(&b, m->path);
  b_int(&b, m->file_bytes);
  b_int(&b, m->x);
  b_int(&b, m->nnz);
  B_FIELD(&b, m->features);
  b_int(&b, m->content_id);
  s = run(db, &b, "adding a matrix", err);
  if (s == CGM_OK) s = matrix_find(db, m, &id, err);
  if (s == CGM_OK && id <= 0)
    s = cgm_fail(err, CGM_ERUNTIME, "%s: the matrix just added is missing", db->path);
  if (s == CGM_OK) m->id = id;
  return s;
}

cgm_status cgm_db_prediction_add(cgm_db *db, cgm_db_prediction *p, cgm_error *err) {
  if (!db || !p)
    return cgm_fail(err, CGM_EINPUT, "cgm_db_prediction_add: no database or prediction");
  cgm_status s = cgm_db__writable(db, err);
  if (s != CGM_OK) return s;
  if (!p->created[0]) cgm_db__now(p->created, sizeof p->created);
  binder b;
  s = start(db,
            "INSERT INTO predictions (matrix_id, calibration_id, created, backend, precision, "
            "block, gpus, time_per_iter_s, gflops_raw, gflops_real, memory_bytes, fits, model) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            &b, err);
  if (s != CGM_OK) return s;
  b_int(&b, p->matrix_id);
  b_ref(&b, p->calibration_id);
  B_FIELD(&b, p->created);
  B_FIELD(&b, p->backend);
  B_FIELD(&b, p->precision);
  b_int(&b, p->block);
  b_int(&b, p->gpus);
  b_double(&b, p->time_per_iter_s);
  b_double(&b, p->gflops_raw);
  b_double(&b, p->gflops_real);
  b_int(&b, p->memory_bytes);
  b_int(&b, p->fits ? 1 : 0);
  B_FIELD(&b, p->model);
  s = run(db, &b, "adding a prediction", err);
  if (s == CGM_OK) p->id = sqlite3_last_insert_rowid(db->h);
  return s;
}

cgm_status cgm_db_solve_add(cgm_db *db, cgm_db_solve *sv, cgm_error *err) {
  if (!db || !sv) return cgm_fail(err, CGM_EINPUT, "cgm_db_solve_add: no database or solve");
  cgm_status s = cgm_db__writable(db, err);
  if (s != CGM_OK) return s;
  if (!sv->created[0]) cgm_db__now(sv->created, sizeof sv->created);
  binder b;
  s = start(
      db,
      "INSERT INTO solves (matrix_id, calibration_id, created, backend, precision, exchange, "
      "devices, block, bx, gpus, iterations, converged, relative_residual, "
      "time_per_iter_s, predicted_time_per_iter_s, model, options, time_setup_s, layout_bytes, "
      "precond, layout_on_device, disturbed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
      "?, ?, ?, ?, ?, ?, ?)",
      &b, err);
  if (s != CGM_OK) return s;
  b_int(&b, sv->matrix_id);
  b_ref(&b, sv->calibration_id);
  B_FIELD(&b, sv->created);
  B_FIELD(&b, sv->backend);
  B_FIELD(&b, sv->precision);
  B_FIELD(&b, sv->exchange);
  B_FIELD(&b, sv->devices);
  b_int(&b, sv->block);
  b_int(&b, sv->bx);
  b_int(&b, sv->gpus);
  b_int(&b, sv->iterations);
  b_int(&b, sv->converged ? 1 : 0);
  b_double(&b, sv->relative_residual);
  b_double(&b, sv->time_per_iter_s);
  b_double(&b, sv->predicted_time_per_iter_s); /* NaN -> NULL */
  B_FIELD(&b, sv->model);
  if (!sv->options[0]) snprintf(sv->options, sizeof sv->options, "{}");
  B_FIELD(&b, sv->options);
  b_double(&b, sv->time_setup_s);
  b_int(&b, sv->layout_bytes);
  if (!sv->precond[0]) snprintf(sv->precond, sizeof sv->precond, "jacobi");
  B_FIELD(&b, sv->precond);
  b_int(&b, sv->layout_on_device ? 1 : 0);
  b_int(&b, sv->disturbed ? 1 : 0);
  s = run(db, &b, "adding a solve", err);
  if (s == CGM_OK) sv->id = sqlite3_last_insert_rowid(db->h);
  return s;
}

typedef struct solve_iter {
  int (*fn)(const cgm_db_solve *s, void *ctx);
  void *ctx;
} solve_iter;

static int solve_row(sqlite3_stmt *st, void *ctx) {
  solve_iter *it = ctx;
  cgm_db_solve sv;
  memset(&sv, 0, sizeof sv);
  reader r = {st, 0};
  sv.id = r_int64(&r);
  sv.matrix_id = r_int64(&r);
  sv.calibration_id = r_int64(&r); /* NULL reads as 0: none */
  R_FIELD(&r, sv.created);
  R_FIELD(&r, sv.backend);
  R_FIELD(&r, sv.precision);
  R_FIELD(&r, sv.exchange);
  R_FIELD(&r, sv.devices);
  sv.block = r_int(&r);
  sv.bx = r_int(&r);
  sv.gpus = r_int(&r);
  sv.iterations = r_int(&r);
  sv.converged = r_int(&r);
  sv.relative_residual = r_double(&r);
  sv.time_per_iter_s = r_double(&r);
  sv.predicted_time_per_iter_s = r_double(&r);
  R_FIELD(&r, sv.model);
  R_FIELD(&r, sv.options);
  sv.time_setup_s = r_double(&r);
  sv.layout_bytes = r_int64(&r);
  R_FIELD(&r, sv.matrix);
  R_FIELD(&r, sv.precond);
  sv.layout_on_device = r_int(&r) != 0;
  sv.matrix_content = r_int64(&r);
  sv.disturbed = r_int(&r) != 0;
  return it->fn(&sv, it->ctx);
}

cgm_status cgm_db_solves(cgm_db *db, int (*fn)(const cgm_db_solve *s, void *ctx), void *ctx,
                         cgm_error *err) {
  if (!fn) return cgm_fail(err, CGM_EINPUT, "cgm_db_solves: no callback");
  binder b;
  cgm_status s =
      start(db,
            "SELECT s.id, s.matrix_id, s.calibration_id, s.created, s.backend, "
            "s.precision, s.exchange, s.devices, s.block, s.bx, s.gpus, s.iterations, "
            "s.converged, s.relative_residual, s.time_per_iter_s, "
            "s.predicted_time_per_iter_s, s.model, s.options, s.time_setup_s, "
            "s.layout_bytes, m.name, s.precond, s.layout_on_device, m.content_id, s.disturbed "
            "FROM solves s "
            "LEFT JOIN matrices m "
            "ON m.id = s.matrix_id ORDER BY s.id",
            &b, err);
  if (s != CGM_OK) return s;
  solve_iter it = {fn, ctx};
  return each_row(db, &b, solve_row, &it, "reading solves", err);
}

/* ------------------------------------- readers not in cgmodel/db.h --- */

cgm_status cgm_db_matrix_get(cgm_db *db, int64_t id, cgm_db_matrix *m, cgm_error *err) {
  if (!m) return cgm_fail(err, CGM_EINPUT, "cgm_db_matrix_get: no output");
  binder b;
  cgm_status s =
      start(db, "SELECT id, name, path, file_bytes, x, nnz, features FROM matrices WHERE id = ?",
            &b, err);
  if (s != CGM_OK) return s;
  b_int(&b, id);
  bool found = false;
  s = first_row(db, &b, &found, "reading a matrix", err);
  if (s != CGM_OK) return s;
  if (found) {
    memset(m, 0, sizeof *m);
    reader r = {b.st, 0};
    m->id = r_int64(&r);
    R_FIELD(&r, m->name);
    R_FIELD(&r, m->path);
    m->file_bytes = r_int64(&r);
    m->x = (int32_t)r_int64(&r);
    m->nnz = r_int64(&r);
    R_FIELD(&r, m->features);
  }
  sqlite3_finalize(b.st);
  return found ? CGM_OK
               : cgm_fail(err, CGM_EINPUT, "%s: no matrix with id %lld", db->path, (long long)id);
}

typedef struct prediction_iter {
  int (*fn)(const cgm_db_prediction *p, void *ctx);
  void *ctx;
} prediction_iter;

static int prediction_row(sqlite3_stmt *st, void *ctx) {
  prediction_iter *it = ctx;
  cgm_db_prediction p;
  memset(&p, 0, sizeof p);
  reader r = {st, 0};
  p.id = r_int64(&r);
  p.matrix_id = r_int64(&r);
  p.calibration_id = r_int64(&r);
  R_FIELD(&r, p.created);
  R_FIELD(&r, p.backend);
  R_FIELD(&r, p.precision);
  p.block = r_int(&r);
  p.gpus = r_int(&r);
  p.time_per_iter_s = r_double(&r);
  p.gflops_raw = r_double(&r);
  p.gflops_real = r_double(&r);
  p.memory_bytes = r_int64(&r);
  p.fits = r_int(&r);
  R_FIELD(&r, p.model);
  return it->fn(&p, it->ctx);
}

cgm_status cgm_db_predictions(cgm_db *db, int (*fn)(const cgm_db_prediction *p, void *ctx),
                              void *ctx, cgm_error *err) {
  if (!fn) return cgm_fail(err, CGM_EINPUT, "cgm_db_predictions: no callback");
  binder b;
  cgm_status s = start(db,
                       "SELECT id, matrix_id, calibration_id, created, backend, precision, block, "
                       "gpus, time_per_iter_s, gflops_raw, gflops_real, memory_bytes, fits, model "
                       "FROM predictions ORDER BY id",
                       &b, err);
  if (s != CGM_OK) return s;
  prediction_iter it = {fn, ctx};
  return each_row(db, &b, prediction_row, &it, "reading predictions", err);
}
