/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Timings that hold on a shared machine (docs/calibration.md). Other work only adds time (a
 * preempted OpenMP thread holds its team at a barrier for a scheduler quantum, 4-24 ms on 2 cores;
 * another context takes its time slices of a GPU): a measurement is the low quantile of timings
 * taken in rounds that interleave a sweep's measurements (a burst of other work falls on a few
 * timings of each), until a round no longer lowers it (settled) or the budget is spent (unsettled:
 * marked, and kept). The CPU's team is pinned while its sweeps run (mb_pin). */
#define _GNU_SOURCE /* sched_setaffinity */
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/timer.h"
#include "microbench/microbench.h"
#include "microbench/sweep_plan.h"

_Static_assert(sizeof(cpu_set_t) <= sizeof(((mb_pinned *)0)->mask), "mb_pinned holds a cpu_set_t");

/* A team of n each on its CPU of cpus, or all on `all`; false on a failure. */
static bool set_team(int n, const int *cpus, const cpu_set_t *all) {
  int failed = 0;
#pragma omp parallel num_threads(n) reduction(+ : failed)
  {
    cpu_set_t one;
    CPU_ZERO(&one);
    if (cpus) CPU_SET(cpus[omp_get_thread_num()], &one);
    failed += omp_get_num_threads() != n || sched_setaffinity(0, sizeof one, cpus ? &one : all);
  }
  return !failed;
}

void mb_pin(int threads, mb_pinned *p) {
  cpu_set_t was;
  int cpus[CPU_SETSIZE], k = 0;
  *p = (mb_pinned){.threads = threads > 0 ? threads : omp_get_max_threads()};
  /* two threads on two CPUs only: a team of other sizes, whose threads libgomp
   * remakes with the main thread's CPUs, piled onto one (docs/calibration.md) */
  if (sched_getaffinity(0, sizeof was, &was) || p->threads != 2 || CPU_COUNT(&was) != 2) return;
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &was)) cpus[k++] = c;
  memcpy(p->mask, &was, sizeof was);
  p->on = true;
  if (!set_team(p->threads, cpus, NULL)) mb_unpin(p); /* a partial pinning let go */
}

void mb_unpin(mb_pinned *p) {
  if (p->on) (void)set_team(p->threads, NULL, (const cpu_set_t *)(const void *)p->mask);
  p->on = false;
}

/* One spin of a team of n: the mean of its threads' CPU time over the wall time. */
static double share_once(int n, double seconds) {
  double share = 0;
#pragma omp parallel num_threads(n) reduction(+ : share)
  {
    struct timespec a, b;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    const double t0 = cgm_now();
    double t = t0;
    while (t - t0 < seconds) t = cgm_now(); /* preempted or not, the clock runs */
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    share += ((double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec)) / (t - t0);
  }
  return share / n;
}

double cgm_mb_cpu_share(int threads, double seconds) {
  /* pinned as the sweeps run (two threads on one core read 0.6-0.75 on an idle machine), the
   * higher of two halves: a team the scheduler has not spread yet only reads low */
  mb_pinned p;
  mb_pin(threads, &p);
  const double a = share_once(p.threads, seconds / 2), b = share_once(p.threads, seconds / 2);
  mb_unpin(&p);
  /* of the CPUs the team can have: more threads than CPUs share them whatever else runs */
  cpu_set_t own;
  const int cpus = sched_getaffinity(0, sizeof own, &own) ? p.threads : CPU_COUNT(&own);
  return (a > b ? a : b) * p.threads / (cpus < p.threads ? cpus : p.threads);
}

int mb_iters_within(int iters, int least, double wall, double quiet) {
  const int n = wall > 2.0 * quiet ? (int)(iters * 2.0 * quiet / wall) : iters;
  return n > least ? n : least;
}

enum { MAX_TIMINGS = 512 }; /* per measurement */

void mb_timing_of(double *t, int n, mb_timing *out) {
  const double med = cgm_median_low(t, n, &out->q);
  out->spread = out->q > 0 ? med / out->q - 1.0 : 0.0;
  out->n = n;
}

/* The undisturbed cost of a measurement: q times the timings that settle it. */
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
      const int n0 = n[i];
      double *ti = t + (size_t)i * MAX_TIMINGS; /* [0, n0) sorted by the last round */
      const double b0 = cgm_now();
      for (int k = 0; k < o->batch && n[i] < MAX_TIMINGS && (!k || cgm_now() - b0 < o->batch_s);
           k++) {
        const double v = fn(ctx, i);
        if (v < 0) rc = -1;
        ti[n[i]++] = v;
      }
      /* the last round's quantile at this rank (20 -> 21 timings: the rank below settled early) */
      const double before = n0 > (n[i] - 1) / 10 ? ti[(n[i] - 1) / 10] : INFINITY;
      mb_timing_of(ti, n[i], &out[i]);
      /* settled: enough timings, and the last round found none faster */
      out[i].settled = round >= o->min_rounds && n[i] >= o->min_n && out[i].q >= before * 0.98;
      open += !out[i].settled && n[i] < MAX_TIMINGS;
    }
    /* the open ones stay unsettled past the budget, or past 25 ms and twice
     * their undisturbed cost: under other work fewer timings, not more time */
    double need = 0;
    for (int i = 0; i < count; i++) need += quiet_cost(o, out[i].q);
    const double spent = cgm_now() - start;
    if (spent > o->budget_s || spent > fmax(2.0 * need, 25e-3)) break;
  }
  free(t), free(n);
  return rc;
}
