/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fits -> the kernel curves of a device model. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
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
    if (!strcmp(f->variant, "meshc")) {
      *hi = &m->iterc_hi[bi];
      *have = &m->have_iterc[bi];
      *slot = PIPELINE_SLOT_ITERC + bi;
      return &m->iterc[bi];
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

bool pipeline_in_group(const cgm_sample *a, const char *kernel, const char *variant, int prec,
                       int block) {
  if (strcmp(a->kernel, kernel) || a->precision != prec || a->block != block) return false;
  if (!strcmp(kernel, "spmv") && !strcmp(variant, "all")) return true;
  if (!strcmp(kernel, "spmv") && !strcmp(variant, "mesh")) return pipeline_on_mesh(a->source);
  return !strcmp(a->variant, variant);
}

void pipeline_place_interp(cgm_device_model *m, const cgm_db_fit *f, const cgm_sample *v, int n) {
  cgm_regime *hi;
  bool *have;
  int slot;
  cgm_sigmoid *c = pipeline_kernel_curve(m, f, &hi, &have, &slot);
  double mm[512], bb[512]; /* a group's samples: a few dozen */
  int k = 0;
  for (int i = 0; c && i < n && k < 512; i++)
    if (pipeline_in_group(&v[i], f->kernel, f->variant, f->precision, f->block) &&
        cgm_sample_gbps(&v[i]) > 0)
      mm[k] = v[i].m, bb[k++] = cgm_sample_gbps(&v[i]);
  cgm_iter_points P = {0};
  if (k >= 2) cgm_curve_points(mm, bb, k, m->width, &P);
  if (P.n >= 2) {
    *hi = (cgm_regime){.pts = P};
    /* Eq. 3 of the points' median throughput, where a caller reads nu alone */
    *c = (cgm_sigmoid){log2(P.m[0]) - 9.0, 1.0, m->width * P.m[P.n / 2] / P.t[P.n / 2] * 1e-9};
    if (have) *have = true;
  }
}

void pipeline_place_coef(cgm_device_model *m, const cgm_db_coef *q) {
  const double v = q->value;
  if (!isfinite(v) || v < 0) return;
  if (!strcmp(q->name, CGM_DB_COEF_X_SECTOR)) m->x_coef = v, m->have_x_coef = true;
  if (v > 0 && !strcmp(q->name, CGM_DB_COEF_GATHER)) m->gather_bw = v, m->have_gather_bw = true;
  if (v > 0 && !strcmp(q->name, CGM_DB_COEF_GATHER_SMALL))
    m->gather_bw_small = v, m->have_gather_small = true;
  for (int b = 0; b < CGM_NBLOCKSIZES; b++) {
    char row[32], band[32], load[32];
    snprintf(row, sizeof row, "%s%d", CGM_DB_COEF_ROW_SCATTER, cgm_block_sizes[b]);
    snprintf(band, sizeof band, "%s%d", CGM_DB_COEF_BAND_SCATTER, cgm_block_sizes[b]);
    snprintf(load, sizeof load, "%s%d", CGM_DB_COEF_BAND_LOAD, cgm_block_sizes[b]);
    if (!strcmp(q->name, row)) m->scatter_coef[b] = v, m->have_scatter_coef[b] = true;
    if (!strcmp(q->name, band)) m->band_scatter_coef[b] = v, m->have_band_scatter_coef[b] = true;
    if (!strcmp(q->name, load)) m->band_load[b] = v, m->have_band_load[b] = true;
  }
}

int pipeline_collect_sample(const cgm_db_sample *s, void *vec) {
  return cgm_sample_vec_push(vec, s);
}
