/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fits -> the kernel curves of a device model. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pipeline/curves.h"

/* Curve c with its second regime r, its have flag h (NULL: none) and slot s. */
static cgm_sigmoid *at(cgm_sigmoid *c, cgm_regime *r, bool *h, int s, cgm_regime **hi, bool **have,
                       int *slot) {
  *hi = r, *have = h, *slot = s;
  return c;
}

cgm_sigmoid *pipeline_kernel_curve(cgm_device_model *m, const cgm_db_fit *f, cgm_regime **hi,
                                   bool **have, int *slot) {
  const int b = cgm_block_index(f->block);
  const char *v = f->variant;
  *have = NULL;
/* Block size b's curve c (m->c[b], its regime c_hi and flag have_c) in slot PIPELINE_SLOT_S + b. */
#define BLOCK_CURVE(c, S)                                                                          \
  at(&m->c[b], &m->c##_hi[b], &m->have_##c[b], PIPELINE_SLOT_##S + b, hi, have, slot)
  /* The mesh curve; a database from before it has the "all" curve alone
   * (cgm_refit adds the mesh curve). The loader's ranks keep mesh first. */
  if (!strcmp(f->kernel, "spmv") && (!strcmp(v, "mesh") || !strcmp(v, "all")) && b >= 0)
    return BLOCK_CURVE(spmv, SPMV);
  if (!strcmp(f->kernel, "iter") && b >= 0) {
    if (!strcmp(v, "mesh")) return BLOCK_CURVE(iter, ITER);
    if (!strcmp(v, "meshc")) return BLOCK_CURVE(iterc, ITERC);
    if (!strcmp(v, "row")) return BLOCK_CURVE(row, ROW);
    if (!strcmp(v, "band")) return BLOCK_CURVE(band, BAND);
    return NULL;
  }
#undef BLOCK_CURVE
  if (!strcmp(f->kernel, "cg4"))
    return at(&m->cg4, &m->cg4_hi, NULL, PIPELINE_SLOT_CG4, hi, have, slot);
  if (!strcmp(f->kernel, "cg5"))
    return at(&m->cg5, &m->cg5_hi, NULL, PIPELINE_SLOT_CG5, hi, have, slot);
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
