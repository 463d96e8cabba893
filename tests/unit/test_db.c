/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The SQLite database (db/): round trips of every record (NaN <-> NULL,
 * truncated strings), get-or-add identity, rollback and a crash in the
 * middle of a calibration, a writer and a reader process at once, and the
 * refusals: newer schema, corrupt file, someone else's database, read-only
 * file, full disk; each refused file is left byte for byte as it was. */
#define _XOPEN_SOURCE 700

#include "cgmodel/db.h"
#include "db/db_internal.h"
#include "cli/env.h"
#include "test_util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Takes a database back from schema version 11 (the index of the matrices' content) and 10
 * (calibrations' interconnect profiles) to 9. */
#define DROP_V10 "DROP INDEX matrices_content; ALTER TABLE calibrations DROP COLUMN interconnect; "
/* Takes it back from 10 to 8 (9: timings' spread and settledness,
 * disturbed solves): the start of every downgrade below. */
#define DROP_V9                                                                                    \
  DROP_V10 "ALTER TABLE samples DROP COLUMN spread; ALTER TABLE samples DROP COLUMN unsettled; "   \
           "ALTER TABLE solves DROP COLUMN disturbed; "

static char tmpdir[256];

static void tmp_path(char *buf, size_t n, const char *name) {
  snprintf(buf, n, "%s/%s", tmpdir, name);
}

#define CHECK_ERR(e, code_, text)                                                                  \
  CHECK_MSG((e).code == (code_) && strstr((e).msg, (text)),                                        \
            "code %d, msg \"%s\", want %d and \"%s\"", (int)(e).code, (e).msg, (int)(code_),       \
            (text))

/* ------------------------------------------------------------ helpers --- */

static unsigned char *slurp(const char *path, size_t *len) {
  *len = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (buf) *len = (size_t)n;
  return buf;
}

static bool same_bytes(const unsigned char *a, size_t na, const char *path) {
  size_t nb;
  unsigned char *b = slurp(path, &nb);
  bool same = b && na == nb && memcmp(a, b, na) == 0;
  free(b);
  return same;
}

static bool exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0;
}

static void remove_db(const char *path) {
  char p[600];
  unlink(path);
  snprintf(p, sizeof p, "%s-wal", path);
  unlink(p);
  snprintf(p, sizeof p, "%s-shm", path);
  unlink(p);
}

static int count_cb(const cgm_db_sample *s, void *ctx) {
  (void)s;
  (*(int *)ctx)++;
  return 0;
}

static int count_samples(cgm_db *db, int64_t cal, cgm_error *e) {
  int n = 0;
  if (cgm_db_samples(db, cal, count_cb, &n, e) != CGM_OK) return -1;
  return n;
}

static int sql_int(cgm_db *db, const char *sql) {
  sqlite3_stmt *st = NULL;
  int v = -1;
  if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  return v;
}

