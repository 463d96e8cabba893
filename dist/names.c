/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The partition names and what this build of the distributed solve has. */
#include <string.h>

#include "cgmodel/dist.h"

static const char *names[] = {"rows", "metis"};

const char *cgm_dist_partition_name(cgm_dist_partition p) {
  return (unsigned)p < 2 ? names[p] : "unknown";
}

bool cgm_dist_partition_parse(const char *s, cgm_dist_partition *p) {
  for (int i = 0; i < 2; i++)
    if (s && !strcmp(s, names[i])) {
      *p = (cgm_dist_partition)i;
      return true;
    }
  return false;
}

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
