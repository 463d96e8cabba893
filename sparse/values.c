/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The values' storage format of a layout (cgm_value_set): chosen once per
 * solve from A's values, the same on the CPU and the GPU. */
#include "cgmodel/sparse.h"
#include "common/par.h"

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
  /* compact rounds to floats where they stay near (a value past float's range: full) */
  return (cls & CGM_CAN_F32) || (storage == CGM_STORAGE_COMPACT && (cls & CGM_CAN_F32_NEAR))
             ? CGM_VALUES_F32
             : CGM_VALUES_FULL;
}

/* The padding's 0 alone, the column's bits for nbcols; *codes: the dictionary's room. */
static cgm_value_set start(int32_t nbcols, int *codes) {
  cgm_value_set s = {CGM_VALUES_FULL, true, 1, 0, {0.0}};
  while (s.shift < 31 && ((int64_t)1 << s.shift) < nbcols) s.shift++;
  *codes = s.shift >= 31 - 4 ? 1 << (31 - s.shift) : CGM_DICT_MAX;
  return s;
}

static cgm_value_set settle(cgm_value_set s, bool dict, bool f32, bool near, int64_t nnz, int n,
                            cgm_storage storage, cgm_precision prec) {
  s.fmt = cgm_values_pick((dict ? CGM_CAN_DICT : 0) | (f32 ? CGM_CAN_F32 : 0) |
                              (near ? CGM_CAN_F32_NEAR : 0),
                          nnz, n, storage, prec);
  s.exact = s.fmt == CGM_VALUES_FULL || dict || f32;
  if (!dict) s.ndict = s.shift = 0;
  return s;
}

/* CGM_VALUES_SAMPLE of val[0..nnz) (all where fewer) into v, 32 runs of neighbours evenly spaced:
 * a run spans rows, so a varying diagonal shows even where the runs' spacing is a multiple of the
 * rows' length. Returns their count. */
static int64_t sample(const double *val, int64_t nnz, double *v) {
  const int64_t n = nnz < CGM_VALUES_SAMPLE ? nnz : CGM_VALUES_SAMPLE, runs = n < 32 ? 1 : 32;
  for (int64_t i = 0; i < n; i++) v[i] = val[(i / (n / runs)) * (nnz / runs) + i % (n / runs)];
  return n;
}

/* The host's pass (cgm_values_choose_by's) on every core. */
typedef struct {
  const double *val;
  int64_t nnz;
} host_values;
static int host_pass(void *ctx, const cgm_value_set *s, double *outside) {
  const host_values *h = ctx;
  int found = 0;
#pragma omp parallel for schedule(static) reduction(| : found) if (h->nnz >= CGM_PAR_MIN_NNZ)
  for (int64_t k = 0; k < h->nnz; k++) {
    const double v = h->val[k];
    if (s->fmt == CGM_VALUES_DICT && !(found & CGM_VALUES_OUTSIDE) && dict_code(s, v) < 0) {
#pragma omp critical
      *outside = v;
      found |= CGM_VALUES_OUTSIDE;
    }
    found |= (double)(float)v == v ? 0 : CGM_VALUES_NOT_F32;
    found |= CGM_FLOAT_NEAR(v) ? 0 : CGM_VALUES_FAR;
  }
  return found;
}

cgm_value_set cgm_values_choose(const double *val, int64_t nnz, int n, int32_t nbcols,
                                cgm_storage storage, cgm_precision prec) {
  host_values h = {val, nnz};
  cgm_value_set s;
  cgm_values_choose_by(&s, val, nnz, n, nbcols, storage, prec, host_pass, &h);
  return s;
}

/* The sample's dictionary first (a stencil's every value), then a pass over them all, and again
 * with each value a pass finds outside it until none is or the dictionary is full: a pass or two
 * where a dictionary holds, none where the sample rules out both formats (49M values in one pass
 * on one core were most of a compact solve's setup on one H200). */
bool cgm_values_choose_by(cgm_value_set *out, const double *val, int64_t nnz, int n, int32_t nbcols,
                          cgm_storage storage, cgm_precision prec,
                          int (*pass)(void *ctx, const cgm_value_set *s, double *outside),
                          void *ctx) {
  int codes;
  cgm_value_set s = start(nbcols, &codes);
  *out = settle(s, false, false, false, nnz, n, CGM_STORAGE_FULL, prec);
  if (cgm_values_pick(CGM_CAN_DICT | CGM_CAN_F32, nnz, n, storage, prec) == CGM_VALUES_FULL)
    return true;
  double v[CGM_VALUES_SAMPLE], w = 0.0;
  const int64_t m = sample(val, nnz, v);
  bool dict = n == 1, f32 = true;
  for (int64_t k = 0; k < m; k++) {
    f32 = f32 && (double)(float)v[k] == v[k];
    dict = dict && dict_add(&s, v[k], codes);
  }
  /* the sample's answer where it rules out both, unless compact needs the range */
  int found = CGM_VALUES_NOT_F32 | CGM_VALUES_FAR;
  for (bool passed = false; dict || f32 || (!passed && storage == CGM_STORAGE_COMPACT);
       passed = true) {
    s.fmt = dict ? CGM_VALUES_DICT : CGM_VALUES_FULL;
    if ((found = pass(ctx, &s, &w)) < 0) return false;
    if (!(found & CGM_VALUES_OUTSIDE) || !(dict = dict && dict_add(&s, w, codes))) break;
  }
  *out = settle(s, dict && !(found & CGM_VALUES_OUTSIDE), !(found & CGM_VALUES_NOT_F32),
                !(found & CGM_VALUES_FAR), nnz, n, storage, prec);
  return true;
}

unsigned cgm_values_class(const double *val, int64_t nnz, int32_t ncols) {
  if (!val) return 0; /* a pattern alone: full values */
  const cgm_value_set s =
      cgm_values_choose(val, nnz, 1, ncols, CGM_STORAGE_COMPACT, CGM_PREC_DOUBLE);
  /* f32: every value a float, a dictionary's own values say (compact's full: one that is not) */
  bool f32 = s.exact && s.fmt != CGM_VALUES_FULL;
  bool near = s.fmt != CGM_VALUES_FULL; /* compact's full: a value past float's range */
  for (int j = 1; j < s.ndict; j++)
    f32 = f32 && (double)(float)s.dict[j] == s.dict[j], near = near && CGM_FLOAT_NEAR(s.dict[j]);
  return (s.fmt == CGM_VALUES_DICT ? CGM_CAN_DICT : 0) | (f32 ? CGM_CAN_F32 : 0) |
         (near ? CGM_CAN_F32_NEAR : 0);
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
