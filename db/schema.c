/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The database schema as a list of migrations. migrations[i] takes the schema from version i to i +
 * 1 (PRAGMA user_version); a new version is one more entry here and CGM_DB_SCHEMA_VERSION + 1 in
 * cgmodel/db.h. docs/database.md describes every table. */
#include "db/db_internal.h"

#include <stdio.h>
#include <string.h>

/* Version 0 -> 1: everything. REAL columns that may hold NaN are nullable
 * because SQLite stores NaN as NULL; the readers turn NULL back into NaN. */
static const char migration_1[] =
    /* The `application` row tells our files from other SQLite files; it
     * must stay in every future version. */
    "CREATE TABLE meta (\n"
    "  key   TEXT PRIMARY KEY,\n"
    "  value TEXT NOT NULL\n"
    ") WITHOUT ROWID;\n"
    "INSERT INTO meta (key, value) VALUES ('application', 'cgmodel');\n"
    "INSERT INTO meta (key, value) VALUES ('created', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));\n"

    "CREATE TABLE devices (\n"
    "  id              INTEGER PRIMARY KEY,\n"
    "  name            TEXT NOT NULL DEFAULT '',\n"
    "  model           TEXT NOT NULL,\n"
    "  kind            TEXT NOT NULL,\n"
    "  cc_major        INTEGER NOT NULL DEFAULT 0,\n"
    "  cc_minor        INTEGER NOT NULL DEFAULT 0,\n"
    "  sms             INTEGER NOT NULL DEFAULT 0,\n"
    "  threads         INTEGER NOT NULL DEFAULT 0,\n"
    "  mem_total       INTEGER NOT NULL DEFAULT 0,\n"
    "  clock_khz       INTEGER NOT NULL DEFAULT 0,\n"
    "  mem_clock_khz   INTEGER NOT NULL DEFAULT 0,\n"
    "  bus_width_bits  INTEGER NOT NULL DEFAULT 0,\n"
    "  driver_version  INTEGER NOT NULL DEFAULT 0,\n"
    "  runtime_version INTEGER NOT NULL DEFAULT 0,\n"
    "  host            TEXT NOT NULL DEFAULT '',\n"
    "  UNIQUE (kind, model, host)\n"
    ");\n"

    "CREATE TABLE calibrations (\n"
    "  id           INTEGER PRIMARY KEY,\n"
    "  device_id    INTEGER NOT NULL REFERENCES devices (id),\n"
    "  created      TEXT NOT NULL,\n"
    "  tool_version TEXT NOT NULL DEFAULT '',\n"
    "  options      TEXT NOT NULL DEFAULT '{}',\n"
    "  seconds      REAL,\n"
    "  complete     INTEGER NOT NULL DEFAULT 0 CHECK (complete IN (0, 1))\n"
    ");\n"
    "CREATE INDEX calibrations_latest ON calibrations (device_id, complete, created);\n"

    "CREATE TABLE samples (\n"
    "  id             INTEGER PRIMARY KEY,\n"
    "  calibration_id INTEGER NOT NULL REFERENCES calibrations (id) ON DELETE CASCADE,\n"
    "  kernel         TEXT NOT NULL,\n"
    "  variant        TEXT NOT NULL DEFAULT '',\n"
    "  precision      INTEGER NOT NULL,\n"
    "  block          INTEGER NOT NULL DEFAULT 0,\n"
    "  m              REAL NOT NULL,\n"
    "  bytes          REAL NOT NULL,\n"
    "  seconds        REAL NOT NULL,\n"
    "  source         TEXT NOT NULL DEFAULT ''\n"
    ");\n"
    "CREATE INDEX samples_curve ON samples (calibration_id, kernel, variant, precision, block);\n"

    "CREATE TABLE fits (\n"
    "  id             INTEGER PRIMARY KEY,\n"
    "  calibration_id INTEGER NOT NULL REFERENCES calibrations (id) ON DELETE CASCADE,\n"
    "  kernel         TEXT NOT NULL,\n"
    "  variant        TEXT NOT NULL DEFAULT '',\n"
    "  precision      INTEGER NOT NULL,\n"
    "  block          INTEGER NOT NULL DEFAULT 0,\n"
    "  kind           INTEGER NOT NULL,\n"
    "  mu REAL, sigma REAL, nu REAL,\n"
    "  se_mu REAL, se_sigma REAL, se_nu REAL,\n"
    "  r2 REAL, rms REAL,\n"
    "  n              INTEGER NOT NULL DEFAULT 0,\n"
    "  converged      INTEGER NOT NULL DEFAULT 0,\n"
    "  message        TEXT NOT NULL DEFAULT '',\n"
    "  UNIQUE (calibration_id, kernel, variant, precision, block, kind)\n"
    ");\n"

    "CREATE TABLE matrices (\n"
    "  id         INTEGER PRIMARY KEY,\n"
    "  name       TEXT NOT NULL,\n"
    "  path       TEXT NOT NULL DEFAULT '',\n"
    "  file_bytes INTEGER NOT NULL,\n"
    "  x          INTEGER NOT NULL,\n"
    "  nnz        INTEGER NOT NULL,\n"
    "  features   TEXT NOT NULL DEFAULT '{}',\n"
    "  UNIQUE (name, file_bytes, x, nnz)\n"
    ");\n"

    /* A prediction or solve outlives the calibration it used (SET NULL);
     * it belongs to its matrix (CASCADE). */
    "CREATE TABLE predictions (\n"
    "  id              INTEGER PRIMARY KEY,\n"
    "  matrix_id       INTEGER NOT NULL REFERENCES matrices (id) ON DELETE CASCADE,\n"
    "  calibration_id  INTEGER REFERENCES calibrations (id) ON DELETE SET NULL,\n"
    "  created         TEXT NOT NULL,\n"
    "  backend         TEXT NOT NULL DEFAULT '',\n"
    "  precision       TEXT NOT NULL DEFAULT '',\n"
    "  block           INTEGER NOT NULL DEFAULT 0,\n"
    "  gpus            INTEGER NOT NULL DEFAULT 0,\n"
    "  time_per_iter_s REAL,\n"
    "  gflops_raw      REAL,\n"
    "  gflops_real     REAL,\n"
    "  memory_bytes    INTEGER NOT NULL DEFAULT 0,\n"
    "  fits            INTEGER NOT NULL DEFAULT 0,\n"
    "  model           TEXT NOT NULL DEFAULT ''\n"
    ");\n"
    "CREATE INDEX predictions_matrix ON predictions (matrix_id);\n"
    "CREATE INDEX predictions_calibration ON predictions (calibration_id);\n"

    "CREATE TABLE solves (\n"
    "  id                        INTEGER PRIMARY KEY,\n"
    "  matrix_id                 INTEGER NOT NULL REFERENCES matrices (id) ON DELETE CASCADE,\n"
    "  calibration_id            INTEGER REFERENCES calibrations (id) ON DELETE SET NULL,\n"
    "  created                   TEXT NOT NULL,\n"
    "  backend                   TEXT NOT NULL DEFAULT '',\n"
    "  precision                 TEXT NOT NULL DEFAULT '',\n"
    "  exchange                  TEXT NOT NULL DEFAULT '',\n"
    "  devices                   TEXT NOT NULL DEFAULT '',\n"
    "  block                     INTEGER NOT NULL DEFAULT 0,\n"
    "  bx                        INTEGER NOT NULL DEFAULT 0,\n"
    "  gpus                      INTEGER NOT NULL DEFAULT 0,\n"
    "  iterations                INTEGER NOT NULL DEFAULT 0,\n"
    "  converged                 INTEGER NOT NULL DEFAULT 0,\n"
    "  relative_residual         REAL,\n"
    "  time_per_iter_s           REAL,\n"
    "  predicted_time_per_iter_s REAL,\n"
    "  model                     TEXT NOT NULL DEFAULT ''\n"
    ");\n"
    "CREATE INDEX solves_matrix ON solves (matrix_id);\n"
    "CREATE INDEX solves_calibration ON solves (calibration_id);";

