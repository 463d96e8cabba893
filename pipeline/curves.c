/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fits -> the kernel curves of a device model. */
#include <string.h>

#include "cgmodel/calibrate.h"
#include "pipeline/curves.h"

cgm_sigmoid *pipeline_kernel_curve(cgm_device_model *m, const cgm_db_fit *f, cgm_regime **hi,
                                   bool **have, int *slot) {
  int bi = cgm_block_index(f->block);
  *have = NULL;
  /* The mesh curve; a database from before it has the "all" curve alone
   * (cgm_refit adds the mesh curve). The loader's ranks keep mesh first. */
  if (!strcmp(f->kernel, "spmv") && (!strcmp(f->variant, "mesh") || !strcmp(f->variant, "all")) &&
      bi >= 0) {
    *hi = &m->spmv_hi[bi];
    *have = &m->have_spmv[bi];
    *slot = PIPELINE_SLOT_SPMV + bi;
    return &m->spmv[bi];
  }
  if (!strcmp(f->kernel, "iter") && bi >= 0) {
    if (!strcmp(f->variant, "mesh")) {
      *hi = &m->iter_hi[bi];
      *have = &m->have_iter[bi];
      *slot = PIPELINE_SLOT_ITER + bi;
      return &m->iter[bi];
    }
    if (!strcmp(f->variant, "row")) {
      *hi = &m->row_hi[bi];
      *have = &m->have_row[bi];
      *slot = PIPELINE_SLOT_ROW + bi;
      return &m->row[bi];
    }
    if (!strcmp(f->variant, "band")) {
      *hi = &m->band_hi[bi];
      *have = &m->have_band[bi];
      *slot = PIPELINE_SLOT_BAND + bi;
      return &m->band[bi];
    }
    return NULL;
  }
  if (!strcmp(f->kernel, "cg4")) {
    *hi = &m->cg4_hi;
    *slot = PIPELINE_SLOT_CG4;
    return &m->cg4;
  }
  if (!strcmp(f->kernel, "cg5")) {
    *hi = &m->cg5_hi;
    *slot = PIPELINE_SLOT_CG5;
    return &m->cg5;
  }
  return NULL;
}

bool pipeline_on_mesh(const char *source) {
  return !strncmp(source, "poisson3d:", 10) || !strncmp(source, "poisson2d:", 10);
}
