/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The row-scatter sweep (microbench/scatter_sweep.c), quick, in double
 * precision on the CPU backend: one scattered arrow and one scattered band
 * at every block size, no block row longer than CGM_LONG_ROW blocks (a
 * longer one leaves the MBR layout on a GPU for one read by a warp, whose
 * steps are not a thread's), and every arrow's longest row reads x a line
 * a step; then the band-load sweep's wide bands, four bands' worth of
 * walking. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/plan.h"
#include "microbench/microbench.h"
#include "test_util.h"

int main(void) {
  cgm_error err = {0};
  cgm_solve_opts o = cgm_solve_opts_default();
  o.backend = CGM_BACKEND_CPU;
  cgm_locality_sample *v = NULL;
  int n = 0;
  CHECK_OK(cgm_mb_scatter_sweep(&o, 1u << CGM_PREC_DOUBLE, true, &v, &n, &err));
  int arrows = 0, bands = 0;
  for (int i = 0; i < n; i++) {
    const cgm_locality_sample *s = &v[i];
    int rows = 0, L = 0;
    CHECK(s->precision == CGM_PREC_DOUBLE && s->seconds > 0);
    CHECK_MSG(s->shape.max_row <= CGM_LONG_ROW, "%s N=%d: a block row of %d blocks", s->source,
              s->block, s->shape.max_row);
    if (s->group == 1) {
      bands++;
      CHECK(sscanf(s->source, "band-scattered:%d,%d", &rows, &L) == 2 && L == 32);
      continue;
    }
    arrows++;
    CHECK(sscanf(s->source, "arrow-scattered:%d,%d", &rows, &L) == 2 && rows == 65536);
    CHECK_MSG(L == CGM_LONG_ROW, "N=%d: an arrow of %d blocks", s->block, L);
    CHECK_MSG(s->shape.max_row >= L && s->shape.row_scatter > 0.9, "N=%d: walk %d, scatter %.2f",
              s->block, s->shape.max_row, s->shape.row_scatter);
  }
  CHECK_MSG(arrows == 4 && bands == 4, "%d arrows, %d bands", arrows, bands);
  free(v);
  /* The band-load sweep (microbench/band_load_sweep.c), quick: one wide
   * band at every block size, CGM_BAND_LOAD_WIDTH bands' worth of walking
   * (rows x mean walk / (CGM_BAND_ROWS x longest walk), the model's load). */
  CHECK_OK(cgm_mb_band_load_sweep(&o, 1u << CGM_PREC_DOUBLE, true, &v, &n, &err));
  CHECK_MSG(n == 4, "%d wide bands", n);
  for (int i = 0; i < n; i++) {
    const cgm_segment_shape *sh = &v[i].shape;
    const double load = (double)sh->rows * sh->mean_row / (CGM_BAND_ROWS * (double)sh->max_row);
    CHECK_MSG(sh->rows >= CGM_BAND_LOAD_WIDTH * CGM_BAND_ROWS && load > 0.8 * CGM_BAND_LOAD_WIDTH &&
                  load <= CGM_BAND_LOAD_WIDTH * 1.01 && v[i].seconds > 0,
              "N=%d: %lld rows, load %.2f", v[i].block, (long long)sh->rows, load);
  }
  free(v);
  TEST_MAIN_END();
}
