/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The row-scatter coefficient of the refined model (docs/model.md, "The walk of a scattered row"):
 * per block size and precision, the seconds a step of the longest row's walk costs beyond the
 * in-order arrow's when it reads x from a line of its own, fitted to iterations of scattered arrows
 * with the row curve the in-order arrows fitted. */
#include <math.h>

#include "cgmodel/model.h"
#include "model/minimize.h"

/* A step costs well under 10 us whatever the memory: the search's range. */
#define COEF_MAX 1e-5
#define GRID 400

typedef struct {
  cgm_device_model *m;
  int bi, n, k;
  bool band;
  const cgm_segment_shape *s;
  const double *t;
} samples;

/* Squared relative error of the model with coefficient c, summed. */
static double sse(void *ctx, double c) {
  const samples *d = ctx;
  (d->band ? d->m->band_scatter_coef : d->m->scatter_coef)[d->bi] = c;
  double sum = 0.0;
  for (int i = 0; i < d->k; i++) {
    const double p = cgm_refined_segment_time(d->m, d->n, &d->s[i]);
    if (!isfinite(p)) return INFINITY;
    const double e = (p - d->t[i]) / d->t[i];
    sum += e * e;
  }
  return sum;
}

cgm_status cgm_fit_scatter_coef(const cgm_device_model *m, int n, bool band,
                                const cgm_segment_shape *shapes, const double *seconds, int count,
                                double *coef, cgm_error *err) {
  const int bi = cgm_block_index(n);
  if (!m || !shapes || !seconds || !coef || bi < 0)
    return cgm_fail(err, CGM_EINPUT, "row-scatter fit: no model, samples or block size");
  if (count < 1) return cgm_fail(err, CGM_EINPUT, "row-scatter fit: no samples");
  if (!m->have_row[bi])
    return cgm_fail(err, CGM_EINPUT, "row-scatter fit: no row curve at N = %d", n);
  for (int i = 0; i < count; i++)
    if (!(seconds[i] > 0) || !isfinite(seconds[i]))
      return cgm_fail(err, CGM_EINPUT, "row-scatter fit: sample %d has time %g", i, seconds[i]);
  if (band && !m->have_scatter_coef[bi])
    return cgm_fail(err, CGM_EINPUT, "row-scatter fit: the bands' term needs the arrows' at N = %d",
                    n);
  cgm_device_model w = *m;
  w.have_scatter_coef[bi] = true;
  w.have_band_scatter_coef[bi] = band;
  samples d = {&w, bi, n, count, band, shapes, seconds};
  double f;
  const double c = cgm_minimize_1d(sse, &d, 0.0, COEF_MAX, GRID, 1e-18, &f);
  if (!isfinite(f))
    return cgm_fail(err, CGM_EINPUT, "row-scatter fit: the model cannot time the samples");
  *coef = c;
  return CGM_OK;
}
