/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The tuner's plans of a matrix (cgm_tuner_plans: one walk of its block pattern a block size, most
 * of --auto's analysis) kept beside its cache entry: they depend on the matrix alone, so a warm
 * --auto prices them against whatever calibration there is without reading the matrix again. */
#include <stdlib.h>
#include <string.h>

#include "pipeline/steps.h"

static const char PLANS[] = "plans";
enum { PLANS_VERSION = 2 };

/* What a kept set of plans covers, then the plans. */
typedef struct {
  int32_t max_gpus, count;
  uint32_t exchanges, pad;
} plans_head;

cgm_status pipeline_plans(const cgm_csr *A, const cgm_cache_report *cache, int max_gpus,
                          unsigned exchanges, bool count, pipeline_plan_set *set, cgm_error *err) {
  memset(set, 0, sizeof *set);
  set->max_gpus = max_gpus;
  set->exchanges = exchanges;
  size_t bytes = 0;
  unsigned char *kept = cache ? cgm_cache_extra_load(cache, PLANS, PLANS_VERSION, &bytes) : NULL;
  plans_head h;
  if (kept && bytes >= sizeof h) {
    memcpy(&h, kept, sizeof h);
    const bool covers = h.max_gpus >= max_gpus && (h.exchanges & exchanges) == exchanges;
    if (covers && h.count >= 0 && bytes == sizeof h + (size_t)h.count * sizeof(cgm_tuner_plan) &&
        (set->plans = malloc((size_t)h.count * sizeof *set->plans + 1))) {
      memcpy(set->plans, kept + sizeof h, (size_t)h.count * sizeof *set->plans);
      set->count = h.count;
      set->max_gpus = h.max_gpus;
      set->exchanges = h.exchanges;
      set->cached = true;
    }
  }
  free(kept);
  if (set->cached || !count) return CGM_OK;
  return cgm_tuner_plans(A, max_gpus, 0, exchanges, &set->plans, &set->count, err);
}

void pipeline_plans_keep(const cgm_cache_report *cache, const pipeline_plan_set *set) {
  if (!cache || set->cached || !set->plans) return;
  const size_t n = (size_t)set->count * sizeof *set->plans;
  unsigned char *blob = malloc(sizeof(plans_head) + n);
  if (!blob) return;
  const plans_head h = {set->max_gpus, set->count, set->exchanges, 0};
  memcpy(blob, &h, sizeof h);
  memcpy(blob + sizeof h, set->plans, n);
  cgm_cache_extra_put(cache, PLANS, PLANS_VERSION, blob, sizeof h + n);
  free(blob);
}
