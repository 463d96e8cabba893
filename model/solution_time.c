/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Time to a solution beside the iteration's: the setup and K (docs/model.md). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "cgmodel/model.h"

/* The defaults, from solves on an H100 node (docs/precision.md): ~0.6 ns a byte (1 GB of Poisson
 * 192^3: 0.63-0.77 s), and the small bundled matrices' 3-5 ms on the GPU, 0.1-0.5 ms on the CPU. */
cgm_setup_model cgm_setup_model_default(bool gpu) {
  /* fixed_s on a GPU: allocations, handles, graph capture */
  return (cgm_setup_model){.fixed_s = gpu ? 0.003 : 0.0001, .s_per_byte = gpu ? 0.6e-9 : 0.4e-9};
}

double cgm_setup_time(const cgm_setup_model *m, double bytes) {
  return m->fixed_s + m->s_per_byte * (bytes > 0 ? bytes : 0);
}

/* Least squares of seconds = a + b bytes over the samples kept, weighted 1
 * / seconds^2 (the relative error: the small setups set a, not swamped by
 * the large). False when the line is not determined. */
static bool line_fit(const double *x, const double *y, const bool *keep, int n, double *a,
                     double *b) {
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < n; i++) {
    if (!keep[i]) continue;
    const double w = 1.0 / (y[i] * y[i]);
    sw += w, sx += w * x[i], sy += w * y[i], sxx += w * x[i] * x[i], sxy += w * x[i] * y[i];
  }
  const double den = sw * sxx - sx * sx;
  if (!(den > 0)) return false;
  *b = (sw * sxy - sx * sy) / den;
  *a = (sy - *b * sx) / sw;
  return isfinite(*a) && isfinite(*b);
}

/* line_fit, then once more without the samples 2x off the first line (a first solve also loads the
 * kernels, a recorded one may have shared the machine); the default with fewer than 3 samples,
 * sizes within 2x or a negative slope. */
cgm_setup_model cgm_setup_fit(const double *bytes, const double *seconds, int n, bool gpu) {
  cgm_setup_model d = cgm_setup_model_default(gpu);
  if (n < 3) return d;
  bool *keep = calloc((size_t)n, sizeof *keep);
  if (!keep) return d;
  int k = 0;
  for (int i = 0; i < n; i++) {
    keep[i] = bytes[i] > 0 && seconds[i] > 0 && isfinite(seconds[i]) && isfinite(bytes[i]);
    k += keep[i];
  }
  double a = 0, b = 0;
  bool ok = k >= 3 && line_fit(bytes, seconds, keep, n, &a, &b);
  for (int i = 0; ok && i < n; i++) {
    if (!keep[i]) continue;
    const double f = a + b * bytes[i];
    if (!(f > 0) || seconds[i] > 2.0 * f || seconds[i] < 0.5 * f) keep[i] = false, k--;
  }
  double lo = INFINITY, hi = 0;
  for (int i = 0; i < n; i++)
    if (keep[i]) lo = fmin(lo, bytes[i]), hi = fmax(hi, bytes[i]);
  ok = ok && k >= 3 && hi >= 2.0 * lo && line_fit(bytes, seconds, keep, n, &a, &b);
  free(keep);
  if (!ok || !(b > 0)) return d;
  d.s_per_byte = b;
  d.fixed_s = a > 0 ? a : 0;
  d.samples = k;
  return d;
}

/* Jacobi CG on a discretised elliptic problem needs O(h^-1) iterations per digit, h^-1 ~ x^(1/3) in
 * 3D; the constant lies between Poisson 3D's and 3D elasticity's (0.12 and 0.35). */
double cgm_iterations_estimate(int64_t x, double tol) {
  if (!(tol > 0) || tol >= 1) tol = CGM_DEFAULT_TOL;
  double k = 0.2 * cbrt((double)(x > 1 ? x : 1)) * log(2.0 / tol);
  if (k < 10) k = 10;
  return ceil(k);
}
