/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The locality coefficient of the refined model (docs/model.md, "x locality"): one number per
 * device and precision, fitted to iterations of the same meshes under numberings from the natural
 * one to a random one, so that the bytes stay and only the sectors of x the slices read change. */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>

#include "cgmodel/model.h"
#include "model/minimize.h"

#define COEF_MAX 16.0
#define GRID 64

typedef struct {
  cgm_device_model *m;
  const int *n, *g; /* block sizes; each sample's group (-1: none) */
  const cgm_segment_shape *s;
  const double *t;
  double *e; /* scratch: each sample's log error */
  int k;
} samples;

/* Squared log error of the model with x_coef = c, summed; within a group (a
 * mesh under several numberings) less the group's mean, so that the model's
 * own error on a mesh does not move c (nor one noisy sample of it). */
static double sse(void *ctx, double c) {
  const samples *d = ctx;
  d->m->x_coef = c;
  for (int i = 0; i < d->k; i++) {
    d->e[i] = log(d->t[i] / cgm_refined_segment_time(d->m, d->n[i], &d->s[i]));
    if (!isfinite(d->e[i])) return INFINITY;
  }
  double sum = 0.0;
  for (int i = 0; i < d->k; i++) {
    double mean = 0.0;
    int c_i = 0;
    for (int j = 0; d->g[i] >= 0 && j < d->k; j++)
      if (d->g[j] == d->g[i]) mean += d->e[j], c_i++;
    const double r = d->e[i] - (c_i ? mean / c_i : 0.0);
    sum += r * r;
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
  double *e = malloc((size_t)count * (sizeof *e + sizeof(int))); /* then each sample's group */
  if (!e) return cgm_fail(err, CGM_ERUNTIME, "out of memory");
  int *g = (int *)(e + count);
  int groups = 0; /* a group: one mesh (group[i]) at one block size */
  for (int i = 0; i < count; i++) {
    g[i] = group ? groups : -1;
    for (int j = 0; group && j < i; j++)
      if (group[j] == group[i] && n[j] == n[i]) g[i] = g[j];
    groups += group && g[i] == groups;
  }
  cgm_device_model w = *m;
  w.have_x_coef = true;
  samples d = {&w, n, g, shapes, seconds, e, count};
  double f;
  double c = cgm_minimize_1d(sse, &d, 0.0, COEF_MAX, GRID, 1e-9, &f);
  const double f0 = sse(&d, 0.0);
  free(e);
  if (!isfinite(f))
    return cgm_fail(err, CGM_EINPUT, "locality fit: the model lacks a curve of these block sizes");
  /* The term only where the data demand it (an F test at 5%, a group's scale
   * and c fitted; with no degree of freedom left, none): iterations at a GPU's
   * launch floor barely move with the sectors, and their noise alone fitted
   * c = 1.3-1.8 on one H200 (every random matrix then priced 30-60% slow) */
  const int dof = count - groups - 1;
  if (dof <= 0 || (f0 - f) * dof < gsl_cdf_fdist_Pinv(0.95, 1, dof) * f) c = 0.0, f = f0;
  *coef = c;
  if (rms) *rms = sqrt(f / count);
  return CGM_OK;
}
