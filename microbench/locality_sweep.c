/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The locality sweep (docs/model.md, "x locality"): the same meshes under symmetric renumberings
 * from the natural one through local shuffles to a random one. The bytes the refined model counts
 * stay; the sectors of x each slice reads grow; the measured iterations say how much of that
 * reaches memory: the locality coefficient (cgm_fit_x_coef). Whole iterations through cgm_solve, on
 * whatever backend the options name (the CPU here; a GPU the same way). */
#include <stdio.h>
#include <stdlib.h>

#include "cgmodel/model.h"
#include "microbench/microbench.h"
#include "microbench/sweep_plan.h"

/* Shuffle windows in rows: none, within a cache line's worth of rows, a
 * few slices, and the whole matrix (0 stands for all rows). */
static const int32_t windows[] = {1, 64, 4096, 0};
#define NWINDOWS ((int)(sizeof windows / sizeof windows[0]))

cgm_status cgm_mb_locality_sweep(const cgm_solve_opts *base, unsigned precisions, bool quick,
                                 cgm_locality_sample **out, int *count, cgm_error *err) {
  mb_shapes v = {0};
  const int iters = quick ? 30 : 100;
  cgm_status st = CGM_OK;
  mb_pinned pin = {0};
  if (base->backend == CGM_BACKEND_CPU) mb_pin(base->threads, &pin);
  for (int mesh = 0; mesh < 2 && !st; mesh++) {
    cgm_csr A;
    /* A GPU's iterations of the CPU's sizes (8k-64k rows) sit at its launch floor, where the
     * sectors barely show: there Poisson 64^3 or 96^3 and elasticity 24 or 32 (20-50 us) */
    const bool gpu = base->backend == CGM_BACKEND_CUDA;
    const int32_t size = mesh == 0 ? (gpu ? (quick ? 64 : 96) : (quick ? 20 : 40))
                                   : (gpu ? (quick ? 24 : 32) : (quick ? 8 : 16));
    st = mesh == 0 ? cgm_gen_poisson3d(size, &A, err) : cgm_gen_elasticity3d(size, &A, err);
    if (st) break;
    int32_t *perm = malloc(((size_t)A.nrows + 1) * sizeof *perm);
    if (!perm) st = cgm_fail(err, CGM_ERUNTIME, "out of memory for the locality sweep");
    for (int w = 0; w < NWINDOWS && !st; w++) {
      cgm_csr B;
      cgm_perm_shuffle(A.nrows, windows[w] > 0 ? windows[w] : A.nrows, 0x10ca1 + (uint64_t)w, perm);
      if ((st = cgm_csr_permute(&A, perm, &B, err))) break;
      /* N = 1 only: at N >= 2 a renumbering also changes the blocks (a shuffled mesh fills them
       * less), so the bytes would not stay; the layout's B_x and B_y as the solver chooses */
      cgm_solve_opts o = *base;
      o.layout = cgm_bcsr_default_params(1);
      o.layout.bx = o.layout.by = 0;
      char src[48];
      snprintf(src, sizeof src, "%s:%d:w%d", mesh == 0 ? "poisson3d" : "elasticity3d", size,
               windows[w]);
      for (int p = 0; p < 2 && !st; p++)
        if (precisions & (1u << p)) st = mb_shape_push(&B, &o, 0, p, mesh, iters, src, &v, err);
      cgm_csr_free(&B);
    }
    free(perm);
    cgm_csr_free(&A);
  }
  mb_unpin(&pin);
  return mb_shapes_end(&v, st, out, count);
}
