/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One coefficient fitted by least squares: the minimiser the model's
 * scalar fits share (the locality and row-scatter coefficients). */
#ifndef CGM_MODEL_MINIMIZE_H
#define CGM_MODEL_MINIMIZE_H

/* The c in [lo, hi] that minimises f(ctx, c): a grid of `grid` cells first
 * (the error need not be unimodal far from its optimum, and is a max of
 * pieces where the walk sets the time), then a golden section inside the
 * best grid point's neighbours until the bracket is under tol (at most 100
 * steps), the grid point kept where the section ends higher (an end of the
 * range). *fmin: f at the c returned; INFINITY when f is finite at no grid
 * point (c is then lo). */
double cgm_minimize_1d(double (*f)(void *ctx, double c), void *ctx, double lo, double hi, int grid,
                       double tol, double *fmin);

#endif
