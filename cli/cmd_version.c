/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel version: the release, the commit the tree was configured from, and
 * the backend (with its CUDA runtime), and MPI and METIS when built. */
#include <stdio.h>

#include "cgmodel/cgmodel.h"
#include "cgmodel/dist.h"
#include "cli/commands.h"
#include "cli/output.h"

#ifndef CGM_GIT_COMMIT
#define CGM_GIT_COMMIT "unknown"
#endif

static int body(const cli_parsed *p) {
  if (p->npos) return cli_error("version", 2, "unexpected argument '%s'", p->pos[0]);
  const int rt = cgm_cuda_runtime_version();
  /* the MPI solve and its METIS partition, when built (docs/distributed.md) */
  const char *mpi = !cgm_have_mpi_build() ? "" : cgm_have_metis_build() ? ", MPI, METIS" : ", MPI";
  if (cgm_have_cuda_build())
    printf("cgmodel %s (commit %s, CUDA backend, CUDA runtime %d.%d%s)\n", cgm_version(),
           CGM_GIT_COMMIT, rt / 1000, rt % 1000 / 10, mpi);
  else
    printf("cgmodel %s (commit %s, CPU-only build%s)\n", cgm_version(), CGM_GIT_COMMIT, mpi);
  return 0;
}

const cli_command cli_version = {"version", "",   NULL, "the version, the commit and the backend",
                                 NULL,      NULL, body, NULL};
