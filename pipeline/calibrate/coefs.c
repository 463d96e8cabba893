/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The coefficients a calibration measures by sweeps of their own (fits.h). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "microbench/microbench.h"
#include "pipeline/calibrate/fits.h"
#include "pipeline/curves.h"
#include "pipeline/steps.h"

/* The solver options of a GPU coefficient sweep (scatter, band load,
 * gather): our kernels on the calibrated GPU, the calibration's options. */
static cgm_solve_opts gpu_sweep_opts(const cgm_calibrate_opts *o) {
  cgm_solve_opts base = cgm_solve_opts_default();
  base.backend = CGM_BACKEND_CUDA;
  base.gpu = o->gpu;
  return base;
}

/* Appends a fitted coefficient (its name, precision, value, rms and the
 * samples it was fitted on) to the calibration's list. */
static void coef_push(cgm_db_coef *coef, int *ncoef, const char *name, int p, double value,
                      double rms, int n) {
  cgm_db_coef *q = &coef[(*ncoef)++];
  memset(q, 0, sizeof *q);
  snprintf(q->name, sizeof q->name, "%s", name);
  q->precision = p;
  q->value = value;
  q->rms = rms;
  q->n = n;
}

/* The locality sweep on the device and the coefficient of each precision,
 * fitted with the curves just made (docs/model.md, "x locality"). A
 * precision whose curves cannot time the sweep's iterations gets none. */
cgm_status calibrate_fit_locality(const cgm_calibrate_opts *o, const char *device,
                                  const calibrate_fits *F, cgm_db_coef *coef, int *ncoef,
                                  cgm_calibration_report *rep, int ri, cgm_error *err) {
  *ncoef = 0;
  cgm_solve_opts base = cgm_solve_opts_default();
  const bool cpu = strcmp(device, "cpu") == 0;
  base.backend = cpu ? CGM_BACKEND_CPU : CGM_BACKEND_CUDA;
  base.threads = cpu ? o->threads : 0;
  base.gpu = o->gpu;
  cgm_locality_sample *s = NULL;
  int n = 0;
  cgm_status st = cgm_mb_locality_sweep(&base, o->precisions, o->quick, &s, &n, err);
  if (st) return st;
  int *blocks = malloc(((size_t)n + 1) * sizeof *blocks),
      *group = malloc(((size_t)n + 1) * sizeof *group);
  cgm_segment_shape *shapes = malloc(((size_t)n + 1) * sizeof *shapes);
  double *secs = malloc(((size_t)n + 1) * sizeof *secs);
  if (!blocks || !group || !shapes || !secs) st = cgm_fail(err, CGM_ERUNTIME, "out of memory");
  for (int p = 0; p < 2 && !st; p++) {
    if (!(o->precisions & (1u << p))) continue;
    cgm_device_model m;
    calibrate_model_from_fits(F, p, &m);
    int k = 0;
    for (int i = 0; i < n; i++)
      if (s[i].precision == p && isfinite(cgm_refined_segment_time(&m, s[i].block, &s[i].shape))) {
        blocks[k] = s[i].block;
        group[k] = s[i].group;
        shapes[k] = s[i].shape;
        secs[k++] = s[i].seconds;
      }
    double c, rms;
    cgm_error e = {0};
    if (cgm_fit_x_coef(&m, blocks, group, shapes, secs, k, &c, &rms, &e) == CGM_OK) {
      coef_push(coef, ncoef, CGM_DB_COEF_X_SECTOR, p, c, rms, k);
      rep->cal[ri].x_coef[p] = c;
      rep->cal[ri].have_x_coef[p] = true;
    }
  }
  free(blocks);
  free(group);
  free(shapes);
  free(secs);
  free(s);
  return st;
}

/* The row-scatter sweep on a GPU and the coefficient of each block size and
 * precision, fitted with the row curves just made (docs/model.md, "The walk
 * of a scattered row"), appended to coef. A block size whose row curve is
 * missing gets none. */
cgm_status calibrate_fit_scatter(const cgm_calibrate_opts *o, const char *device,
                                 const calibrate_fits *F, cgm_db_coef *coef, int *ncoef,
                                 cgm_calibration_report *rep, int ri, cgm_error *err) {
  const cgm_solve_opts base = gpu_sweep_opts(o);
  cgm_locality_sample *s = NULL;
  int n = 0;
  cgm_status st = cgm_mb_scatter_sweep(&base, o->precisions, o->quick, &s, &n, err);
  if (st) return st;
  cgm_segment_shape *shapes = malloc(((size_t)n + 1) * sizeof *shapes);
  double *secs = malloc(((size_t)n + 1) * sizeof *secs);
  if (!shapes || !secs) st = cgm_fail(err, CGM_ERUNTIME, "out of memory");
  for (int p = 0; p < 2 && !st; p++) {
    if (!(o->precisions & (1u << p))) continue;
    cgm_device_model m;
    calibrate_model_from_fits(F, p, &m);
    /* the arrows' term first (the in-order walk below it), then the
     * bands' with it */
    for (int band = 0; band < 2; band++)
      for (int b = 0; b < CGM_NBLOCKSIZES; b++) {
        const int bn = cgm_block_sizes[b];
        int k = 0;
        for (int i = 0; i < n; i++)
          if (s[i].precision == p && s[i].block == bn && s[i].group == band) {
            shapes[k] = s[i].shape;
            secs[k++] = s[i].seconds;
          }
        double c;
        cgm_error e = {0};
        if (cgm_fit_scatter_coef(&m, bn, band, shapes, secs, k, &c, &e) != CGM_OK) continue;
        char name[32];
        snprintf(name, sizeof name, "%s%d",
                 band ? CGM_DB_COEF_BAND_SCATTER : CGM_DB_COEF_ROW_SCATTER, bn);
        coef_push(coef, ncoef, name, p, c, NAN, k);
        (band ? m.band_scatter_coef : m.scatter_coef)[b] = c;
        (band ? m.have_band_scatter_coef : m.have_scatter_coef)[b] = true;
        (band ? rep->cal[ri].band_scatter_coef : rep->cal[ri].scatter_coef)[p][b] = c;
        (band ? rep->cal[ri].have_band_scatter_coef : rep->cal[ri].have_scatter_coef)[p][b] = true;
      }
  }
  free(shapes);
  free(secs);
  free(s);
  return st;
}

