/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What an analysis keeps beside the matrix's cache entry: its features (every block size's pattern,
 * seconds at 49M entries) and the verdict of its checks (steps.h). */
#define _POSIX_C_SOURCE 200809L

#include "pipeline/steps.h"

/* The features of A beside its cache entry: a warm solve or prediction walks no block size's
 * pattern again (seconds at 49M entries); computed ones are kept once the entry is written. */
static const char FEATURES[] = "features";

/* An entry whose matrix passed cgm_solve's checks (a solve ran, not refused; a prediction's
 * cgm_solve_check_matrix passed) carries CHECKED: a warm solve of it skips the finite, symmetric
 * and diagonal checks (0.1-0.2 s at 49M entries; cgm_solve_opts.matrix_checked). */
static const char CHECKED[] = "checked";

enum { CHECKED_VERSION = 1 };

bool pipeline_checked(const cgm_cache_report *c) {
  unsigned char ok = 0;
  return cgm_cache_extra_get(c, CHECKED, CHECKED_VERSION, &ok, 1) && ok == 1;
}

/* The block sizes whose features f holds (bit i: cgm_block_sizes[i]). */
static unsigned features_blocks(const cgm_features *f) {
  unsigned m = 0;
  for (int b = 0; b < CGM_NBLOCKSIZES; b++)
    if (f->block[b].n == cgm_block_sizes[b]) m |= 1u << b;
  return m;
}

cgm_status pipeline_features(const cgm_csr *A, unsigned need, const cgm_cache_report *c,
                             cgm_features *f, bool *cached, bool *computed, cgm_error *err) {
  *computed = false;
  cgm_features have;
  unsigned got = 0;
  if (cgm_cache_extra_get(c, FEATURES, CGM_PLAN_FEATURES_VERSION, &have, sizeof have) &&
      have.x == A->nrows && have.nnz == A->nnz)
    got = features_blocks(&have);
  if (got && !(need & ~got)) {
    *f = have;
    *cached = true;
    return CGM_OK;
  }
  cgm_status st = cgm_plan_features_blocks(A, need & ~got, f, err);
  if (st) return st;
  for (int b = 0; b < CGM_NBLOCKSIZES; b++) /* and those the entry kept */
    if (got & (1u << b)) f->block[b] = have.block[b];
  *computed = true;
  return CGM_OK;
}

void pipeline_keep_extras(const cgm_cache_report *c, const cgm_features *f, bool features_new,
                          bool checked) {
  if (features_new) cgm_cache_extra_put(c, FEATURES, CGM_PLAN_FEATURES_VERSION, f, sizeof *f);
  const unsigned char ok = 1;
  if (checked) cgm_cache_extra_put(c, CHECKED, CHECKED_VERSION, &ok, 1);
}
