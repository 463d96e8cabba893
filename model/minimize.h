/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The minimiser the model's one-coefficient least-squares fits share. */
#pragma once

/* The c in [lo, hi] that minimises f(ctx, c): a grid of `grid` cells (the error need not be
 * unimodal), then a golden section around the best grid point to tol (the grid point kept where it
 * ends higher). *fmin: f there; INFINITY when f is finite at no grid point (c is then lo). */
double cgm_minimize_1d(double (*f)(void *ctx, double c), void *ctx, double lo, double hi, int grid,
                       double tol, double *fmin);
