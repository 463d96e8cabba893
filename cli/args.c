/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The one parser of the command line, and --help, both driven by the command's tables (args.h). */
#include "cli/args.h"

#include <ctype.h>
#include <float.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli/output.h"
#include "common/parse.h"
#include "pipeline/json.h"

bool cli_parse_only = false;

/* (JSON numbers are doubles: an integer is exact up to 2^53.) */
const cli_opt cli_cache_table[] = {
    {"--cache-dir", "cache_dir", CLI_PATH, 0, "DIR", "$XDG_CACHE_HOME/cgmodel", "the matrix cache"},
    {"--no-cache", "no_cache", CLI_TRUE, 0, 0, 0, "neither read nor write the matrix cache"},
    {"--cache-max", "cache_max", CLI_INT, 0, "BYTES", "4 GiB", "its size limit (0: none)", 0,
     9007199254740992.0},
    {0}};

const cli_opt *cli_opt_at(const cli_command *c, int i) {
  for (const cli_opt *t = c->opts; t; t = t == c->opts ? c->more : NULL) {
    int n = 0;
    while (t[n].flag) n++;
    if (i < n) return &t[i];
    i -= n;
  }
  return NULL;
}

const char *cli_str(const cJSON *o, const char *key, const char *dflt) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : dflt;
}

double cli_num(const cJSON *o, const char *key, double dflt) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

bool cli_true(const cJSON *o, const char *key) {
  return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, key));
}

/* "a|b|c" as "a, b or c". */
static const char *words_text(const char *values, char *buf, size_t n) {
  size_t k = 0;
  for (const char *v = values; *v && k + 1 < n; v++) {
    const char *sep = *v != '|' ? NULL : strchr(v + 1, '|') ? ", " : " or ";
    k += (size_t)snprintf(buf + k, n - k, "%s", sep ? sep : (char[]){*v, '\0'});
  }
  return buf;
}

static bool has_word(const char *values, const char *w) {
  const size_t n = strlen(w);
  for (const char *v = values; v; v = strchr(v, '|') ? strchr(v, '|') + 1 : NULL)
    if (!strncmp(v, w, n) && (v[n] == '|' || v[n] == '\0') && n) return true;
  return false;
}

bool cli_own(const char *key) {
  return has_word("json|out|options|verbose", key);
}

/* The value of option o as JSON, by its kind; NULL with msg set. */
static cJSON *value_of(const cli_opt *o, const char *v, char *msg, size_t n) {
  const bool range = o->lo != 0 || o->hi != 0,
             integer = o->kind == CLI_INT || o->kind == CLI_OPTINT;
  const double lo = range ? o->lo : integer ? INT_MIN : -DBL_MAX;
  const double hi = range ? o->hi : integer ? INT_MAX : DBL_MAX;
  int64_t x;
  double d;
  char buf[256] = "";
  if (o->kind <= CLI_CONST)
    return o->kind == CLI_CONST ? cJSON_CreateString(o->values) : cJSON_CreateBool(!o->kind);
  if (integer && cgm_parse_int(v, (int64_t)lo, (int64_t)hi, &x))
    return cJSON_CreateNumber((double)x);
  if (o->kind == CLI_REAL && cgm_parse_real(v, lo, hi, &d)) return cJSON_CreateNumber(d);
  if (o->kind == CLI_CHOICE && has_word(o->values, v))
    return cgm_parse_int(v, INT_MIN, INT_MAX, &x) ? cJSON_CreateNumber((double)x)
                                                  : cJSON_CreateString(v);
  if (!integer && o->kind != CLI_REAL && o->kind != CLI_CHOICE) return cJSON_CreateString(v);
  if (o->kind == CLI_CHOICE)
    snprintf(msg, n, "%s: '%s' is not %s", o->flag, v, words_text(o->values, buf, sizeof buf));
  else {
    char *end; /* a numeral all the same: a value past the range, or one a double cannot hold */
    const double w = strtod(v, &end);
    const bool numeral = !integer && end != v && !*end && !isspace((unsigned char)*v) && w == w;
    if (range || integer) snprintf(buf, sizeof buf, " in [%.17g, %.17g]", lo, hi);
    if (numeral && !range)
      snprintf(msg, n, "option %s: '%s' is beyond what a double holds", o->flag, v);
    else
      snprintf(msg, n, "option %s: '%s' is not%s%s", o->flag, v,
               numeral   ? ""
               : integer ? " an integer"
                         : " a number",
               buf);
  }
  return NULL;
}

/* The option of c that argument s names ("--tol", "--tol=1e-6"): *v the
 * value after '=', NULL without one. */
static const cli_opt *find(const cli_command *c, const char *s, const char **v) {
  const cli_opt *o;
  for (int i = 0; (o = cli_opt_at(c, i)); i++) {
    const size_t n = strlen(o->flag);
    if (!strncmp(s, o->flag, n) && (s[n] == '\0' || s[n] == '=')) {
      *v = s[n] ? s + n + 1 : NULL;
      return o;
    }
  }
  return NULL;
}

static void store(cli_parsed *p, const cli_opt *o, const char *v, char *msg, size_t n) {
  cJSON *val = value_of(o, v, msg, n), *arr = NULL, *obj = cli_own(o->key) ? p->local : p->req;
  if (!val) {
    if (!msg[0]) snprintf(msg, n, "out of memory");
    return;
  }
  if (o->many && !(arr = cJSON_GetObjectItemCaseSensitive(obj, o->key)))
    arr = cJSON_AddArrayToObject(obj, o->key);
  else if (!o->many) /* given again: the last one counts */
    cJSON_DeleteItemFromObjectCaseSensitive(obj, o->key);
  if (!(o->many ? cJSON_AddItemToArray(arr, val) : cJSON_AddItemToObjectCS(obj, o->key, val))) {
    cJSON_Delete(val);
    snprintf(msg, n, "out of memory");
  }
}