/* Version 2: the range of transactions each fit was fitted on (NULL: the whole curve), so a curve
 * can be made of fits of adjacent regimes (a CPU's caches, then its memory). */
static const char migration_2[] = "ALTER TABLE fits ADD COLUMN m_lo REAL;\n"
                                  "ALTER TABLE fits ADD COLUMN m_hi REAL;";

/* Version 3: what a solve ran with beyond its configuration (the tolerance,
 * the iteration cap, the GPU solver's options), as JSON. */
static const char migration_3[] =
    "ALTER TABLE solves ADD COLUMN options TEXT NOT NULL DEFAULT '{}';";

/* Version 4: a solve's measured setup (layout build and upload) and the
 * bytes of its layout, the samples the tuner's setup model is fitted on. */
static const char migration_4[] = "ALTER TABLE solves ADD COLUMN time_setup_s REAL;\n"
                                  "ALTER TABLE solves ADD COLUMN layout_bytes INTEGER NOT NULL "
                                  "DEFAULT 0;";

/* Version 5: scalar coefficients of a calibration's model beside its curves (the locality term's
 * "x_sector", per precision). A calibration without them keeps the model it had. */
static const char migration_5[] =
    "CREATE TABLE coefficients (\n"
    "  id             INTEGER PRIMARY KEY,\n"
    "  calibration_id INTEGER NOT NULL REFERENCES calibrations (id) ON DELETE CASCADE,\n"
    "  name           TEXT NOT NULL,\n"
    "  precision      INTEGER NOT NULL,\n"
    "  value          REAL,\n"
    "  rms            REAL,\n"
    "  n              INTEGER NOT NULL DEFAULT 0,\n"
    "  UNIQUE (calibration_id, name, precision)\n"
    ");";

