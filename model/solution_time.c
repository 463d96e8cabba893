/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Time to an accurate solution: setup + K iterations (docs/model.md, "Time
 * to a solution"). The iteration time comes from the refined model; this
 * file holds what surrounds it: the setup (building the layout on the host
 * and uploading it), the iteration count K, and mixed precision's cost. */
#include <math.h>
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

/* Least squares of seconds = a + b bytes. With fewer than 3 samples, or a
 * spread of sizes under 2x, or a negative slope, the default stays: a line
 * through points of one size says nothing about another. */
cgm_setup_model cgm_setup_fit(const double *bytes, const double *seconds, int n, bool gpu) {
  cgm_setup_model d = cgm_setup_model_default(gpu);
  if (n < 3) return d;
  double sx = 0, sy = 0, sxx = 0, sxy = 0, lo = INFINITY, hi = 0;
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (!(bytes[i] > 0) || !(seconds[i] > 0) || !isfinite(seconds[i])) continue;
    sx += bytes[i], sy += seconds[i], sxx += bytes[i] * bytes[i], sxy += bytes[i] * seconds[i];
    lo = fmin(lo, bytes[i]), hi = fmax(hi, bytes[i]);
    k++;
  }
  if (k < 3 || hi < 2.0 * lo) return d;
  const double den = k * sxx - sx * sx;
  if (!(den > 0)) return d;
  const double b = (k * sxy - sx * sy) / den, a = (sy - b * sx) / k;
  if (!(b > 0) || !isfinite(a)) return d;
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
  if (!(tol > 0) || tol >= 1) tol = 1e-8;
  double k = 0.2 * cbrt((double)(x > 1 ? x : 1)) * log(2.0 / tol);
  if (k < 10) k = 10;
  return ceil(k);
}
