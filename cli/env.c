/* SPDX-License-Identifier: GPL-3.0-or-later */
#define _POSIX_C_SOURCE 200809L /* setenv, execv */
#include "cli/env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fault.h"
#include "common/parse.h"

/* A switch that is on unless the variable says `off`. */
static void off_when(const char *name, const char *off, bool *flag) {
  const char *v = getenv(name);
  if (v && !strcmp(v, off)) *flag = false;
}

static char **kept_argv;

void cli_env_keep_argv(char **argv) {
  kept_argv = argv;
}

bool cli_env_spin_default(void) {
  return !getenv("GOMP_SPINCOUNT") && !getenv("OMP_WAIT_POLICY");
}

/* Beside other work a team of two whose threads spin at a barrier for a scheduler slice takes
 * turns with it, each barrier a slice: a quick CPU calibration on 2 busy CPUs of a 16-core node
 * took 25.6 s (7.6 s quiet), 6.8-7.6 s with 10,000 rounds (a fraction of a millisecond). Quiet,
 * the short spin slows small solves (bcsstk16 on 2 cores: 72-100 ms against 22-40), so only a
 * calibration that finds its CPU busy starts again with it (docs/calibration.md). */
void cli_env_restart_bounded(void) {
  if (kept_argv && setenv("GOMP_SPINCOUNT", CLI_SPINCOUNT, 1) == 0)
    execv("/proc/self/exe", kept_argv);
  unsetenv("GOMP_SPINCOUNT"); /* not started again: libgomp has OpenMP's default */
}

const char *cli_env_openmp_wait_said(char *how, size_t n) {
  /* the environment the process started with (what libgomp read), else as it is now */
  char env[65536], *s = NULL, *w = NULL;
  FILE *f = fopen("/proc/self/environ", "rb");
  const size_t len = f ? fread(env, 1, sizeof env - 1, f) : 0;
  if (f) fclose(f);
  env[len] = '\0';
  for (char *e = env; e < env + len; e += strlen(e) + 1) {
    if (!strncmp(e, "GOMP_SPINCOUNT=", 15)) s = e + 15;
    if (!strncmp(e, "OMP_WAIT_POLICY=", 16)) w = e + 16;
  }
  if (!f) s = getenv("GOMP_SPINCOUNT"), w = getenv("OMP_WAIT_POLICY");
  if (s) /* libgomp's spin count over the policy's */
    snprintf(how, n, "GOMP_SPINCOUNT=%.64s", s);
  else if (w)
    snprintf(how, n, "OMP_WAIT_POLICY=%.64s", w);
  else
    snprintf(how, n, "OpenMP's default");
  return how;
}

int cli_env_gpu_opts(cgm_gpu_opts *g, char *msg, size_t n) {
  *g = cgm_gpu_opts_default();
  const char *cg = getenv("CGMODEL_CG"), *t = getenv("CGMODEL_EXCHANGE_TIMEOUT"),
             *f = getenv("CGMODEL_FAULT_CUDA");
  if (cg && !cgm_cg_variant_parse(cg, &g->cg))
    return snprintf(msg, n, "CGMODEL_CG=%s: expected classic or cgg", cg), 2;
  off_when("CGMODEL_GRAPHS", "0", &g->graphs);
  off_when("CGMODEL_PDL", "0", &g->pdl);
  off_when("CGMODEL_SYNC", "events", &g->flags);
  off_when("CGMODEL_LATE", "0", &g->late);
  off_when("CGMODEL_LL", "0", &g->ll);
  off_when("CGMODEL_BALANCE", "0", &g->balance);
  if (t && !cgm_parse_real(t, 1e-9, 1e9, &g->exchange_timeout_s))
    return snprintf(msg, n, "CGMODEL_EXCHANGE_TIMEOUT=%s: expected a positive number of seconds",
                    t),
           2;
  int64_t k;
  if (f && !cgm_parse_int(f, 0, INT32_MAX, &k))
    return snprintf(msg, n, "CGMODEL_FAULT_CUDA=%s: expected a call number (0 or more)", f), 2;
  if (f) cgm_fault_arm((long)k);
  return 0;
}

int cli_env_cache_dir(char *buf, size_t n) {
  const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
  const int k = x && x[0] == '/' ? snprintf(buf, n, "%s/cgmodel", x)
                : h && h[0]      ? snprintf(buf, n, "%s/.cache/cgmodel", h)
                                 : -1;
  return k > 0 && (size_t)k < n ? 0 : -1;
}

const char *cli_env_db_path(char *buf, size_t n) {
  const char *p = getenv("CGMODEL_DB"), *x = getenv("XDG_DATA_HOME"), *h = getenv("HOME");
  int k = -1;
  if (p && *p)
    k = snprintf(buf, n, "%s", p);
  else if (x && x[0] == '/') /* XDG: a relative $XDG_DATA_HOME is ignored */
    k = snprintf(buf, n, "%s/cgmodel/cgmodel.db", x);
  else if (h && *h)
    k = snprintf(buf, n, "%s/.local/share/cgmodel/cgmodel.db", h);
  /* none, or a cut path that would name some other file */
  if (n > 0 && (k < 0 || (size_t)k >= n)) buf[0] = '\0';
  return buf;
}

int cli_env_under_mpi(void) {
  return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}

bool cli_env_db_readonly(void) {
  const char *v = getenv("CGMODEL_DB_READONLY");
  return v && *v && strcmp(v, "0") != 0;
}
