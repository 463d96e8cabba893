#include "cli/env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fault.h"

/* A switch that is on unless the variable says `off`. */
static void off_when(const char *name, const char *off, bool *flag) {
  const char *v = getenv(name);
  if (v && !strcmp(v, off)) *flag = false;
}

int cli_env_gpu_opts(cgm_gpu_opts *g, char *msg, size_t n) {
  *g = cgm_gpu_opts_default();
  const char *cg = getenv("CGMODEL_CG");
  if (cg && !cgm_cg_variant_parse(cg, &g->cg)) {
    snprintf(msg, n, "CGMODEL_CG=%s: expected classic or cgg", cg);
    return 2;
  }
  off_when("CGMODEL_GRAPHS", "0", &g->graphs);
  off_when("CGMODEL_PDL", "0", &g->pdl);
  off_when("CGMODEL_SYNC", "events", &g->flags);
  off_when("CGMODEL_LATE", "0", &g->late);
  off_when("CGMODEL_LL", "0", &g->ll);
  off_when("CGMODEL_BALANCE", "0", &g->balance);
  const char *t = getenv("CGMODEL_EXCHANGE_TIMEOUT");
  if (t) {
    char *end;
    double s = strtod(t, &end);
    if (end == t || *end || !(s > 0)) {
      snprintf(msg, n, "CGMODEL_EXCHANGE_TIMEOUT=%s: expected a positive number of seconds", t);
      return 2;
    }
    g->exchange_timeout_s = s;
  }
  g->trace_file = getenv("CGMODEL_TRACE_FILE");
  const char *f = getenv("CGMODEL_FAULT_CUDA");
  if (f) cgm_fault_arm(atol(f));
  return 0;
}

int cli_env_under_mpi(void) {
  return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
}
