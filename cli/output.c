/* SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include "cli/output.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A message on the terminal: control characters that came with a file
 * name or a file's content (ESC sequences, \r) are shown as \xNN, so they
 * cannot move the cursor or recolour the terminal; line breaks and tabs
 * of the messages themselves stay. */
static void put_escaped(FILE *f, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
      fprintf(f, "\\x%02x", *p);
    else
      fputc(*p, f);
  }
}

int cli_error(const char *cmd, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char msg[8192];
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "cgmodel %s: error: ", cmd);
  put_escaped(stderr, msg);
  fputc('\n', stderr);
  return code;
}

int cli_report(const char *cmd, const cgm_error *err) {
  return cli_error(cmd, err->code ? (int)err->code : 3, "%s", err->msg);
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
    put_escaped(stderr, msg);
    fputc('\n', stderr);
  }
}

const char *cli_input_path(const char *arg) {
  return arg && !strcmp(arg, "-") ? "/dev/stdin" : arg;
}

int cli_stderr_is_tty(void) {
  return isatty(STDERR_FILENO);
}
