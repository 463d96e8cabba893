/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The row-scatter coefficient of the refined model (docs/model.md, "The
 * walk of a scattered row"): per block size and precision, the seconds a
 * step of the longest row's walk costs beyond the in-order arrow's when it
 * reads x from a line of its own, fitted to iterations of scattered arrows
 * with the row curve the in-order arrows fitted. */
#include <math.h>

#include "cgmodel/model.h"

/* A step costs well under 10 us whatever the memory: the search's range. */
#define COEF_MAX 1e-5
#define GRID 400

/* Squared relative error of the model with coefficient c, summed. */
static double sse(cgm_device_model *m, int bi, bool band, int n, const cgm_segment_shape *s,
                  const double *t, int k, double c) {
  if (band)
    m->band_scatter_coef[bi] = c;
  else
    m->scatter_coef[bi] = c;
  double sum = 0.0;
  for (int i = 0; i < k; i++) {
    const double p = cgm_refined_segment_time(m, n, &s[i]);
    if (!isfinite(p)) return INFINITY;
    const double e = (p - t[i]) / t[i];
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
  /* a grid, then a golden section around its best point: the error is a
   * max of pieces in c, convex in each but not smooth */
  int best = 0;
  double fbest = INFINITY;
  for (int g = 0; g <= GRID; g++) {
    const double f = sse(&w, bi, band, n, shapes, seconds, count, COEF_MAX * g / GRID);
    if (f < fbest) {
      fbest = f;
      best = g;
    }
  }
  if (!isfinite(fbest))
    return cgm_fail(err, CGM_EINPUT, "row-scatter fit: the model cannot time the samples");
  double a = COEF_MAX * (best > 0 ? best - 1 : 0) / GRID,
         b = COEF_MAX * (best < GRID ? best + 1 : GRID) / GRID;
  const double r = 0.5 * (sqrt(5.0) - 1.0);
  for (int it = 0; it < 60; it++) {
    const double c1 = b - r * (b - a), c2 = a + r * (b - a);
    if (sse(&w, bi, band, n, shapes, seconds, count, c1) <=
        sse(&w, bi, band, n, shapes, seconds, count, c2))
      b = c2;
    else
      a = c1;
  }
  *coef = 0.5 * (a + b);
  return CGM_OK;
}
