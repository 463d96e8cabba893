/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The band-load fraction of the refined model (docs/model.md, "The walk under load"): per block
 * size and precision, how much slower than the band curve's a step is when several bands' worth of
 * rows walk, fitted to iterations of wide bands with the row and band curves (and their scatter
 * terms) the calibration made before it. */
#include <math.h>
#include <stdlib.h>

#include "cgmodel/model.h"
#include "common/timer.h" /* cgm_median */

#define FRAC_MAX 4.0

/* The fraction at which the model meets t on s: the model does not fall as the fraction rises, so a
 * bisection; 0 where the model without it already meets t, FRAC_MAX where even that does not. NaN
 * where the model cannot time s. */
static double meet(cgm_device_model *m, int bi, int n, const cgm_segment_shape *s, double t) {
  m->band_load[bi] = 0.0;
  const double t0 = cgm_refined_segment_time(m, n, s);
  if (!isfinite(t0)) return NAN;
  if (t0 >= t) return 0.0;
  double lo = 0.0, hi = FRAC_MAX;
  m->band_load[bi] = hi;
  if (cgm_refined_segment_time(m, n, s) <= t) return hi;
  for (int i = 0; i < 60; i++) {
    const double mid = 0.5 * (lo + hi);
    m->band_load[bi] = mid;
    if (cgm_refined_segment_time(m, n, s) > t)
      hi = mid;
    else
      lo = mid;
  }
  return 0.5 * (lo + hi);
}

cgm_status cgm_fit_band_load(const cgm_device_model *m, int n, const cgm_segment_shape *shapes,
                             const double *seconds, int count, double *frac, cgm_error *err) {
  *frac = NAN;
  const int bi = cgm_block_index(n);
  if (bi < 0 || !m->have_band[bi])
    return cgm_fail(err, CGM_EINPUT, "no band curve at N = %d: no band-load fraction", n);
  if (count < 1) return cgm_fail(err, CGM_EINPUT, "no band-load samples at N = %d", n);
  double *r = malloc((size_t)count * sizeof *r);
  if (!r) return cgm_fail(err, CGM_ERUNTIME, "out of memory");
  cgm_device_model w = *m;
  w.have_band_load[bi] = true;
  int k = 0;
  for (int i = 0; i < count; i++) {
    const double c = seconds[i] > 0 ? meet(&w, bi, n, &shapes[i], seconds[i]) : NAN;
    if (isfinite(c)) r[k++] = c;
  }
  if (k > 0) *frac = cgm_median(r, k);
  free(r);
  return k > 0 ? CGM_OK : cgm_fail(err, CGM_EINPUT, "the model cannot time the band-load samples");
}