/* Version 6: the solve's preconditioner (cgm_precond_name): the iteration counts the tuner learns
 * from are Jacobi's, and block-Jacobi's differ. Solves recorded before it ran Jacobi. */
static const char migration_6[] =
    "ALTER TABLE solves ADD COLUMN precond TEXT NOT NULL DEFAULT 'jacobi';";

/* Version 7: whether the GPU built the solve's layout from the uploaded CSR
 * (cgm_solve_result.layout_on_device): those setups lie on a line of their own
 * (cgm_tuner_device.setup_dev). Solves recorded before it were built on the host. */
static const char migration_7[] =
    "ALTER TABLE solves ADD COLUMN layout_on_device INTEGER NOT NULL DEFAULT 0;";

/* 8: a matrix's identity by content (cgm_cache_report.content_id; 0: unknown), so that a solve of
 * the same matrix from another file, or under another name, knows its iteration count. */
static const char migration_8[] =
    "ALTER TABLE matrices ADD COLUMN content_id INTEGER NOT NULL DEFAULT 0;";

/* Version 9: timings on a shared machine. A sample's spread (its timings' median over the low
 * quantile kept, less 1; NULL: not known) and whether they settled; a solve other work held up
 * (pipeline_solve_disturbed). Older rows read as settled and undisturbed. */
static const char migration_9[] = "ALTER TABLE samples ADD COLUMN spread REAL;\n"
                                  "ALTER TABLE samples ADD COLUMN unsettled INTEGER NOT NULL "
                                  "DEFAULT 0;\n"
                                  "ALTER TABLE solves ADD COLUMN disturbed INTEGER NOT NULL "
                                  "DEFAULT 0;";

/* Version 10: a calibration's interconnect profile (its exchange fits on
 * several GPUs, named after what measured them: GPUs of one node with peer
 * access); older calibrations with exchange fits are named so here. */
static const char migration_10[] =
    "ALTER TABLE calibrations ADD COLUMN interconnect TEXT NOT NULL DEFAULT '';\n"
    "UPDATE calibrations SET interconnect = 'peer:' || (SELECT model FROM devices d WHERE d.id = "
    "calibrations.device_id) WHERE id IN (SELECT calibration_id FROM fits WHERE kernel = 'xfer');";

/* Version 11: matrices found by their content without reading them all (a matrix in memory whose
 * values change at every step adds a row a step). */
static const char migration_11[] = "CREATE INDEX matrices_content ON matrices (content_id);";

static const char *const migrations[] = {migration_1, migration_2,  migration_3, migration_4,
                                         migration_5, migration_6,  migration_7, migration_8,
                                         migration_9, migration_10, migration_11};

_Static_assert(sizeof migrations / sizeof migrations[0] == CGM_DB_SCHEMA_VERSION,
               "one migration per schema version");

int cgm_db__is_ours(sqlite3 *h, int *rc) {
  sqlite3_stmt *st = NULL;
  /* Looks in sqlite_master first so that a database without `meta` is not an error. */
  *rc = sqlite3_prepare_v2(
      h, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'", -1, &st,
      NULL);
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
  *rc = sqlite3_step(st);
  const unsigned char *v = *rc == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
  const int ours = v && strcmp((const char *)v, "cgmodel") == 0;
  if (*rc == SQLITE_ROW || *rc == SQLITE_DONE) *rc = SQLITE_OK;
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
