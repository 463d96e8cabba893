/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The CPU's team pinned while it is timed (pin.h). */
#define _GNU_SOURCE
#include "microbench/pin.h"

#include <omp.h>
#include <sched.h>
#include <string.h>

_Static_assert(sizeof(cpu_set_t) <= sizeof(((mb_pinned *)0)->mask), "mb_pinned holds a cpu_set_t");

/* Every thread of a team of n: its own CPU of cpus (or, cpus NULL, the
 * mask `all`); false where one could not be set. */
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
  memset(p, 0, sizeof *p);
  cpu_set_t was;
  if (sched_getaffinity(0, sizeof was, &was)) return;
  const int n = threads > 0 ? threads : omp_get_max_threads();
  if (n < 2 || n != CPU_COUNT(&was)) return; /* a team of a few CPUs is the scheduler's to place */
  int cpus[CPU_SETSIZE], k = 0;
  for (int c = 0; c < CPU_SETSIZE && k < n; c++)
    if (CPU_ISSET(c, &was)) cpus[k++] = c;
  memcpy(p->mask, &was, sizeof was);
  p->threads = n;
  p->on = true;
  if (!set_team(n, cpus, NULL)) mb_unpin(p); /* a partial pinning is let go */
}

void mb_unpin(mb_pinned *p) {
  if (p->on) (void)set_team(p->threads, NULL, (const cpu_set_t *)(const void *)p->mask);
  p->on = false;
}
