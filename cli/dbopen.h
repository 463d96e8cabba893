/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Opening the database for a subcommand, and the progress line. */
#pragma once

#include <stddef.h>

#include "cgmodel/db.h"

/* The database's path: --db FILE when given (path), else cli_env_db_path's (in buf). */
const char *cli_db_path(const char *path, char *buf, size_t n);

/* Opens --db FILE, $CGMODEL_DB or the default path with flags CGM_DB_* (true: CGM_DB_CREATE);
 * without CGM_DB_CREATE a missing file is reported as "no calibration yet" (exit 2). Prints the
 * error and returns the exit code, or 0 with *db set. */
int cli_db_open(const char *cmd, const char *path, unsigned flags, cgm_db **db);

/* Progress on stderr when it is a terminal: "stage [#####     ] 42%", or
 * "3/16 matrices"; cli_progress_end ends the line when one was shown. */
void cli_progress(void *ctx, const char *stage, double done);
void cli_progress_count(void *ctx, int done, int total);
void cli_progress_end(void);
