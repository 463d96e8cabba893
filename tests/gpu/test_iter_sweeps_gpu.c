/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The iteration sweeps on the CUDA backend in double (quick, grids to
 * 16^3): as many emits as mb_iteration_count says (the calibration's
 * progress), and beside each mesh sample past N = 1 a "meshc" one of the
 * same grid and block size, solved with f32 values: its bytes the plan's in
 * f32 (fewer than the full values'), no setup sample of its own. Skipped
 * (77) without a GPU. */
#include <stdio.h>
#include <string.h>

#include "cgmodel/solver.h"
#include "microbench/microbench.h"
#include "microbench/sweep_plan.h"
#include "test_util.h"

typedef struct {
  cgm_sample v[256];
  int n, emits;
} sink;

static cgm_status take(void *run, const cgm_sample *s, const char *stage, cgm_error *err) {
  (void)stage, (void)err;
  sink *k = run;
  k->emits++;
  if (s && k->n < 256) k->v[k->n++] = *s;
  return CGM_OK;
}

int main(void) {
  if (cgm_cuda_device_count() < 1) {
    fprintf(stderr, "no GPU: skipped\n");
    return CGM_TEST_SKIP;
  }
  cgm_error err = {0};
  static sink k;
  cgm_solve_opts o = cgm_mb_solve_opts();
  o.backend = CGM_BACKEND_CUDA;
  o.precision = CGM_PREC_DOUBLE;
  CHECK_OK(mb_iteration_sweeps(&o, true, 16, take, &k, &err));
  CHECK_MSG(k.emits == mb_iteration_count(o.backend, o.precision, true, 16), "%d emits, %d counted",
            k.emits, mb_iteration_count(o.backend, o.precision, true, 16));
  int pairs = 0;
  for (int i = 0; i < k.n; i++) {
    const cgm_sample *c = &k.v[i];
    if (strcmp(c->variant, "meshc")) continue;
    CHECK_MSG(!strcmp(c->kernel, "iter") && c->block > 1, "%s meshc N=%d", c->kernel, c->block);
    for (int j = 0; j < k.n; j++) {
      const cgm_sample *m = &k.v[j];
      if (strcmp(m->kernel, "iter") || strcmp(m->variant, "mesh") || m->block != c->block ||
          strcmp(m->source, c->source))
        continue;
      pairs++;
      CHECK_MSG(c->bytes < m->bytes && c->seconds > 0, "%s N=%d: meshc %.0f bytes, mesh %.0f",
                c->source, c->block, c->bytes, m->bytes);
    }
  }
  /* the floor grid and 16^3, at N = 2, 4, 8 */
  CHECK_MSG(pairs == 6, "%d meshc samples beside their mesh sample", pairs);
  TEST_MAIN_END();
}
