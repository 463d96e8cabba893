/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Entries between parsing and CSR (sparse/mm_entries.h). */
#define _POSIX_C_SOURCE 200809L

#include "common/grow.h"
#include "sparse/mm_entries.h"
#include "sparse/mm_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Pages double from 32 entries (a small chunk stays small) to 4096 (64
 * KiB, below malloc's mmap threshold, so a page costs no system call). */
#define PAGE_FIRST 32
#define PAGE_MAX 4096

bool mm_bucket_grow(mm_bucket *b) {
  int32_t cap = b->tail ? 2 * b->tail->cap : PAGE_FIRST;
  if (cap > PAGE_MAX) cap = PAGE_MAX;
  mm_page *pg = malloc(sizeof *pg + (size_t)cap * sizeof(mm_ent));
  if (!pg) return false;
  *pg = (mm_page){.next = NULL, .n = 0, .cap = cap};
  if (b->tail)
    b->tail->next = pg;
  else
    b->head = pg;
  b->tail = pg;
  return true;
}

void mm_bucket_free(mm_bucket *b) {
  for (mm_page *pg = b->head; pg;) {
    mm_page *next = pg->next;
    free(pg);
    pg = next;
  }
  memset(b, 0, sizeof *b);
}

/* Every entry e of bucket b of each chunk, in file order. */
#define FOR_EACH_ENTRY(E, b, e)                                                                    \
  for (int64_t c_ = 0; c_ < (E)->nch; c_++)                                                        \
    for (const mm_page *pg_ = (E)->bk[c_][b].head; pg_; pg_ = pg_->next)                           \
      for (const mm_ent *e = pg_->e; e < pg_->e + pg_->n; e++)

typedef struct {
  int64_t uniq, dups, diag;
  int64_t delta; /* how far the block moves when gaps are closed */
  bool nonfinite, neg;
  int32_t bad_i, bad_j;
} block_result;

/* Block b of rows of the CSR (its entries from base[b] on, rowptr of its
 * rows), and what it found to R. */
static void assemble_block(const mm_entries *E, int b, int32_t nrows, const int64_t *base,
                           cgm_csr *A, block_result *R, mm_row_tmp *tmp) {
  const int shift = E->shift;
  int32_t *const colidx = A->colidx;
  double *const val = A->val;
  int64_t *const rowptr = A->rowptr;
  const int64_t r0 = (int64_t)b << shift;
  const int64_t r1 = r0 + ((int64_t)1 << shift) < nrows ? r0 + ((int64_t)1 << shift) : nrows;
  if (r0 >= r1) return;
  const int64_t nr = r1 - r0;
  /* counting sort by row, the chunks in file order: cnt counts, then holds
   * each row's next free place, and at last its end */
  int64_t *cnt = rowptr + r0;
  const bool mirror = E->mirror;
  FOR_EACH_ENTRY(E, b, e) {
    cnt[e->row - r0]++;
    if (mirror && e->row != e->col) cnt[e->col - r0]++;
  }
  int64_t pos = base[b];
  for (int64_t i = 0; i < nr; i++) {
    int64_t n = cnt[i];
    cnt[i] = pos;
    pos += n;
  }
  FOR_EACH_ENTRY(E, b, e) {
    int64_t p = cnt[e->row - r0]++;
    colidx[p] = e->col;
    val[p] = e->v;
    if (mirror && e->row != e->col) {
      p = cnt[e->col - r0]++;
      colidx[p] = e->row;
      val[p] = e->v;
    }
  }
  /* each row by column, duplicates summed in file order, compacted
   * towards the start of the block */
  int64_t out = base[b], nd = 0, ndiag = 0, end = base[b];
  for (int64_t i = 0; i < nr; i++) {
    const int64_t bi = end, ei = rowptr[r0 + i];
    end = ei;
    rowptr[r0 + i] = out;
    out = mm_csr_sum_row(colidx, val, bi, ei, out, (int32_t)(r0 + i), &nd, &ndiag, tmp);
  }
  R->uniq = out - base[b];
  R->dups = nd;
  R->diag = ndiag;
  /* values of the file are finite; only a sum can be infinite */
  for (int64_t i = 0; nd && i < nr && !R->nonfinite; i++) {
    int64_t e = i + 1 < nr ? rowptr[r0 + i + 1] : out;
    for (int64_t k = rowptr[r0 + i]; k < e; k++)
      if (!isfinite(val[k])) {
        R->nonfinite = true;
        R->neg = val[k] < 0;
        R->bad_i = (int32_t)(r0 + i);
        R->bad_j = colidx[k];
        break;
      }
  }
}

