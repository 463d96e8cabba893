/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The band-load sweep (docs/model.md, "The walk under load"): bands of CGM_BAND_LOAD_WIDTH x
 * CGM_BAND_ROWS rows, every row as long as the band curve's, timed as whole iterations at every
 * block size and precision: more warps walking on each SM than the band curve had. How much slower
 * than that curve they walk is the band-load fraction (cgm_fit_band_load). GPU only: a CPU's model
 * has no walk. */
#include <stdio.h>

#include "cgmodel/model.h"
#include "microbench/microbench.h"
#include "microbench/sweep_plan.h"

/* The wide bands' block rows, in blocks: walks of 9 and 33 (quick: 33). */
static const int full_lengths[] = {8, 32}, quick_lengths[] = {32};

cgm_status cgm_mb_band_load_sweep(const cgm_solve_opts *base, unsigned precisions, bool quick,
                                  cgm_locality_sample **out, int *count, cgm_error *err) {
  const int nl = quick ? 1 : 2, maxiter = quick ? 96 : 160;
  const int *lens = quick ? quick_lengths : full_lengths;
  const int32_t rows = CGM_BAND_LOAD_WIDTH * CGM_BAND_ROWS;
  mb_shapes v = {0};
  cgm_status st = CGM_OK;
  for (int i = 0; i < nl && !st; i++)
    for (int b = 0; b < CGM_NBLOCKSIZES && !st; b++) {
      const int n = cgm_block_sizes[b], L = lens[i];
      const int32_t h = mb_band_half(n, L); /* as the band curve's */
      cgm_csr A;
      if ((st = cgm_gen_band(rows, h, &A, err))) break;
      char src[48];
      snprintf(src, sizeof src, "band-wide:%d,%d", rows, h);
      for (int p = 0; p < 2 && !st; p++)
        if (precisions & (1u << p)) st = mb_shape_push(&A, base, n, p, 0, maxiter, src, &v, err);
      cgm_csr_free(&A);
    }
  return mb_shapes_end(&v, st, out, count);
}
