/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The gather rate of the refined model (docs/model.md, "Gathers of x"): the rate at which the SpMV
 * fetches the sectors of x when its columns scatter at random, fitted to iterations of uniform
 * random matrices with the curves and the locality term the calibration made before it. */
#include <math.h>
#include <stdlib.h>

#include "cgmodel/model.h"
#include "common/timer.h" /* cgm_median */

/* The rate at which the model meets t on the 1-block-size sample s, or 0
 * where it meets it without the term. The model falls as the rate rises:
 * a bisection over its logarithm, from 1 GB/s to 1 PB/s. */
static double meet(cgm_device_model *m, int n, const cgm_segment_shape *s, double t) {
  m->have_gather_bw = false;
  const double without = cgm_refined_segment_time(m, n, s);
  if (!isfinite(without) || without >= t || !(s->x_sector_bytes > 0)) return 0.0;
  m->have_gather_bw = true;
  double lo = 1e9, hi = 1e15;
  m->gather_bw = lo;
  if (cgm_refined_segment_time(m, n, s) < t) return 0.0; /* not even 1 GB/s explains it */
  for (int i = 0; i < 80; i++) {
    const double mid = sqrt(lo * hi);
    m->gather_bw = mid;
    if (cgm_refined_segment_time(m, n, s) > t)
      lo = mid;
    else
      hi = mid;
  }
  return sqrt(lo * hi);
}

cgm_status cgm_fit_gather_bw(const cgm_device_model *m, const cgm_segment_shape *shapes,
                             const double *seconds, int count, double *bw, cgm_error *err) {
  *bw = NAN;
  if (count < 1) return cgm_fail(err, CGM_EINPUT, "no gather samples");
  double *r = malloc((size_t)count * sizeof *r);
  if (!r) return cgm_fail(err, CGM_ERUNTIME, "out of memory");
  cgm_device_model w = *m;
  int k = 0;
  for (int i = 0; i < count; i++) {
    const double b = seconds[i] > 0 ? meet(&w, 1, &shapes[i], seconds[i]) : 0.0;
    if (b > 0) r[k++] = b;
  }
  if (k > 0) *bw = cgm_median(r, k);
  free(r);
  return k > 0 ? CGM_OK
               : cgm_fail(err, CGM_EINPUT,
                          "the gather samples ran no slower than their bytes say: no gather term");
}
