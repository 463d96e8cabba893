/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cli/cacheopts.h"

#include <string.h>

#include "cli/env.h"

void cli_cache_init(cli_cache *c) {
  memset(c, 0, sizeof *c);
  c->max = CGM_CACHE_DEFAULT_MAX_BYTES;
}

bool cli_cache_arg(cli_args *a, cli_cache *c) {
  int64_t v;
  if (cli_flag(a, "--no-cache")) {
    c->off = true;
    return true;
  }
  if (cli_opt(a, "--cache-dir")) {
    c->dir = a->value;
    return true;
  }
  if (cli_int(a, "--cache-max", 0, INT64_MAX, &v)) {
    c->max = v;
    return true;
  }
  return false;
}

cgm_cache_opts cli_cache_opts(cli_cache *c) {
  cgm_cache_opts o = {.dir = NULL, .max_bytes = c->max};
  if (c->off) return o;
  if (c->dir)
    o.dir = c->dir;
  else if (!cli_env_cache_dir(c->buf, sizeof c->buf))
    o.dir = c->buf;
  return o;
}
