#define _POSIX_C_SOURCE 200809L
#include "cli/dbopen.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/output.h"

int cli_db_open(const char *cmd, const char *path, bool create, cgm_db **db) {
  char buf[1024];
  const char *p = path ? path : cgm_db_default_path(buf, sizeof buf);
  struct stat sb;
  if (!create && stat(p, &sb) != 0)
    return cli_error(cmd, 2, "no calibration yet: %s does not exist; run 'cgmodel calibrate' first",
                     p);
  cgm_error err = {0};
  if (cgm_db_open(p, create, db, &err)) return cli_report(cmd, &err);
  return 0;
}

static int shown = 0;

void cli_progress(void *ctx, const char *stage, double done) {
  (void)ctx;
  if (!cli_stderr_is_tty()) return;
  int w = 30, k = (int)(done * w + 0.5);
  if (k > w) k = w;
  char bar[40];
  for (int i = 0; i < w; i++) bar[i] = i < k ? '#' : ' ';
  bar[w] = 0;
  fprintf(stderr, "\r%-10s [%s] %3d%%", stage, bar, (int)(100 * done + 0.5));
  fflush(stderr);
  shown = 1;
}

void cli_progress_end(void) {
  if (shown && cli_stderr_is_tty()) fputc('\n', stderr);
  shown = 0;
}
