/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The entries of a Matrix Market file between parsing and CSR. Each chunk of the text keeps its
 * entries in one bucket per block of 2^shift rows, a list of pages (nothing copied as it grows).
 * The assembly reads a row block's buckets in chunk order, so every row sees its entries, and sums
 * duplicates, in file order: the CSR is bit-identical whatever the parallelism. */
#pragma once

#include "cgmodel/sparse.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct {
  int32_t row, col; /* 0-based */
  double v;
} mm_ent;

typedef struct mm_page {
  struct mm_page *next;
  int32_t n, cap;
  mm_ent e[];
} mm_page;

typedef struct {
  mm_page *head, *tail;
  int64_t n;
  int64_t nmirror; /* entries whose mirror the assembly adds (mm_entries.mirror) */
} mm_bucket;

/* Appends a page to b, twice the last up to a limit. False when out of memory. */
bool mm_bucket_grow(mm_bucket *b);

static inline bool mm_bucket_push(mm_bucket *b, int32_t row, int32_t col, double v) {
  mm_page *pg = b->tail;
  if (!pg || pg->n == pg->cap) {
    if (!mm_bucket_grow(b)) return false;
    pg = b->tail;
  }
  mm_ent *e = &pg->e[pg->n++];
  e->row = row;
  e->col = col;
  e->v = v;
  b->n++;
  return true;
}

void mm_bucket_free(mm_bucket *b);

/* bk[c][b] is bucket b (rows b << shift ..) of chunk c. The parser pushes a
 * symmetric file's mirrors to the bucket of their row, or with one row
 * block the assembly adds them (mirror), which halves the entries kept. */
typedef struct {
  mm_bucket *const *bk;
  int64_t nch;
  int nb, shift;
  bool mirror; /* only with nb == 1: (j,i) added beside every (i,j), i != j */
} mm_entries;

typedef struct {
  int64_t dups;      /* entries added to an earlier one of the same (i,j) */
  int64_t diag_rows; /* rows with a diagonal entry */
  bool nonfinite;    /* duplicates summed to +-Inf: the first such entry in row order */
  int32_t bad_i, bad_j;
  bool bad_neg;
} mm_csr_stats;

/* The CSR of nrows x ncols from E on `threads` threads. CGM_ERUNTIME when
 * out of memory (A empty; the caller writes the message). */
cgm_status mm_assemble_csr(const mm_entries *E, int32_t nrows, int32_t ncols, int threads,
                           cgm_csr *A, mm_csr_stats *st);

/* x[row] += v for every entry, in file order per row (x zeroed). */
void mm_assemble_dense(const mm_entries *E, int threads, double *x);

/* The values of an array file, one bucket per chunk: x[0..total) in order. */
void mm_assemble_values(const mm_entries *E, double *x);
