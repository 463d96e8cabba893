/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Internals shared by the Matrix Market reader and writer and their tests. */
#pragma once

#include "cgmodel/sparse.h"
#include "sparse/mm_number.h"

/* Tests only: called by the reader after a file's header, with its path
 * (a test truncates or rewrites the file there, to see the reader notice). */
extern void (*mm_test_after_header)(const char *path);

/* A equals its transpose entry for entry, the pattern included (a stored
 * zero needs its mirror): what a symmetric file written from A keeps.
 * cgm_csr_is_symmetric compares values only. sparse/csr.c */
bool mm_csr_symmetric_pattern(const cgm_csr *A);

/* Stable insertion sort of (c, v)[0, n) by c; [0, from) is already sorted. sparse/csr.c */
void mm_sort_pairs(int32_t *c, double *v, int64_t from, int64_t n);

/* Scratch of mm_csr_sum_row, kept across rows: {0} at first, c and v freed by the caller. */
typedef struct {
  int32_t *c;
  double *v;
  int64_t cap;
} mm_row_tmp;

/* Sorts row [bi, ei) of (colidx, val) by column, stably, so that duplicates sum in input order (a
 * symmetric file's (i,j) and (j,i) alike), and moves it to `out` on, duplicates summed; returns its
 * new end. Adds the duplicates to *ndup and a diagonal entry to *ndiag. sparse/csr.c */
int64_t mm_csr_sum_row(int32_t *colidx, double *val, int64_t bi, int64_t ei, int64_t out,
                       int32_t row, int64_t *ndup, int64_t *ndiag, mm_row_tmp *t);
