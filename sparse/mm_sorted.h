/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The sorted path of the Matrix Market reader (sparse/mm_sorted.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "cgmodel/sparse.h"
#include "sparse/mm_source.h"

/* What the header declared. */
typedef struct {
  int64_t rows, cols, entries;
  bool values;  /* real or integer: a value on every line (else pattern: 1.0) */
  bool integer; /* values without a fraction */
} mm_sorted_shape;

/* The CSR of the body [s, e) (whole lines in src's map) on `threads` threads: 1 when the body is
 * such a file; 0 when it is not, when a line is anything the general path would have to judge, or
 * when the text faulted (A empty: the general path words any error); -1 out of memory. */
int mm_sorted_csr(mm_source *src, const char *s, const char *e, const mm_sorted_shape *sh,
                  int threads, cgm_csr *A);
