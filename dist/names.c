/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The partitions' names and what this build of the distributed solve has. */
#include "cgmodel/dist.h"
#include "common/parse.h"

static const char *const names[] = {"rows", "metis"};
CGM_NAMES(dist_partition, cgm_dist_partition, names, bool cgm_dist_partition_parse)

cgm_dist_opts cgm_dist_opts_default(void) {
  return (cgm_dist_opts){.partition = CGM_DIST_ROWS};
}

bool cgm_have_mpi_build(void) {
#ifdef CGM_HAVE_MPI
  return true;
#else
  return false;
#endif
}

bool cgm_have_metis_build(void) {
#ifdef CGM_HAVE_METIS
  return true;
#else
  return false;
#endif
}
