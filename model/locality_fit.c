/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The locality coefficient of the refined model (docs/model.md, "x
 * locality"): one number per device and precision, fitted to iterations of
 * the same meshes under numberings from the natural one to a random one, so
 * that the bytes stay and only the sectors of x the slices read change. */
#include <math.h>
#include <stdlib.h>

#include "cgmodel/model.h"
#include "model/minimize.h"

#define COEF_MAX 16.0
#define GRID 64

typedef struct {
  cgm_device_model *m;
  const int *n, *ref; /* block sizes; the reference sample of each (itself: none) */
  const cgm_segment_shape *s;
  const double *t;
  int k;
} samples;

/* Squared relative error of the model with x_coef = c, summed. */
static double sse(void *ctx, double c) {
  const samples *d = ctx;
  cgm_device_model *m = d->m;
  m->x_coef = c;
  double sum = 0.0;
  for (int i = 0; i < d->k; i++) {
    double p = cgm_refined_segment_time(m, d->n[i], &d->s[i]), t = d->t[i];
    const int r = d->ref[i];
    if (r != i) { /* relative to the group's most local numbering */
      p /= cgm_refined_segment_time(m, d->n[r], &d->s[r]);
      t /= d->t[r];
    }
    if (!isfinite(p)) return INFINITY;
    const double e = (p - t) / t;
    sum += e * e;
  }
  return sum;
}

cgm_status cgm_fit_x_coef(const cgm_device_model *m, const int *n, const int *group,
                          const cgm_segment_shape *shapes, const double *seconds, int count,
                          double *coef, double *rms, cgm_error *err) {
  if (!m || !n || !shapes || !seconds || !coef)
    return cgm_fail(err, CGM_EINPUT, "locality fit: no model or samples");
  if (count < 3)
    return cgm_fail(err, CGM_EINPUT, "locality fit: %d samples, at least 3 needed", count);
  int scattered = 0;
  for (int i = 0; i < count; i++) {
    if (!(seconds[i] > 0) || !isfinite(seconds[i]))
      return cgm_fail(err, CGM_EINPUT, "locality fit: sample %d has time %g", i, seconds[i]);
    if (cgm_x_extra_bytes(1.0, &shapes[i], (int)m->width) > 0) scattered++;
  }
  if (!scattered)
    return cgm_fail(err, CGM_EINPUT,
                    "locality fit: no sample reads x in more sectors than it holds");
  int *ref = malloc((size_t)count * sizeof *ref);
  if (!ref) return cgm_fail(err, CGM_ERUNTIME, "out of memory");
  for (int i = 0; i < count; i++) { /* O(count^2): a sweep has a few dozen */
    ref[i] = i;
    for (int j = 0; group && j < count; j++)
      if (group[j] == group[i] && n[j] == n[i] &&
          shapes[j].x_sector_bytes < shapes[ref[i]].x_sector_bytes)
        ref[i] = j;
  }
  cgm_device_model w = *m;
  w.have_x_coef = true;
  samples d = {&w, n, ref, shapes, seconds, count};
  double f;
  const double c = cgm_minimize_1d(sse, &d, 0.0, COEF_MAX, GRID, 1e-9, &f);
  if (!isfinite(f)) {
    free(ref);
    return cgm_fail(err, CGM_EINPUT, "locality fit: the model lacks a curve of these block sizes");
  }
  free(ref);
  *coef = c;
  if (rms) *rms = sqrt(f / count);
  return CGM_OK;
}
