/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "bench/bench_cases.h"

#include <stdlib.h>
#include <string.h>

cgm_status bench_load_case(const char *spec, cgm_csr *A, cgm_error *err) {
  const char *colon = strchr(spec, ':');
  if (!colon) return cgm_mm_read_csr(spec, A, NULL, err);
  int n = atoi(colon + 1);
  size_t k = (size_t)(colon - spec);
  if (strncmp(spec, "poisson3d", k) == 0) return cgm_gen_poisson3d(n, A, err);
  if (strncmp(spec, "poisson2d", k) == 0) return cgm_gen_poisson2d(n, A, err);
  if (strncmp(spec, "elasticity3d", k) == 0) return cgm_gen_elasticity3d(n, A, err);
  if (k == 5 && strncmp(spec, "kron", 4) == 0 && spec[4] >= '1' && spec[4] <= '8') {
    /* kronB:M: Poisson M^3 (x) (J + I) with B x B blocks, every block dense */
    cgm_csr P;
    cgm_status st = cgm_gen_poisson3d(n, &P, err);
    if (st) return st;
    st = cgm_gen_kron(&P, spec[4] - '0', A, err);
    cgm_csr_free(&P);
    return st;
  }
  if (strncmp(spec, "random", k) == 0)
    return cgm_gen_random_spd(n, 16, CGM_ROWDIST_POWERLAW, 2.5, 0, 1, A, err);
  return cgm_fail(err, CGM_EINPUT, "unknown case '%s'", spec);
}

const char *bench_case_name(const char *spec) {
  const char *s = strrchr(spec, '/');
  return s ? s + 1 : spec;
}
