/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel: dispatch to the commands (cli/commands.c). */
#include <stdio.h>
#include <string.h>

#include "cgmodel/dist.h"
#include "cli/commands.h"
#include "cli/env.h"
#include "cli/output.h"
#include "common/escape.h"

/* Under an MPI launcher with several ranks only solve runs; any other
 * command joins the ranks' agreement on how they started and fails there,
 * so a solve on another rank is told, not left waiting (docs/distributed.md). */
static int refuse_under_mpi(const char *name) {
  int rank = 0, size = 1;
  cgm_error err = {0};
  if (!strcmp(name, "solve") || !cli_env_under_mpi() || !cgm_have_mpi_build() ||
      cgm_dist_init(NULL, NULL, &rank, &size, &err) || size < 2) {
    if (size < 2) cgm_dist_finalize();
    return 0;
  }
  snprintf(err.msg, sizeof err.msg, "%s does not run under MPI: only solve does", name);
  cgm_dist_agree_start(CGM_EINPUT, 0, &err);
  cgm_dist_finalize();
  return cli_error(name, 2, "%s", err.msg);
}

int main(int argc, char **argv) {
  cli_env_keep_argv(argv); /* a busy calibration starts again with it (cli_env_restart_bounded) */
  if (argc < 2) {
    cli_usage(stderr);
    return 2;
  }
  const char *name = argv[1];
  if (!strcmp(name, "--help") || !strcmp(name, "-h")) name = "help";
  if (!strcmp(name, "--version")) name = "version";
  if (!strcmp(name, "__options")) return cli_print_tables(); /* for the man pages */
  const cli_command *c = cli_command_find(name);
  int rc = c ? refuse_under_mpi(name) : 0;
  if (c && !rc) {
    rc = cli_main(c, argc - 1, argv + 1);
    cgm_cuda_release_kept(); /* the pinned memory its solves kept for a next one */
  }
  if (c) return rc;
  fputs("cgmodel: error: unknown command '", stderr);
  cgm_fput_escaped(stderr, name, false);
  fputs("'\n\n", stderr);
  cli_usage(stderr);
  return 2;
}
