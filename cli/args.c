/* SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include "cli/args.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/solver.h"
#include "common/parse.h"

bool cli_parse_only = false;

void cli_args_init(cli_args *a, int argc, char **argv) {
  memset(a, 0, sizeof *a);
  a->argc = argc;
  a->argv = argv;
}

bool cli_failed(const cli_args *a) {
  return a->error[0] != '\0';
}

static void set_error(cli_args *a, const char *fmt, const char *x, const char *y) {
  if (!a->error[0]) snprintf(a->error, sizeof a->error, fmt, x, y);
}

bool cli_next(cli_args *a) {
  while (a->pos < a->argc && !cli_failed(a)) {
    const char *s = a->argv[a->pos];
    if (s[0] == '-' && s[1] != '\0') return true;
    if (a->npositional < 16)
      a->positional[a->npositional++] = s;
    else
      set_error(a, "too many arguments (at '%s')%s", s, "");
    a->pos++;
  }
  return false;
}

/* Matches "--name" or "--name=value" at the current position. */
static const char *match(cli_args *a, const char *name) {
  const char *s = a->argv[a->pos];
  size_t n = strlen(name);
  if (strncmp(s, name, n) != 0) return NULL;
  if (s[n] == '\0') return s + n;
  if (s[n] == '=') return s + n + 1;
  return NULL;
}

bool cli_flag(cli_args *a, const char *name) {
  const char *m = match(a, name);
  if (!m) return false;
  if (*m) set_error(a, "option %s takes no value%s", name, "");
  a->pos++;
  return true;
}

bool cli_opt(cli_args *a, const char *name) {
  const char *m = match(a, name);
  if (!m) return false;
  if (*m) {
    a->value = m;
    a->pos++;
    return true;
  }
  if (a->pos + 1 >= a->argc) {
    set_error(a, "option %s needs a value%s", name, "");
    a->value = "";
    a->pos++;
    return true;
  }
  a->value = a->argv[a->pos + 1];
  a->pos += 2;
  return true;
}

bool cli_int(cli_args *a, const char *name, int64_t lo, int64_t hi, int64_t *out) {
  if (!cli_opt(a, name)) return false;
  int64_t v;
  if (!cgm_parse_int(a->value, lo, hi, &v)) {
    char range[96];
    snprintf(range, sizeof range, "an integer in [%lld, %lld]", (long long)lo, (long long)hi);
    char msg[256];
    snprintf(msg, sizeof msg, "option %s: '%s' is not %s", name, a->value, range);
    set_error(a, "%s%s", msg, "");
    return true;
  }
  *out = v;
  return true;
}

bool cli_double(cli_args *a, const char *name, double lo, double hi, double *out) {
  if (!cli_opt(a, name)) return false;
  double v;
  if (!cgm_parse_real(a->value, lo, hi, &v)) {
    char msg[256];
    snprintf(msg, sizeof msg, "option %s: '%s' is not a number in [%g, %g]", name, a->value, lo,
             hi);
    set_error(a, "%s%s", msg, "");
    return true;
  }
  *out = v;
  return true;
}

bool cli_flag_or_int(cli_args *a, const char *name, int64_t lo, int64_t hi, int64_t dflt,
                     int64_t *out) {
  const char *m = match(a, name);
  if (!m) return false;
  const char *next = a->pos + 1 < a->argc ? a->argv[a->pos + 1] : "";
  const bool number =
      next[0] >= '0' && next[0] <= '9' && strspn(next, "0123456789") == strlen(next);
  if (*m || number) return cli_int(a, name, lo, hi, out);
  *out = dflt;
  a->pos++;
  return true;
}

void cli_unknown(cli_args *a) {
  set_error(a, "unknown option '%s'%s", a->argv[a->pos], "");
  a->pos++;
}

bool cli_precisions(const char *s, bool mixed, unsigned *out) {
  const unsigned both = (1u << CGM_PREC_SINGLE) | (1u << CGM_PREC_DOUBLE);
  if (!strcmp(s, "both")) {
    *out = both | (mixed ? 1u << CGM_PREC_MIXED : 0u);
    return true;
  }
  /* a comma-separated list of names, each once */
  unsigned set = 0;
  char buf[64];
  if (snprintf(buf, sizeof buf, "%s", s) >= (int)sizeof buf) return false;
  char *save = NULL;
  int n = 0;
  for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save), n++) {
    cgm_precision p;
    if (!cgm_precision_parse(t, &p) || (p == CGM_PREC_MIXED && !mixed) || (set & (1u << p)))
      return false;
    set |= 1u << p;
  }
  /* no empty items: as many commas as names less one */
  int commas = 0;
  for (const char *c = s; *c; c++) commas += *c == ',';
  if (!set || commas != n - 1) return false;
  *out = set;
  return true;
}
