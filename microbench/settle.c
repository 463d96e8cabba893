/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Timings that hold on a shared machine (docs/calibration.md). Other work
 * only adds time (a preempted OpenMP thread holds its team at a barrier
 * for a scheduler quantum, 4-24 ms on 2 cores; another context takes its
 * time slices of a GPU): a measurement is the low quantile of timings taken
 * in rounds that interleave a sweep's measurements (a burst of other work
 * falls on a few timings of each), until a round no longer lowers it
 * (settled) or the budget is spent (unsettled: marked, and kept). */
#include <math.h>
#include <stdlib.h>

#include "common/timer.h"
#include "microbench/sweep_plan.h"

enum { MAX_TIMINGS = 512 }; /* per measurement */

/* The tenth percentile (the minimum under 10 timings) and the spread of
 * t[0..n) (sorted in place by cgm_median). */
static void summarise(double *t, int n, mb_timing *out) {
  const double med = cgm_median(t, n);
  out->q = t[(n - 1) / 10];
  out->spread = out->q > 0 ? med / out->q - 1.0 : 0.0;
}

int mb_settle(mb_time_fn fn, void *ctx, int count, const mb_settle_opts *o, mb_timing *out) {
  double *t = malloc(sizeof(double) * MAX_TIMINGS * (size_t)count); /* each's, in any order */
  int *n = calloc((size_t)count, sizeof *n), rc = t && n ? 0 : -1;
  for (int i = 0; i < count; i++) out[i] = (mb_timing){0};
  for (int i = 0; i < count && !rc; i++) rc = fn(ctx, i) < 0 ? -1 : 0; /* a warm-up, not kept */
  const double start = cgm_now();
  for (int round = 1, open = count; open > 0 && !rc; round++) {
    open = 0;
    for (int i = 0; i < count && !rc; i++) {
      if (out[i].settled || n[i] == MAX_TIMINGS) continue;
      const double before = n[i] ? out[i].q : INFINITY, b0 = cgm_now();
      for (int k = 0; k < o->batch && n[i] < MAX_TIMINGS && (!k || cgm_now() - b0 < o->batch_s);
           k++) {
        const double v = fn(ctx, i);
        if (v < 0) rc = -1;
        t[(size_t)i * MAX_TIMINGS + n[i]++] = v;
      }
      summarise(t + (size_t)i * MAX_TIMINGS, n[i], &out[i]);
      out[i].n = n[i];
      /* settled: enough timings, and the last round found none faster */
      out[i].settled = round >= o->min_rounds && n[i] >= o->min_n && out[i].q >= before * 0.98;
      open += !out[i].settled && n[i] < MAX_TIMINGS;
    }
    if (cgm_now() - start > o->budget_s) break; /* the open ones stay unsettled */
  }
  free(t), free(n);
  return rc;
}
