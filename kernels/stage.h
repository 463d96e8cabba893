/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Filling an upload's staging buffers on every core (C: built with OpenMP). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "cgmodel/export.h"

CGM_BEGIN_DECLS

/* dst = src: count doubles as floats when to_single, else count bytes. */
void cgm_stage_fill(void *dst, const void *src, size_t count, int to_single);

/* out[i] = src[r0 + i] (1 / src[r0 + i] when invert) where r0 + i < n, else
 * pad, for i < rows: one segment's slice of a vector of n entries. */
void cgm_stage_slice(double *out, const double *src, int64_t r0, int64_t rows, int64_t n,
                     int invert, double pad);

/* dst[i] = src[i] for i < n, 64-bit integers narrowed to 32 (the caller
 * knows they fit), or 32-bit ones widened to 64. */
void cgm_stage_narrow(int32_t *dst, const int64_t *src, size_t n);
void cgm_stage_widen(int64_t *dst, const int32_t *src, size_t n);
/* dst[i] = src[i] for i < n: floats as doubles. */
void cgm_stage_to_double(double *dst, const float *src, size_t n);

CGM_END_DECLS
