/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "common/grow.h"

#include <stdlib.h>

void *cgm_grow(void *v, int n, int *cap, size_t elem, int first) {
  if (n < *cap) return v;
  int nc = *cap ? 2 * *cap : first;
  void *nv = realloc(v, elem * (size_t)nc);
  if (nv) *cap = nc;
  return nv;
}
