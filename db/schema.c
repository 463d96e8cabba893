/* The database schema as a list of migrations. migrations[i] takes the
 * schema from version i to i + 1 (PRAGMA user_version); a new version is one
 * more entry here and CGM_DB_SCHEMA_VERSION + 1 in cgmodel/db.h.
 * docs/database.md describes every table. */
#include "db/db_internal.h"

#include <stdio.h>

/* Version 0 -> 1: everything. REAL columns that may hold NaN are nullable
 * because SQLite stores NaN as NULL; the readers turn NULL back into NaN. */
static const char migration_1[] =
    /* The `application` row tells our files from other SQLite files; it
     * must stay in every future version. */
    "CREATE TABLE meta ("
    "  key   TEXT PRIMARY KEY,"
    "  value TEXT NOT NULL"
    ") WITHOUT ROWID;"
    "INSERT INTO meta (key, value) VALUES ('application', 'cgmodel');"
    "INSERT INTO meta (key, value) VALUES ('created', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));"

    "CREATE TABLE devices ("
    "  id              INTEGER PRIMARY KEY,"
    "  name            TEXT NOT NULL DEFAULT '',"
    "  model           TEXT NOT NULL,"
    "  kind            TEXT NOT NULL,"
    "  cc_major        INTEGER NOT NULL DEFAULT 0,"
    "  cc_minor        INTEGER NOT NULL DEFAULT 0,"
    "  sms             INTEGER NOT NULL DEFAULT 0,"
    "  threads         INTEGER NOT NULL DEFAULT 0,"
    "  mem_total       INTEGER NOT NULL DEFAULT 0,"
    "  clock_khz       INTEGER NOT NULL DEFAULT 0,"
    "  mem_clock_khz   INTEGER NOT NULL DEFAULT 0,"
    "  bus_width_bits  INTEGER NOT NULL DEFAULT 0,"
    "  driver_version  INTEGER NOT NULL DEFAULT 0,"
    "  runtime_version INTEGER NOT NULL DEFAULT 0,"
    "  host            TEXT NOT NULL DEFAULT '',"
    "  UNIQUE (kind, model, host)"
    ");"

    "CREATE TABLE calibrations ("
    "  id           INTEGER PRIMARY KEY,"
    "  device_id    INTEGER NOT NULL REFERENCES devices (id),"
    "  created      TEXT NOT NULL,"
    "  tool_version TEXT NOT NULL DEFAULT '',"
    "  options      TEXT NOT NULL DEFAULT '{}',"
    "  seconds      REAL,"
    "  complete     INTEGER NOT NULL DEFAULT 0 CHECK (complete IN (0, 1))"
    ");"
    "CREATE INDEX calibrations_latest ON calibrations (device_id, complete, created);"

    "CREATE TABLE samples ("
    "  id             INTEGER PRIMARY KEY,"
    "  calibration_id INTEGER NOT NULL REFERENCES calibrations (id) ON DELETE CASCADE,"
    "  kernel         TEXT NOT NULL,"
    "  variant        TEXT NOT NULL DEFAULT '',"
    "  precision      INTEGER NOT NULL,"
    "  block          INTEGER NOT NULL DEFAULT 0,"
    "  m              REAL NOT NULL,"
    "  bytes          REAL NOT NULL,"
    "  seconds        REAL NOT NULL,"
    "  source         TEXT NOT NULL DEFAULT ''"
    ");"
    "CREATE INDEX samples_curve ON samples (calibration_id, kernel, variant, precision, block);"

    "CREATE TABLE fits ("
    "  id             INTEGER PRIMARY KEY,"
    "  calibration_id INTEGER NOT NULL REFERENCES calibrations (id) ON DELETE CASCADE,"
    "  kernel         TEXT NOT NULL,"
    "  variant        TEXT NOT NULL DEFAULT '',"
    "  precision      INTEGER NOT NULL,"
    "  block          INTEGER NOT NULL DEFAULT 0,"
    "  kind           INTEGER NOT NULL,"
    "  mu REAL, sigma REAL, nu REAL,"
    "  se_mu REAL, se_sigma REAL, se_nu REAL,"
    "  r2 REAL, rms REAL,"
    "  n              INTEGER NOT NULL DEFAULT 0,"
    "  converged      INTEGER NOT NULL DEFAULT 0,"
    "  message        TEXT NOT NULL DEFAULT '',"
    "  UNIQUE (calibration_id, kernel, variant, precision, block, kind)"
    ");"

    "CREATE TABLE matrices ("
    "  id         INTEGER PRIMARY KEY,"
    "  name       TEXT NOT NULL,"
    "  path       TEXT NOT NULL DEFAULT '',"
    "  file_bytes INTEGER NOT NULL,"
    "  x          INTEGER NOT NULL,"
    "  nnz        INTEGER NOT NULL,"
    "  features   TEXT NOT NULL DEFAULT '{}',"
    "  UNIQUE (name, file_bytes, x, nnz)"
    ");"

    /* A prediction or solve outlives the calibration it used (SET NULL);
     * it belongs to its matrix (CASCADE). */
    "CREATE TABLE predictions ("
    "  id              INTEGER PRIMARY KEY,"
    "  matrix_id       INTEGER NOT NULL REFERENCES matrices (id) ON DELETE CASCADE,"
    "  calibration_id  INTEGER REFERENCES calibrations (id) ON DELETE SET NULL,"
    "  created         TEXT NOT NULL,"
    "  backend         TEXT NOT NULL DEFAULT '',"
    "  precision       TEXT NOT NULL DEFAULT '',"
    "  block           INTEGER NOT NULL DEFAULT 0,"
    "  gpus            INTEGER NOT NULL DEFAULT 0,"
    "  time_per_iter_s REAL,"
    "  gflops_raw      REAL,"
    "  gflops_real     REAL,"
    "  memory_bytes    INTEGER NOT NULL DEFAULT 0,"
    "  fits            INTEGER NOT NULL DEFAULT 0,"
    "  model           TEXT NOT NULL DEFAULT ''"
    ");"
    "CREATE INDEX predictions_matrix ON predictions (matrix_id);"
    "CREATE INDEX predictions_calibration ON predictions (calibration_id);"

    "CREATE TABLE solves ("
    "  id                        INTEGER PRIMARY KEY,"
    "  matrix_id                 INTEGER NOT NULL REFERENCES matrices (id) ON DELETE CASCADE,"
    "  calibration_id            INTEGER REFERENCES calibrations (id) ON DELETE SET NULL,"
    "  created                   TEXT NOT NULL,"
    "  backend                   TEXT NOT NULL DEFAULT '',"
    "  precision                 TEXT NOT NULL DEFAULT '',"
    "  exchange                  TEXT NOT NULL DEFAULT '',"
    "  devices                   TEXT NOT NULL DEFAULT '',"
    "  block                     INTEGER NOT NULL DEFAULT 0,"
    "  bx                        INTEGER NOT NULL DEFAULT 0,"
    "  gpus                      INTEGER NOT NULL DEFAULT 0,"
    "  iterations                INTEGER NOT NULL DEFAULT 0,"
    "  converged                 INTEGER NOT NULL DEFAULT 0,"
    "  relative_residual         REAL,"
    "  time_per_iter_s           REAL,"
    "  predicted_time_per_iter_s REAL,"
    "  model                     TEXT NOT NULL DEFAULT ''"
    ");"
    "CREATE INDEX solves_matrix ON solves (matrix_id);"
    "CREATE INDEX solves_calibration ON solves (calibration_id);";

