/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The CPU's OpenMP team pinned one thread a CPU while it is timed. On an
 * idle machine the scheduler spreads a team that takes every CPU so; on a
 * busy one it may put two of its threads on one core beside other work on
 * the others (2 + 2 looks balanced) and keep them there: each barrier then
 * waits for a scheduler tick (a 512-row grid's iteration took 24 ms where
 * its own is 4 us, in a calibration's every sweep after). A smaller team
 * is left to the scheduler, which knows the machine's cores and sockets. */
#ifndef CGM_MICROBENCH_PIN_H
#define CGM_MICROBENCH_PIN_H

#include <stdbool.h>

typedef struct mb_pinned {
  unsigned long mask[16]; /* the process's CPUs before (a cpu_set_t) */
  int threads;
  bool on;
} mb_pinned;

/* Pins a team of `threads` (<= 0: OpenMP's default) one thread a CPU when
 * it takes every CPU the process may use; p->on says whether it did. */
void mb_pin(int threads, mb_pinned *p);
/* Gives the team back its CPUs. */
void mb_unpin(mb_pinned *p);

#endif
