/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Filling an upload's staging buffers on every core (C: built with OpenMP). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "cgmodel/export.h"
#include "cgmodel/sparse.h"

CGM_BEGIN_DECLS

/* dst = src: count doubles as floats when to_single, else count bytes. */
void cgm_stage_fill(void *dst, const void *src, size_t count, int to_single);

/* Rows r0 + first .. of a vector of n entries, count of them, into out:
 * v's (1 / A's diagonal where v is NULL), pad past n; floats when to_single.
 * One fill of a staged upload (cgm_cuda_upload_rows), no copy of the vector. */
typedef struct cgm_stage_rows_src {
  const double *v;
  const cgm_csr *A;
  int64_t r0, n;
  double pad;
  int to_single;
} cgm_stage_rows_src;
void cgm_stage_rows(void *out, size_t first, size_t count, const void *src);
/* Whether x[0..n) is all zeros (x0 = 0 needs no upload). */
int cgm_stage_all_zero(const double *x, int64_t n);

/* dst[i] = src[i] for i < n, 64-bit integers narrowed to 32 (the caller
 * knows they fit), or 32-bit ones widened to 64. */
void cgm_stage_narrow(int32_t *dst, const int64_t *src, size_t n);
void cgm_stage_widen(int64_t *dst, const int32_t *src, size_t n);
/* dst[i] = src[i] for i < n: floats as doubles. */
void cgm_stage_to_double(double *dst, const float *src, size_t n);

CGM_END_DECLS
