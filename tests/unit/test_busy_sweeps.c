/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A busy CPU's quick sweeps (cgm_mb_opts.busy, docs/calibration.md): the SpMV sweep's dense-block
 * matrices stop at 2^16 elements while the realistic ones go on to the sweep's largest, and the
 * iteration sweep leaves out its largest grid (64^3) but keeps the one before (48^3). */
#include <string.h>

#include "cgmodel/sample.h"
#include "microbench/microbench.h"
#include "test_util.h"

int main(void) {
  cgm_mb_opts o = {
      .device = "cpu", .quick = true, .precisions = 1u << CGM_PREC_DOUBLE, .busy = true};
  cgm_sample_vec v = {0};
  cgm_error err = {0};
  CHECK_MSG(cgm_mb_run(&o, cgm_sample_vec_push, NULL, &v, &err) == CGM_OK, "%s", err.msg);
  double dense_max = 0, real_max = 0; /* the largest matrices' elements (at N = 1) */
  bool grid48 = false, grid64 = false;
  for (int i = 0; i < v.n; i++) {
    const cgm_sample *s = &v.v[i];
    if (!strcmp(s->kernel, "spmv") && s->block == 1 && !strcmp(s->variant, "dense") &&
        s->m > dense_max)
      dense_max = s->m;
    if (!strcmp(s->kernel, "spmv") && s->block == 1 && !strcmp(s->variant, "real") &&
        s->m > real_max)
      real_max = s->m;
    if (!strcmp(s->kernel, "iter")) {
      grid48 |= !strcmp(s->source, "poisson3d:48");
      grid64 |= !strcmp(s->source, "poisson3d:64");
    }
  }
  /* a matrix's transactions are about 2-3 its elements (values, columns, x and y): the dense
   * ones' largest under 2^18, the real ones' over 2^20 */
  CHECK_MSG(dense_max > 0 && dense_max < 0x1p18, "dense SpMV samples up to %g transactions",
            dense_max);
  CHECK_MSG(real_max > 0x1p20, "real SpMV samples up to %g transactions", real_max);
  CHECK_MSG(grid48 && !grid64, "iteration samples of 48^3: %d, of 64^3: %d", grid48, grid64);
  free(v.v);
  TEST_MAIN_END();
}
