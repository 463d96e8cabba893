/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The names of the configuration's choices, as the command line spells them. */
#include "cgmodel/plan.h"

#include <string.h>

static const char *backend_names[] = {"cpu", "cuda", "cusparse"};
static const char *precision_names[] = {"double", "single", "mixed"};
static const char *exchange_names[] = {"nccl", "p2p", "host", "halo"};

#define NAME_OF(table, i)                                                                          \
  ((i) >= 0 && (size_t)(i) < sizeof table / sizeof *table ? table[i] : "unknown")

const char *cgm_backend_name(cgm_backend b) {
  return NAME_OF(backend_names, (int)b);
}
const char *cgm_precision_name(cgm_precision p) {
  return NAME_OF(precision_names, (int)p);
}
const char *cgm_exchange_name(cgm_exchange e) {
  return NAME_OF(exchange_names, (int)e);
}

int cgm_precision_width(cgm_precision p) {
  return p == CGM_PREC_DOUBLE ? 8 : 4;
}

cgm_precision cgm_precision_iter(cgm_precision p) {
  return p == CGM_PREC_MIXED ? CGM_PREC_SINGLE : p;
}

static bool parse(const char *s, const char *const *table, int n, int *out) {
  for (int i = 0; i < n; i++)
    if (s && strcmp(s, table[i]) == 0) {
      *out = i;
      return true;
    }
  return false;
}

bool cgm_backend_parse(const char *s, cgm_backend *b) {
  int i;
  if (!parse(s, backend_names, 3, &i)) return false;
  *b = (cgm_backend)i;
  return true;
}

bool cgm_precision_parse(const char *s, cgm_precision *p) {
  int i;
  if (s && (strcmp(s, "fp64") == 0 || strcmp(s, "fp32") == 0)) {
    *p = s[2] == '6' ? CGM_PREC_DOUBLE : CGM_PREC_SINGLE;
    return true;
  }
  if (!parse(s, precision_names, CGM_NPRECISIONS, &i)) return false;
  *p = (cgm_precision)i;
  return true;
}

bool cgm_exchange_parse(const char *s, cgm_exchange *e) {
  int i;
  if (!parse(s, exchange_names, 4, &i)) return false;
  *e = (cgm_exchange)i;
  return true;
}
