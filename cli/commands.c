/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The list of commands, and what is made of all their tables: the
 * top-level usage, `cgmodel help` and `cgmodel __options`. */
#include "cli/commands.h"

#include <ctype.h>
#include <string.h>

#include "cli/output.h"

const cli_command *const cli_commands[] = {
    &cli_info,    &cli_calibrate, &cli_predict,      &cli_solve, &cli_validate,
    &cli_map,     &cli_plot,      &cli_db,           &cli_cache, &cli_gen,
    &cli_devices, &cli_version,   &cli_help_command, NULL,
};

const cli_command *cli_command_find(const char *name) {
  for (int i = 0; name && cli_commands[i]; i++)
    if (!strcmp(cli_commands[i]->name, name)) return cli_commands[i];
  return NULL;
}

void cli_usage(FILE *f) {
  fputs("usage: cgmodel <command> [options]\n\ncommands:\n", f);
  for (int i = 0; cli_commands[i]; i++) {
    const cli_command *c = cli_commands[i];
    fprintf(f, "  %-9s %s%s[options]\n            %s\n", c->name, c->args, *c->args ? " " : "",
            c->summary);
  }
  fputs("\nA.mtx may be '-': the matrix is read from standard input.\n"
        "Run 'cgmodel help COMMAND' (or 'cgmodel COMMAND --help') for the options of a command.\n"
        "Exit codes: 0 success, 1 solve did not converge, 2 bad usage or input, 3 runtime "
        "failure.\n",
        f);
}

static int help_body(const cli_parsed *p) {
  const cli_command *c = p->npos == 1 ? cli_command_find(p->pos[0]) : NULL;
  if (!c && p->npos) { /* a word that names no command, or several */
    cli_error("help", 2, "%s%s%s", p->npos > 1 ? "expected one command" : "unknown command '",
              p->npos > 1 ? "" : p->pos[0], p->npos > 1 ? "" : "'");
    cli_usage(stderr);
    return 2;
  }
  if (c)
    cli_help(c, stdout);
  else
    cli_usage(stdout);
  return 0;
}

const cli_command cli_help_command = {
    "help", "[COMMAND]", NULL,      "this text, or the options of a command",
    NULL,   NULL,        help_body, NULL};

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

static cJSON *words(const char *values) {
  cJSON *a = cJSON_CreateArray();
  for (const char *v = values; v && a; v = strchr(v, '|') ? strchr(v, '|') + 1 : NULL) {
    char w[64];
    snprintf(w, sizeof w, "%.*s", (int)strcspn(v, "|"), v);
    cJSON_AddItemToArray(a, cJSON_CreateString(w));
  }
  return a;
}

static cJSON *option_json(const cli_opt *o) {
  static const char *const kinds[] = {"true", "false",  "const",  "int",  "optint",
                                      "real", "string", "choice", "list", "path"};
  cJSON *j = cJSON_CreateObject();
  json_add_string(j, "flag", o->flag);
  json_add_string(j, "key", o->key);
  json_add_string(j, "kind", kinds[o->kind]);
  if (o->metavar) json_add_string(j, "metavar", o->metavar);
  if (o->dflt) json_add_string(j, "default", o->dflt);
  json_add_string(j, "help", o->help);
  if (o->values && o->kind != CLI_CONST && o->kind != CLI_OPTINT)
    cJSON_AddItemToObject(j, "values", words(o->values));
  cJSON_AddBoolToObject(j, "request", !cli_own(o->key));
  if (o->many) cJSON_AddTrueToObject(j, "repeated");
  return j;
}

int cli_print_tables(void) {
  cJSON *all = cJSON_CreateObject(), *cmds = cJSON_AddArrayToObject(all, "commands");
  for (int i = 0; cli_commands[i]; i++) {
    const cli_command *c = cli_commands[i];
    cJSON *j = cJSON_CreateObject(), *opts = cJSON_AddArrayToObject(j, "options");
    json_add_string(j, "name", c->name);
    json_add_string(j, "args", c->args);
    json_add_string(j, "summary", c->summary);
    cJSON_AddItemToObject(j, "words", words(c->words));
    const cli_opt *o;
    for (int k = 0; (o = cli_opt_at(c, k)); k++) cJSON_AddItemToArray(opts, option_json(o));
    cJSON_AddItemToArray(cmds, j);
  }
  return cli_print_json(all);
}