/* --options FILE: its keys join the request where the command line gave none. */
static void merge_options(cli_parsed *p, const char *path, char *msg, size_t n) {
  cJSON *j = NULL;
  cgm_error e = {0};
  if (json_read_file(path, &j, &e))
    snprintf(msg, n, "--options %.480s", e.msg);
  else if (!cJSON_IsObject(j))
    snprintf(msg, n, "--options %s: not a JSON object", path);
  for (cJSON *it; cJSON_IsObject(j) && (it = j->child);) {
    cJSON_DetachItemViaPointer(j, it);
    /* an object is a list of keyed items: the item keeps its key */
    if (cJSON_GetObjectItemCaseSensitive(p->req, it->string) || !cJSON_AddItemToArray(p->req, it))
      cJSON_Delete(it);
  }
  cJSON_Delete(j);
}

static void cli_parsed_free(cli_parsed *p) {
  cJSON_Delete(p->req);
  cJSON_Delete(p->local);
  p->req = p->local = NULL;
}

/* Parses argv[1..] by c's tables into p (cli_parsed_free). Returns 0; 2
 * after printing the error; -1 after printing --help. */
static int cli_parse(const cli_command *c, int argc, char **argv, cli_parsed *p) {
  memset(p, 0, sizeof *p);
  p->req = cJSON_CreateObject();
  p->local = cJSON_CreateObject();
  char msg[512] = "";
  if (!p->req || !p->local) snprintf(msg, sizeof msg, "out of memory");
  for (int i = 1; i < argc && !msg[0]; i++) {
    const char *s = argv[i], *v = NULL;
    if (s[0] != '-' || s[1] == '\0') {
      if (p->npos < 16)
        p->pos[p->npos++] = s;
      else
        snprintf(msg, sizeof msg, "too many arguments (at '%s')", s);
      continue;
    }
    if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
      cli_help(c, stdout);
      cli_parsed_free(p);
      return -1;
    }
    const cli_opt *o = find(c, s, &v);
    const char *next = i + 1 < argc ? argv[i + 1] : NULL;
    if (!o)
      snprintf(msg, sizeof msg, "unknown option '%s'", s);
    else if (o->kind <= CLI_CONST && v)
      snprintf(msg, sizeof msg, "option %s takes no value", o->flag);
    else if (o->kind == CLI_OPTINT && !v) { /* --monitor, or --monitor K (-K: its range says) */
      const char *d = next && next[0] == '-' ? next + 1 : next;
      v = d && d[0] >= '0' && d[0] <= '9' && strspn(d, "0123456789") == strlen(d) ? argv[++i]
                                                                                  : o->values;
    } else if (o->kind > CLI_CONST && !v && !(v = next))
      snprintf(msg, sizeof msg, "option %s needs a value", o->flag);
    else if (o->kind > CLI_CONST && v == next)
      i++;
    if (!msg[0]) store(p, o, v, msg, sizeof msg);
  }
  const char *options = msg[0] ? NULL : cli_str(p->local, "options", NULL);
  if (options) merge_options(p, options, msg, sizeof msg);
  if (!msg[0]) return 0;
  cli_error(c->name, 2, "%s", msg);
  cli_parsed_free(p);
  return 2;
}

int cli_run(const cli_command *c, int argc, char **argv) {
  cli_parsed p;
  int rc = cli_parse(c, argc, argv, &p);
  if (rc) return rc < 0 ? 0 : rc;
  rc = c->body(&p);
  cli_parsed_free(&p);
  return rc;
}

int cli_main(const cli_command *c, int argc, char **argv) {
  return c->start ? c->start(c, argc, argv) : cli_run(c, argc, argv);
}

/* text from column col, wrapped at 100 columns to `indent`; a '\n' in it breaks the line. */
static void wrap(FILE *f, int col, int indent, const char *text) {
  for (const char *w = text; *w;) {
    const int n = (int)strcspn(w, " \n");
    if (col > indent && col + 1 + n > 100)
      col = fprintf(f, "\n%*s", indent, "") - 1;
    else if (col > indent)
      col += fprintf(f, " ");
    col += fprintf(f, "%.*s", n, w);
    if (w[n] == '\n') col = fprintf(f, "\n%*s", indent, "") - 1;
    w += n + (w[n] != '\0');
  }
  fputc('\n', f);
}

void cli_help(const cli_command *c, FILE *f) {
  fprintf(f, "usage: cgmodel %s%s%s [options]\n", c->name, *c->args ? " " : "", c->args);
  fprintf(f, "%s (man cgmodel-%s)\n", c->summary, c->name);
  fputs("\noptions:\n", f);
  const cli_opt *o;
  for (int i = 0; (o = cli_opt_at(c, i)); i++) {
    char left[128], text[1024];
    const char *mv = o->metavar ? o->metavar : o->kind == CLI_CHOICE ? o->values : "";
    snprintf(left, sizeof left, "%s%s%s", o->flag, *mv ? " " : "", mv);
    snprintf(text, sizeof text, "%s%s%s%s", o->help, o->dflt ? " (default: " : "",
             o->dflt ? o->dflt : "", o->dflt ? ")" : "");
    const int col = fprintf(f, strlen(left) > 22 ? "  %s\n%25s" : "  %-22s %s", left, "");
    wrap(f, strlen(left) > 22 ? 25 : col, 25, text);
  }
  fputs("  -h, --help             this text\n", f);
}
