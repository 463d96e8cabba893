/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Inserts and queries of the records of cgmodel/db.h, all through prepared
 * statements. SQLite stores NaN as NULL; every REAL read turns NULL back
 * into NaN. Ids of 0 mean "none" and are stored as NULL. */
#define _POSIX_C_SOURCE 200809L
#include "db/db_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

/* Reads columns 0, 1, ... in order. */
typedef struct reader {
  sqlite3_stmt *st;
  int i;
} reader;

/* A record's columns in the order of its statements, each a member of its
 * struct: 'i' an integer (int64_t, int or bool by its size), 'b' one stored
 * as 0 or 1, 'r' an id (0: NULL), 'd' a REAL, 't' a text field; 'I' and
 * 'T' an integer and a text that are read but never bound (ids, joins). */
typedef struct {
  char type;
  size_t off, size;
} column;
#define COL(T, m, type)                                                                            \
  { type, offsetof(T, m), sizeof(((T *)0)->m) }

static int64_t int_of(const char *p, size_t size) {
  return size == 8 ? *(const int64_t *)p : size == 4 ? *(const int *)p : *(const bool *)p;
}

/* Binds rec's columns but 'I' and 'T' as the binder's next parameters. A text is a fixed-size
 * struct field: it need not be NUL-terminated. An id ('r') of 0 means none: NULL. */
static void bind_columns(binder *b, const column *c, const void *rec) {
  for (; c->type; c++) {
    const char *p = (const char *)rec + c->off;
    if (c->type == 'I' || c->type == 'T') continue;
    const int i = ++b->i;
    if (b->rc != SQLITE_OK) continue;
    if (c->type == 'd') {
      b->rc = sqlite3_bind_double(b->st, i, *(const double *)p);
    } else if (c->type == 't') {
      b->rc = sqlite3_bind_text(b->st, i, p, (int)strnlen(p, c->size), SQLITE_TRANSIENT);
    } else {
      const int64_t v = int_of(p, c->size);
      b->rc = c->type == 'r' && v <= 0 ? sqlite3_bind_null(b->st, i)
                                       : sqlite3_bind_int64(b->st, i, c->type == 'b' ? v != 0 : v);
    }
  }
}

