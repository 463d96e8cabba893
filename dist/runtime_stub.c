/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A build without MPI: the distributed solve is not there. */
#include "cgmodel/dist.h"

cgm_status cgm_dist_init(int *argc, char ***argv, int *rank, int *size, cgm_error *err) {
  *rank = 0;
  *size = 1;
  return cgm_fail(err, CGM_ERUNTIME,
                  "this build of cgmodel has no MPI (configure with an MPI library: "
                  "docs/distributed.md)");
}

void cgm_dist_finalize(void) {}

cgm_status cgm_dist_agree_start(cgm_status st, uint64_t fingerprint, cgm_error *err) {
  return st;
}
