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

/* A coefficient's sweep run, and its samples of one precision picked into
 * the arrays its fit takes. */
typedef struct {
  cgm_locality_sample *s;
  int n, k; /* samples; picked */
  int *blocks, *group;
  cgm_segment_shape *shapes;
  double *secs;
} sweep;

/* Runs the sweep on the CPU or a GPU (our kernels on the calibrated GPU, the calibration's options)
 * and makes room to pick. */
static cgm_status sweep_run(cgm_mb_sweep_fn *fn, const cgm_calibrate_opts *o, bool cpu, sweep *w,
                            cgm_error *err) {
  memset(w, 0, sizeof *w);
  cgm_solve_opts base = cgm_mb_solve_opts();
  base.backend = cpu ? CGM_BACKEND_CPU : CGM_BACKEND_CUDA;
  base.threads = cpu ? o->threads : 0;
  base.gpu = o->gpu;
  cgm_status st = fn(&base, o->precisions, o->quick, &w->s, &w->n, err);
  const size_t n = (size_t)w->n + 1;
  w->blocks = malloc(n * sizeof *w->blocks), w->group = malloc(n * sizeof *w->group);
  w->shapes = malloc(n * sizeof *w->shapes), w->secs = malloc(n * sizeof *w->secs);
  if (!st && (!w->blocks || !w->group || !w->shapes || !w->secs))
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory");
  return st;
}

static cgm_status sweep_end(sweep *w, cgm_status st) {
  free(w->s), free(w->blocks), free(w->group), free(w->shapes), free(w->secs);
  return st;
}

/* The samples of precision p (of block size `block` and group `group`
 * where >= 0, those m can time), picked: w->k of them. */
static void pick(sweep *w, int p, int block, int group, const cgm_device_model *m) {
  w->k = 0;
  for (int i = 0; i < w->n; i++) {
    const cgm_locality_sample *s = &w->s[i];
    if (s->precision != p || (block >= 0 && s->block != block) ||
        (group >= 0 && s->group != group) ||
        !isfinite(cgm_refined_segment_time(m, s->block, &s->shape)))
      continue;
    w->blocks[w->k] = s->block, w->group[w->k] = s->group;
    w->shapes[w->k] = s->shape, w->secs[w->k++] = s->seconds;
  }
}

/* Appends a fitted coefficient (its name, precision, value, rms and the samples it was fitted on)
 * to the calibration's list; a block size's name is family followed by the size. */
static void coef_push(cgm_db_coef *coef, int *ncoef, const char *family, int block, int p,
                      double value, double rms, int n) {
  cgm_db_coef *q = &coef[(*ncoef)++];
  *q = (cgm_db_coef){.precision = p, .value = value, .rms = rms, .n = n};
  snprintf(q->name, sizeof q->name, block ? "%s%d" : "%s", family, block);
}

/* The model of precision p from the fits and the coefficients fitted so far (the locality term, the
 * row-scatter terms, the gather rate), as a tuner device will load it. */
static void model_with_coefs(const calibrate_fits *F, int p, const cgm_db_coef *coef, int ncoef,
                             cgm_device_model *m) {
  calibrate_model_from_fits(F, p, m);
  for (int c = 0; c < ncoef; c++)
    if (coef[c].precision == p) pipeline_place_coef(m, &coef[c]);
}

/* The locality sweep on the device and the coefficient of each precision,
 * fitted with the curves just made (docs/model.md, "x locality"). A
 * precision whose curves cannot time the sweep's iterations gets none. */
cgm_status calibrate_fit_locality(const cgm_calibrate_opts *o, const char *device,
                                  const calibrate_fits *F, cgm_db_coef *coef, int *ncoef,
                                  cgm_error *err) {
  *ncoef = 0;
  sweep w;
  cgm_status st = sweep_run(cgm_mb_locality_sweep, o, !strcmp(device, "cpu"), &w, err);
  for (int p = 0; p < 2 && !st; p++) {
    if (!(o->precisions & (1u << p))) continue;
    cgm_device_model m;
    calibrate_model_from_fits(F, p, &m);
    pick(&w, p, -1, -1, &m);
    double c, rms;
    cgm_error e = {0};
    if (!cgm_fit_x_coef(&m, w.blocks, w.group, w.shapes, w.secs, w.k, &c, &rms, &e))
      coef_push(coef, ncoef, CGM_DB_COEF_X_SECTOR, 0, p, c, rms, w.k);
  }
  return sweep_end(&w, st);
}

