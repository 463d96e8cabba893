/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The values' storage format of a layout (cgm_value_set): chosen once per
 * solve from A's values, the same on the CPU and the GPU. */
#include "cgmodel/sparse.h"

static int dict_code(const cgm_value_set *s, double v) {
  for (int i = 0; i < s->ndict; i++)
    if (s->dict[i] == v) return i;
  return -1;
}

cgm_value_set cgm_values_choose(const double *val, int64_t nnz, int n, int32_t nbcols,
                                cgm_storage storage, cgm_precision prec) {
  cgm_value_set s = {CGM_VALUES_FULL, true, 1, 0, {0.0}}; /* the padding's 0 */
  if (prec != CGM_PREC_DOUBLE || storage == CGM_STORAGE_FULL) return s;
  while (s.shift < 31 && ((int64_t)1 << s.shift) < nbcols) s.shift++;
  const int codes = s.shift >= 31 - 4 ? 1 << (31 - s.shift) : CGM_DICT_MAX;
  bool dict = n == 1, f32 = true;
  for (int64_t k = 0; k < nnz && (dict || f32); k++) {
    const double v = val[k];
    f32 = f32 && (double)(float)v == v;
    if (dict && dict_code(&s, v) < 0) {
      dict = s.ndict < codes;
      if (dict) s.dict[s.ndict++] = v;
    }
  }
  s.fmt = dict                                      ? CGM_VALUES_DICT
          : (f32 || storage == CGM_STORAGE_COMPACT) ? CGM_VALUES_F32
                                                    : CGM_VALUES_FULL;
  s.exact = s.fmt == CGM_VALUES_FULL || dict || f32;
  if (!dict) s.ndict = s.shift = 0;
  return s;
}

void cgm_values_encode(const cgm_bcsr *B, const cgm_value_set *s, int32_t *ccol) {
#pragma omp parallel for schedule(static)
  for (int64_t q = 0; q < B->nblocks_padded; q++)
    ccol[q] = B->bcol[q] | (int32_t)((uint32_t)dict_code(s, B->val[q]) << s->shift);
}

int cgm_values_block_bytes(cgm_values fmt, int n, cgm_precision prec) {
  return fmt == CGM_VALUES_DICT ? 0
                                : n * n * (fmt == CGM_VALUES_F32 ? 4 : cgm_precision_width(prec));
}

const char *cgm_values_name(cgm_values fmt) {
  return fmt == CGM_VALUES_DICT ? "dict" : fmt == CGM_VALUES_F32 ? "f32" : "full";
}
