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

/* s's dictionary grown by val[0..nnz) (where dict), in one pass with a part on each thread (49M
 * values in one pass were most of a compact solve's setup on one H200), each with its own
 * dictionary, merged in thread order; a thread stops once neither format can hold its part.
 * Returns whether the dictionary holds them all; *f32: every value a float. */
static bool scan(cgm_value_set *s, const double *val, int64_t nnz, bool dict, int codes,
                 bool *f32) {
  /* the threads start from copies: s and dict change in the ordered merge
   * while a later thread may still be starting */
  const cgm_value_set s0 = *s;
  const bool dict0 = dict;
  bool f = true;
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
      f = f && tf;
      dict = dict && td;
      for (int j = s0.ndict; j < t.ndict && dict; j++) dict = dict_add(s, t.dict[j], codes);
    }
  }
  *f32 = f;
  return dict;
}

/* The padding's 0 alone, the column's bits for nbcols; *codes: the dictionary's room. */
static cgm_value_set start(int32_t nbcols, int *codes) {
  cgm_value_set s = {CGM_VALUES_FULL, true, 1, 0, {0.0}};
  while (s.shift < 31 && ((int64_t)1 << s.shift) < nbcols) s.shift++;
  *codes = s.shift >= 31 - 4 ? 1 << (31 - s.shift) : CGM_DICT_MAX;
  return s;
}

static cgm_value_set settle(cgm_value_set s, bool dict, bool f32, int64_t nnz, int n,
                            cgm_storage storage, cgm_precision prec) {
  s.fmt =
      cgm_values_pick((dict ? CGM_CAN_DICT : 0) | (f32 ? CGM_CAN_F32 : 0), nnz, n, storage, prec);
  s.exact = s.fmt == CGM_VALUES_FULL || dict || f32;
  if (!dict) s.ndict = s.shift = 0;
  return s;
}

cgm_value_set cgm_values_choose(const double *val, int64_t nnz, int n, int32_t nbcols,
                                cgm_storage storage, cgm_precision prec) {
  int codes;
  cgm_value_set s = start(nbcols, &codes);
  if (cgm_values_pick(CGM_CAN_DICT | CGM_CAN_F32, nnz, n, storage, prec) == CGM_VALUES_FULL)
    return settle(s, false, false, nnz, n, storage, prec);
  bool f32;
  const bool dict = scan(&s, val, nnz, n == 1, codes, &f32);
  return settle(s, dict, f32, nnz, n, storage, prec);
}

/* CGM_VALUES_SAMPLE of val[0..nnz) (all where fewer) into v, 32 runs of neighbours evenly spaced:
 * a run spans rows, so a varying diagonal shows even where the runs' spacing is a multiple of the
 * rows' length. Returns their count. */
static int64_t sample(const double *val, int64_t nnz, double *v) {
  const int64_t n = nnz < CGM_VALUES_SAMPLE ? nnz : CGM_VALUES_SAMPLE, runs = n < 32 ? 1 : 32;
  for (int64_t i = 0; i < n; i++) v[i] = val[(i / (n / runs)) * (nnz / runs) + i % (n / runs)];
  return n;
}

bool cgm_values_choose_by(cgm_value_set *out, const double *val, int64_t nnz, int n, int32_t nbcols,
                          cgm_storage storage, cgm_precision prec,
                          int (*pass)(void *ctx, const cgm_value_set *s), void *ctx) {
  int codes;
  cgm_value_set s = start(nbcols, &codes);
  *out = settle(s, false, false, nnz, n, CGM_STORAGE_FULL, prec);
  if (cgm_values_pick(CGM_CAN_DICT | CGM_CAN_F32, nnz, n, storage, prec) == CGM_VALUES_FULL)
    return true;
  double v[CGM_VALUES_SAMPLE];
  bool f32;
  const bool dict = scan(&s, v, sample(val, nnz, v), n == 1, codes, &f32);
  s.fmt = dict ? CGM_VALUES_DICT : CGM_VALUES_FULL;
  const int found = dict || f32 ? pass(ctx, &s) : CGM_VALUES_NOT_F32; /* else the sample says */
  if (found < 0) return false;
  if ((found & CGM_VALUES_OUTSIDE) && dict && s.ndict < codes) /* it may fit one still */
    *out = cgm_values_choose(val, nnz, n, nbcols, storage, prec);
  else
    *out = settle(s, dict && !(found & CGM_VALUES_OUTSIDE), !(found & CGM_VALUES_NOT_F32), nnz, n,
                  storage, prec);
  return true;
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
  double v[CGM_VALUES_SAMPLE];
  return val && nnz > 0 ? cgm_values_class(v, sample(val, nnz, v), ncols) : 0;
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
