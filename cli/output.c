/* SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L
#include "cli/output.h"

#include "cli/commands.h"
#include "common/escape.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_error(const char *cmd, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char msg[8192];
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "cgmodel %s: error: ", cmd);
  cgm_fput_escaped(stderr, msg, true);
  fputc('\n', stderr);
  return code;
}

/* The option of c whose key is s[0..n): one that takes a value when `value`. */
static const cli_opt *by_key(const cli_command *c, const char *s, size_t n, bool value) {
  const cli_opt *o;
  for (int i = 0; c && (o = cli_opt_at(c, i)); i++)
    if (strlen(o->key) == n && !strncmp(o->key, s, n) && (!value || o->kind > CLI_CONST)) return o;
  return NULL;
}

/* A library message in the command's words: a leading request key becomes
 * its flag ("gpus 2: ..." -> "--gpus 2: ..."), and key=value advice the
 * option that says it ("backend=cuda" -> "--backend cuda"). */
static void to_flags(const cli_command *c, const char *msg, char *out, size_t n) {
  size_t k = 0;
  for (const char *s = msg; *s && k + 1 < n;) {
    const bool start = s == msg || !(isalnum((unsigned char)s[-1]) || strchr("_-", s[-1]));
    const size_t w = start ? strspn(s, "abcdefghijklmnopqrstuvwxyz_") : 0;
    const bool lead = s == msg && (s[w] == ' ' || s[w] == ':'), value = w && s[w] == '=';
    const size_t vn = value ? strcspn(s + w + 1, " ,;:)") : 0;
    const cli_opt *o = w && (lead || value) ? by_key(c, s, w, value) : NULL;
    if (!o) {
      out[k++] = *s++;
      continue;
    }
    k += (size_t)snprintf(out + k, n - k, "%s%s%.*s", o->flag, vn ? " " : "", (int)vn,
                          value ? s + w + 1 : s);
    k = k < n ? k : n - 1;
    s += w + (value ? 1 + vn : 0);
  }
  out[k] = '\0';
}

int cli_report(const char *cmd, const cgm_error *err) {
  char msg[sizeof err->msg + 256];
  to_flags(cli_command_find(cmd), err->msg, msg, sizeof msg);
  return cli_error(cmd, err->code ? (int)err->code : 3, "%s", msg);
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

int cli_stderr_is_tty(void) {
  return isatty(STDERR_FILENO);
}

const char *cli_escape(const char *s, char *buf, size_t n) {
  FILE *f = fmemopen(buf, n, "w");
  if (!f) return "?";
  cgm_fput_escaped(f, s ? s : "", false);
  fclose(f);
  buf[n - 1] = '\0'; /* cut short when it filled buf */
  return buf;
}
