/* SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include "cli/output.h"

#include "common/escape.h"

#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

char cli_last_error[1024];

int cli_error(const char *cmd, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char msg[8192];
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(cli_last_error, sizeof cli_last_error, "%.1000s", msg);
  fprintf(stderr, "cgmodel %s: error: ", cmd);
  cgm_fput_escaped(stderr, msg, true);
  fputc('\n', stderr);
  return code;
}

int cli_print_json(cJSON *obj) {
  char *s = obj ? cJSON_Print(obj) : NULL;
  cJSON_Delete(obj);
  if (!s) return cli_error("json", 3, "out of memory printing JSON");
  int ok = puts(s) >= 0 && fflush(stdout) == 0;
  cJSON_free(s);
  return ok ? 0 : cli_error("json", 3, "cannot write to stdout");
}

void cli_note(void *ctx, cgm_note_kind kind, const char *msg) {
  const char *cmd = ctx;
  if (kind == CGM_NOTE_ERROR)
    cli_error(cmd, 0, "%s", msg);
  else {
    fprintf(stderr, "cgmodel %s: %s", cmd, kind == CGM_NOTE_WARNING ? "warning: " : "");
    cgm_fput_escaped(stderr, msg, true);
    fputc('\n', stderr);
  }
}

const char *cli_input_path(const char *arg) {
  return arg && !strcmp(arg, "-") ? "/dev/stdin" : arg;
}

const char *cli_escape(const char *s, char *buf, size_t n) {
  FILE *f = fmemopen(buf, n, "w");
  if (!f) return "?";
  cgm_fput_escaped(f, s ? s : "", false);
  fclose(f);
  buf[n - 1] = '\0'; /* cut short when it filled buf */
  return buf;
}
