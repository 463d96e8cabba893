/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The gather sweep (docs/model.md, "Gathers of x"): uniform random SPD matrices of CGM_GATHER_ROWS
 * (1M) and CGM_GATHER_ROWS_SMALL (131k) rows (8 nonzeros a row at random columns: a sector of x a
 * nonzero, x's 8 MB in a GPU's L2), timed as whole iterations at N = 1 in each precision. The time
 * their bytes do not explain is the gathers': the gather rate of each (cgm_fit_gather_bw). On a CPU
 * the same two sizes (x's 8 MB and 1 MB against its caches) place the gathers' cost by the share of
 * x out of them (cgm_gather_rate). */
#include <stdio.h>

#include "cgmodel/model.h"
#include "microbench/microbench.h"
#include "microbench/sweep_plan.h"

cgm_status cgm_mb_gather_sweep(const cgm_solve_opts *base, unsigned precisions, bool quick,
                               cgm_locality_sample **out, int *count, cgm_error *err) {
  static const int32_t rows[] = {CGM_GATHER_ROWS, CGM_GATHER_ROWS_SMALL};
  mb_shapes v = {0};
  cgm_status st = CGM_OK;
  /* a CPU times each iteration (their tenth percentile): 12 as its iteration sweep's past 32^3 */
  const int iters = base->backend == CGM_BACKEND_CPU ? 12 : quick ? 96 : 160;
  for (int r = 0; r < 2 && !st; r++) {
    cgm_csr A;
    if ((st = cgm_gen_random_spd(rows[r], 8, CGM_ROWDIST_UNIFORM, 2.5, 0, 0x9a7e + r, &A, err)))
      break;
    char src[48];
    snprintf(src, sizeof src, "uniform:%d,%d", rows[r], 8);
    for (int p = 0; p < 2 && !st; p++)
      if (precisions & (1u << p)) st = mb_shape_push(&A, base, 1, p, 0, iters, src, &v, err);
    cgm_csr_free(&A);
  }
  return mb_shapes_end(&v, st, out, count);
}
