/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Opening, checking and migrating the database file, and transactions. The
 * rule throughout: a file that is not ours, is damaged or is newer than us
 * is refused without a single byte written to it. */
#define _POSIX_C_SOURCE 200809L
#include "db/db_internal.h"
#include "common/outfile.h"
#include "common/timer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* cgm_db__exec, retried on SQLITE_BUSY until the busy timeout has passed:
 * switching a new file to WAL while other processes open it can get BUSY
 * at once, without SQLite calling the busy handler (its deadlock rule). */
static cgm_status exec_retry(cgm_db *db, const char *sql, const char *what, cgm_error *err) {
  const double t0 = cgm_now();
  for (;;) {
    int rc = sqlite3_exec(db->h, sql, NULL, NULL, NULL);
    if (rc == SQLITE_OK) return CGM_OK;
    if ((rc & 0xff) != SQLITE_BUSY || 1e3 * (cgm_now() - t0) > CGM_DB_BUSY_TIMEOUT_MS)
      return cgm_db__sqlfail(db, err, rc, what);
    sqlite3_sleep(5);
  }
}

/* One integer from a statement such as "PRAGMA user_version". */
static int query_int(sqlite3 *h, const char *sql, int *out) {
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(h, sql, -1, &st, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) *out = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  /* SQLITE_DONE: every statement used here returns a row */
  return rc == SQLITE_ROW ? SQLITE_OK : rc == SQLITE_DONE ? SQLITE_ERROR : rc;
}

/* The directory part of path ("." when there is none); malloc'ed. */
static char *dir_of(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return strdup(".");
  if (slash == path) return strdup("/");
  return strndup(path, (size_t)(slash - path));
}

/* "file:" URI of path with immutable=1 (RFC 3986 escapes for SQLite); sqlite3_free it. */
static char *immutable_uri(const char *path) {
  sqlite3_str *u = sqlite3_str_new(NULL);
  sqlite3_str_appendall(u, "file:");
  for (const unsigned char *p = (const unsigned char *)path; *p; p++)
    if (*p == '%' || *p == '?' || *p == '#' || *p <= 0x20 || *p >= 0x7F)
      sqlite3_str_appendf(u, "%%%02X", *p);
    else
      sqlite3_str_appendchar(u, 1, (char)*p);
  sqlite3_str_appendall(u, "?immutable=1");
  return sqlite3_str_finish(u);
}

static cgm_status corrupt(cgm_db *db, const char *detail, cgm_error *err) {
  return cgm_fail(err, CGM_EINPUT,
                  "%s: the file is corrupt or not a cgmodel database (%s); it was left untouched: "
                  "move it aside, or choose another database file",
                  db->path, detail);
}

/* Decides between read-write and read-only before SQLite opens anything. */
static cgm_status choose_mode(cgm_db *db, bool create, bool forced_ro, cgm_error *err) {
  struct stat sb;
  bool exists = stat(db->path, &sb) == 0;
  if (!exists && errno != ENOENT) {
    int e = errno;
    return cgm_fail(err, e == EACCES || e == ENOTDIR ? CGM_EINPUT : CGM_ERUNTIME,
                    "%s: cannot open: %s", db->path, strerror(e));
  }
  if (exists && S_ISDIR(sb.st_mode))
    return cgm_fail(err, CGM_EINPUT, "%s: is a directory, not a database file", db->path);
  if (!exists && !create)
    return cgm_fail(err, CGM_EINPUT,
                    "%s: no cgmodel database here (`cgmodel calibrate` creates it; db=FILE "
                    "chooses another file)",
                    db->path);

  if (forced_ro) {
    db->ro_reason = "opened read-only on request: CGM_DB_READONLY, the command line's "
                    "$CGMODEL_DB_READONLY";
  } else if (exists && access(db->path, W_OK) != 0) {
    db->ro_reason = errno == EROFS ? "its file system is read-only" : "the file is read-only";
  } else if (exists) {
    /* WAL needs to create PATH-wal and PATH-shm beside the file. */
    char *dir = dir_of(db->path);
    if (!dir) return cgm_fail(err, CGM_ERUNTIME, "%s: out of memory", db->path);
    if (access(dir, W_OK) != 0)
      db->ro_reason =
          errno == EROFS ? "its file system is read-only" : "its directory is read-only";
    free(dir);
  }
  db->readonly = db->ro_reason != NULL;
  if (db->readonly && create)
    return cgm_fail(err, CGM_EINPUT,
                    "%s: the database is read-only (%s) and cgmodel needs to write to it: %s",
                    db->path, db->ro_reason,
                    forced_ro ? "open it without CGM_DB_READONLY (unset $CGMODEL_DB_READONLY)"
                              : "fix its permissions, or choose another file (db=FILE)");
  if (exists) return CGM_OK;
  char *dir = dir_of(db->path), at[4096];
  if (!dir) return cgm_fail(err, CGM_ERUNTIME, "%s: out of memory", db->path);
  const int e = cgm_mkdirs(dir, 0777, at, sizeof at);
  const bool ro = e == EACCES || e == EPERM || e == EROFS;
  cgm_status s = CGM_OK;
  if (e)
    s = cgm_fail(err, ro || e == ENOTDIR ? CGM_EINPUT : CGM_ERUNTIME,
                 "%s: cannot create the directory %s: %s%s", db->path, at,
                 e == ENOTDIR ? "a file is in the way" : strerror(e), ro ? " (read-only)" : "");
  else if (access(dir, W_OK) != 0)
    s = cgm_fail(err, CGM_EINPUT, "%s: cannot create the database: %s is %s", db->path, dir,
                 errno == EROFS ? "on a read-only file system" : "read-only (no write permission)");
  free(dir);
  return s;
}

