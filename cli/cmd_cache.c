/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel cache list [--json] | clear: the matrix cache's entries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/args.h"
#include "cli/cacheopts.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "common/escape.h"
#include "pipeline/json.h"

static const char help[] =
    "usage: cgmodel cache list [--json] [--cache-dir DIR]\n"
    "       cgmodel cache clear [--cache-dir DIR]\n"
    "  list                   the entries, most recently used first: source file, size, whether\n"
    "                         the source is unchanged since the entry was written\n"
    "  clear                  remove every entry (other files of the directory stay)\n"
    "  --cache-dir DIR        the cache (default $XDG_CACHE_HOME/cgmodel or ~/.cache/cgmodel)\n"
    "  --json                 one JSON object on stdout (list)\n";

/* Names from the directory and the entries' headers are printed escaped:
 * a control character or a line break in a file name stays on its line. */
static void print_list(const char *dir, const cgm_cache_entry *e, int n) {
  double total = 0;
  for (int i = 0; i < n; i++) total += (double)e[i].bytes;
  fputs("cache ", stdout);
  cgm_fput_escaped(stdout, dir, false);
  printf(": %d entries, %.1f MB\n", n, total / 1e6);
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

int cmd_cache(int argc, char **argv) {
  cli_args a;
  cli_args_init(&a, argc - 1, argv + 1);
  cli_cache c;
  cli_cache_init(&c);
  int json = 0;
  while (cli_next(&a)) {
    if (cli_flag(&a, "--json"))
      json = 1;
    else if (cli_flag(&a, "--help") || cli_flag(&a, "-h")) {
      fputs(help, stdout);
      return 0;
    } else if (cli_opt(&a, "--cache-dir"))
      c.dir = a.value;
    else
      cli_unknown(&a);
  }
  if (cli_failed(&a)) return cli_error("cache", 2, "%s", a.error);
  if (a.npositional != 1 || (strcmp(a.positional[0], "list") && strcmp(a.positional[0], "clear")))
    return cli_error("cache", 2, "expected list or clear\n%s", help);
  cgm_cache_opts o = cli_cache_opts(&c);
  if (!o.dir)
    return cli_error("cache", 2, "no cache directory: give --cache-dir (HOME is not set)");
  cgm_error err = {0};
  if (!strcmp(a.positional[0], "clear")) {
    int removed = 0;
    if (cgm_cache_clear(o.dir, &removed, &err)) return cli_report("cache", &err);
    printf("cache %s: %d files removed\n", o.dir, removed);
    return 0;
  }
  cgm_cache_entry *e = NULL;
  int n = 0;
  if (cgm_cache_list(o.dir, &e, &n, &err)) return cli_report("cache", &err);
  int rc = 0;
  if (json)
    rc = cli_print_json(cgm_cache_list_json(o.dir, e, n));
  else
    print_list(o.dir, e, n);
  free(e);
  return rc;
}
