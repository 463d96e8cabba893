/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "common/fault.h"

/* Solves run one at a time (docs/architecture.md): plain counters suffice. */
static long armed; /* 0: off */
static long count;

int cgm_fault_hit(void) {
  count++;
  return armed > 0 && count == armed;
}

void cgm_fault_arm(long k) {
  armed = k > 0 ? k : 0;
  count = 0;
}

long cgm_fault_count(void) {
  return count;
}
