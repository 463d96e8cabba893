/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The values' storage format of a layout (cgm_value_set): chosen once per
 * solve from A's values, the same on the CPU and the GPU. */
#include "cgmodel/sparse.h"

#include <omp.h>

static int dict_code(const cgm_value_set *s, double v) {
  for (int i = 0; i < s->ndict; i++)
    if (s->dict[i] == v) return i;
  return -1;
}

/* v added to s's dictionary unless there, while it has fewer than `codes`
 * values; false when it is full. */
static bool dict_add(cgm_value_set *s, double v, int codes) {
  if (v != v) return false; /* NaN: no code finds it */
  if (dict_code(s, v) >= 0) return true;
  if (s->ndict >= codes) return false;
  s->dict[s->ndict++] = v;
  return true;
}

cgm_values cgm_values_pick(unsigned cls, int64_t nnz, int n, cgm_storage storage,
                           cgm_precision prec) {
  /* auto: compact only past CGM_COMPACT_MIN_BYTES of full values and columns */
  if (prec != CGM_PREC_DOUBLE || storage == CGM_STORAGE_FULL ||
      (storage == CGM_STORAGE_AUTO && (double)nnz * 12.0 < CGM_COMPACT_MIN_BYTES))
    return CGM_VALUES_FULL;
  if (n == 1 && (cls & CGM_CAN_DICT)) return CGM_VALUES_DICT;
  return (cls & CGM_CAN_F32) || storage == CGM_STORAGE_COMPACT ? CGM_VALUES_F32 : CGM_VALUES_FULL;
}

/* One pass over the values, a part on each thread (49M values in one pass were most of a compact
 * solve's setup on one H200), each with its own dictionary, merged in thread order; a thread stops
 * once neither format can hold its part. */
cgm_value_set cgm_values_choose(const double *val, int64_t nnz, int n, int32_t nbcols,
                                cgm_storage storage, cgm_precision prec) {
  cgm_value_set s = {CGM_VALUES_FULL, true, 1, 0, {0.0}}; /* the padding's 0 */
  if (cgm_values_pick(CGM_CAN_DICT | CGM_CAN_F32, nnz, n, storage, prec) == CGM_VALUES_FULL)
    return s;
  while (s.shift < 31 && ((int64_t)1 << s.shift) < nbcols) s.shift++;
  const int codes = s.shift >= 31 - 4 ? 1 << (31 - s.shift) : CGM_DICT_MAX;
  /* the threads start from copies: s and dict change in the ordered merge
   * while a later thread may still be starting */
  const cgm_value_set s0 = s;
  const bool dict0 = n == 1;
  bool dict = dict0, f32 = true;
#pragma omp parallel
  {
    const int nt = omp_get_num_threads(), id = omp_get_thread_num();
    cgm_value_set t = s0;
    bool td = dict0, tf = true;
    for (int64_t k = nnz * id / nt; k < nnz * (id + 1) / nt && (td || tf); k++) {
      tf = tf && (double)(float)val[k] == val[k];
      td = td && dict_add(&t, val[k], codes);
    }
#pragma omp for ordered schedule(static, 1)
    for (int i = 0; i < nt; i++) /* thread i's iteration */
#pragma omp ordered
    {
      f32 = f32 && tf;
      dict = dict && td;
      for (int j = 1; j < t.ndict && dict; j++) dict = dict_add(&s, t.dict[j], codes);
    }
  }
  s.fmt =
      cgm_values_pick((dict ? CGM_CAN_DICT : 0) | (f32 ? CGM_CAN_F32 : 0), nnz, n, storage, prec);
  s.exact = s.fmt == CGM_VALUES_FULL || dict || f32;
  if (!dict) s.ndict = s.shift = 0;
  return s;
}

unsigned cgm_values_class(const double *val, int64_t nnz, int32_t ncols) {
  if (!val) return 0; /* a pattern alone: full values */
  const cgm_value_set s =
      cgm_values_choose(val, nnz, 1, ncols, CGM_STORAGE_COMPACT, CGM_PREC_DOUBLE);
  bool f32 = s.exact; /* f32: every value a float; a dictionary's own values say */
  for (int j = 1; j < s.ndict; j++) f32 = f32 && (double)(float)s.dict[j] == s.dict[j];
  return (s.fmt == CGM_VALUES_DICT ? CGM_CAN_DICT : 0) | (f32 ? CGM_CAN_F32 : 0);
}

unsigned cgm_values_class_sampled(const double *val, int64_t nnz, int32_t ncols) {
  /* 32 runs of 32 neighbours: a run spans rows, so a varying diagonal shows even where the
   * runs' spacing is a multiple of the rows' length */
  double v[CGM_VALUES_SAMPLE];
  const int64_t n = nnz < CGM_VALUES_SAMPLE ? nnz : CGM_VALUES_SAMPLE, runs = n < 32 ? 1 : 32;
  if (!val || n <= 0) return 0;
  for (int64_t i = 0; i < n; i++) v[i] = val[(i / (n / runs)) * (nnz / runs) + i % (n / runs)];
  return cgm_values_class(v, n, ncols);
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
