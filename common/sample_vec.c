/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A growing array of samples (cgmodel/sample.h). */

#include "cgmodel/sample.h"
#include "common/grow.h"

int cgm_sample_vec_push(void *vec, const cgm_sample *s) {
  cgm_sample_vec *sv = vec;
  return !cgm_push(&sv->v, &sv->n, &sv->cap, s, sizeof *s, 1024);
}