cgm_status mm_assemble_csr(const mm_entries *E, int32_t nrows, int32_t ncols, int threads,
                           cgm_csr *A, mm_csr_stats *st) {
  memset(A, 0, sizeof *A);
  memset(st, 0, sizeof *st);
  const int nb = E->nb, shift = E->shift;
  int64_t *base = malloc(((size_t)nb + 1) * sizeof *base);
  block_result *res = calloc((size_t)nb, sizeof *res);
  int oom = !base || !res;
  for (int b = 0; !oom && b <= nb; b++) {
    base[b] = b ? base[b - 1] : 0;
    for (int64_t c = 0; b && c < E->nch; c++)
      base[b] += E->bk[c][b - 1].n + E->bk[c][b - 1].nmirror;
  }
  const int64_t total = oom ? 0 : base[nb];
  oom = oom || cgm_csr_alloc(A, nrows, ncols, total, NULL) != CGM_OK;
  if (oom) {
    CGM_FREE(base, res);
    return CGM_ERUNTIME;
  }
  int32_t *const colidx = A->colidx;
  double *const val = A->val;
  int64_t *const rowptr = A->rowptr;
#pragma omp parallel num_threads(threads)
  {
    mm_row_tmp tmp = {0};
#pragma omp for schedule(dynamic, 1)
    for (int b = 0; b < nb; b++) assemble_block(E, b, nrows, base, A, &res[b], &tmp);
    CGM_FREE(tmp.c, tmp.v);
  }

  /* Duplicates left gaps between the blocks: close them in block order and
   * shift the row pointers. */
  int64_t nnz = 0;
  for (int b = 0; b < nb; b++) {
    res[b].delta = base[b] - nnz;
    if (res[b].delta && res[b].uniq) {
      memmove(colidx + nnz, colidx + base[b], (size_t)res[b].uniq * sizeof *colidx);
      memmove(val + nnz, val + base[b], (size_t)res[b].uniq * sizeof *val);
    }
    nnz += res[b].uniq;
    st->dups += res[b].dups;
    st->diag_rows += res[b].diag;
    if (res[b].nonfinite && !st->nonfinite) {
      st->nonfinite = true;
      st->bad_neg = res[b].neg;
      st->bad_i = res[b].bad_i;
      st->bad_j = res[b].bad_j;
    }
  }
  if (nnz != total) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int b = 0; b < nb; b++) {
      const int64_t r0 = (int64_t)b << shift;
      const int64_t r1 = r0 + ((int64_t)1 << shift) < nrows ? r0 + ((int64_t)1 << shift) : nrows;
      for (int64_t i = r0; i < r1; i++) rowptr[i] -= res[b].delta;
    }
  }
  rowptr[nrows] = nnz;
  A->nnz = nnz;
  CGM_FREE(base, res);
  return CGM_OK;
}

void mm_assemble_dense(const mm_entries *E, int threads, double *x) {
  const int nb = E->nb;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (int b = 0; b < nb; b++) FOR_EACH_ENTRY(E, b, e) x[e->row] += e->v;
}

void mm_assemble_values(const mm_entries *E, double *x) {
  /* a vector: one pass of copying, not worth the threads */
  int64_t o = 0;
  FOR_EACH_ENTRY(E, 0, e) x[o++] = e->v;
}