/* The model of precision p from the fits and the coefficients fitted so
 * far (the locality term, the row-scatter terms, the gather rate), as a
 * tuner device will load it. */
static void model_with_coefs(const calibrate_fits *F, int p, const cgm_db_coef *coef, int ncoef,
                             cgm_device_model *m) {
  calibrate_model_from_fits(F, p, m);
  for (int c = 0; c < ncoef; c++)
    if (coef[c].precision == p) pipeline_place_coef(m, &coef[c]);
}

/* The band-load sweep on a GPU and the fraction of each block size and
 * precision, fitted with the curves and coefficients just made
 * (docs/model.md, "The walk under load"), appended to coef. A block size
 * without a band curve gets none. */
cgm_status calibrate_fit_band_load(const cgm_calibrate_opts *o, const calibrate_fits *F,
                                   cgm_db_coef *coef, int *ncoef, cgm_calibration_report *rep,
                                   int ri, cgm_error *err) {
  const cgm_solve_opts base = gpu_sweep_opts(o);
  cgm_locality_sample *s = NULL;
  int n = 0;
  cgm_status st = cgm_mb_band_load_sweep(&base, o->precisions, o->quick, &s, &n, err);
  if (st) return st;
  cgm_segment_shape *shapes = malloc(((size_t)n + 1) * sizeof *shapes);
  double *secs = malloc(((size_t)n + 1) * sizeof *secs);
  if (!shapes || !secs) st = cgm_fail(err, CGM_ERUNTIME, "out of memory");
  const int have = *ncoef;
  for (int p = 0; p < 2 && !st; p++) {
    if (!(o->precisions & (1u << p))) continue;
    cgm_device_model m;
    model_with_coefs(F, p, coef, have, &m);
    for (int b = 0; b < CGM_NBLOCKSIZES; b++) {
      const int bn = cgm_block_sizes[b];
      int k = 0;
      for (int i = 0; i < n; i++)
        if (s[i].precision == p && s[i].block == bn)
          shapes[k] = s[i].shape, secs[k++] = s[i].seconds;
      double c;
      cgm_error e = {0};
      if (k == 0 || cgm_fit_band_load(&m, bn, shapes, secs, k, &c, &e) != CGM_OK) continue;
      char name[32];
      snprintf(name, sizeof name, "%s%d", CGM_DB_COEF_BAND_LOAD, bn);
      coef_push(coef, ncoef, name, p, c, NAN, k);
      rep->cal[ri].band_load[p][b] = c;
      rep->cal[ri].have_band_load[p][b] = true;
    }
  }
  free(shapes);
  free(secs);
  free(s);
  return st;
}

/* The gather sweep on a GPU and the gather rate of each precision and
 * matrix, fitted with the curves and the locality coefficient just made
 * (docs/model.md, "Gathers of x"), appended to coef. A sample that runs no
 * slower than its bytes say gives none; the smaller matrix's rate is kept
 * only beside the larger one's. */
cgm_status calibrate_fit_gather(const cgm_calibrate_opts *o, const calibrate_fits *F,
                                cgm_db_coef *coef, int *ncoef, cgm_calibration_report *rep, int ri,
                                cgm_error *err) {
  const cgm_solve_opts base = gpu_sweep_opts(o);
  cgm_locality_sample *s = NULL;
  int n = 0;
  cgm_status st = cgm_mb_gather_sweep(&base, o->precisions, o->quick, &s, &n, err);
  if (st) return st;
  const int have = *ncoef;
  for (int p = 0; p < 2; p++) {
    double bw[2] = {0, 0}; /* [0] CGM_GATHER_ROWS, [1] CGM_GATHER_ROWS_SMALL */
    cgm_device_model m;
    model_with_coefs(F, p, coef, have, &m);
    for (int i = 0; i < n; i++) {
      if (s[i].precision != p) continue;
      cgm_error e = {0};
      double b;
      if (cgm_fit_gather_bw(&m, &s[i].shape, &s[i].seconds, 1, &b, &e) != CGM_OK) continue;
      bw[s[i].shape.rows < CGM_GATHER_ROWS] = b;
    }
    if (!(bw[0] > 0)) continue;
    coef_push(coef, ncoef, CGM_DB_COEF_GATHER, p, bw[0], NAN, 1);
    rep->cal[ri].gather_bw[p] = bw[0];
    rep->cal[ri].have_gather_bw[p] = true;
    if (!(bw[1] > 0)) continue;
    coef_push(coef, ncoef, CGM_DB_COEF_GATHER_SMALL, p, bw[1], NAN, 1);
    rep->cal[ri].gather_bw_small[p] = bw[1];
    rep->cal[ri].have_gather_small[p] = true;
  }
  free(s);
  return st;
}
