#include "common/fault.h"

#include <stdlib.h>

/* Solves run one at a time (DESIGN.md): plain counters suffice. */
static long armed = -1; /* -1: not yet read from the environment */
static long count;

static void from_env(void) {
  if (armed >= 0) return;
  const char *v = getenv("CGMODEL_FAULT_CUDA");
  armed = v ? atol(v) : 0;
  if (armed < 0) armed = 0;
}

int cgm_fault_hit(void) {
  from_env();
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