static void read_columns(reader *r, const column *c, void *rec) {
  for (; c->type; c++) {
    char *p = (char *)rec + c->off;
    const int i = r->i++;
    if (c->type == 'd')
      *(double *)p =
          sqlite3_column_type(r->st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(r->st, i);
    else if (c->type == 't' || c->type == 'T')
      cgm_db__copy(p, c->size, (const char *)sqlite3_column_text(r->st, i));
    else if (c->size == 8)
      *(int64_t *)p = sqlite3_column_int64(r->st, i);
    else if (c->size == 4)
      *(int *)p = (int)sqlite3_column_int64(r->st, i);
    else
      *(bool *)p = sqlite3_column_int64(r->st, i) != 0;
  }
}

/* clang-format off */
#define DV(m, t) COL(cgm_db_device, m, t)
static const column device_cols[] = {DV(id, 'I'), DV(name, 't'), DV(model, 't'), DV(kind, 't'),
    DV(cc_major, 'i'), DV(cc_minor, 'i'), DV(sms, 'i'), DV(threads, 'i'), DV(mem_total, 'i'),
    DV(clock_khz, 'i'), DV(mem_clock_khz, 'i'), DV(bus_width_bits, 'i'),
    DV(driver_version, 'i'), DV(runtime_version, 'i'), DV(host, 't'), {0}};
#define CL(m, t) COL(cgm_db_calibration, m, t)
static const column calibration_cols[] = {CL(id, 'I'), CL(device_id, 'i'), CL(created, 't'),
    CL(tool_version, 't'), CL(options, 't'), CL(seconds, 'd'), CL(complete, 'b'),
    CL(interconnect, 't'), {0}};
#define SM(m, t) COL(cgm_db_sample, m, t)
static const column sample_cols[] = {SM(kernel, 't'), SM(variant, 't'), SM(precision, 'i'),
    SM(block, 'i'), SM(m, 'd'), SM(bytes, 'd'), SM(seconds, 'd'), SM(source, 't'),
    SM(spread, 'd'), SM(unsettled, 'i'), {0}};
#define FT(m, t) COL(cgm_db_fit, m, t)
static const column fit_cols[] = {FT(kernel, 't'), FT(variant, 't'), FT(precision, 'i'),
    FT(block, 'i'), FT(kind, 'i'), FT(mu, 'd'), FT(sigma, 'd'), FT(nu, 'd'), FT(se_mu, 'd'),
    FT(se_sigma, 'd'), FT(se_nu, 'd'), FT(r2, 'd'), FT(rms, 'd'), FT(n, 'i'),
    FT(converged, 'b'), FT(message, 't'), FT(m_lo, 'd'), FT(m_hi, 'd'), {0}};
#define CF(m, t) COL(cgm_db_coef, m, t)
static const column coef_cols[] = {CF(name, 't'), CF(precision, 'i'), CF(value, 'd'),
    CF(rms, 'd'), CF(n, 'i'), {0}};
#define MX(m, t) COL(cgm_db_matrix, m, t)
static const column matrix_cols[] = {MX(id, 'I'), MX(name, 't'), MX(path, 't'), MX(file_bytes, 'i'),
    MX(x, 'i'), MX(nnz, 'i'), MX(features, 't'), MX(content_id, 'i'), {0}};
/* the unique keys the lookups bind */
static const column device_key[] = {DV(kind, 't'), DV(model, 't'), DV(host, 't'), {0}};
static const column matrix_key[] = {MX(name, 't'), MX(file_bytes, 'i'), MX(x, 'i'), MX(nnz, 'i'),
    {0}};
#define SV(m, t) COL(cgm_db_solve, m, t)
static const column solve_cols[] = {SV(id, 'I'), SV(matrix_id, 'i'), SV(calibration_id, 'r'),
    SV(created, 't'), SV(backend, 't'), SV(precision, 't'), SV(exchange, 't'), SV(devices, 't'),
    SV(block, 'i'), SV(bx, 'i'), SV(gpus, 'i'), SV(iterations, 'i'), SV(converged, 'b'),
    SV(relative_residual, 'd'), SV(time_per_iter_s, 'd'), SV(predicted_time_per_iter_s, 'd'),
    SV(model, 't'), SV(options, 't'), SV(time_setup_s, 'd'), SV(layout_bytes, 'i'),
    SV(precond, 't'), SV(layout_on_device, 'i'), SV(disturbed, 'i'), SV(matrix, 'T'),
    SV(matrix_content, 'I'), {0}};
/* clang-format on */

/* The iterator of a listing of records of type T (name##_iter, the callback, its context and
 * whether it asked to stop: a listing of several queries ends) and its row reader for each_row. */
#define ROWS(T, name, cols)                                                                        \
  typedef struct {                                                                                 \
    int (*fn)(const T *rec, void *ctx);                                                            \
    void *ctx;                                                                                     \
    bool stop;                                                                                     \
  } name##_iter;                                                                                   \
  static int name##_row(sqlite3_stmt *st, void *ctx) {                                             \
    name##_iter *it = ctx;                                                                         \
    T rec = {0};                                                                                   \
    read_columns(&(reader){st, 0}, cols, &rec);                                                    \
    return it->stop = it->fn(&rec, it->ctx) != 0;                                                  \
  }

/* ROWS and the public listing fn of a calibration's records of type T: the
 * rows of the query sql (its parameter the calibration's id). */
