/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Internals shared by db/sql.c, db.c, schema.c, records.c and the unit test.
 * Not part of the public API. */
#pragma once

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>

#include "cgmodel/db.h"

/* How long a statement waits for another process's lock before SQLITE_BUSY. */
#define CGM_DB_BUSY_TIMEOUT_MS 10000

struct cgm_db {
  sqlite3 *h;
  char *path;
  bool readonly;
  bool unchecked;        /* CGM_DB_UNCHECKED */
  const char *ro_reason; /* why it was opened read-only (for the write errors) */
  bool in_txn;           /* cgm_db_begin called, no commit or rollback yet */
  bool txn_aborted;      /* an error inside in_txn rolled the transaction back */
};

/* sql.c. Fills err from a failed SQLite call: the path, what was being done, sqlite3_errmsg, and
 * the CGM code for rc (disk full, read-only, corrupt and busy get their own wording). After errors
 * that may leave a transaction half done (full, I/O, corrupt, out of memory) it rolls the open
 * transaction back so that nothing partial can be committed. */
cgm_status cgm_db__sqlfail(cgm_db *db, cgm_error *err, int rc, const char *what);

/* CGM_EINPUT with a "read-only" message when db was opened read-only. */
cgm_status cgm_db__writable(cgm_db *db, cgm_error *err);

cgm_status cgm_db__prepare(cgm_db *db, const char *sql, sqlite3_stmt **st, cgm_error *err);

/* Runs a statement that returns no rows; `what` names it in errors. */
cgm_status cgm_db__exec(cgm_db *db, const char *sql, const char *what, cgm_error *err);

/* Copies src (NULL reads as "") into dst[size]: truncated to size - 1 bytes
 * without splitting a UTF-8 sequence, always NUL-terminated. */
void cgm_db__copy(char *dst, size_t size, const char *src);

/* The current UTC time as ISO 8601 with milliseconds, 2024-05-01T12:34:56.789Z. */
void cgm_db__now(char *buf, size_t size);

/* Schema (db/schema.c). */
/* 1 when the `meta` table says application = cgmodel, 0 when it does not,
 * -1 on a SQLite error (rc in *rc). */
int cgm_db__is_ours(sqlite3 *h, int *rc);
/* Applies the migrations after version `from` up to CGM_DB_SCHEMA_VERSION.
 * Must run inside a write transaction. */
cgm_status cgm_db__migrate(cgm_db *db, int from, cgm_error *err);
