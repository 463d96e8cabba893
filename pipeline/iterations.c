/* SPDX-License-Identifier: GPL-3.0-or-later */
/* K, the iterations double precision takes to a tolerance, as the tuner's
 * totals and --reorder auto weigh it, from the cheapest source that knows:
 * the user's hint, a recorded solve of the same matrix (by content, across
 * tolerances and precisions), the probe's run kept beside the matrix's
 * cache entry, or a probe run now. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pipeline/steps.h"

/* The probe's run beside the cache entry: its residuals, whatever the
 * tolerance it ran to (a later, tighter tolerance extrapolates them). */
static const char PROBE[] = "probe";
enum { PROBE_VERSION = 1 };

static bool probe_cached(const cgm_cache_report *c, pipeline_probe *h) {
  size_t bytes = 0;
  double *r = c ? cgm_cache_extra_load(c, PROBE, PROBE_VERSION, &bytes) : NULL;
  if (!r || bytes % sizeof *r || bytes == 0) {
    free(r);
    return false;
  }
  h->r = r;
  h->n = h->cap = (int)(bytes / sizeof *r);
  return true;
}

double pipeline_iterations(const pipeline_k_query *q, char *src, size_t n, double *mixed_ratio) {
  if (mixed_ratio) *mixed_ratio = 0;
  snprintf(src, n, "hint");
  if (q->hint > 0) return q->hint;
  cgm_db_matrix m;
  memset(&m, 0, sizeof m);
  struct stat fs;
  snprintf(m.name, sizeof m.name, "%s", q->path ? pipeline_file_name(q->path) : "");
  m.file_bytes = q->path && stat(q->path, &fs) == 0 ? (int64_t)fs.st_size : 0;
  m.x = q->A->nrows;
  m.nnz = q->A->nnz;
  m.content_id = (int64_t)cgm_cache_content_id(q->cache);
  const pipeline_known known = pipeline_known_iterations(q->db, &m, q->tol);
  snprintf(src, n, "database");
  if (mixed_ratio) *mixed_ratio = known.mixed_ratio;
  if (known.k > 0) return known.k;
  pipeline_probe h = {0};
  double k = 0;
  if (probe_cached(q->cache, &h))
    k = pipeline_probe_k(&h, q->tol);
  else if (q->budget >= 0 && pipeline_probe_run(q->A, q->tol, q->budget, &h)) {
    k = pipeline_probe_k(&h, q->tol);
    cgm_cache_extra_put(q->cache, PROBE, PROBE_VERSION, h.r, (size_t)h.n * sizeof *h.r);
  }
  free(h.r);
  snprintf(src, n, k > 0 ? "probe" : "estimate");
  return k;
}
