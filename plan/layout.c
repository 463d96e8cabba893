/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The layout's B_x (docs/bcsr-layout.md), and the features in that layout. */
#include "cgmodel/plan.h"

/* Each SpMV thread walks its block row's blocks / B_x blocks as a chain of dependent loads: when
 * every row is long (FEM elasticity: 81 entries) that walk, not bandwidth, sets the time where a
 * GPU holds few rows (on H200, elasticity 32^3 on 4 GPUs: 78 -> 42 us an iteration at N = 1, B_x
 * 8). At N >= 2 the gains were smaller than N = 1's and the model, calibrated with one lane per
 * row, missed those layouts by up to 36%: N >= 2 keeps B_x = 1 (docs/bcsr-layout.md). */
cgm_bcsr_params cgm_plan_layout_choose(int n, double avg_row, int64_t rows_per_gpu) {
  cgm_bcsr_params p = cgm_bcsr_default_params(n);
  const double len = n > 0 ? avg_row / n : 0.0;
  while (n == 1 && p.bx < 8 && len / p.bx > 16.0 && rows_per_gpu * p.bx * 2 <= CGM_BX_THREADS)
    p.bx *= 2;
  p.by = 32 / (n * p.bx) > 0 ? 32 / (n * p.bx) : 1;
  return p;
}

cgm_bcsr_params cgm_plan_layout_params(const cgm_csr *A, int n, int gpus) {
  const double avg = A->nrows > 0 ? (double)A->nnz / A->nrows : 0.0;
  if (gpus < 1) gpus = 1;
  return cgm_plan_layout_choose(n, avg, ((int64_t)A->nrows + gpus - 1) / gpus);
}

void cgm_plan_layout_resolve(cgm_bcsr_params *p, const cgm_csr *A, int gpus) {
  if (p->bx > 0 || !A || p->n < 1) return;
  cgm_bcsr_params q = cgm_plan_layout_params(A, p->n, gpus);
  p->bx = q.bx;
  if (p->by <= 0) p->by = q.by;
}

cgm_status cgm_plan_features(const cgm_csr *A, cgm_features *f, cgm_error *err) {
  return cgm_plan_features_blocks(A, (1u << CGM_NBLOCKSIZES) - 1, f, err);
}

cgm_status cgm_plan_features_blocks(const cgm_csr *A, unsigned blocks, cgm_features *f,
                                    cgm_error *err) {
  cgm_bcsr_params p[CGM_NBLOCKSIZES];
  for (int b = 0; b < CGM_NBLOCKSIZES; b++)
    p[b] = cgm_plan_layout_params(A, cgm_block_sizes[b], 1); /* as on one GPU */
  return cgm_features_compute_blocks(A, p, blocks, f, err);
}
