/* SPDX-License-Identifier: GPL-3.0-or-later */
/* K, the iterations double precision takes to a tolerance, as the tuner's totals and --reorder auto
 * weigh it, from the cheapest source that knows: the user's hint, a recorded solve of the same
 * matrix (by content, across tolerances and precisions), the probe's run kept beside the matrix's
 * cache entry, or a probe run now. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "pipeline/steps.h"

/* The probe's runs beside the cache entry, one per precision: their residuals, whatever the
 * tolerance they ran to (a later, tighter tolerance extrapolates them). An extra's name is letters
 * and digits (cache/extra.c refuses any other, silently: "probe-mixed" was never kept). */
static const char *const PROBE[] = {"probe", "probemixed"};
enum { PROBE_VERSION = 1 };

/* K in prec from the run kept beside the entry, else from a run now (kept);
 * 0: none. A run that said nothing (stopped early) is kept too, as an empty
 * record: otherwise every later analysis of the matrix paid for it again. */
static double probe_k(const pipeline_k_query *q, cgm_precision prec) {
  const char *name = PROBE[prec == CGM_PREC_MIXED];
  size_t bytes = 0;
  pipeline_probe h = {0};
  h.r = q->cache ? cgm_cache_extra_load(q->cache, name, PROBE_VERSION, &bytes) : NULL;
  if (h.r && bytes % sizeof *h.r == 0) {
    h.n = h.cap = (int)(bytes / sizeof *h.r);
  } else {
    free(h.r);
    h.r = NULL;
    if (q->budget < 0) return 0;
    pipeline_probe_run(q->A, q->tol, q->budget, prec, &h); /* h.n = 0 where it said nothing */
    cgm_cache_extra_put(q->cache, name, PROBE_VERSION, h.r ? (void *)h.r : (void *)"",
                        (size_t)h.n * sizeof *h.r);
  }
  const double k = pipeline_probe_k(&h, q->tol); /* 0 for an empty record */
  free(h.r);
  return k;
}

double pipeline_iterations(const pipeline_k_query *q, char *src, size_t n, pipeline_ratio *mx) {
  if (mx) *mx = (pipeline_ratio){0};
  snprintf(src, n, "hint");
  if (q->hint > 0) return q->hint;
  cgm_db_matrix m = {0};
  struct stat fs;
  snprintf(m.name, sizeof m.name, "%s", q->path ? pipeline_file_name(q->path) : "");
  m.file_bytes = q->path && stat(q->path, &fs) == 0 ? (int64_t)fs.st_size : 0;
  m.x = q->A->nrows;
  m.nnz = q->A->nnz;
  m.content_id = (int64_t)(q->cache ? q->cache->content_id : 0);
  const pipeline_known known = pipeline_known_iterations(q->db, &m, q->tol);
  snprintf(src, n, "database");
  pipeline_ratio r = {known.mixed_ratio, !(known.mixed_ratio > 0) ? PIPELINE_RATIO_NONE
                                         : known.mixed_alone      ? PIPELINE_RATIO_DERIVED
                                                                  : PIPELINE_RATIO_RECORDED};
  double k = known.k;
  if (!(k > 0) || (mx && r.source != PIPELINE_RATIO_RECORDED)) {
    /* the probe's runs: K, and mixed's run beside double's for this matrix's
     * own ratio where none is recorded (both kept: paid once) */
    const double kp = probe_k(q, CGM_PREC_DOUBLE);
    const double km = kp > 0 && mx ? probe_k(q, CGM_PREC_MIXED) : 0;
    if (km > 0) {
      if (known.mixed_alone)
        k = ceil(k * r.ratio * kp / km); /* recorded mixed's by its own ratio */
      r = (pipeline_ratio){km / kp, PIPELINE_RATIO_PROBED};
    }
    if (!(k > 0)) {
      k = kp;
      snprintf(src, n, kp > 0 ? "probe" : "estimate");
    }
  }
  if (mx && q->explore && r.source == PIPELINE_RATIO_NONE)
    r = (pipeline_ratio){1.0, PIPELINE_RATIO_HOPEFUL}; /* mixed's run, at its most hopeful K */
  if (mx) *mx = r;
  return k;
}