static bool integrity_ok(cgm_db *db) {
  sqlite3_stmt *st = NULL;
  bool ok = false;
  if (sqlite3_prepare_v2(db->h, "PRAGMA integrity_check", -1, &st, NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    ok = strcmp((const char *)sqlite3_column_text(st, 0), "ok") == 0;
  sqlite3_finalize(st);
  return ok;
}

static cgm_db_device cpu_device(const char *host) {
  cgm_db_device d;
  memset(&d, 0, sizeof d);
  snprintf(d.name, sizeof d.name, "cpu");
  snprintf(d.model, sizeof d.model, "AMD EPYC 7B13 (2 threads)");
  snprintf(d.kind, sizeof d.kind, "cpu");
  d.threads = 2;
  d.mem_total = 8LL << 30;
  snprintf(d.host, sizeof d.host, "%s", host);
  return d;
}

static cgm_db_sample make_sample(int i) {
  cgm_db_sample s;
  memset(&s, 0, sizeof s);
  snprintf(s.kernel, sizeof s.kernel, "load");
  snprintf(s.variant, sizeof s.variant, "fixed");
  s.precision = 1;
  s.block = i % 4;
  s.m = 1024.0 * (i + 1);
  s.bytes = 8.0 * s.m;
  s.seconds = 1e-6 * (i + 1);
  snprintf(s.source, sizeof s.source, "gen:%d", i);
  return s;
}

/* A database at path with one device and one complete calibration of
 * nsamples samples and one fit; returns the calibration id. */
static int64_t make_db(const char *path, int nsamples) {
  cgm_db *db = NULL;
  cgm_error e = {0};
  if (cgm_db_open(path, true, &db, &e) != CGM_OK) {
    fprintf(stderr, "make_db: %s\n", e.msg);
    cgm_test_failures++;
    return 0;
  }
  cgm_db_device d = cpu_device("node1");
  cgm_db_calibration c = {0};
  CHECK_OK(cgm_db_device_get_or_add(db, &d, &e));
  c.device_id = d.id;
  CHECK_OK(cgm_db_begin(db, &e));
  CHECK_OK(cgm_db_calibration_add(db, &c, &e));
  for (int i = 0; i < nsamples; i++) {
    cgm_db_sample s = make_sample(i);
    CHECK_OK(cgm_db_sample_add(db, c.id, &s, &e));
  }
  cgm_db_fit f = {.kernel = "load",
                  .variant = "fixed",
                  .precision = 1,
                  .mu = 20,
                  .sigma = 1,
                  .nu = 100,
                  .n = nsamples,
                  .converged = 1};
  CHECK_OK(cgm_db_fit_add(db, c.id, &f, &e));
  CHECK_OK(cgm_db_calibration_finish(db, c.id, 1.5, &e));
  CHECK_OK(cgm_db_commit(db, &e));
  cgm_db_close(db);
  return c.id;
}

/* ------------------------------------------------------------- paths --- */

static void test_default_path(void) {
  const char *names[] = {"CGMODEL_DB", "XDG_DATA_HOME", "HOME"};
  char *saved[3];
  for (int i = 0; i < 3; i++) {
    const char *v = getenv(names[i]);
    saved[i] = v ? strdup(v) : NULL;
  }
  char buf[256];
  setenv("CGMODEL_DB", "/a/b.db", 1);
  setenv("XDG_DATA_HOME", "/xdg", 1);
  setenv("HOME", "/home/u", 1);
  CHECK(strcmp(cli_env_db_path(buf, sizeof buf), "/a/b.db") == 0);
  unsetenv("CGMODEL_DB");
  CHECK(strcmp(cli_env_db_path(buf, sizeof buf), "/xdg/cgmodel/cgmodel.db") == 0);
  setenv("CGMODEL_DB", "", 1); /* empty counts as unset */
  CHECK(strcmp(cli_env_db_path(buf, sizeof buf), "/xdg/cgmodel/cgmodel.db") == 0);
  setenv("XDG_DATA_HOME", "relative", 1); /* XDG: ignore relative paths */
  CHECK(strcmp(cli_env_db_path(buf, sizeof buf), "/home/u/.local/share/cgmodel/cgmodel.db") == 0);
  unsetenv("XDG_DATA_HOME");
  CHECK(strcmp(cli_env_db_path(buf, sizeof buf), "/home/u/.local/share/cgmodel/cgmodel.db") == 0);
  /* Too small a buffer gives "" rather than a cut path to another file. */
  char small[8];
  CHECK(strcmp(cli_env_db_path(small, sizeof small), "") == 0);
  unsetenv("HOME");
  CHECK(strcmp(cli_env_db_path(buf, sizeof buf), "") == 0);
  cgm_db *db = NULL;
  cgm_error e = {0};
  /* The library reads no environment: a NULL path is refused, also with
   * $CGMODEL_DB set. */
  CHECK(cgm_db_open(NULL, true, &db, &e) == CGM_EINPUT && db == NULL);
  setenv("CGMODEL_DB", "/nonexistent/x.db", 1);
  CHECK(cgm_db_open(NULL, true, &db, &e) == CGM_EINPUT && db == NULL && strstr(e.msg, "db:"));

  for (int i = 0; i < 3; i++) {
    if (saved[i])
      setenv(names[i], saved[i], 1);
    else
      unsetenv(names[i]);
    free(saved[i]);
  }
}

/* create makes the directories; without create a missing file is an error. */
static void test_create(void) {
  char p[512];
  tmp_path(p, sizeof p, "new/deeper/still/cg.db");
  cgm_db *db = NULL;
  cgm_error e = {0};
  CHECK(cgm_db_open(p, false, &db, &e) == CGM_EINPUT && db == NULL);
  CHECK_MSG(strstr(e.msg, p) != NULL, "%s", e.msg);
  CHECK(!exists(p));
  CHECK_OK(cgm_db_open(p, true, &db, &e));
  CHECK(db && exists(p));
  if (db) {
    CHECK(sql_int(db, "PRAGMA user_version") == CGM_DB_SCHEMA_VERSION);
    CHECK(
        sql_int(db, "SELECT count(*) FROM meta WHERE key = 'application' AND value = 'cgmodel'") ==
        1);
    CHECK(sql_int(db, "SELECT journal_mode = 'wal' FROM pragma_journal_mode") == 1);
    CHECK(sql_int(db, "PRAGMA foreign_keys") == 1);
    CHECK(sql_int(db, "PRAGMA synchronous") == 1); /* NORMAL */
  }
  cgm_db_close(db);
  /* Opens again, without create too. */
  CHECK_OK(cgm_db_open(p, false, &db, &e));
  cgm_db_close(db);
  /* A directory where the file should be. */
  snprintf(p, sizeof p, "%s/new/deeper", tmpdir);
  CHECK(cgm_db_open(p, true, &db, &e) == CGM_EINPUT && db == NULL);
  CHECK_ERR(e, CGM_EINPUT, "directory");
  tmp_path(p, sizeof p, "new/deeper/still/cg.db");
  remove_db(p);
  const char *dirs[] = {"new/deeper/still", "new/deeper", "new"};
  for (int i = 0; i < 3; i++) {
    tmp_path(p, sizeof p, dirs[i]);
    rmdir(p);
  }
}

/* ------------------------------------------------------- round trips --- */

static bool device_eq(const cgm_db_device *a, const cgm_db_device *b) {
  return a->id == b->id && !strcmp(a->name, b->name) && !strcmp(a->model, b->model) &&
         !strcmp(a->kind, b->kind) && a->cc_major == b->cc_major && a->cc_minor == b->cc_minor &&
         a->sms == b->sms && a->threads == b->threads && a->mem_total == b->mem_total &&
         a->clock_khz == b->clock_khz && a->mem_clock_khz == b->mem_clock_khz &&
         a->bus_width_bits == b->bus_width_bits && a->driver_version == b->driver_version &&
         a->runtime_version == b->runtime_version && !strcmp(a->host, b->host);
}

/* Equal doubles, NaN equal to NaN. */
static bool deq(double a, double b) {
  return (isnan(a) && isnan(b)) || a == b;
}

typedef struct collect {
  cgm_db_sample s[8];
  cgm_db_fit f[8];
  cgm_db_solve v[8];
  int n;
} collect;

static int collect_sample(const cgm_db_sample *s, void *ctx) {
  collect *c = ctx;
  if (c->n < 8) c->s[c->n] = *s;
  c->n++;
  return 0;
}
/* The newest complete calibration of a device (0: any), as the loaders
 * find it: the first complete one cgm_db_calibrations lists (newest
 * first). CGM_EINPUT "no complete calibration" when none. */
typedef struct {
  int64_t device;
  cgm_db_calibration c;
  bool found;
} latest_ctx;

static int take_latest(const cgm_db_calibration *c, const cgm_db_device *d, void *ctx) {
  latest_ctx *l = ctx;
  if (c->complete && (!l->device || d->id == l->device)) l->c = *c, l->found = true;
  return l->found;
}

static cgm_status newest_complete(cgm_db *db, int64_t device, cgm_db_calibration *c, cgm_error *e) {
  latest_ctx l = {.device = device};
  cgm_status st = cgm_db_calibrations(db, take_latest, &l, e);
  if (!st && !l.found) st = cgm_fail(e, CGM_EINPUT, "no complete calibration");
  if (l.found) *c = l.c;
  return st;
}

/* One fit of a calibration by its key, from cgm_db_fits (CGM_EINPUT "no
 * fit of KERNEL" when absent). */
typedef struct {
  const char *kernel, *variant;
  int prec, block, kind;
  cgm_db_fit f;
  bool found;
} fit_query;

static int take_fit(const cgm_db_fit *f, void *ctx) {
  fit_query *q = ctx;
  if (!strcmp(f->kernel, q->kernel) && !strcmp(f->variant, q->variant) && f->precision == q->prec &&
      f->block == q->block && f->kind == q->kind)
    q->f = *f, q->found = true;
  return q->found;
}

static cgm_status fit_get(cgm_db *db, int64_t cal, const char *kernel, const char *variant,
                          int prec, int block, int kind, cgm_db_fit *f, cgm_error *e) {
  fit_query q = {kernel, variant ? variant : "", prec, block, kind};
  cgm_status st = cgm_db_fits(db, cal, take_fit, &q, e);
  if (!st && !q.found) st = cgm_fail(e, CGM_EINPUT, "no fit of %s", kernel);
  if (q.found) *f = q.f;
  return st;
}

static int collect_fit(const cgm_db_fit *f, void *ctx) {
  collect *c = ctx;
  if (c->n < 8) c->f[c->n] = *f;
  c->n++;
  return 0;
}
static int collect_solve(const cgm_db_solve *v, void *ctx) {
  collect *c = ctx;
  if (c->n < 8) c->v[c->n] = *v;
  c->n++;
  return 0;
}
static int stop_after_one(const cgm_db_sample *s, void *ctx) {
  (void)s;
  (*(int *)ctx)++;
  return 1;
}

typedef struct cal_list {
  int64_t ids[8];
  int64_t dev[8];
  char model[8][256];
  int n;
} cal_list;

static int collect_cal(const cgm_db_calibration *c, const cgm_db_device *d, void *ctx) {
  cal_list *l = ctx;
  if (l->n < 8) {
    l->ids[l->n] = c->id;
    l->dev[l->n] = d->id;
    snprintf(l->model[l->n], sizeof l->model[l->n], "%s", d->model);
  }
  l->n++;
  return 0;
}

/* An ISO 8601 UTC timestamp of the shape cgm_db__now writes. */
static bool is_iso_utc(const char *s) {
  int y, mo, d, h, mi, sec, ms;
  char z = 0;
  return strlen(s) == 24 &&
         sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d.%3d%c", &y, &mo, &d, &h, &mi, &sec, &ms, &z) == 8 &&
         z == 'Z' && y >= 2024 && mo >= 1 && mo <= 12;
}

static void test_round_trips(void) {
  char p[512];
  tmp_path(p, sizeof p, "rt.db");
  cgm_db *db = NULL;
  cgm_error e = {0};
  CHECK_OK(cgm_db_open(p, true, &db, &e));
  if (!db) return;

  /* devices: every field, and get_or_add twice gives one row. */
  cgm_db_device gpu = {0};
  snprintf(gpu.name, sizeof gpu.name, "cuda:0");
  snprintf(gpu.model, sizeof gpu.model, "NVIDIA H200");
  snprintf(gpu.kind, sizeof gpu.kind, "cuda");
  gpu.cc_major = 9;
  gpu.cc_minor = 0;
  gpu.sms = 132;
  gpu.threads = 2048;
  gpu.mem_total = 150754820096LL;
  gpu.clock_khz = 1980000;
  gpu.mem_clock_khz = 2619000;
  gpu.bus_width_bits = 6144;
  gpu.driver_version = 12040;
  gpu.runtime_version = 12030;
  snprintf(gpu.host, sizeof gpu.host, "gpu-node-7");
  CHECK_OK(cgm_db_device_get_or_add(db, &gpu, &e));
  CHECK(gpu.id > 0);
  cgm_db_device again = gpu;
  again.id = 0;
  snprintf(again.name, sizeof again.name, "cuda:3"); /* the same GPU model on the same host */
  CHECK_OK(cgm_db_device_get_or_add(db, &again, &e));
  CHECK(again.id == gpu.id);
  cgm_db_device other = gpu;
  snprintf(other.host, sizeof other.host, "gpu-node-8");
  CHECK_OK(cgm_db_device_get_or_add(db, &other, &e));
  CHECK(other.id > 0 && other.id != gpu.id);
  cgm_db_device back;
  CHECK_OK(cgm_db_device_get(db, gpu.id, &back, &e));
  CHECK(device_eq(&back, &gpu));
  CHECK(cgm_db_device_get(db, 9999, &back, &e) == CGM_EINPUT);
  CHECK(sql_int(db, "SELECT count(*) FROM devices") == 2);

  /* A name filling the whole field (no NUL) is stored cut, not overrun. */
  cgm_db_device longd = cpu_device("h");
  memset(longd.model, 'M', sizeof longd.model);
  CHECK_OK(cgm_db_device_get_or_add(db, &longd, &e));
  CHECK_OK(cgm_db_device_get(db, longd.id, &back, &e));
  CHECK(strlen(back.model) == sizeof back.model - 1 && back.model[0] == 'M');

  /* calibrations */
  cgm_db_calibration cal = {0};
  cal.device_id = gpu.id;
  snprintf(cal.tool_version, sizeof cal.tool_version, "0.1.0");
  snprintf(cal.options, sizeof cal.options, "{\"quick\":true,\"devices\":\"cuda:0\"}");
  cal.seconds = NAN;
  CHECK(newest_complete(db, gpu.id, &cal, &e) == CGM_EINPUT);
  CHECK_OK(cgm_db_calibration_add(db, &cal, &e));
  CHECK(cal.id > 0);
  CHECK_MSG(is_iso_utc(cal.created), "created = %s", cal.created);
  cgm_db_calibration cb;
  CHECK_OK(cgm_db_calibration_get(db, cal.id, &cb, &e));
  CHECK(cb.id == cal.id && cb.device_id == gpu.id && !strcmp(cb.created, cal.created) &&
        !strcmp(cb.tool_version, "0.1.0") && !strcmp(cb.options, cal.options) &&
        isnan(cb.seconds) && cb.complete == 0);
  /* Not complete yet: not the latest. */
  CHECK(newest_complete(db, gpu.id, &cb, &e) == CGM_EINPUT);
  CHECK_ERR(e, CGM_EINPUT, "no complete calibration");
  CHECK_OK(cgm_db_calibration_finish(db, cal.id, 42.25, &e));
  CHECK_OK(newest_complete(db, gpu.id, &cb, &e));
  CHECK(cb.id == cal.id && cb.complete == 1 && cb.seconds == 42.25);
  CHECK_OK(newest_complete(db, 0, &cb, &e)); /* any device */
  CHECK(cb.id == cal.id);
  CHECK(newest_complete(db, other.id, &cb, &e) == CGM_EINPUT);
  CHECK(cgm_db_calibration_finish(db, 12345, 1.0, &e) == CGM_EINPUT);
  CHECK(cgm_db_calibration_get(db, 12345, &cb, &e) == CGM_EINPUT);
  /* A given created is kept; the newest complete one wins. */
  cgm_db_calibration older = {.device_id = gpu.id, .created = "2020-01-01T00:00:00.000Z"};
  CHECK_OK(cgm_db_calibration_add(db, &older, &e));
  CHECK(!strcmp(older.created, "2020-01-01T00:00:00.000Z"));
  CHECK_OK(cgm_db_calibration_finish(db, older.id, 1.0, &e));
  CHECK_OK(newest_complete(db, gpu.id, &cb, &e));
  CHECK(cb.id == cal.id);
  cgm_db_calibration cpu_cal = {.device_id = other.id};
  CHECK_OK(cgm_db_calibration_add(db, &cpu_cal, &e));
  cal_list cl = {0};
  CHECK_OK(cgm_db_calibrations(db, collect_cal, &cl, &e));
  CHECK(cl.n == 3);
  /* newest first: cpu_cal (just now), cal, older (2020) */
  CHECK(cl.ids[0] == cpu_cal.id && cl.dev[0] == other.id && cl.ids[1] == cal.id &&
        cl.ids[2] == older.id && !strcmp(cl.model[1], "NVIDIA H200"));
  /* A calibration of an unknown device is refused by the foreign key. */
  cgm_db_calibration orphan = {.device_id = 777};
  CHECK(cgm_db_calibration_add(db, &orphan, &e) == CGM_EINPUT);
  CHECK_MSG(strstr(e.msg, "FOREIGN KEY") && strstr(e.msg, p), "%s", e.msg);

  /* samples: values exact, strings cut at the field size without splitting
   * a UTF-8 character. */
  cgm_db_sample s1 = make_sample(3);
  s1.m = 1.0 / 3.0;
  s1.seconds = 1e-300;
  s1.spread = 0.25; /* its timings' spread and settledness (schema 8) */
  s1.unsettled = true;
  cgm_db_sample s2 = make_sample(4);
  s2.variant[0] = '\0';
  memset(s2.source, 'S', sizeof s2.source); /* no NUL */
  for (size_t i = 0; i + 2 <= sizeof s2.kernel; i += 2) memcpy(s2.kernel + i, "\xc3\xa9", 2);
  CHECK_OK(cgm_db_sample_add(db, cal.id, &s1, &e));
  CHECK_OK(cgm_db_sample_add(db, cal.id, &s2, &e));
  collect c = {0};
  CHECK_OK(cgm_db_samples(db, cal.id, collect_sample, &c, &e));
  CHECK(c.n == 2);
  CHECK(!strcmp(c.s[0].kernel, "load") && !strcmp(c.s[0].variant, "fixed") &&
        c.s[0].precision == 1 && c.s[0].block == s1.block && c.s[0].m == s1.m &&
        c.s[0].bytes == s1.bytes && c.s[0].seconds == s1.seconds &&
        !strcmp(c.s[0].source, "gen:3"));
  CHECK(c.s[0].spread == 0.25 && c.s[0].unsettled && !c.s[1].unsettled);
  CHECK_MSG(isnan(c.s[1].spread) || c.s[1].spread == 0.0, "%g", c.s[1].spread);
  CHECK(strlen(c.s[1].source) == sizeof s2.source - 1 && c.s[1].source[0] == 'S');
  CHECK(c.s[1].variant[0] == '\0');
  /* 16 two-byte characters fill 32 bytes; 31 fit, so 15 characters stay. */
  CHECK_MSG(strlen(c.s[1].kernel) == 30 && memcmp(c.s[1].kernel, "\xc3\xa9", 2) == 0, "len %zu",
            strlen(c.s[1].kernel));
  int one = 0;
  CHECK_OK(cgm_db_samples(db, cal.id, stop_after_one, &one, &e));
  CHECK(one == 1);
  cgm_db_sample bad = make_sample(1);
  bad.seconds = NAN;
  CHECK(cgm_db_sample_add(db, cal.id, &bad, &e) == CGM_EINPUT);
  bad = make_sample(1);
  CHECK(cgm_db_sample_add(db, 9999, &bad, &e) == CGM_EINPUT);

  /* fits: NaN standard errors come back NaN, the key is unique. */
  cgm_db_fit f = {.kernel = "spmv",
                  .variant = "",
                  .precision = 2,
                  .block = 4,
                  .kind = 1,
                  .mu = 17.5,
                  .sigma = 1.25,
                  .nu = 3891.5,
                  .se_mu = NAN,
                  .se_sigma = 0.01,
                  .se_nu = INFINITY,
                  .r2 = 0.999,
                  .rms = 12.5,
                  .n = 40,
                  .converged = 0,
                  .message = "singular Jacobian",
                  .m_lo = 1024,
                  .m_hi = 3.5e7};
  CHECK_OK(cgm_db_fit_add(db, cal.id, &f, &e));
  cgm_db_fit g = {.kernel = "spmv", .precision = 2, .block = 4, .kind = 0, .mu = 1, .n = 3};
  CHECK_OK(cgm_db_fit_add(db, cal.id, &g, &e));
  CHECK(cgm_db_fit_add(db, cal.id, &f, &e) == CGM_EINPUT); /* same key */
  CHECK_MSG(strstr(e.msg, "UNIQUE"), "%s", e.msg);
  cgm_db_fit fb;
  CHECK_OK(fit_get(db, cal.id, "spmv", NULL, 2, 4, 1, &fb, &e));
  CHECK(!strcmp(fb.kernel, "spmv") && fb.variant[0] == '\0' && fb.precision == 2 && fb.block == 4 &&
        fb.kind == 1 && fb.mu == 17.5 && fb.sigma == 1.25 && fb.nu == 3891.5 && isnan(fb.se_mu) &&
        fb.se_sigma == 0.01 && isinf(fb.se_nu) && fb.r2 == 0.999 && fb.rms == 12.5 && fb.n == 40 &&
        fb.converged == 0 && !strcmp(fb.message, "singular Jacobian") && fb.m_lo == 1024 &&
        fb.m_hi == 3.5e7);
  CHECK(fit_get(db, cal.id, "spmv", "", 2, 8, 1, &fb, &e) == CGM_EINPUT);
  CHECK_ERR(e, CGM_EINPUT, "no fit of spmv");
  c.n = 0;
  CHECK_OK(cgm_db_fits(db, cal.id, collect_fit, &c, &e));
  CHECK(c.n == 2 && c.f[0].kind == 1 && c.f[1].kind == 0 && c.f[1].n == 3);
  CHECK(c.f[1].m_lo == 0 && c.f[1].m_hi == 0); /* zero stays zero */

  /* matrices: get_or_add identifies by (name, file_bytes, x, nnz). */
  cgm_db_matrix m = {0};
  snprintf(m.name, sizeof m.name, "bcsstk17.mtx");
  snprintf(m.path, sizeof m.path, "/data/bcsstk17.mtx");
  m.file_bytes = 12345678;
  m.x = 10974;
  m.nnz = 428650;
  memset(m.features, 'f', sizeof m.features); /* no NUL */
  m.features[0] = '{';
  CHECK_OK(cgm_db_matrix_get_or_add(db, &m, &e));
  CHECK(m.id > 0);
  cgm_db_matrix m2 = m;
  m2.id = 0;
  snprintf(m2.path, sizeof m2.path, "/elsewhere/bcsstk17.mtx");
  CHECK_OK(cgm_db_matrix_get_or_add(db, &m2, &e));
  CHECK(m2.id == m.id);
  m2.nnz++;
  CHECK_OK(cgm_db_matrix_get_or_add(db, &m2, &e));
  CHECK(m2.id != m.id);
  /* The stored row, read with SQL: features bound to their 4096 bytes. */
  char q[512];
  snprintf(q, sizeof q,
           "SELECT count(*) FROM matrices WHERE id = %lld AND name = 'bcsstk17.mtx' AND "
           "path = '/data/bcsstk17.mtx' AND file_bytes = 12345678 AND x = 10974 AND "
           "nnz = 428650 AND length(features) = 4096 AND substr(features, 1, 1) = '{'",
           (long long)m.id);
  CHECK(sql_int(db, q) == 1);

  /* solves: NaN predicted time <-> NULL, calibration 0 <-> NULL. */
  cgm_db_solve v = {.matrix_id = m.id,
                    .backend = "cuda",
                    .precision = "double",
                    .exchange = "halo",
                    .devices = "cuda:0,1,2,3",
                    .block = 4,
                    .bx = 8,
                    .gpus = 4,
                    .iterations = 1234,
                    .converged = 1,
                    .relative_residual = 9.5e-9,
                    .time_per_iter_s = 1.25e-4,
                    .predicted_time_per_iter_s = NAN,
                    .model = "refined"};
  CHECK_OK(cgm_db_solve_add(db, &v, &e));
  CHECK(v.id > 0 && is_iso_utc(v.created));
  CHECK(sql_int(db, "SELECT count(*) FROM solves WHERE predicted_time_per_iter_s IS NULL AND "
                    "calibration_id IS NULL") == 1);
  CHECK(!strcmp(v.options, "{}")); /* none given: an empty object */
  cgm_db_solve w = v;
  snprintf(w.options, sizeof w.options, "{\"tol\":1e-10,\"gpu\":{\"cg\":\"classic\"}}");
  w.calibration_id = cal.id;
  w.predicted_time_per_iter_s = 1.5e-4;
  w.converged = 0;
  w.relative_residual = NAN;
  snprintf(w.created, sizeof w.created, "2030-01-01T00:00:00.000Z");
  CHECK_OK(cgm_db_solve_add(db, &w, &e));
  c.n = 0;
  CHECK_OK(cgm_db_solves(db, collect_solve, &c, &e));
  CHECK(c.n == 2);
  const cgm_db_solve *in[2] = {&v, &w};
  for (int i = 0; i < 2 && c.n == 2; i++) {
    const cgm_db_solve *a = &c.v[i], *b = in[i];
    CHECK(a->id == b->id && a->matrix_id == b->matrix_id &&
          a->calibration_id == b->calibration_id && !strcmp(a->created, b->created) &&
          !strcmp(a->backend, b->backend) && !strcmp(a->precision, b->precision) &&
          !strcmp(a->exchange, b->exchange) && !strcmp(a->devices, b->devices) &&
          a->block == b->block && a->bx == b->bx && a->gpus == b->gpus &&
          a->iterations == b->iterations && a->converged == b->converged &&
          deq(a->relative_residual, b->relative_residual) &&
          deq(a->time_per_iter_s, b->time_per_iter_s) &&
          deq(a->predicted_time_per_iter_s, b->predicted_time_per_iter_s) &&
          !strcmp(a->model, b->model) && !strcmp(a->options, b->options));
  }
  CHECK(c.n == 2 && isnan(c.v[0].predicted_time_per_iter_s) && c.v[0].calibration_id == 0);
  cgm_db_solve nomatrix = v;
  nomatrix.matrix_id = 4242;
  CHECK(cgm_db_solve_add(db, &nomatrix, &e) == CGM_EINPUT);

  /* Deleting a calibration takes its samples and fits (CASCADE) and
   * leaves the solves that used it (SET NULL). */
  CHECK(sqlite3_exec(db->h, "DELETE FROM calibrations WHERE id = 1", NULL, NULL, NULL) ==
        SQLITE_OK);
  CHECK(cal.id == 1);
  CHECK(count_samples(db, cal.id, &e) == 0);
  CHECK(sql_int(db, "SELECT count(*) FROM fits") == 0);
  CHECK(sql_int(db, "SELECT count(*) FROM solves WHERE calibration_id IS NULL") == 2);
  CHECK(integrity_ok(db));
  cgm_db_close(db);
  remove_db(p);
}

/* ------------------------------------------------------- transactions --- */

static void test_rollback(void) {
  char p[512];
  tmp_path(p, sizeof p, "rollback.db");
  int64_t first = make_db(p, 5);
  cgm_db *db = NULL;
  cgm_error e = {0};
  CHECK_OK(cgm_db_open(p, false, &db, &e));
  if (!db) return;
  cgm_db_device d = cpu_device("node1");
  CHECK_OK(cgm_db_device_get_or_add(db, &d, &e));
  cgm_db_calibration c = {.device_id = d.id};
  CHECK_OK(cgm_db_begin(db, &e));
  CHECK(cgm_db_begin(db, &e) == CGM_EINPUT); /* no nesting */
  CHECK_OK(cgm_db_calibration_add(db, &c, &e));
  for (int i = 0; i < 20; i++) {
    cgm_db_sample s = make_sample(i);
    CHECK_OK(cgm_db_sample_add(db, c.id, &s, &e));
  }
  CHECK_OK(cgm_db_calibration_finish(db, c.id, 2.0, &e));
  cgm_db_calibration latest;
  CHECK_OK(newest_complete(db, d.id, &latest, &e));
  CHECK(latest.id == c.id); /* visible inside the transaction */
  cgm_db_rollback(db);
  CHECK_OK(newest_complete(db, d.id, &latest, &e));
  CHECK(latest.id == first);
  CHECK(cgm_db_calibration_get(db, c.id, &latest, &e) == CGM_EINPUT);
  CHECK(count_samples(db, c.id, &e) == 0);
  CHECK(count_samples(db, first, &e) == 5);
  CHECK(cgm_db_commit(db, &e) == CGM_EINPUT); /* nothing open */
  cgm_db_rollback(db);                        /* harmless */

  /* Closing with a transaction open discards it too. */
  CHECK_OK(cgm_db_begin(db, &e));
  cgm_db_calibration c2 = {.device_id = d.id};
  CHECK_OK(cgm_db_calibration_add(db, &c2, &e));
  CHECK_OK(cgm_db_calibration_finish(db, c2.id, 2.0, &e));
  cgm_db_close(db);
  CHECK_OK(cgm_db_open(p, false, &db, &e));
  if (!db) return;
  CHECK_OK(newest_complete(db, d.id, &latest, &e));
  CHECK(latest.id == first);
  CHECK(sql_int(db, "SELECT count(*) FROM calibrations") == 1);
  cgm_db_close(db);
  remove_db(p);
}

/* A process killed in the middle of a calibration: the parent finds the
 * file intact, the old calibration there, the partial one absent. */
static void test_crash(void) {
  char p[512];
  tmp_path(p, sizeof p, "crash.db");
  int64_t first = make_db(p, 10);
  /* No connection open in this process across fork (SQLite's rule). */
  pid_t pid = fork();
  if (pid == 0) {
    cgm_db *db = NULL;
    cgm_error e = {0};
    if (cgm_db_open(p, false, &db, &e) != CGM_OK) _exit(10);
    /* A tiny page cache makes SQLite spill uncommitted pages into the WAL
     * before the "crash", the hard case for recovery. */
    sqlite3_exec(db->h, "PRAGMA cache_size = 2", NULL, NULL, NULL);
    cgm_db_device d = cpu_device("node1");
    cgm_db_calibration c = {0};
    if (cgm_db_device_get_or_add(db, &d, &e) != CGM_OK) _exit(11);
    c.device_id = d.id;
    if (cgm_db_begin(db, &e) != CGM_OK) _exit(12);
    if (cgm_db_calibration_add(db, &c, &e) != CGM_OK) _exit(13);
    for (int i = 0; i < 2000; i++) {
      cgm_db_sample s = make_sample(i);
      if (cgm_db_sample_add(db, c.id, &s, &e) != CGM_OK) _exit(14);
    }
    if (cgm_db_calibration_finish(db, c.id, 1.0, &e) != CGM_OK) _exit(15);
    _exit(0); /* no commit, no close */
  }
  int status = 0;
  CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
  CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
  char wal[600];
  snprintf(wal, sizeof wal, "%s-wal", p);
  struct stat sb;
  CHECK_MSG(stat(wal, &sb) == 0 && sb.st_size > 0, "the child left no WAL to recover from");
  cgm_db *db = NULL;
  cgm_error e = {0};
  CHECK_OK(cgm_db_open(p, false, &db, &e));
  if (!db) return;
  CHECK(integrity_ok(db));
  cgm_db_calibration latest;
  CHECK_OK(newest_complete(db, 0, &latest, &e));
  CHECK(latest.id == first);
  CHECK(sql_int(db, "SELECT count(*) FROM calibrations") == 1);
  CHECK(sql_int(db, "SELECT count(*) FROM samples") == 10);
  CHECK(count_samples(db, first, &e) == 10);
  cgm_db_close(db);
  remove_db(p);
}

/* Writer 0 adds samples to calibration `cal` in small transactions;
 * writer 1 adds whole calibrations (device lookup, calibration, fit,
 * finish) in transactions. Exit status: the failures. */
enum { TXNS = 40, PER_TXN = 5, CALS = 20 };
static void writer(const char *p, int which, int64_t cal) {
  int fails = 0;
  cgm_db *db = NULL;
  cgm_error e = {0};
  if (cgm_db_open(p, true, &db, &e) != CGM_OK) {
    fprintf(stderr, "writer %d: %s\n", which, e.msg);
    _exit(100);
  }
  for (int t = 0; t < (which ? CALS : TXNS); t++) {
    cgm_status s = cgm_db_begin(db, &e);
    if (which == 0) {
      for (int i = 0; i < PER_TXN && s == CGM_OK; i++) {
        cgm_db_sample smp = make_sample(t * PER_TXN + i);
        s = cgm_db_sample_add(db, cal, &smp, &e);
      }
    } else {
      cgm_db_device d = cpu_device("node1");
      cgm_db_calibration c = {0};
      cgm_db_fit f = {.kernel = "cg4", .n = 4};
      if (s == CGM_OK) s = cgm_db_device_get_or_add(db, &d, &e);
      c.device_id = d.id;
      if (s == CGM_OK) s = cgm_db_calibration_add(db, &c, &e);
      if (s == CGM_OK) s = cgm_db_fit_add(db, c.id, &f, &e);
      if (s == CGM_OK) s = cgm_db_calibration_finish(db, c.id, 1.0, &e);
    }
    if (s == CGM_OK) s = cgm_db_commit(db, &e);
    if (s != CGM_OK) {
      fprintf(stderr, "writer %d: %s\n", which, e.msg);
      cgm_db_rollback(db);
      fails++;
    }
  }
  cgm_db_close(db);
  _exit(fails > 99 ? 99 : fails);
}

/* Two writer processes and a reader on one file: the busy timeout lets
 * all through, and the reader only ever sees whole transactions. */
static void test_concurrent(void) {
  char p[512];
  tmp_path(p, sizeof p, "concurrent.db");
  int64_t first = make_db(p, 0);
  /* No connection open in this process across fork (SQLite's rule). */
  pid_t pid[2];
  for (int w = 0; w < 2; w++) {
    pid[w] = fork();
    if (pid[w] == 0) writer(p, w, first);
  }
  int reads = 0, last = 0, last_cals = 0, status[2] = {0, 0}, running = 2;
  bool ended[2] = {false, false};
  cgm_db *db = NULL;
  cgm_error e = {0};
  while (running > 0) {
    for (int w = 0; w < 2; w++) /* one more read after the last writer ends */
      if (!ended[w] && waitpid(pid[w], &status[w], WNOHANG) == pid[w]) {
        ended[w] = true;
        running--;
      }
    /* Reopening now and then races the open path (checks, WAL setup) too. */
    if (!db || reads % 8 == 0) {
      cgm_db_close(db);
      db = NULL;
      if (cgm_db_open(p, true, &db, &e) != CGM_OK) {
        fprintf(stderr, "reader: %s\n", e.msg);
        cgm_test_failures++;
        break;
      }
    }
    int n = count_samples(db, first, &e);
    CHECK_MSG(n >= last && n % PER_TXN == 0, "reader saw %d samples (before: %d): %s", n, last,
              n < 0 ? e.msg : "partial transaction");
    if (n >= 0) last = n;
    cgm_db_calibration c;
    CHECK_OK(newest_complete(db, 0, &c, &e));
    /* Every calibration the reader sees is complete, with its fit. */
    /* (one statement: one snapshot) */
    int partial = sql_int(db, "SELECT count(*) FROM calibrations c WHERE complete = 0 OR NOT "
                              "EXISTS (SELECT 1 FROM fits f WHERE f.calibration_id = c.id)");
    int cals = sql_int(db, "SELECT count(*) FROM calibrations");
    CHECK_MSG(partial == 0 && cals >= last_cals, "%d partial calibrations, %d (before: %d)",
              partial, cals, last_cals);
    last_cals = cals;
    reads++;
  }
  cgm_db_close(db);
  for (int w = 0; w < 2; w++) {
    if (!ended[w]) waitpid(pid[w], &status[w], 0);
    CHECK_MSG(WIFEXITED(status[w]) && WEXITSTATUS(status[w]) == 0, "writer %d status %d", w,
              status[w]);
  }
  CHECK_MSG(last == TXNS * PER_TXN, "reader saw %d samples at the end", last);
  CHECK_MSG(last_cals == 1 + CALS, "reader saw %d calibrations at the end", last_cals);
  CHECK(reads > 1);
  remove_db(p);
}

/* Several processes creating the same new file at once: one sets up the
 * schema, all of them open it. */
static void test_concurrent_create(void) {
  char p[512];
  tmp_path(p, sizeof p, "race/new.db");
  enum { N = 4 };
  pid_t pids[N];
  for (int i = 0; i < N; i++) {
    pids[i] = fork();
    if (pids[i] == 0) {
      cgm_db *db = NULL;
      cgm_error e = {0};
      cgm_status s = cgm_db_open(p, true, &db, &e);
      if (s != CGM_OK) fprintf(stderr, "opener %d: %s\n", i, e.msg);
      cgm_db_device d = cpu_device("race");
      if (s == CGM_OK) s = cgm_db_device_get_or_add(db, &d, &e);
      if (s != CGM_OK) fprintf(stderr, "opener %d: %s\n", i, e.msg);
      cgm_db_close(db);
      _exit(s);
    }
  }
  for (int i = 0; i < N; i++) {
    int status = 0;
    CHECK(waitpid(pids[i], &status, 0) == pids[i]);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "opener %d status %d", i, status);
  }
  cgm_db *db = NULL;
  cgm_error e = {0};
  CHECK_OK(cgm_db_open(p, false, &db, &e));
  if (db) {
    CHECK(sql_int(db, "SELECT count(*) FROM meta WHERE key = 'application'") == 1);
    CHECK(sql_int(db, "SELECT count(*) FROM devices") == 1);
  }
  cgm_db_close(db);
  remove_db(p);
  tmp_path(p, sizeof p, "race");
  rmdir(p);
}

/* ------------------------------------------------------------ refusals --- */

/* Opening path (with and without create) fails with code and text, and
 * leaves the file's bytes as they were and no WAL beside it. */
static void check_refused(const char *path, cgm_status code, const char *text, const char *alt) {
  size_t n;
  unsigned char *before = slurp(path, &n);
  CHECK(before != NULL);
  for (int create = 0; create <= 1; create++) {
    cgm_db *db = NULL;
    cgm_error e = {0};
    cgm_status s = cgm_db_open(path, create, &db, &e);
    CHECK_MSG(s == code && db == NULL, "%s: status %d", path, (int)s);
    bool said = strstr(e.msg, text) || (alt && strstr(e.msg, alt));
    CHECK_MSG(said && strstr(e.msg, path), "message \"%s\" lacks \"%s\" or the path", e.msg, text);
    cgm_db_close(db);
    CHECK_MSG(before && same_bytes(before, n, path), "%s changed", path);
  }
  char wal[600];
  snprintf(wal, sizeof wal, "%s-wal", path);
  CHECK(!exists(wal));
  free(before);
}

static void test_newer(void) {
  char p[512];
  tmp_path(p, sizeof p, "newer.db");
  make_db(p, 3);
  sqlite3 *h = NULL;
  CHECK(sqlite3_open(p, &h) == SQLITE_OK);
  char sql[64];
  snprintf(sql, sizeof sql, "PRAGMA user_version = %d", CGM_DB_SCHEMA_VERSION + 5);
  CHECK(sqlite3_exec(h, sql, NULL, NULL, NULL) == SQLITE_OK);
  sqlite3_close(h);
  check_refused(p, CGM_EINPUT, "newer", NULL);
  cgm_db *db = NULL;
  cgm_error e = {0};
  CHECK(cgm_db_open(p, false, &db, &e) == CGM_EINPUT);
  char want[128];
  snprintf(want, sizeof want, "version %d is newer than this cgmodel understands (%d)",
           CGM_DB_SCHEMA_VERSION + 5, CGM_DB_SCHEMA_VERSION);
  CHECK_MSG(strstr(e.msg, want) && strstr(e.msg, "upgrade cgmodel"), "%s", e.msg);
  remove_db(p);
}

/* A table of the schema dropped by hand: corrupt (exit 2), reported when
 * the file is opened, never a "no such table" from a later query. */
static void test_table_gone(void) {
  static const char *const tables[] = {"fits", "solves", "meta"};
  for (int t = 0; t < 3; t++) {
    char p[512], name[64];
    snprintf(name, sizeof name, "gone-%s.db", tables[t]);
    tmp_path(p, sizeof p, name);
    make_db(p, 3);
    sqlite3 *h = NULL;
    CHECK(sqlite3_open(p, &h) == SQLITE_OK);
    char sql[64];
    snprintf(sql, sizeof sql, "DROP TABLE %s", tables[t]);
    CHECK(sqlite3_exec(h, sql, NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(h);
    char want[64];
    snprintf(want, sizeof want, "its table %s is missing", tables[t]);
    /* without meta the file is not recognised as ours: refused all the same */
    check_refused(p, CGM_EINPUT, t == 2 ? "not a cgmodel database" : want, NULL);
    remove_db(p);
  }
}

static void write_garbage(const char *path, size_t n, uint64_t seed) {
  FILE *f = fopen(path, "wb");
  CHECK(f != NULL);
  if (!f) return;
  for (size_t i = 0; i < n; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    fputc((int)(seed >> 56), f);
  }
  fclose(f);
}

static void test_corrupt(void) {
  char p[512];
  tmp_path(p, sizeof p, "garbage.db");
  write_garbage(p, 4096, 1);
  check_refused(p, CGM_EINPUT, "corrupt", "not a cgmodel database");
  remove_db(p);

  /* A real database whose last pages (samples only, none of the schema or
   * the meta table that opening reads) were partly overwritten: only the
   * integrity check on open can see it. */
  tmp_path(p, sizeof p, "damaged.db");
  make_db(p, 3000);
  size_t n;
  unsigned char *bytes = slurp(p, &n);
  CHECK(bytes && n >= 16 * 4096);
  if (bytes) {
    for (size_t page = n / 4096 * 3 / 4; page * 4096 < n; page++)
      memset(bytes + page * 4096 + 8, 0xA5, 64);
    FILE *f = fopen(p, "wb");
    CHECK(f && fwrite(bytes, 1, n, f) == n);
    if (f) fclose(f);
  }
  free(bytes);
  check_refused(p, CGM_EINPUT, "corrupt", NULL);
  /* A solve's open (CGM_DB_UNCHECKED) reads no page it does not need: the damaged samples are
   * no reason to refuse it, and SQLite reports them where a read meets them. */
  cgm_db *un = NULL;
  cgm_error ue = {0};
  CHECK_MSG(cgm_db_open(p, CGM_DB_UNCHECKED, &un, &ue) == CGM_OK && un, "unchecked: %s", ue.msg);
  cgm_db_close(un);
  remove_db(p);

  /* The same cut short. */
  tmp_path(p, sizeof p, "truncated.db");
  make_db(p, 3000);
  bytes = slurp(p, &n);
  if (bytes) {
    FILE *f = fopen(p, "wb");
    CHECK(f && fwrite(bytes, 1, n / 2, f) == n / 2);
    if (f) fclose(f);
  }
  free(bytes);
  check_refused(p, CGM_EINPUT, "corrupt", NULL);
  remove_db(p);
}

/* SQLite files of other programs are refused, never given our tables. */
static void test_foreign(void) {
  const char *setups[] = {
      "CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('ada');",
      /* uses user_version too */
      "CREATE TABLE notes (t TEXT); PRAGMA user_version = 1;",
      /* a meta table of its own */
      "CREATE TABLE meta (key TEXT, value TEXT); INSERT INTO meta VALUES ('application', 'x');"
      "PRAGMA user_version = 1;",
      "CREATE TABLE meta (a INTEGER); PRAGMA user_version = 1;",
      /* only an index and a view, no user_version */
      "CREATE TABLE t (a); CREATE INDEX ti ON t (a); CREATE VIEW v AS SELECT a FROM t;",
  };
  for (size_t i = 0; i < sizeof setups / sizeof setups[0]; i++) {
    char p[512];
    char name[32];
    snprintf(name, sizeof name, "foreign%zu.db", i);
    tmp_path(p, sizeof p, name);
    sqlite3 *h = NULL;
    CHECK(sqlite3_open(p, &h) == SQLITE_OK);
    CHECK(sqlite3_exec(h, setups[i], NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(h);
    check_refused(p, CGM_EINPUT, "not a cgmodel database", NULL);
    remove_db(p);
  }
}

/* Read-only checks of a database made by make_db (calibration `cal`):
 * reading works, every write says "read-only". mode is added to every
 * open (CGM_DB_READONLY: forced). Returns failures. */
static int readonly_checks(const char *p, int64_t cal, unsigned mode) {
  int before = cgm_test_failures;
  cgm_db *db = NULL, *db2 = NULL;
  cgm_error e = {0};
  CHECK(cgm_db_open(p, CGM_DB_CREATE | mode, &db, &e) != CGM_OK && db == NULL);
  CHECK_MSG(strstr(e.msg, "read-only") && strstr(e.msg, p), "%s", e.msg);
  if (cgm_db_open(p, mode, &db, &e) != CGM_OK) {
    fprintf(stderr, "read-only open: %s\n", e.msg);
    return cgm_test_failures - before + 1;
  }
  cgm_db_calibration c;
  CHECK_OK(newest_complete(db, 0, &c, &e));
  CHECK(c.id == cal);
  CHECK(count_samples(db, cal, &e) == 4);
  cgm_db_fit f;
  CHECK_OK(fit_get(db, cal, "load", "fixed", 1, 0, 0, &f, &e));
  /* No new file where the directory is not writable. */
  char np[600];
  snprintf(np, sizeof np, "%s/new.db", tmpdir);
  if (access(tmpdir, W_OK) != 0) {
    CHECK(cgm_db_open(np, CGM_DB_CREATE | mode, &db2, &e) == CGM_EINPUT && db2 == NULL);
    CHECK_MSG(strstr(e.msg, "read-only") && strstr(e.msg, np), "%s", e.msg);
    CHECK(!exists(np));
  }
  /* A known device is found without writing. */
  cgm_db_device d = cpu_device("node1");
  CHECK_OK(cgm_db_device_get_or_add(db, &d, &e));
  CHECK(d.id == c.device_id);

  cgm_db_device nd = cpu_device("node2");
  CHECK(cgm_db_device_get_or_add(db, &nd, &e) == CGM_EINPUT);
  CHECK_ERR(e, CGM_EINPUT, "read-only");
  cgm_db_sample s = make_sample(0);
  CHECK(cgm_db_sample_add(db, cal, &s, &e) == CGM_EINPUT);
  CHECK_ERR(e, CGM_EINPUT, "read-only");
  CHECK_MSG(strstr(e.msg, p), "%s", e.msg);
  CHECK(cgm_db_begin(db, &e) == CGM_EINPUT);
  CHECK_ERR(e, CGM_EINPUT, "read-only");
  cgm_db_calibration nc = {.device_id = d.id};
  CHECK(cgm_db_calibration_add(db, &nc, &e) == CGM_EINPUT);
  CHECK(cgm_db_calibration_finish(db, cal, 1.0, &e) == CGM_EINPUT);
  cgm_db_solve v = {.matrix_id = 1};
  CHECK(cgm_db_solve_add(db, &v, &e) == CGM_EINPUT);
  CHECK_ERR(e, CGM_EINPUT, "read-only");
  /* Even a write that slips past our check is refused by SQLite. */
  int rc = sqlite3_exec(db->h, "DELETE FROM samples", NULL, NULL, NULL);
  CHECK((rc & 0xff) == SQLITE_READONLY);
  cgm_db_close(db);
  return cgm_test_failures - before;
}

/* Runs readonly_checks with the file's permissions deciding. Root ignores
 * permissions, so as root a child process drops to nobody, for whom the
 * directory (root's) is not writable either. Otherwise dir_readonly makes
 * the directory read-only for the run. */
static void permission_checks(const char *p, int64_t cal, bool dir_readonly) {
  if (geteuid() != 0) {
    if (dir_readonly) chmod(tmpdir, 0555);
    CHECK(readonly_checks(p, cal, 0) == 0);
    chmod(tmpdir, 0700);
    return;
  }
  chmod(tmpdir, 0755);
  pid_t pid = fork();
  if (pid == 0) {
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(77);
    _exit(readonly_checks(p, cal, 0) > 0 ? 1 : 0);
  }
  int status = 0;
  CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
    fprintf(stderr, "note: could not drop to nobody; permission check skipped\n");
  else
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "read-only child status %d", status);
  chmod(tmpdir, 0700);
}

static void test_readonly(void) {
  char p[512];
  tmp_path(p, sizeof p, "ro.db");
  int64_t cal = make_db(p, 4);
  size_t n;
  unsigned char *before = slurp(p, &n);

  /* Forced, the way that also works for root. */
  CHECK(readonly_checks(p, cal, CGM_DB_READONLY) == 0);
  CHECK(before && same_bytes(before, n, p));

  /* By permissions, first with the -shm file the read-only connections
   * above left, then without it in a directory that is not writable:
   * SQLite cannot create -shm there, which the immutable fallback covers. */
  chmod(p, 0444);
  char shm[600], wal[600];
  snprintf(shm, sizeof shm, "%s-shm", p);
  snprintf(wal, sizeof wal, "%s-wal", p);
  CHECK(exists(shm));
  permission_checks(p, cal, false);
  struct stat sb;
  CHECK(stat(wal, &sb) != 0 || sb.st_size == 0); /* nothing pending: safe to drop */
  unlink(wal);
  unlink(shm);
  permission_checks(p, cal, true);
  CHECK(!exists(shm));
  chmod(p, 0644);
  CHECK(before && same_bytes(before, n, p));
  free(before);
  /* The library reads no environment: $CGMODEL_DB_READONLY is the command
   * line's to translate, so here it changes nothing. */
  setenv("CGMODEL_DB_READONLY", "1", 1);
  {
    cgm_db *w = NULL;
    cgm_error we = {0};
    CHECK_OK(cgm_db_open(p, CGM_DB_CREATE, &w, &we));
    CHECK_OK(cgm_db_begin(w, &we));
    CHECK_OK(cgm_db_commit(w, &we));
    cgm_db_close(w);
  }
  unsetenv("CGMODEL_DB_READONLY");
  remove_db(p);

  /* An empty database cannot be set up read-only. */
  tmp_path(p, sizeof p, "ro-empty.db");
  FILE *f = fopen(p, "wb");
  if (f) fclose(f);
  cgm_db *db = NULL;
  cgm_error e = {0};
  CHECK(cgm_db_open(p, CGM_DB_READONLY, &db, &e) == CGM_EINPUT && db == NULL);
  CHECK_ERR(e, CGM_EINPUT, "read-only");
  remove_db(p);
}

/* SQLITE_FULL, provoked with PRAGMA max_page_count. */
static void test_disk_full(void) {
  char p[512];
  tmp_path(p, sizeof p, "full.db");
  int64_t first = make_db(p, 50);
  cgm_db *db = NULL;
  cgm_error e = {0};
  CHECK_OK(cgm_db_open(p, false, &db, &e));
  if (!db) return;
  int pages = sql_int(db, "PRAGMA page_count");
  CHECK(pages > 0);
  char cap[64]; /* the file capped at 2 more pages: SQLITE_FULL (PRAGMA takes no parameters) */
  snprintf(cap, sizeof cap, "PRAGMA max_page_count = %d", pages + 2);
  CHECK_OK(cgm_db__exec(db, cap, "limiting the file size", &e));
  cgm_db_device d = cpu_device("node1");
  CHECK_OK(cgm_db_device_get_or_add(db, &d, &e));

  /* In a transaction: the whole calibration goes. */
  cgm_db_calibration c = {.device_id = d.id};
  CHECK_OK(cgm_db_begin(db, &e));
  CHECK_OK(cgm_db_calibration_add(db, &c, &e));
  cgm_status s = CGM_OK;
  int added = 0;
  for (; added < 100000 && s == CGM_OK; added++) {
    cgm_db_sample smp = make_sample(added);
    memset(smp.source, 'x', sizeof smp.source - 1);
    s = cgm_db_sample_add(db, c.id, &smp, &e);
  }
  CHECK_MSG(s == CGM_ERUNTIME && strstr(e.msg, "full") && strstr(e.msg, p) &&
                strstr(e.msg, "rolled back"),
            "after %d samples: status %d, %s", added, (int)s, e.msg);
  CHECK(cgm_db_commit(db, &e) == CGM_ERUNTIME); /* nothing left to commit */
  CHECK_ERR(e, CGM_ERUNTIME, "rolled back");
  cgm_db_rollback(db);

  /* Outside a transaction: that one statement fails. */
  c.id = 0;
  CHECK_OK(cgm_db_calibration_add(db, &c, &e)); /* fits in the pages left */
  s = CGM_OK;
  for (int i = 0; i < 100000 && s == CGM_OK; i++) {
    cgm_db_sample smp = make_sample(i);
    memset(smp.source, 'y', sizeof smp.source - 1);
    s = cgm_db_sample_add(db, c.id, &smp, &e);
  }
  CHECK_ERR(e, CGM_ERUNTIME, "disk full");
  cgm_db_close(db);

  CHECK_OK(cgm_db_open(p, false, &db, &e));
  if (!db) return;
  CHECK(integrity_ok(db));
  cgm_db_calibration latest;
  CHECK_OK(newest_complete(db, 0, &latest, &e));
  CHECK(latest.id == first);
  CHECK(count_samples(db, first, &e) == 50);
  CHECK(sql_int(db, "SELECT count(*) FROM calibrations") == 2); /* first, and the autocommit one */
  CHECK(sql_int(db, "SELECT count(*) FROM samples WHERE source LIKE 'xxx%'") == 0);
  /* Without the cap it takes writes again. */
  cgm_db_sample smp = make_sample(1);
  CHECK_OK(cgm_db_sample_add(db, first, &smp, &e));
  cgm_db_close(db);
  remove_db(p);
}

/* ----------------------------------------------------------- migration --- */

static void test_migration(void) {
  /* Version-0 files: an empty file, and an SQLite database with settings
   * but no tables. Both are set up to the current version. */
  for (int kind = 0; kind < 2; kind++) {
    char p[512];
    tmp_path(p, sizeof p, kind ? "v0-sqlite.db" : "v0-empty.db");
    if (kind == 0) {
      FILE *f = fopen(p, "wb");
      CHECK(f != NULL);
      if (f) fclose(f);
    } else {
      sqlite3 *h = NULL;
      CHECK(sqlite3_open(p, &h) == SQLITE_OK);
      CHECK(sqlite3_exec(h, "PRAGMA page_size = 8192; VACUUM; PRAGMA user_version = 0", NULL, NULL,
                         NULL) == SQLITE_OK);
      sqlite3_close(h);
      struct stat sb;
      CHECK(stat(p, &sb) == 0 && sb.st_size > 0);
    }
    cgm_db *db = NULL;
    cgm_error e = {0};
    CHECK_OK(cgm_db_open(p, false, &db, &e));
    if (!db) continue;
    CHECK(sql_int(db, "PRAGMA user_version") == CGM_DB_SCHEMA_VERSION);
    CHECK(
        sql_int(db, "SELECT count(*) FROM meta WHERE key = 'application' AND value = 'cgmodel'") ==
        1);
    CHECK(sql_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'") == 9);
    if (kind == 1) CHECK(sql_int(db, "PRAGMA page_size") == 8192);
    cgm_db_close(db);
    /* Opening again migrates nothing more. */
    CHECK_OK(cgm_db_open(p, false, &db, &e));
    if (db) CHECK(sql_int(db, "SELECT count(*) FROM meta") == 2);
    cgm_db_close(db);
    remove_db(p);
  }
}

/* A version-1 database (no m_lo, m_hi in fits) with a fit in it: opening
 * migrates it to the current version, and the old fit reads back whole,
 * with an unknown (NaN) range. */
static void test_migration_v1(void) {
  char p[512];
  tmp_path(p, sizeof p, "v1.db");
  cgm_db *db = NULL;
  cgm_error e = {0};
  CHECK_OK(cgm_db_open(p, true, &db, &e));
  if (!db) return;
  cgm_db_device d = cpu_device("node1");
  CHECK_OK(cgm_db_device_get_or_add(db, &d, &e));
  cgm_db_calibration cal = {.device_id = d.id};
  CHECK_OK(cgm_db_calibration_add(db, &cal, &e));
  cgm_db_fit f = {.kernel = "cg4",
                  .precision = 1,
                  .kind = 2,
                  .mu = 20,
                  .sigma = 2,
                  .nu = 40,
                  .n = 9,
                  .converged = 1,
                  .m_lo = 64,
                  .m_hi = 1e6};
  CHECK_OK(cgm_db_fit_add(db, cal.id, &f, &e));
  cgm_db_close(db);
  sqlite3 *h = NULL;
  CHECK(sqlite3_open(p, &h) == SQLITE_OK);
  CHECK(sqlite3_exec(h,
                     DROP_V9
                     "ALTER TABLE fits DROP COLUMN m_lo; ALTER TABLE fits DROP COLUMN m_hi; "
                     "ALTER TABLE solves DROP COLUMN options;"
                     "ALTER TABLE solves DROP COLUMN time_setup_s; ALTER TABLE solves DROP COLUMN "
                     "layout_bytes; DROP TABLE coefficients; ALTER TABLE solves DROP COLUMN "
                     "precond; ALTER TABLE solves DROP COLUMN layout_on_device; "
                     "ALTER TABLE matrices DROP COLUMN content_id; PRAGMA user_version = 1",
                     NULL, NULL, NULL) == SQLITE_OK);
  sqlite3_close(h);
  CHECK_OK(cgm_db_open(p, false, &db, &e));
  if (!db) return;
  CHECK(sql_int(db, "PRAGMA user_version") == CGM_DB_SCHEMA_VERSION);
  cgm_db_fit fb;
  CHECK_OK(fit_get(db, cal.id, "cg4", "", 1, 0, 2, &fb, &e));
  CHECK(fb.mu == 20 && fb.sigma == 2 && fb.nu == 40 && fb.n == 9 && fb.converged == 1 &&
        isnan(fb.m_lo) && isnan(fb.m_hi));
  cgm_db_close(db);
  remove_db(p);
}

/* A version-2 database (solves without options) with a solve in it:
 * opening migrates it, and the old solve reads back with "{}". */
static void test_migration_v2(void) {
  char p[512];
  tmp_path(p, sizeof p, "v2.db");
  cgm_db *db = NULL;
  cgm_error e = {0};
  CHECK_OK(cgm_db_open(p, true, &db, &e));
  if (!db) return;
  cgm_db_matrix m = {.name = "a.mtx", .x = 3, .nnz = 7};
  CHECK_OK(cgm_db_matrix_get_or_add(db, &m, &e));
  cgm_db_solve v = {.matrix_id = m.id, .backend = "cpu", .iterations = 5, .options = "{\"x\":1}"};
  CHECK_OK(cgm_db_solve_add(db, &v, &e));
  cgm_db_close(db);
  sqlite3 *h = NULL;
  CHECK(sqlite3_open(p, &h) == SQLITE_OK);
  CHECK(sqlite3_exec(h,
                     DROP_V9
                     "ALTER TABLE solves DROP COLUMN options;"
                     "ALTER TABLE solves DROP COLUMN time_setup_s; ALTER TABLE solves DROP COLUMN "
                     "layout_bytes; DROP TABLE coefficients; ALTER TABLE solves DROP COLUMN "
                     "precond; ALTER TABLE solves DROP COLUMN layout_on_device; "
                     "ALTER TABLE matrices DROP COLUMN content_id; PRAGMA user_version = 2",
                     NULL, NULL, NULL) == SQLITE_OK);
  sqlite3_close(h);
  CHECK_OK(cgm_db_open(p, false, &db, &e));
  if (!db) return;
  CHECK(sql_int(db, "PRAGMA user_version") == CGM_DB_SCHEMA_VERSION);
  static collect c; /* large: off the stack */
  memset(&c, 0, sizeof c);
  CHECK_OK(cgm_db_solves(db, collect_solve, &c, &e));
  CHECK(c.n == 1 && c.v[0].iterations == 5 && !strcmp(c.v[0].options, "{}"));
  cgm_db_close(db);
  remove_db(p);
}

/* A version-3 database (solves without their setup): opening migrates it;
 * the old solve reads back with an unknown setup (NaN, 0 bytes), a new one
 * with what it was given. */
static void test_migration_v3(void) {
  char p[512];
  tmp_path(p, sizeof p, "v3.db");
  cgm_db *db = NULL;
  cgm_error e = {0};
  CHECK_OK(cgm_db_open(p, true, &db, &e));
  if (!db) return;
  cgm_db_matrix m = {.name = "a.mtx", .x = 3, .nnz = 7};
  CHECK_OK(cgm_db_matrix_get_or_add(db, &m, &e));
  cgm_db_solve v = {.matrix_id = m.id,
                    .backend = "cpu",
                    .iterations = 5,
                    .time_setup_s = 0.5,
                    .layout_bytes = 1000};
  CHECK_OK(cgm_db_solve_add(db, &v, &e));
  cgm_db_close(db);
  sqlite3 *h = NULL;
  CHECK(sqlite3_open(p, &h) == SQLITE_OK);
  CHECK(sqlite3_exec(h,
                     DROP_V9
                     "ALTER TABLE solves DROP COLUMN time_setup_s; ALTER TABLE solves DROP COLUMN "
                     "layout_bytes; DROP TABLE coefficients; ALTER TABLE solves DROP COLUMN "
                     "precond; ALTER TABLE solves DROP COLUMN layout_on_device; "
                     "ALTER TABLE matrices DROP COLUMN content_id; PRAGMA user_version = 3",
                     NULL, NULL, NULL) == SQLITE_OK);
  sqlite3_close(h);
  CHECK_OK(cgm_db_open(p, false, &db, &e));
  if (!db) return;
  CHECK(sql_int(db, "PRAGMA user_version") == CGM_DB_SCHEMA_VERSION);
  v.id = 0;
  CHECK_OK(cgm_db_solve_add(db, &v, &e));
  static collect c; /* large: off the stack */
  memset(&c, 0, sizeof c);
  CHECK_OK(cgm_db_solves(db, collect_solve, &c, &e));
  CHECK(c.n == 2 && isnan(c.v[0].time_setup_s) && c.v[0].layout_bytes == 0 &&
        c.v[1].time_setup_s == 0.5 && c.v[1].layout_bytes == 1000);
  /* found without being added */
  cgm_db_matrix q = {.name = "a.mtx", .x = 3, .nnz = 7}, r = {.name = "b.mtx", .x = 3, .nnz = 7};
  CHECK_OK(cgm_db_matrix_find(db, &q, &e));
  CHECK_OK(cgm_db_matrix_find(db, &r, &e));
  CHECK(q.id == m.id && r.id == 0);
  cgm_db_close(db);
  remove_db(p);
}

/* The coefficients cgm_db_coefs lists. */
typedef struct {
  cgm_db_coef v[4];
  int n;
} coefs;

static int take_coef(const cgm_db_coef *q, void *ctx) {
  coefs *c = ctx;
  if (c->n < 4) c->v[c->n++] = *q;
  return 0;
}

/* A version-4 database (no coefficients) with a calibration: opening
 * migrates it; the calibration has no coefficient (the model it had), and
 * those stored list back by precision and name, one replaced by a second of
 * the same name. */
static void test_migration_v4(void) {
  char p[512];
  tmp_path(p, sizeof p, "v4.db");
  cgm_db *db = NULL;
  cgm_error e = {0};
  CHECK_OK(cgm_db_open(p, true, &db, &e));
  if (!db) return;
  cgm_db_device dev = cpu_device("node3");
  CHECK_OK(cgm_db_device_get_or_add(db, &dev, &e));
  cgm_db_calibration cal = {.device_id = dev.id};
  CHECK_OK(cgm_db_calibration_add(db, &cal, &e));
  cgm_db_close(db);
  sqlite3 *h = NULL;
  CHECK(sqlite3_open(p, &h) == SQLITE_OK);
  CHECK(sqlite3_exec(h,
                     DROP_V9
                     "DROP TABLE coefficients; ALTER TABLE solves DROP COLUMN precond; ALTER TABLE "
                     "solves DROP COLUMN layout_on_device; "
                     "ALTER TABLE matrices DROP COLUMN content_id; PRAGMA user_version = 4",
                     NULL, NULL, NULL) == SQLITE_OK);
  sqlite3_close(h);
  CHECK_OK(cgm_db_open(p, false, &db, &e));
  if (!db) return;
  CHECK(sql_int(db, "PRAGMA user_version") == CGM_DB_SCHEMA_VERSION);
  coefs c = {0};
  CHECK_OK(cgm_db_coefs(db, cal.id, take_coef, &c, &e));
  CHECK(c.n == 0);
  cgm_db_coef w = {
      .name = CGM_DB_COEF_X_SECTOR, .precision = 0, .value = 0.25, .rms = 0.01, .n = 8};
  CHECK_OK(cgm_db_coef_add(db, cal.id, &w, &e));
  w.value = 0.5;
  CHECK_OK(cgm_db_coef_add(db, cal.id, &w, &e)); /* replaces it */
  cgm_db_coef g = {.name = CGM_DB_COEF_GATHER, .precision = 1, .value = 1e12, .rms = NAN};
  CHECK_OK(cgm_db_coef_add(db, cal.id, &g, &e));
  c.n = 0;
  CHECK_OK(cgm_db_coefs(db, cal.id, take_coef, &c, &e));
  const cgm_db_coef *x = &c.v[0];
  CHECK(c.n == 2 && !strcmp(x->name, CGM_DB_COEF_X_SECTOR) && x->precision == 0);
  CHECK(x->value == 0.5 && x->rms == 0.01 && x->n == 8);
  CHECK(!strcmp(c.v[1].name, CGM_DB_COEF_GATHER) && c.v[1].precision == 1);
  CHECK(c.v[1].value == 1e12 && isnan(c.v[1].rms));
  c.n = 0;
  CHECK_OK(cgm_db_coefs(db, cal.id + 1, take_coef, &c, &e)); /* another calibration: none */
  CHECK(c.n == 0);
  CHECK(sql_int(db, "SELECT count(*) FROM coefficients") == 2);
  cgm_db_close(db);
  remove_db(p);
}

/* A database made now with the solve `old` in it (its matrix set here),
 * taken back to an older schema by `downgrade` (SQL that ends by setting
 * its user_version), then opened, which migrates it to the current one;
 * `fresh`, a solve of the same matrix, is added after; every solve read
 * back into *c. */
static void migrated_solves(const char *name, const char *downgrade, cgm_db_solve old,
                            cgm_db_solve fresh, collect *c) {
  char p[512];
  tmp_path(p, sizeof p, name);
  cgm_db *db = NULL;
  cgm_error e = {0};
  memset(c, 0, sizeof *c);
  CHECK_OK(cgm_db_open(p, true, &db, &e));
  if (!db) return;
  cgm_db_matrix m = {.name = "a.mtx", .x = 3, .nnz = 7};
  CHECK_OK(cgm_db_matrix_get_or_add(db, &m, &e));
  old.matrix_id = fresh.matrix_id = m.id;
  CHECK_OK(cgm_db_solve_add(db, &old, &e));
  cgm_db_close(db);
  sqlite3 *h = NULL;
  CHECK(sqlite3_open(p, &h) == SQLITE_OK);
  CHECK(sqlite3_exec(h, downgrade, NULL, NULL, NULL) == SQLITE_OK);
  sqlite3_close(h);
  CHECK_OK(cgm_db_open(p, false, &db, &e));
  if (!db) return;
  CHECK(sql_int(db, "PRAGMA user_version") == CGM_DB_SCHEMA_VERSION);
  CHECK_OK(cgm_db_solve_add(db, &fresh, &e));
  CHECK_OK(cgm_db_solves(db, collect_solve, c, &e));
  cgm_db_close(db);
  remove_db(p);
}

/* A version-5 database (solves without precond) with a solve in it:
 * opening migrates it, the old solve reads back as Jacobi's, and a new
 * block-Jacobi solve keeps its preconditioner. */
static void test_migration_v5(void) {
  static collect c; /* large: off the stack */
  migrated_solves(
      "v5.db",
      DROP_V9
      "ALTER TABLE solves DROP COLUMN precond; ALTER TABLE solves DROP COLUMN "
      "layout_on_device; ALTER TABLE matrices DROP COLUMN content_id; PRAGMA user_version = 5",
      (cgm_db_solve){.backend = "cpu", .iterations = 5},
      (cgm_db_solve){.backend = "cpu", .iterations = 3, .precond = "block"}, &c);
  CHECK(c.n == 2);
  CHECK(!strcmp(c.v[0].precond, "jacobi") && c.v[0].iterations == 5);
  CHECK(!strcmp(c.v[1].precond, "block") && c.v[1].iterations == 3);
}

/* A version-6 database (solves without layout_on_device) with a solve in it:
 * opening migrates it, the old solve reads back as built on the host, and
 * a new one keeps what it says. */
static void test_migration_v6(void) {
  static collect c; /* large: off the stack */
  migrated_solves("v6.db",
                  DROP_V9
                  "ALTER TABLE solves DROP COLUMN layout_on_device; ALTER TABLE matrices DROP "
                  "COLUMN content_id; PRAGMA user_version = 6",
                  (cgm_db_solve){.backend = "cuda", .iterations = 5},
                  (cgm_db_solve){.backend = "cuda", .iterations = 3, .layout_on_device = true}, &c);
  CHECK(c.n == 2);
  CHECK(!c.v[0].layout_on_device && c.v[0].iterations == 5);
  CHECK(c.v[1].layout_on_device && c.v[1].iterations == 3);
}

/* A version-8 database (solves without the disturbed flag): the old solve
 * reads back undisturbed, a new disturbed one keeps its flag. */
static void test_migration_v8(void) {
  static collect c; /* large: off the stack */
  migrated_solves("v8.db", DROP_V9 "PRAGMA user_version = 8",
                  (cgm_db_solve){.backend = "cpu", .iterations = 5},
                  (cgm_db_solve){.backend = "cpu", .iterations = 3, .disturbed = true}, &c);
  CHECK(c.n == 2);
  CHECK(!c.v[0].disturbed && c.v[0].iterations == 5);
  CHECK(c.v[1].disturbed && c.v[1].iterations == 3);
}

/* A version-9 database: a calibration with exchange fits (several GPUs
 * measured) is named after what measured them, one without has none, and a
 * new calibration keeps the name it is given. */
static void test_migration_v9(void) {
  char p[512];
  tmp_path(p, sizeof p, "v9.db");
  cgm_db *db = NULL;
  cgm_error e = {0};
  CHECK_OK(cgm_db_open(p, true, &db, &e));
  if (!db) return;
  cgm_db_device dev = {.name = "cuda:0", .model = "Test GPU", .kind = "cuda", .host = "h"};
  CHECK_OK(cgm_db_device_get_or_add(db, &dev, &e));
  cgm_db_calibration one = {.device_id = dev.id}, four = one;
  CHECK_OK(cgm_db_calibration_add(db, &one, &e));
  CHECK_OK(cgm_db_calibration_add(db, &four, &e));
  cgm_db_fit f = {.kernel = "xfer", .variant = "halo", .block = 4, .kind = 2 /* rel */, .nu = 1};
  CHECK_OK(cgm_db_fit_add(db, four.id, &f, &e));
  cgm_db_close(db);
  sqlite3 *h = NULL;
  CHECK(sqlite3_open(p, &h) == SQLITE_OK);
  CHECK(sqlite3_exec(h, DROP_V10 "PRAGMA user_version = 9", NULL, NULL, NULL) == SQLITE_OK);
  sqlite3_close(h);
  CHECK_OK(cgm_db_open(p, false, &db, &e));
  if (!db) return;
  CHECK(sql_int(db, "PRAGMA user_version") == CGM_DB_SCHEMA_VERSION);
  cgm_db_calibration c;
  CHECK_OK(cgm_db_calibration_get(db, one.id, &c, &e));
  CHECK_MSG(c.interconnect[0] == '\0', "'%s'", c.interconnect);
  CHECK_OK(cgm_db_calibration_get(db, four.id, &c, &e));
  CHECK_MSG(!strcmp(c.interconnect, "peer:Test GPU"), "'%s'", c.interconnect);
  cgm_db_calibration named = {.device_id = dev.id, .interconnect = "pcie-host"};
  CHECK_OK(cgm_db_calibration_add(db, &named, &e));
  CHECK_OK(cgm_db_calibration_get(db, named.id, &c, &e));
  CHECK(!strcmp(c.interconnect, "pcie-host"));
  cgm_db_close(db);
  remove_db(p);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb;
  (void)flag;
  (void)ftw;
  return remove(path);
}

int main(void) {
  const char *base = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/cgm_test_db_XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(tmpdir)) {
    fprintf(stderr, "mkdtemp(%s): %s\n", tmpdir, strerror(errno));
    return 1;
  }
  unsetenv("CGMODEL_DB_READONLY");
  test_default_path();
  test_create();
  test_round_trips();
  test_rollback();
  test_crash();
  test_concurrent();
  test_concurrent_create();
  test_newer();
  test_table_gone();
  test_corrupt();
  test_foreign();
  test_readonly();
  test_disk_full();
  test_migration();
  test_migration_v1();
  test_migration_v2();
  test_migration_v3();
  test_migration_v4();
  test_migration_v5();
  test_migration_v6();
  test_migration_v8();
  test_migration_v9();
  chmod(tmpdir, 0700);
  nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  TEST_MAIN_END();
}
