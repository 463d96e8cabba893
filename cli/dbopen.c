/* SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include "cli/dbopen.h"

#include <stdio.h>
#include <unistd.h>

#include "cgmodel/pipeline.h"
#include "cli/commands.h"
#include "cli/env.h"

const char *cli_db_path(const char *path, char *buf, size_t n) {
  return path ? path : cli_env_db_path(buf, n);
}

int cli_db_open(const char *cmd, const char *path, unsigned flags, cgm_db **db) {
  char buf[1024];
  cgm_error err = {0};
  const unsigned mode = flags | (cli_env_db_readonly() ? CGM_DB_READONLY : 0u);
  if (cgm_open_database(cli_db_path(path, buf, sizeof buf), mode, db, &err))
    return cli_report(cmd, &err);
  return 0;
}

static int shown = 0;

void cli_progress(void *ctx, const char *stage, double done) {
  if (!isatty(STDERR_FILENO)) return; /* progress only on a terminal */
  int w = 30, k = (int)(done * w + 0.5);
  if (k > w) k = w;
  char bar[40];
  for (int i = 0; i < w; i++) bar[i] = i < k ? '#' : ' ';
  bar[w] = 0;
  fprintf(stderr, "\r%-10s [%s] %3d%%", stage, bar, (int)(100 * done + 0.5));
  fflush(stderr);
  shown = 1;
}

void cli_progress_count(void *ctx, int done, int total) {
  if (!isatty(STDERR_FILENO)) return;
  fprintf(stderr, "\r%d/%d matrices", done, total);
  shown = 1;
}

void cli_progress_end(void) {
  if (shown && isatty(STDERR_FILENO)) fputc('\n', stderr);
  shown = 0;
}