static cgm_status sqlite_open(cgm_db *db, const char *name, int flags, cgm_error *err) {
  int rc = sqlite3_open_v2(name, &db->h, flags, NULL);
  if (rc != SQLITE_OK) return cgm_db__sqlfail(db, err, rc, "opening the database");
  sqlite3_extended_result_codes(db->h, 1);
  sqlite3_busy_timeout(db->h, CGM_DB_BUSY_TIMEOUT_MS);
  return CGM_OK;
}

/* A failed read while checking the file: damage gets the corrupt message. */
static cgm_status read_fail(cgm_db *db, int rc, const char *what, cgm_error *err) {
  int prim = rc & 0xff;
  if (prim == SQLITE_NOTADB || prim == SQLITE_CORRUPT)
    return corrupt(db, sqlite3_errmsg(db->h), err);
  return cgm_db__sqlfail(db, err, rc, what);
}

/* Checks that the file is an intact cgmodel database of a version we understand (or an empty file),
 * without writing; *version gets its schema version, *empty whether it has no schema at all. */
static cgm_status inspect(cgm_db *db, int *version, bool *empty, cgm_error *err) {
  int rc = query_int(db->h, "PRAGMA user_version", version);
  int objects = 0;
  if (rc == SQLITE_OK) rc = query_int(db->h, "SELECT count(*) FROM sqlite_master", &objects);
  if (rc != SQLITE_OK) return read_fail(db, rc, "reading the schema version", err);
  *empty = *version == 0 && objects == 0;
  if (*empty) return CGM_OK;

  int ours = cgm_db__is_ours(db->h, &rc);
  if (ours < 0) return read_fail(db, rc, "reading the meta table", err);
  if (!ours)
    return cgm_fail(err, CGM_EINPUT,
                    "%s: not a cgmodel database (a SQLite file with other tables); it was left "
                    "untouched: choose another database file",
                    db->path);
  /* Before the integrity check: a newer schema may use SQL this SQLite
   * cannot parse, which it would report as corruption. */
  if (*version > CGM_DB_SCHEMA_VERSION)
    return cgm_fail(err, CGM_EINPUT,
                    "%s: database schema version %d is newer than this cgmodel understands (%d): "
                    "upgrade cgmodel",
                    db->path, *version, CGM_DB_SCHEMA_VERSION);

  /* A table of the schema that is gone (dropped by hand, a half-copied file): every query on it
   * would fail later with "no such table". One query: every solve opens the file. */
  static const char *const tables[] = {"meta", "devices",  "calibrations", "samples",
                                       "fits", "matrices", "predictions",  "solves"};
  int gone = 0; /* the first missing one's index + 1 */
  rc = query_int(db->h,
                 "WITH t(i, name) AS (VALUES (1, 'meta'), (2, 'devices'), (3, 'calibrations'), "
                 "(4, 'samples'), (5, 'fits'), (6, 'matrices'), (7, 'predictions'), (8, 'solves')) "
                 "SELECT coalesce(min(i), 0) FROM t WHERE name NOT IN "
                 "(SELECT name FROM sqlite_master WHERE type = 'table')",
                 &gone);
  if (rc != SQLITE_OK) return read_fail(db, rc, "reading the schema", err);
  char missing[96];
  snprintf(missing, sizeof missing, "its table %s is missing", gone ? tables[gone - 1] : "");
  if (gone) return corrupt(db, missing, err);

  /* quick_check reads every page (about 40 ms for 8 MB): damage found now
   * is reported before anything is written. */
  if (db->unchecked && *version == CGM_DB_SCHEMA_VERSION) return CGM_OK; /* a migration writes */
  sqlite3_stmt *st = NULL;
  rc = sqlite3_prepare_v2(db->h, "PRAGMA quick_check(1)", -1, &st, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    const char *r = (const char *)sqlite3_column_text(st, 0);
    if (!r || strcmp(r, "ok") != 0) {
      /* Its first finding, on one line: "*** in database main ***\nOn tree page 50 cell 31: ..." */
      static const char banner[] = "*** in database main ***";
      if (r && strncmp(r, banner, sizeof banner - 1) == 0) r += sizeof banner - 1;
      while (r && (*r == '\n' || *r == ' ')) r++;
      char detail[300];
      snprintf(detail, sizeof detail, "SQLite quick_check: %s", r ? r : "no result");
      for (char *c = detail; *c; c++)
        if (*c == '\n') *c = ' ';
      sqlite3_finalize(st);
      return corrupt(db, detail, err);
    }
    rc = SQLITE_OK;
  }
  sqlite3_finalize(st);
  return rc == SQLITE_OK ? CGM_OK : read_fail(db, rc, "checking the database", err);
}

