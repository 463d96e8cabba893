/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The matrix cache's options, shared by the commands that read a matrix
 * (solve, predict) and by `cgmodel cache`. */
#ifndef CGM_CLI_CACHEOPTS_H
#define CGM_CLI_CACHEOPTS_H

#include <stdbool.h>

#include "cgmodel/cache.h"
#include "cli/args.h"

typedef struct cli_cache {
  const char *dir; /* --cache-dir; NULL: the default */
  bool off;        /* --no-cache */
  int64_t max;     /* --cache-max */
  char buf[4096];  /* the default directory */
} cli_cache;

#define CLI_CACHE_HELP                                                                             \
  "  --cache-dir DIR        matrix cache (default $XDG_CACHE_HOME/cgmodel or ~/.cache/cgmodel)\n"  \
  "  --no-cache             neither read nor write the matrix cache\n"                             \
  "  --cache-max BYTES      cache size limit, least recently used entries go (default 4 GiB)\n"

void cli_cache_init(cli_cache *c);
/* Consumes --cache-dir, --no-cache or --cache-max; false for other options. */
bool cli_cache_arg(cli_args *a, cli_cache *c);
/* The library's options: the directory given, else the default one (none
 * with --no-cache, or when neither $XDG_CACHE_HOME nor $HOME is set). */
cgm_cache_opts cli_cache_opts(cli_cache *c);

#endif
