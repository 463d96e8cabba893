/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "kernels/stage.h"

#include <stdint.h>
#include <string.h>

/* Pieces of 256 KiB: an 8 MiB staging buffer in 32, for every core of a node (with the solver's
 * three buffers kept, 600 MB went to an H200 at 49 GB/s; bench/upload_bench.c). */
#define PIECE ((size_t)1 << 18)

void cgm_stage_fill(void *dst, const void *src, size_t count, int to_single) {
  if (to_single) {
    float *d = dst;
    const double *s = src;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < (int64_t)count; i++) d[i] = (float)s[i];
    return;
  }
  const int64_t pieces = (int64_t)((count + PIECE - 1) / PIECE);
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < pieces; k++) {
    size_t off = (size_t)k * PIECE, len = count - off < PIECE ? count - off : PIECE;
    memcpy((char *)dst + off, (const char *)src + off, len);
  }
}

void cgm_stage_rows(void *out, size_t first, size_t count, const void *src) {
  const cgm_stage_rows_src *s = src;
  const cgm_csr *A = s->A;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < (int64_t)count; i++) {
    const int64_t r = s->r0 + (int64_t)first + i;
    const double v = r >= s->n ? s->pad : A ? 1.0 / cgm_csr_diagonal_at(A, (int32_t)r) : s->v[r];
    if (s->to_single)
      ((float *)out)[i] = (float)v;
    else
      ((double *)out)[i] = v;
  }
}

int cgm_stage_all_zero(const double *x, int64_t n) {
  int64_t nonzero = 0;
#pragma omp parallel for schedule(static) reduction(+ : nonzero)
  for (int64_t i = 0; i < n; i++) nonzero += x[i] != 0.0;
  return nonzero == 0;
}

void cgm_stage_narrow(int32_t *dst, const int64_t *src, size_t n) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < (int64_t)n; i++) dst[i] = (int32_t)src[i];
}

void cgm_stage_widen(int64_t *dst, const int32_t *src, size_t n) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < (int64_t)n; i++) dst[i] = src[i];
}

void cgm_stage_to_double(double *dst, const float *src, size_t n) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < (int64_t)n; i++) dst[i] = src[i];
}
