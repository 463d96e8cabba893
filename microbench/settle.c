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

void mb_timing_of(double *t, int n, mb_timing *out) {
  const double med = cgm_median(t, n);
  out->q = t[(n - 1) / 10];
  out->spread = out->q > 0 ? med / out->q - 1.0 : 0.0;
  out->n = n;
}

/* What measurement i's timings cost where nothing holds them up: its low
 * quantile q times the timings of the rounds that settle it. */
static double quiet_cost(const mb_settle_opts *o, double q) {
  const double per_batch = q > 0 ? fmin(o->batch, 1.0 + floor(o->batch_s / q)) : o->batch;
  return q * (1.0 + fmax(o->min_n, o->min_rounds * per_batch));
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
      mb_timing_of(t + (size_t)i * MAX_TIMINGS, n[i], &out[i]);
      /* settled: enough timings, and the last round found none faster */
      out[i].settled = round >= o->min_rounds && n[i] >= o->min_n && out[i].q >= before * 0.98;
      open += !out[i].settled && n[i] < MAX_TIMINGS;
    }
    /* the open ones stay unsettled past the budget, or past twice what
     * the call costs where nothing holds it up, once it has run a few
     * scheduler ticks (25 ms): fewer timings under other work, not more
     * time (on 2 idle cores: the vector sweep took at most 1.5x its quiet
     * cost, 7 SpMVs in 278 over 2x) */
    double need = 0;
    for (int i = 0; i < count; i++) need += quiet_cost(o, out[i].q);
    const double spent = cgm_now() - start;
    if (spent > o->budget_s || spent > fmax(2.0 * need, 25e-3)) break;
  }
  free(t), free(n);
  return rc;
}