/* Brings an empty file or an older schema to CGM_DB_SCHEMA_VERSION in one
 * transaction. BEGIN IMMEDIATE and the second look at the version make two
 * processes opening a new file at once migrate it exactly once. */
static cgm_status upgrade(cgm_db *db, cgm_error *err) {
  cgm_status s =
      cgm_db__exec(db, "BEGIN IMMEDIATE", "locking the database to set up its schema", err);
  if (s != CGM_OK) return s;
  int version = 0, objects = 0;
  int rc = query_int(db->h, "PRAGMA user_version", &version);
  if (rc == SQLITE_OK) rc = query_int(db->h, "SELECT count(*) FROM sqlite_master", &objects);
  if (rc != SQLITE_OK) {
    s = cgm_db__sqlfail(db, err, rc, "reading the schema version");
  } else if (version == 0 && objects > 0) {
    s = cgm_fail(err, CGM_EINPUT,
                 "%s: not a cgmodel database (another program created tables in it)", db->path);
  } else if (version < CGM_DB_SCHEMA_VERSION) {
    s = cgm_db__migrate(db, version, err);
  }
  if (s == CGM_OK) s = cgm_db__exec(db, "COMMIT", "storing the new schema", err);
  if (s != CGM_OK && !sqlite3_get_autocommit(db->h))
    sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
  return s;
}

/* After a failed first read of a read-only connection: whether it failed only because PATH-shm
 * cannot be created, with no PATH-wal whose commits reading the main file alone would miss. */
static bool needs_immutable(cgm_db *db) {
  int rc = sqlite3_extended_errcode(db->h);
  if (rc != SQLITE_READONLY_DIRECTORY && rc != SQLITE_READONLY_CANTINIT &&
      (rc & 0xff) != SQLITE_CANTOPEN)
    return false;
  char *wal = sqlite3_mprintf("%s-wal", db->path);
  struct stat sb;
  const bool pending = !wal || (stat(wal, &sb) == 0 && sb.st_size > 0);
  sqlite3_free(wal);
  return !pending;
}

static cgm_status open_checked(cgm_db *db, unsigned mode, cgm_error *err) {
  const bool create = mode & CGM_DB_CREATE;
  cgm_status s = choose_mode(db, create, mode & CGM_DB_READONLY, err);
  if (s != CGM_OK) return s;
  int flags = db->readonly ? SQLITE_OPEN_READONLY
                           : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
  s = sqlite_open(db, db->path, flags, err);
  if (s != CGM_OK) return s;

  int version = 0;
  bool empty = false;
  s = inspect(db, &version, &empty, err);
  if (s != CGM_OK && db->readonly && needs_immutable(db)) {
    /* A read-only WAL file in a directory we cannot write: SQLite cannot create PATH-shm, so no
     * process has the file open for writing now, and without a -wal file the main file holds
     * everything: read it as immutable (SQLite's documented way for this case). */
    sqlite3_close_v2(db->h);
    db->h = NULL;
    char *uri = immutable_uri(db->path);
    if (!uri) return cgm_fail(err, CGM_ERUNTIME, "%s: out of memory", db->path);
    s = sqlite_open(db, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, err);
    sqlite3_free(uri);
    if (s == CGM_OK) s = inspect(db, &version, &empty, err);
    if (s == CGM_OK) cgm_error_clear(err); /* the first try's message */
  }
  if (s != CGM_OK) return s;

  if (!db->readonly) {
    /* Persistent; a no-op once set. A file system without shared memory
     * may refuse WAL: SQLite then keeps its rollback journal, still safe. */
    s = exec_retry(db, "PRAGMA journal_mode = WAL", "switching to the WAL journal", err);
    if (s != CGM_OK) return s;
  }
  s = cgm_db__exec(db, "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL",
                   "setting up the connection", err);
  if (s != CGM_OK) return s;

  if (version < CGM_DB_SCHEMA_VERSION) {
    if (db->readonly)
      return cgm_fail(err, CGM_EINPUT,
                      "%s: %s (schema version %d, this cgmodel uses %d) and the database is "
                      "read-only (%s): open it once with write access to set it up",
                      db->path,
                      empty ? "the database is empty" : "the database has an older schema", version,
                      CGM_DB_SCHEMA_VERSION, db->ro_reason);
    s = upgrade(db, err);
  }
  return s;
}

