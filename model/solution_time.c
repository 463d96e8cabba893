/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Time to an accurate solution: setup + K iterations (docs/model.md, "Time
 * to a solution"). The iteration time comes from the refined model; this
 * file holds what surrounds it: the setup (building the layout on the host
 * and uploading it), the iteration count K, and mixed precision's cost. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/model.h"

/* The defaults, from solves on an H100 node (docs/precision.md): 0.14-0.18 s
 * for a 0.35 GB elasticity layout, 0.63-0.77 s for the 1 GB of Poisson 3D
 * 192^3, i.e. ~0.6 ns a byte; whole solves of the small bundled matrices
 * took 3-5 ms on the GPU (the fixed part, in a process whose CUDA context is
 * up) and 0.1-0.5 ms on the CPU. */
cgm_setup_model cgm_setup_model_default(bool gpu) {
  cgm_setup_model m;
  memset(&m, 0, sizeof m);
  m.fixed_s = gpu ? 0.003 : 0.0001; /* a GPU: allocations, handles, graph capture */
  m.s_per_byte = gpu ? 0.6e-9 : 0.4e-9;
  m.samples = 0;
  return m;
}

double cgm_setup_time(const cgm_setup_model *m, double bytes) {
  return m->fixed_s + m->s_per_byte * (bytes > 0 ? bytes : 0);
}

/* Weighted least squares of seconds = a + b bytes over the samples kept,
 * each weighted 1 / seconds^2: the relative error is minimised, so the
 * fixed part a is set by the small setups (a 20 KB layout's 1 ms) and not
 * swamped by the large ones (a 600 MB layout's 0.25 s), as a plain least
 * squares would. Returns false when the line is not determined. */
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

/* seconds = a + b bytes, fitted relatively (line_fit), then once more
 * without the samples more than 2x off the first line: a calibration's
 * first solve on a GPU also loads the solver's kernels, a recorded one may
 * have shared the machine. With fewer than 3 samples, or a spread of sizes
 * under 2x, or a negative slope, the default stays: a line through points
 * of one size says nothing about another. */
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

/* Jacobi-preconditioned CG on the discretised elliptic problems users
 * bring needs O(h^-1) iterations per digit: h^-1 ~ x^(1/3) in 3D. The
 * constant is a middle value of Poisson 3D and 3D elasticity (0.12 and
 * 0.35 per digit and unit of x^(1/3)); it ranks configurations when nothing
 * better is known and is reported as an estimate. */
double cgm_iterations_estimate(int64_t x, double tol) {
  if (!(tol > 0) || tol >= 1) tol = CGM_DEFAULT_TOL;
  double k = 0.2 * cbrt((double)(x > 1 ? x : 1)) * log(2.0 / tol);
  if (k < 10) k = 10;
  return ceil(k);
}
