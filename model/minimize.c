/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A grid, then a golden section (model/minimize.h). */
#include "model/minimize.h"

#include <math.h>

double cgm_minimize_1d(double (*f)(void *ctx, double c), void *ctx, double lo, double hi, int grid,
                       double tol, double *fmin) {
  const double cell = (hi - lo) / grid;
  int best = 0;
  double fbest = INFINITY;
  for (int g = 0; g <= grid; g++) {
    const double v = f(ctx, lo + cell * g);
    if (v < fbest) {
      fbest = v;
      best = g;
    }
  }
  if (!isfinite(fbest)) {
    *fmin = INFINITY;
    return lo;
  }
  double a = lo + cell * (best > 0 ? best - 1 : 0);
  double b = lo + cell * (best < grid ? best + 1 : grid);
  const double phi = 0.5 * (sqrt(5.0) - 1.0);
  double c1 = b - phi * (b - a), c2 = a + phi * (b - a);
  double f1 = f(ctx, c1), f2 = f(ctx, c2);
  for (int it = 0; it < 100 && b - a > tol; it++) {
    if (f1 <= f2) {
      b = c2;
      c2 = c1;
      f2 = f1;
      c1 = b - phi * (b - a);
      f1 = f(ctx, c1);
    } else {
      a = c1;
      c1 = c2;
      f1 = f2;
      c2 = a + phi * (b - a);
      f2 = f(ctx, c2);
    }
  }
  double c = 0.5 * (a + b), v = f(ctx, c);
  if (fbest < v) { /* the grid point itself (an end of the range) */
    c = lo + cell * best;
    v = fbest;
  }
  *fmin = v;
  return c;
}
