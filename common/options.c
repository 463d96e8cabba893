/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The vocabulary of a request (cgmodel/options.h): the names of the configuration's choices as
 * every interface spells them, the block sizes, and the one check of a block size. */
#include <string.h>

#include "cgmodel/options.h"
#include "common/parse.h"

const int cgm_block_sizes[CGM_NBLOCKSIZES] = {1, 2, 4, 8};

static const char *const backend_names[] = {"cpu", "cuda", "cusparse"};
static const char *const precision_names[] = {"double", "single", "mixed"};
static const char *const exchange_names[] = {"nccl", "p2p", "host", "halo"};
static const char *const reorder_names[] = {"auto", "none", "rcm"};
static const char *const precond_names[] = {"jacobi", "block"};
static const char *const cg_names[] = {"cgg", "classic"};
static const char *const storage_names[] = {"auto", "full", "compact"};

CGM_NAMES(backend, cgm_backend, backend_names, bool cgm_backend_parse)
CGM_NAMES(precision, cgm_precision, precision_names,
          static bool parse_precision) /* and fp64, fp32 below */
CGM_NAMES(exchange, cgm_exchange, exchange_names, bool cgm_exchange_parse)
CGM_NAMES(reorder, cgm_reorder, reorder_names, bool cgm_reorder_parse)
CGM_NAMES(precond, cgm_precond, precond_names, bool cgm_precond_parse)
CGM_NAMES(cg_variant, cgm_cg_variant, cg_names, bool cgm_cg_variant_parse)
CGM_NAMES(storage, cgm_storage, storage_names, bool cgm_storage_parse)

bool cgm_precision_parse(const char *s, cgm_precision *p) {
  if (s && (strcmp(s, "fp64") == 0 || strcmp(s, "fp32") == 0)) {
    *p = s[2] == '6' ? CGM_PREC_DOUBLE : CGM_PREC_SINGLE;
    return true;
  }
  return parse_precision(s, p);
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
