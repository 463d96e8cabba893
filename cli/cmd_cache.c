/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel cache list [--json] | clear: the matrix cache's entries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/env.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "common/escape.h"
#include "pipeline/json.h"

static const cli_opt opts[] = {
    {"--cache-dir", "cache_dir", CLI_PATH, 0, "DIR", "$XDG_CACHE_HOME/cgmodel", "the cache"},
    CLI_JSON,
    {0}};

/* Names from the directory and the entries' headers are printed escaped:
 * a control character or a line break in a file name stays on its line. */
static void print_list(const char *dir, const cgm_cache_entry *e, int n) {
  double total = 0;
  for (int i = 0; i < n; i++) total += (double)e[i].bytes;
  fputs("cache ", stdout);
  cgm_fput_escaped(stdout, dir, false);
  printf(": %d entr%s, %.1f MB\n", n, n == 1 ? "y" : "ies", total / 1e6);
  for (int i = 0; i < n; i++) {
    char when[32] = "?";
    time_t t = (time_t)e[i].accessed;
    struct tm tm;
    if (gmtime_r(&t, &tm)) strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    printf("  %s  %10.1f MB  %s  ", e[i].file, e[i].bytes / 1e6, when);
    if (!e[i].valid_header) {
      puts("(damaged: rewritten at its next use)");
      continue;
    }
    printf("%d x %d, %lld nonzeros  ", e[i].nrows, e[i].ncols, (long long)e[i].nnz);
    cgm_fput_escaped(stdout, e[i].source, false);
    puts(e[i].source_current ? "" : "  (stale: the file changed or is gone)");
  }
}

static int body(const cli_parsed *p) {
  const char *what = p->npos == 1 ? p->pos[0] : "";
  if (strcmp(what, "list") && strcmp(what, "clear"))
    return cli_error("cache", 2, "expected list or clear (cgmodel cache --help)");
  char buf[4096];
  const char *dir = cli_str(p->req, "cache_dir", NULL);
  if (!dir && !cli_env_cache_dir(buf, sizeof buf)) dir = buf;
  if (!dir) return cli_error("cache", 2, "no cache directory: give --cache-dir (HOME is not set)");
  if (cli_parse_only) return 0;
  cgm_error err = {0};
  if (!strcmp(what, "clear")) {
    int removed = 0;
    if (cgm_cache_clear(dir, &removed, &err)) return cli_report("cache", &err);
    char name[4096];
    printf("cache %s: %d file%s removed\n", cli_escape(dir, name, sizeof name), removed,
           removed == 1 ? "" : "s");
    return 0;
  }
  cgm_cache_entry *e = NULL;
  int n = 0;
  if (cgm_cache_list(dir, &e, &n, &err)) return cli_report("cache", &err);
  int rc = 0;
  if (cli_true(p->local, "json"))
    rc = cli_print_json(cgm_cache_list_json(dir, e, n));
  else
    print_list(dir, e, n);
  free(e);
  return rc;
}

const cli_command cli_cache = {
    "cache", "list|clear", "list|clear", "the matrix cache: its entries, or remove them",
    opts,    NULL,         body,         NULL};
