/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Monotonic wall-clock time for host-side timing, and the orders and
 * median its statistics sort with. */
#pragma once

#include "cgmodel/export.h"

CGM_BEGIN_DECLS

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC). */
double cgm_now(void);
/* Median of v[0..n) (sorts v in place); 0 when n == 0. */
double cgm_median(double *v, int n);
/* The same, and the low decile in *low: other work only adds time, so the undisturbed cost. */
double cgm_median_low(double *v, int n, double *low);
/* Ascending qsort (and bsearch) orders of doubles and of int32_t. */
int cgm_cmp_double(const void *a, const void *b);
int cgm_cmp_i32(const void *a, const void *b);

CGM_END_DECLS