static const char *const migrations[] = {migration_1};

_Static_assert(sizeof migrations / sizeof migrations[0] == CGM_DB_SCHEMA_VERSION,
               "one migration per schema version");

int cgm_db__is_ours(sqlite3 *h, int *rc) {
  sqlite3_stmt *st = NULL;
  /* Looks in sqlite_master first so that a database without `meta` is not
   * an error. */
  *rc = sqlite3_prepare_v2(h,
                           "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
                           -1, &st, NULL);
  if (*rc != SQLITE_OK) return -1;
  *rc = sqlite3_step(st);
  int has_meta = *rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
  sqlite3_finalize(st);
  if (*rc != SQLITE_ROW) return -1;
  *rc = SQLITE_OK;
  if (!has_meta) return 0;

  *rc = sqlite3_prepare_v2(h, "SELECT value FROM meta WHERE key = 'application'", -1, &st, NULL);
  /* A `meta` table of another shape is someone else's. */
  if (*rc == SQLITE_ERROR) {
    *rc = SQLITE_OK;
    return 0;
  }
  if (*rc != SQLITE_OK) return -1;
  int ours = 0;
  *rc = sqlite3_step(st);
  if (*rc == SQLITE_ROW) {
    const unsigned char *v = sqlite3_column_text(st, 0);
    ours = v && sqlite3_strglob("cgmodel", (const char *)v) == 0;
    *rc = SQLITE_OK;
  } else if (*rc == SQLITE_DONE) {
    *rc = SQLITE_OK;
  }
  sqlite3_finalize(st);
  return *rc == SQLITE_OK ? ours : -1;
}

cgm_status cgm_db__migrate(cgm_db *db, int from, cgm_error *err) {
  for (int v = from; v < CGM_DB_SCHEMA_VERSION; v++) {
    char what[64];
    snprintf(what, sizeof what, "upgrading the schema to version %d", v + 1);
    cgm_status s = cgm_db__exec(db, migrations[v], what, err);
    if (s != CGM_OK) return s;
    /* PRAGMA takes no bound parameters; v + 1 is our own constant. */
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", v + 1);
    s = cgm_db__exec(db, sql, what, err);
    if (s != CGM_OK) return s;
  }
  return CGM_OK;
}
