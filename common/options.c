/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The vocabulary of a request (cgmodel/options.h): the names of the
 * configuration's choices as every interface spells them, the block
 * sizes, and the one check of a block size. */
#include "cgmodel/options.h"

#include <string.h>

const int cgm_block_sizes[CGM_NBLOCKSIZES] = {1, 2, 4, 8};

static const char *const backend_names[] = {"cpu", "cuda", "cusparse"};
static const char *const precision_names[] = {"double", "single", "mixed"};
static const char *const exchange_names[] = {"nccl", "p2p", "host", "halo"};
static const char *const reorder_names[] = {"auto", "none", "rcm"};
static const char *const precond_names[] = {"jacobi", "block"};
static const char *const cg_names[] = {"cgg", "classic"};

#define COUNT(table) ((int)(sizeof table / sizeof *table))
#define NAME_OF(table, i) ((i) >= 0 && (i) < COUNT(table) ? table[i] : "unknown")

const char *cgm_backend_name(cgm_backend b) {
  return NAME_OF(backend_names, (int)b);
}
const char *cgm_precision_name(cgm_precision p) {
  return NAME_OF(precision_names, (int)p);
}
const char *cgm_exchange_name(cgm_exchange e) {
  return NAME_OF(exchange_names, (int)e);
}
const char *cgm_reorder_name(cgm_reorder r) {
  return NAME_OF(reorder_names, (int)r);
}
const char *cgm_precond_name(cgm_precond p) {
  return NAME_OF(precond_names, (int)p);
}
const char *cgm_cg_variant_name(cgm_cg_variant v) {
  return NAME_OF(cg_names, (int)v);
}

/* The index of s in table, -1 when it is not there. */
static int lookup(const char *s, const char *const *table, int n) {
  for (int i = 0; s && i < n; i++)
    if (strcmp(s, table[i]) == 0) return i;
  return -1;
}

#define PARSE(table, type, s, out)                                                                 \
  do {                                                                                             \
    const int i_ = lookup(s, table, COUNT(table));                                                 \
    if (i_ < 0) return false;                                                                      \
    *(out) = (type)i_;                                                                             \
    return true;                                                                                   \
  } while (0)

bool cgm_backend_parse(const char *s, cgm_backend *b) {
  PARSE(backend_names, cgm_backend, s, b);
}
bool cgm_precision_parse(const char *s, cgm_precision *p) {
  if (s && (strcmp(s, "fp64") == 0 || strcmp(s, "fp32") == 0)) {
    *p = s[2] == '6' ? CGM_PREC_DOUBLE : CGM_PREC_SINGLE;
    return true;
  }
  PARSE(precision_names, cgm_precision, s, p);
}
bool cgm_exchange_parse(const char *s, cgm_exchange *e) {
  PARSE(exchange_names, cgm_exchange, s, e);
}
bool cgm_reorder_parse(const char *s, cgm_reorder *r) {
  PARSE(reorder_names, cgm_reorder, s, r);
}
bool cgm_precond_parse(const char *s, cgm_precond *p) {
  PARSE(precond_names, cgm_precond, s, p);
}
bool cgm_cg_variant_parse(const char *s, cgm_cg_variant *v) {
  PARSE(cg_names, cgm_cg_variant, s, v);
}

int cgm_precision_width(cgm_precision p) {
  return p == CGM_PREC_DOUBLE ? 8 : 4;
}

cgm_precision cgm_precision_iter(cgm_precision p) {
  return p == CGM_PREC_MIXED ? CGM_PREC_SINGLE : p;
}

int cgm_block_index(int n) {
  for (int i = 0; i < CGM_NBLOCKSIZES; i++)
    if (cgm_block_sizes[i] == n) return i;
  return -1;
}

cgm_status cgm_block_check(int n, const char *key, cgm_error *err) {
  if (cgm_block_index(n) >= 0) return CGM_OK;
  return cgm_fail(err, CGM_EINPUT, "%s %d: the block size is 1, 2, 4 or 8", key, n);
}