/* The row-scatter sweep on a GPU and the coefficient of each block size and precision, fitted with
 * the row curves just made (docs/model.md, "The walk of a scattered row"), appended to coef. A
 * block size whose row curve is missing gets none. */
cgm_status calibrate_fit_scatter(const cgm_calibrate_opts *o, const calibrate_fits *F,
                                 cgm_db_coef *coef, int *ncoef, cgm_error *err) {
  sweep w;
  cgm_status st = sweep_run(cgm_mb_scatter_sweep, o, false, &w, err);
  for (int p = 0; p < 2 && !st; p++) {
    if (!(o->precisions & (1u << p))) continue;
    cgm_device_model m;
    calibrate_model_from_fits(F, p, &m);
    /* the arrows' term first (the in-order walk below it), then the bands' with it */
    for (int band = 0; band < 2; band++)
      for (int b = 0; b < CGM_NBLOCKSIZES; b++) {
        const int bn = cgm_block_sizes[b];
        pick(&w, p, bn, band, &m);
        double c;
        cgm_error e = {0};
        if (cgm_fit_scatter_coef(&m, bn, band, w.shapes, w.secs, w.k, &c, &e)) continue;
        coef_push(coef, ncoef, band ? CGM_DB_COEF_BAND_SCATTER : CGM_DB_COEF_ROW_SCATTER, bn, p, c,
                  NAN, w.k);
        pipeline_place_coef(&m, &coef[*ncoef - 1]);
      }
  }
  return sweep_end(&w, st);
}

/* The band-load sweep on a GPU and the fraction of each block size and precision, fitted with the
 * curves and coefficients just made (docs/model.md, "The walk under load"), appended to coef. A
 * block size without a band curve gets none. */
cgm_status calibrate_fit_band_load(const cgm_calibrate_opts *o, const calibrate_fits *F,
                                   cgm_db_coef *coef, int *ncoef, cgm_error *err) {
  sweep w;
  cgm_status st = sweep_run(cgm_mb_band_load_sweep, o, false, &w, err);
  const int have = *ncoef;
  for (int p = 0; p < 2 && !st; p++) {
    if (!(o->precisions & (1u << p))) continue;
    cgm_device_model m;
    model_with_coefs(F, p, coef, have, &m);
    for (int b = 0; b < CGM_NBLOCKSIZES; b++) {
      const int bn = cgm_block_sizes[b];
      pick(&w, p, bn, -1, &m);
      double c;
      cgm_error e = {0};
      if (w.k > 0 && !cgm_fit_band_load(&m, bn, w.shapes, w.secs, w.k, &c, &e))
        coef_push(coef, ncoef, CGM_DB_COEF_BAND_LOAD, bn, p, c, NAN, w.k);
    }
  }
  return sweep_end(&w, st);
}

/* The gather sweep on the device and the gather rate of each precision and matrix, fitted with the
 * curves and the locality coefficient just made (docs/model.md, "Gathers of x"), appended to coef.
 * A sample that runs no slower than its bytes say gives none; the smaller matrix's rate is kept
 * only beside the larger one's. */
cgm_status calibrate_fit_gather(const cgm_calibrate_opts *o, const char *device,
                                const calibrate_fits *F, cgm_db_coef *coef, int *ncoef,
                                cgm_error *err) {
  sweep w;
  cgm_status st = sweep_run(cgm_mb_gather_sweep, o, !strcmp(device, "cpu"), &w, err);
  const int have = *ncoef;
  for (int p = 0; p < 2 && !st; p++) {
    double bw[2] = {0, 0}; /* [0] CGM_GATHER_ROWS, [1] CGM_GATHER_ROWS_SMALL */
    cgm_device_model m;
    model_with_coefs(F, p, coef, have, &m);
    m.gather_cached = !strcmp(device, "cpu"); /* a CPU's gathers add to its stream */
    for (int i = 0; i < w.n; i++) {
      cgm_error e = {0};
      double b;
      if (w.s[i].precision == p &&
          !cgm_fit_gather_bw(&m, &w.s[i].shape, &w.s[i].seconds, 1, &b, &e))
        bw[w.s[i].shape.rows < CGM_GATHER_ROWS] = b;
    }
    if (!(bw[0] > 0)) continue;
    coef_push(coef, ncoef, CGM_DB_COEF_GATHER, 0, p, bw[0], NAN, 1);
    if (bw[1] > 0) coef_push(coef, ncoef, CGM_DB_COEF_GATHER_SMALL, 0, p, bw[1], NAN, 1);
  }
  return sweep_end(&w, st);
}
