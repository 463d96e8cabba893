/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The sorted path of the Matrix Market reader (sparse/mm_sorted.c): a
 * general coordinate file whose body is one entry a line, row by row and
 * columns increasing, parsed straight into its CSR. Not part of the public
 * API. */
#ifndef CGMODEL_SPARSE_MM_SORTED_H
#define CGMODEL_SPARSE_MM_SORTED_H

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

/* The CSR of the body [s, e) (whole lines, e[-1] == '\n', in src's map,
 * read under its guard) on `threads` threads: 1 when the body is such a
 * file (A filled: columns sorted, no duplicate); 0 when it is not, or when
 * a line is anything the general path would have to judge, or when the
 * text faulted (src->changed) (A empty: read it with the general path,
 * which words any error); -1 out of memory (A empty). */
int mm_sorted_csr(mm_source *src, const char *s, const char *e, const mm_sorted_shape *sh,
                  int threads, cgm_csr *A);

#endif