cgm_status cgm_db_open(const char *path, unsigned flags, cgm_db **out, cgm_error *err) {
  if (!out) return cgm_fail(err, CGM_EINPUT, "cgm_db_open: no output handle");
  *out = NULL;
  if (!path || !*path) return cgm_fail(err, CGM_EINPUT, "db: no database path given");
  cgm_db *db = calloc(1, sizeof *db);
  if (db && !(db->path = strdup(path))) free(db), db = NULL;
  if (!db) return cgm_fail(err, CGM_ERUNTIME, "out of memory opening the database");
  db->unchecked = flags & CGM_DB_UNCHECKED;
  cgm_status s = open_checked(db, flags, err);
  if (s != CGM_OK) {
    cgm_db_close(db);
    return s;
  }
  *out = db;
  return CGM_OK;
}

void cgm_db_close(cgm_db *db) {
  if (!db) return;
  if (db->h) {
    if (!sqlite3_get_autocommit(db->h)) sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close_v2(db->h);
  }
  free(db->path);
  free(db);
}

const char *cgm_db_path(const cgm_db *db) {
  return db ? db->path : NULL;
}

int64_t cgm_db_data_version(cgm_db *db) {
  int v = -1;
  return db && query_int(db->h, "PRAGMA data_version", &v) == SQLITE_OK ? v : -1;
}

cgm_status cgm_db_begin(cgm_db *db, cgm_error *err) {
  if (!db) return cgm_fail(err, CGM_EINPUT, "cgm_db_begin: no database");
  cgm_status s = cgm_db__writable(db, err);
  if (s != CGM_OK) return s;
  if (db->in_txn)
    return cgm_fail(err, CGM_EINPUT, "%s: a transaction is already open (they do not nest)",
                    db->path);
  /* IMMEDIATE takes the write lock now, through the busy timeout; a
   * deferred transaction that upgrades later can fail at once with BUSY. */
  s = cgm_db__exec(db, "BEGIN IMMEDIATE", "starting a transaction", err);
  if (s != CGM_OK) return s;
  db->in_txn = true;
  db->txn_aborted = false;
  return CGM_OK;
}

cgm_status cgm_db_commit(cgm_db *db, cgm_error *err) {
  if (!db) return cgm_fail(err, CGM_EINPUT, "cgm_db_commit: no database");
  if (!db->in_txn) return cgm_fail(err, CGM_EINPUT, "%s: no transaction to commit", db->path);
  if (db->txn_aborted || sqlite3_get_autocommit(db->h)) {
    db->in_txn = db->txn_aborted = false;
    return cgm_fail(err, CGM_ERUNTIME,
                    "%s: the transaction was rolled back after an earlier error; nothing of it "
                    "was stored",
                    db->path);
  }
  cgm_status s = cgm_db__exec(db, "COMMIT", "committing", err);
  /* A failed COMMIT may leave the transaction open: end it, nothing half. */
  if (!sqlite3_get_autocommit(db->h)) sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
  db->in_txn = db->txn_aborted = false;
  return s;
}

void cgm_db_rollback(cgm_db *db) {
  if (!db) return;
  if (db->h && !sqlite3_get_autocommit(db->h)) sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
  db->in_txn = db->txn_aborted = false;
}

cgm_status cgm_db_end(cgm_db *db, cgm_status st, cgm_error *err) {
  if (!st) return cgm_db_commit(db, err);
  cgm_db_rollback(db);
  return st;
}
