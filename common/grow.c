/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "common/grow.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void *cgm_grow(void *v, int n, int *cap, size_t elem, int first) {
  if (n < *cap) return v;
  int nc = *cap ? 2 * *cap : first;
  void *nv = realloc(v, elem * (size_t)nc);
  if (nv) *cap = nc;
  return nv;
}

bool cgm_push(void *pv, int *n, int *cap, const void *item, size_t elem, int first) {
  void *v;
  memcpy(&v, pv, sizeof v);
  if (!(v = cgm_grow(v, *n, cap, elem, first))) return false;
  memcpy(pv, &v, sizeof v);
  memcpy((char *)v + elem * (size_t)(*n)++, item, elem);
  return true;
}

void cgm_free_each(void *const *p, size_t n) {
  for (size_t i = 0; i < n; i++) free(p[i]);
}