#define CAL_ROWS(T, name, cols, fn_name, sql, what)                                                \
  ROWS(T, name, cols)                                                                              \
  cgm_status fn_name(cgm_db *db, int64_t cal_id, int (*fn)(const T *rec, void *ctx), void *ctx,    \
                     cgm_error *err) {                                                             \
    if (!fn) return cgm_fail(err, CGM_EINPUT, #fn_name ": no callback");                           \
    name##_iter it = {fn, ctx, false};                                                             \
    return each_row(db, sql, cal_id, 0, name##_row, &it, what, err);                               \
  }

/* Prepares sql, a statement that writes when `write` (refused on a
 * read-only database), and binds nothing yet. */
static cgm_status start(cgm_db *db, const char *sql, bool write, binder *b, cgm_error *err) {
  b->st = NULL;
  b->i = 0;
  b->rc = SQLITE_OK;
  if (!db) return cgm_fail(err, CGM_EINPUT, "no database");
  cgm_status s = write ? cgm_db__writable(db, err) : CGM_OK;
  return s ? s : cgm_db__prepare(db, sql, &b->st, err);
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

/* The INSERT sql: the calibration id *cal first when given, then rec's
 * columns; *rowid, when asked for, the new row's id. */
static cgm_status insert(cgm_db *db, const char *sql, const int64_t *cal, const column *cols,
                         const void *rec, int64_t *rowid, const char *what, cgm_error *err) {
  binder b;
  cgm_status s = start(db, sql, true, &b, err);
  if (s != CGM_OK) return s;
  if (cal) b_int(&b, *cal);
  bind_columns(&b, cols, rec);
  s = run(db, &b, what, err);
  if (s == CGM_OK && rowid) *rowid = sqlite3_last_insert_rowid(db->h);
  return s;
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

/* The record `noun` of the first row of the query sql (its parameter bound to id when id > 0), its
 * columns cols read into rec (zeroed first); CGM_EINPUT when there is none. */
static cgm_status get_one(cgm_db *db, const char *sql, int64_t id, const column *cols, void *rec,
                          size_t size, const char *noun, cgm_error *err) {
  char what[64];
  snprintf(what, sizeof what, "reading a %s", noun);
  binder b;
  bool found = false;
  cgm_status s = start(db, sql, false, &b, err);
  if (s != CGM_OK) return s;
  if (id > 0) b_int(&b, id);
  if ((s = first_row(db, &b, &found, what, err))) return s;
  if (found) {
    memset(rec, 0, size);
    read_columns(&(reader){b.st, 0}, cols, rec);
  }
  sqlite3_finalize(b.st);
  if (found) return CGM_OK;
  return cgm_fail(err, CGM_EINPUT, "%s: no %s with id %lld", db->path, noun, (long long)id);
}

/* Runs the query sql (its one parameter bound to id when id > 0: no id matches none) and calls
 * row(st, ctx) for every row until it returns non-zero. */
static cgm_status each_row(cgm_db *db, const char *sql, int64_t id, int64_t id2,
                           int (*row)(sqlite3_stmt *st, void *ctx), void *ctx, const char *what,
                           cgm_error *err) {
  binder b;
  cgm_status s = start(db, sql, false, &b, err);
  if (s != CGM_OK) return s;
  if (id > 0 || id2) b_int(&b, id); /* ?1, and ?2 where given */
  if (id2) b_int(&b, id2);
  int rc = b.rc;
  while (rc == SQLITE_OK || rc == SQLITE_ROW) {
    rc = sqlite3_step(b.st);
    if (rc == SQLITE_ROW && row(b.st, ctx)) {
      rc = SQLITE_DONE;
      break;
    }
  }
  sqlite3_finalize(b.st);
  return rc == SQLITE_DONE ? CGM_OK : cgm_db__sqlfail(db, err, rc, what);
}

#define DEVICE_COLS                                                                                \
  "id, name, model, kind, cc_major, cc_minor, sms, threads, mem_total, clock_khz, "                \
  "mem_clock_khz, bus_width_bits, driver_version, runtime_version, host"

/* The id of the row the query sql finds by rec's key columns: *id = 0 when absent. */
static cgm_status find_id(cgm_db *db, const char *sql, const column *key, const void *rec,
                          int64_t *id, const char *what, cgm_error *err) {
  binder b;
  bool found = false;
  cgm_status s = start(db, sql, false, &b, err);
  if (s != CGM_OK) return s;
  bind_columns(&b, key, rec);
  if ((s = first_row(db, &b, &found, what, err))) return s;
  *id = found ? sqlite3_column_int64(b.st, 0) : 0;
  sqlite3_finalize(b.st);
  return CGM_OK;
}

static cgm_status device_find(cgm_db *db, const cgm_db_device *dev, int64_t *id, cgm_error *err) {
  return find_id(db, "SELECT id FROM devices WHERE kind = ? AND model = ? AND host = ?", device_key,
                 dev, id, "looking up a device", err);
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
  /* DO NOTHING: another process may add the same device between the two
   * statements; the second lookup then finds its row. */
  s = insert(db,
             "INSERT INTO devices (name, model, kind, cc_major, cc_minor, sms, threads, mem_total, "
             "clock_khz, mem_clock_khz, bus_width_bits, driver_version, runtime_version, host) "
             "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
             "ON CONFLICT (kind, model, host) DO NOTHING",
             NULL, device_cols, dev, NULL, "adding a device", err);
  if (s == CGM_OK) s = device_find(db, dev, &id, err);
  if (s == CGM_OK && id <= 0)
    s = cgm_fail(err, CGM_ERUNTIME, "%s: the device just added is missing", db->path);
  if (s == CGM_OK) dev->id = id;
  return s;
}

cgm_status cgm_db_device_get(cgm_db *db, int64_t id, cgm_db_device *d, cgm_error *err) {
  if (!d) return cgm_fail(err, CGM_EINPUT, "cgm_db_device_get: no output");
  return get_one(db, "SELECT " DEVICE_COLS " FROM devices WHERE id = ?", id, device_cols, d,
                 sizeof *d, "device", err);
}

#define CAL_COLS "id, device_id, created, tool_version, options, seconds, complete, interconnect"

cgm_status cgm_db_calibration_add(cgm_db *db, cgm_db_calibration *cal, cgm_error *err) {
  if (!db || !cal)
    return cgm_fail(err, CGM_EINPUT, "cgm_db_calibration_add: no database or calibration");
  if (!cal->created[0]) cgm_db__now(cal->created, sizeof cal->created);
  char what[80];
  snprintf(what, sizeof what, "adding a calibration of device %lld", (long long)cal->device_id);
  return insert(db,
                "INSERT INTO calibrations (device_id, created, tool_version, options, seconds, "
                "complete, interconnect) VALUES (?, ?, ?, ?, ?, ?, ?)",
                NULL, calibration_cols, cal, &cal->id, what, err);
}

cgm_status cgm_db_calibration_finish(cgm_db *db, int64_t cal_id, double seconds, cgm_error *err) {
  binder b;
  cgm_status s =
      start(db, "UPDATE calibrations SET complete = 1, seconds = ? WHERE id = ?", true, &b, err);
  if (s != CGM_OK) return s;
  b.rc = sqlite3_bind_double(b.st, ++b.i, seconds); /* the first parameter: rc is SQLITE_OK */
  b_int(&b, cal_id);
  s = run(db, &b, "marking a calibration complete", err);
  if (s == CGM_OK && sqlite3_changes(db->h) == 0)
    s = cgm_fail(err, CGM_EINPUT, "%s: no calibration with id %lld", db->path, (long long)cal_id);
  return s;
}

cgm_status cgm_db_calibration_get(cgm_db *db, int64_t id, cgm_db_calibration *c, cgm_error *err) {
  if (!c) return cgm_fail(err, CGM_EINPUT, "cgm_db_calibration_get: no output");
  if (id <= 0) return cgm_fail(err, CGM_EINPUT, "no calibration with id %lld", (long long)id);
  return get_one(db, "SELECT " CAL_COLS " FROM calibrations WHERE id = ?", id, calibration_cols, c,
                 sizeof *c, "calibration", err);
}

typedef struct cal_iter {
  int (*fn)(const cgm_db_calibration *c, const cgm_db_device *d, void *ctx);
  void *ctx;
} cal_iter;

static int cal_row(sqlite3_stmt *st, void *ctx) {
  cal_iter *it = ctx;
  cgm_db_calibration c = {0};
  cgm_db_device d = {0};
  reader r = {st, 0}; /* the calibration's columns, then its device's */
  read_columns(&r, calibration_cols, &c);
  read_columns(&r, device_cols, &d);
  return it->fn(&c, &d, it->ctx);
}

cgm_status cgm_db_calibrations(cgm_db *db,
                               int (*fn)(const cgm_db_calibration *c, const cgm_db_device *d,
                                         void *ctx),
                               void *ctx, cgm_error *err) {
  if (!fn) return cgm_fail(err, CGM_EINPUT, "cgm_db_calibrations: no callback");
  cal_iter it = {fn, ctx};
  return each_row(
      db,
      "SELECT c.id, c.device_id, c.created, c.tool_version, c.options, c.seconds, "
      "c.complete, c.interconnect, d.id, d.name, d.model, d.kind, d.cc_major, d.cc_minor, d.sms, "
      "d.threads, d.mem_total, d.clock_khz, d.mem_clock_khz, d.bus_width_bits, "
      "d.driver_version, d.runtime_version, d.host "
      "FROM calibrations c JOIN devices d ON d.id = c.device_id "
      "ORDER BY c.created DESC, c.id DESC",
      0, 0, cal_row, &it, "listing calibrations", err);
}

cgm_status cgm_db_sample_add(cgm_db *db, int64_t cal_id, const cgm_db_sample *smp, cgm_error *err) {
  if (!db || !smp) return cgm_fail(err, CGM_EINPUT, "cgm_db_sample_add: no database or sample");
  cgm_status s = cgm_db__writable(db, err);
  if (s != CGM_OK) return s;
  /* NaN would become NULL and break the NOT NULL columns with a vaguer
   * message; a non-finite measurement is a caller's bug. */
  if (!isfinite(smp->m) || !isfinite(smp->bytes) || !isfinite(smp->seconds))
    return cgm_fail(err, CGM_EINPUT,
                    "%s: sample of %.32s has a non-finite value (m %g, bytes %g, seconds %g)",
                    db->path, smp->kernel, smp->m, smp->bytes, smp->seconds);
  char what[80];
  snprintf(what, sizeof what, "adding a sample to calibration %lld", (long long)cal_id);
  return insert(db,
                "INSERT INTO samples (calibration_id, kernel, variant, precision, block, m, bytes, "
                "seconds, source, spread, unsettled) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                &cal_id, sample_cols, smp, NULL, what, err);
}

CAL_ROWS(cgm_db_sample, sample, sample_cols, cgm_db_samples,
         "SELECT kernel, variant, precision, block, m, bytes, seconds, source, spread, unsettled "
         "FROM samples WHERE calibration_id = ? ORDER BY id",
         "reading samples")

#define FIT_COLS                                                                                   \
  "kernel, variant, precision, block, kind, mu, sigma, nu, se_mu, se_sigma, se_nu, r2, rms, n, "   \
  "converged, message, m_lo, m_hi"

cgm_status cgm_db_fit_add(cgm_db *db, int64_t cal_id, const cgm_db_fit *f, cgm_error *err) {
  if (!db || !f) return cgm_fail(err, CGM_EINPUT, "cgm_db_fit_add: no database or fit");
  char what[160];
  snprintf(what, sizeof what,
           "adding the fit of %.32s/%.32s (precision %d, block %d, kind %d) to calibration %lld",
           f->kernel, f->variant, f->precision, f->block, f->kind, (long long)cal_id);
  return insert(db,
                "INSERT INTO fits (calibration_id, " FIT_COLS ") "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                &cal_id, fit_cols, f, NULL, what, err);
}

cgm_status cgm_db_fits_delete(cgm_db *db, int64_t cal_id, cgm_error *err) {
  binder b;
  cgm_status s = start(db, "DELETE FROM fits WHERE calibration_id = ?", true, &b, err);
  if (s != CGM_OK) return s;
  b_int(&b, cal_id);
  char what[80];
  snprintf(what, sizeof what, "deleting the fits of calibration %lld", (long long)cal_id);
  return run(db, &b, what, err);
}

cgm_status cgm_db_coef_add(cgm_db *db, int64_t cal_id, const cgm_db_coef *c, cgm_error *err) {
  if (!db || !c) return cgm_fail(err, CGM_EINPUT, "cgm_db_coef_add: no database or coefficient");
  char what[128];
  snprintf(what, sizeof what, "adding the coefficient %.32s (precision %d) to calibration %lld",
           c->name, c->precision, (long long)cal_id);
  return insert(db,
                "INSERT OR REPLACE INTO coefficients (calibration_id, name, precision, value, "
                "rms, n) VALUES (?, ?, ?, ?, ?, ?)",
                &cal_id, coef_cols, c, NULL, what, err);
}

CAL_ROWS(cgm_db_coef, coef, coef_cols, cgm_db_coefs,
         "SELECT name, precision, value, rms, n FROM coefficients WHERE calibration_id = ? "
         "ORDER BY precision, name",
         "reading coefficients")

CAL_ROWS(cgm_db_fit, fit, fit_cols, cgm_db_fits,
         "SELECT " FIT_COLS " FROM fits WHERE calibration_id = ? ORDER BY id", "reading fits")

static cgm_status matrix_find(cgm_db *db, const cgm_db_matrix *m, int64_t *id, cgm_error *err) {
  return find_id(db,
                 "SELECT id FROM matrices WHERE name = ? AND file_bytes = ? AND x = ? AND nnz = ?",
                 matrix_key, m, id, "looking up a matrix", err);
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
    if ((s = start(db, "UPDATE matrices SET content_id = ? WHERE id = ? AND content_id = 0", false,
                   &b, err)))
      return s;
    b_int(&b, m->content_id);
    b_int(&b, id);
    return run(db, &b, "recording a matrix's content", err);
  }
  if (s != CGM_OK) return s;
  s = insert(db,
             "INSERT INTO matrices (name, path, file_bytes, x, nnz, features, content_id) "
             "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name, file_bytes, x, nnz) DO NOTHING",
             NULL, matrix_cols, m, NULL, "adding a matrix", err);
  if (s == CGM_OK) s = matrix_find(db, m, &id, err);
  if (s == CGM_OK && id <= 0)
    s = cgm_fail(err, CGM_ERUNTIME, "%s: the matrix just added is missing", db->path);
  if (s == CGM_OK) m->id = id;
  return s;
}

cgm_status cgm_db_solve_add(cgm_db *db, cgm_db_solve *sv, cgm_error *err) {
  if (!db || !sv) return cgm_fail(err, CGM_EINPUT, "cgm_db_solve_add: no database or solve");
  if (!sv->created[0]) cgm_db__now(sv->created, sizeof sv->created);
  if (!sv->options[0]) snprintf(sv->options, sizeof sv->options, "{}");
  if (!sv->precond[0]) snprintf(sv->precond, sizeof sv->precond, "jacobi");
  return insert(
      db,
      "INSERT INTO solves (matrix_id, calibration_id, created, backend, precision, exchange, "
      "devices, block, bx, gpus, iterations, converged, relative_residual, "
      "time_per_iter_s, predicted_time_per_iter_s, model, options, time_setup_s, layout_bytes, "
      "precond, layout_on_device, disturbed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
      "?, ?, ?, ?, ?, ?, ?)",
      NULL, solve_cols, sv, &sv->id, "adding a solve", err);
}

ROWS(cgm_db_solve, solve, solve_cols)

#define SOLVES                                                                                     \
  "SELECT s.id, s.matrix_id, s.calibration_id, s.created, s.backend, s.precision, s.exchange, "    \
  "s.devices, s.block, s.bx, s.gpus, s.iterations, s.converged, s.relative_residual, "             \
  "s.time_per_iter_s, s.predicted_time_per_iter_s, s.model, s.options, s.time_setup_s, "           \
  "s.layout_bytes, s.precond, s.layout_on_device, s.disturbed, m.name, m.content_id "              \
  "FROM solves s LEFT JOIN matrices m ON m.id = s.matrix_id "

cgm_status cgm_db_solves(cgm_db *db, int (*fn)(const cgm_db_solve *s, void *ctx), void *ctx,
                         cgm_error *err) {
  return cgm_db_solves_of(db, -1, 0, fn, ctx, err);
}

static int take_id(sqlite3_stmt *st, void *ctx) {
  int64_t *ids = ctx; /* ids[0]: how many follow, at most 16 */
  ids[++ids[0]] = sqlite3_column_int64(st, 0);
  return ids[0] == 16;
}

cgm_status cgm_db_solves_of(cgm_db *db, int64_t matrix_id, int64_t content_id,
                            int (*fn)(const cgm_db_solve *s, void *ctx), void *ctx,
                            cgm_error *err) {
  if (!fn) return cgm_fail(err, CGM_EINPUT, "cgm_db_solves: no callback");
  solve_iter it = {fn, ctx, false};
  if (matrix_id <= 0 && !content_id)
    return each_row(db,
                    matrix_id ? SOLVES "ORDER BY s.id"
                              : SOLVES "ORDER BY s.id DESC LIMIT " CGM_DB_SOLVES_RECENT,
                    0, 0, solve_row, &it, "reading solves", err);
  /* The matrix's rows first (its own, then the newest of its content), then each one's solves by
   * its index: one query with the OR across the join scanned every solve (21 ms at 111,000, for a
   * matrix solved once or never). */
  int64_t ids[17] = {0};
  cgm_status s =
      each_row(db,
               "SELECT id FROM matrices WHERE id = ?1 OR (?2 != 0 AND content_id = ?2) "
               "ORDER BY id = ?1 DESC, id DESC",
               matrix_id > 0 ? matrix_id : 0, content_id, take_id, ids, "reading solves", err);
  for (int i = 1; i <= ids[0] && !s && !it.stop; i++)
    s = each_row(db, SOLVES "WHERE s.matrix_id = ?1 ORDER BY s.id DESC LIMIT " CGM_DB_SOLVES_OF,
                 ids[i], 0, solve_row, &it, "reading solves", err);
  return s;
}
