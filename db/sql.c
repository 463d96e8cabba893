/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The statements' plumbing that db.c, schema.c and records.c share: the error wording of a failed
 * SQLite call, preparing and running statements, copying text, the time stamp. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "db/db_internal.h"

void cgm_db__copy(char *dst, size_t size, const char *src) {
  if (size == 0) return;
  if (!src) src = "";
  size_t n = strnlen(src, size);
  if (n >= size) {
    n = size - 1;
    /* Back up over UTF-8 continuation bytes so no character is cut. */
    while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80) n--;
  }
  memcpy(dst, src, n);
  dst[n] = '\0';
}

void cgm_db__now(char *buf, size_t size) {
  struct timespec ts;
  struct tm tm;
  clock_gettime(CLOCK_REALTIME, &ts);
  gmtime_r(&ts.tv_sec, &tm);
  char day[24];
  strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
  /* Milliseconds keep two calibrations of the same second in order. */
  snprintf(buf, size, "%s.%03dZ", day, (int)(ts.tv_nsec / 1000000));
}

cgm_status cgm_db__sqlfail(cgm_db *db, cgm_error *err, int rc, const char *what) {
  const char *path = db->path ? db->path : "(database)";
  /* Copy the message first: the rollback below replaces it. */
  char msg[256];
  cgm_db__copy(msg, sizeof msg, db->h ? sqlite3_errmsg(db->h) : sqlite3_errstr(rc));
  int prim = rc & 0xff;

  /* After these SQLite may already have rolled back, or may leave a transaction with a failed write
   * in it; either way it must not be committed, so end it here. */
  if (db->h && !sqlite3_get_autocommit(db->h) &&
      (prim == SQLITE_FULL || prim == SQLITE_IOERR || prim == SQLITE_NOMEM ||
       prim == SQLITE_CORRUPT || prim == SQLITE_NOTADB))
    sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
  const bool rolled_back = db->in_txn && db->h && sqlite3_get_autocommit(db->h);
  if (rolled_back) db->txn_aborted = true;
  const char *after =
      rolled_back ? "; the transaction was rolled back, earlier data is intact" : "";

  switch (prim) {
  case SQLITE_FULL:
    return cgm_fail(err, CGM_ERUNTIME,
                    "%s: disk full while %s (SQLite: %s)%s; free some space and run it again", path,
                    what, msg, rolled_back ? after : "; nothing of it was written");
  case SQLITE_READONLY:
    return cgm_fail(err, CGM_EINPUT, "%s: the database is read-only: failed %s (SQLite: %s)%s",
                    path, what, msg, after);
  case SQLITE_CORRUPT:
  case SQLITE_NOTADB:
    return cgm_fail(err, CGM_EINPUT,
                    "%s: the file is corrupt or not a cgmodel database (SQLite: %s, while %s)%s; "
                    "cgmodel did not repair or replace it",
                    path, msg, what, after);
  case SQLITE_BUSY:
  case SQLITE_LOCKED:
    return cgm_fail(err, CGM_ERUNTIME,
                    "%s: the database stayed locked by another process for %d s while %s "
                    "(SQLite: %s)%s",
                    path, CGM_DB_BUSY_TIMEOUT_MS / 1000, what, msg, after);
  case SQLITE_CONSTRAINT:
    return cgm_fail(err, CGM_EINPUT, "%s: refused %s (SQLite: %s)%s", path, what, msg, after);
  default:
    return cgm_fail(err, CGM_ERUNTIME, "%s: failed %s (SQLite: %s)%s", path, what, msg, after);
  }
}

cgm_status cgm_db__writable(cgm_db *db, cgm_error *err) {
  if (!db->readonly) return CGM_OK;
  return cgm_fail(err, CGM_EINPUT, "%s: the database is read-only (%s): it cannot be written",
                  db->path, db->ro_reason);
}

cgm_status cgm_db__prepare(cgm_db *db, const char *sql, sqlite3_stmt **st, cgm_error *err) {
  int rc = sqlite3_prepare_v2(db->h, sql, -1, st, NULL);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(*st);
    *st = NULL;
    return cgm_db__sqlfail(db, err, rc, "preparing a query");
  }
  return CGM_OK;
}

cgm_status cgm_db__exec(cgm_db *db, const char *sql, const char *what, cgm_error *err) {
  int rc = sqlite3_exec(db->h, sql, NULL, NULL, NULL);
  return rc == SQLITE_OK ? CGM_OK : cgm_db__sqlfail(db, err, rc, what);
}
