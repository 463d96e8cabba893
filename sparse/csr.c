/* SPDX-License-Identifier: GPL-3.0-or-later */
/* CSR storage, the reference SpMV and the COO -> CSR conversion every reader
 * and generator goes through. */
#include "cgmodel/sparse.h"
#include "common/grow.h"
#include "common/par.h"
#include "common/timer.h"
#include "sparse/mm_internal.h"

#include <stdlib.h>
#include <string.h>

cgm_status cgm_csr_alloc(cgm_csr *A, int32_t nrows, int32_t ncols, int64_t nnz, cgm_error *err) {
  memset(A, 0, sizeof *A);
  if (nrows < 0 || ncols < 0 || nnz < 0)
    return cgm_fail(err, CGM_EINPUT, "negative matrix size %d x %d, %lld nonzeros", nrows, ncols,
                    (long long)nnz);
  A->nrows = nrows;
  A->ncols = ncols;
  A->nnz = nnz;
  A->rowptr = calloc((size_t)nrows + 1, sizeof *A->rowptr);
  A->colidx = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *A->colidx);
  A->val = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof *A->val);
  if (!A->rowptr || !A->colidx || !A->val) {
    cgm_csr_free(A);
    return cgm_fail(err, CGM_ERUNTIME, "out of memory for a %d x %d matrix with %lld nonzeros",
                    nrows, ncols, (long long)nnz);
  }
  return CGM_OK;
}

void cgm_csr_free(cgm_csr *A) {
  if (!A) return;
  CGM_FREE(A->rowptr, A->colidx, A->val);
  memset(A, 0, sizeof *A);
}

void cgm_csr_spmv(const cgm_csr *A, const double *x, double *y) {
#pragma omp parallel for schedule(static) if (A->nnz >= CGM_PAR_MIN_NNZ)
  for (int32_t i = 0; i < A->nrows; i++) {
    double s = 0.0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) s += A->val[k] * x[A->colidx[k]];
    y[i] = s;
  }
}

void cgm_csr_diagonal(const cgm_csr *A, double *d) {
#pragma omp parallel for schedule(static) if (A->nnz >= CGM_PAR_MIN_NNZ)
  for (int32_t i = 0; i < A->nrows; i++) d[i] = cgm_csr_diagonal_at(A, i);
}

/* Binary search for column j in row i; -1 when absent. */
static int64_t find_entry(const cgm_csr *A, int32_t i, int32_t j) {
  const int32_t *c = A->colidx + A->rowptr[i];
  const int32_t *p =
      bsearch(&j, c, (size_t)(A->rowptr[i + 1] - A->rowptr[i]), sizeof j, cgm_cmp_i32);
  return p ? p - A->colidx : -1;
}

cgm_status cgm_csr_check(const cgm_csr *A, cgm_error *err) {
  if (A->nrows < 0 || A->ncols < 0 || A->nnz < 0)
    return cgm_fail(err, CGM_EINPUT, "CSR of %d x %d with %lld nonzeros: negative size", A->nrows,
                    A->ncols, (long long)A->nnz);
  if (!A->rowptr || (A->nnz > 0 && (!A->colidx || !A->val)))
    return cgm_fail(err, CGM_EINPUT, "CSR without its arrays");
  if (A->rowptr[0] != 0)
    return cgm_fail(err, CGM_EINPUT, "CSR row pointer starts at %lld, not 0",
                    (long long)A->rowptr[0]);
  if (A->rowptr[A->nrows] != A->nnz)
    return cgm_fail(err, CGM_EINPUT, "CSR row pointer ends at %lld, not at the %lld nonzeros",
                    (long long)A->rowptr[A->nrows], (long long)A->nnz);
  for (int32_t i = 0; i < A->nrows; i++) {
    if (A->rowptr[i + 1] < A->rowptr[i])
      return cgm_fail(err, CGM_EINPUT, "CSR row %d: the row pointer decreases", i);
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      if (A->colidx[k] < 0 || A->colidx[k] >= A->ncols)
        return cgm_fail(err, CGM_EINPUT, "CSR row %d: column %d out of range 0..%d", i,
                        A->colidx[k], A->ncols - 1);
      if (k > A->rowptr[i] && A->colidx[k] <= A->colidx[k - 1])
        return cgm_fail(err, CGM_EINPUT, "CSR row %d: columns not sorted and unique (%d after %d)",
                        i, A->colidx[k], A->colidx[k - 1]);
    }
  }
  return CGM_OK;
}

/* A == A^T, entry for entry when pattern (a stored zero needs its mirror), else by value. Each
 * entry above the diagonal looks for its mirror, equal (or, by value, its own zero); the entries
 * below are then all mirrors when as many (nonzero, by value) lie below as were found, entries
 * being distinct (checked): half the searches of checking every entry. */
static bool symmetric(const cgm_csr *A, bool pattern) {
  if (A->nrows != A->ncols) return false;
  int bad = 0;
  int64_t found = 0, below = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(| : bad) reduction(+ : found, below) if (A->nnz >= CGM_PAR_MIN_NNZ)
  for (int32_t i = 0; i < A->nrows; i++) {
    if (bad) continue;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      int32_t j = A->colidx[k];
      if (k > A->rowptr[i] && j <= A->colidx[k - 1]) { /* a repeated entry */
        bad = 1;
        break;
      }
      const bool counts = pattern || A->val[k] != 0.0;
      if (j < i) below += counts;
      if (j <= i) continue;
      int64_t m = find_entry(A, j, i);
      if (m < 0 ? counts : A->val[m] != A->val[k]) {
        bad = 1;
        break;
      }
      found += m >= 0 && counts;
    }
  }
  return !bad && found == below;
}

bool cgm_csr_is_symmetric(const cgm_csr *A) {
  return symmetric(A, false);
}

bool mm_csr_symmetric_pattern(const cgm_csr *A) {
  return symmetric(A, true);
}

static bool tmp_reserve(mm_row_tmp *t, int64_t n) {
  if (n <= t->cap) return true;
  int32_t *c = realloc(t->c, (size_t)n * sizeof *c);
  if (c) t->c = c;
  double *v = realloc(t->v, (size_t)n * sizeof *v);
  if (v) t->v = v;
  if (!c || !v) return false;
  t->cap = n;
  return true;
}

void mm_sort_pairs(int32_t *c, double *v, int64_t from, int64_t n) {
  for (int64_t k = from; k < n; k++) {
    int32_t x = c[k];
    double y = v[k];
    int64_t m = k - 1;
    while (m >= 0 && c[m] > x) {
      c[m + 1] = c[m];
      v[m + 1] = v[m];
      m--;
    }
    c[m + 1] = x;
    v[m + 1] = y;
  }
}

/* Stable bottom-up merge sort of (c, v)[0, n) by c, with scratch tc, tv. */
static void merge_sort(int32_t *c, double *v, int64_t n, int32_t *tc, double *tv) {
  const int64_t run = 16;
  for (int64_t s = 0; s < n; s += run) mm_sort_pairs(c + s, v + s, 1, n - s < run ? n - s : run);
  int32_t *sc = c, *dc = tc;
  double *sv = v, *dv = tv;
  for (int64_t w = run; w < n; w *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * w) {
      int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      int64_t i = lo, j = mid, o = lo;
      while (i < mid && j < hi) {
        if (sc[j] < sc[i]) { /* the left one first when equal: stable */
          dc[o] = sc[j];
          dv[o++] = sv[j++];
        } else {
          dc[o] = sc[i];
          dv[o++] = sv[i++];
        }
      }
      for (; i < mid; i++, o++) dc[o] = sc[i], dv[o] = sv[i];
      for (; j < hi; j++, o++) dc[o] = sc[j], dv[o] = sv[j];
    }
    int32_t *t1 = sc;
    sc = dc;
    dc = t1;
    double *t2 = sv;
    sv = dv;
    dv = t2;
  }
  if (sc != c) {
    memcpy(c, sc, (size_t)n * sizeof *c);
    memcpy(v, sv, (size_t)n * sizeof *v);
  }
}

int64_t mm_csr_sum_row(int32_t *colidx, double *val, int64_t bi, int64_t ei, int64_t out,
                       int32_t row, int64_t *ndup, int64_t *ndiag, mm_row_tmp *t) {
  int64_t k = bi + 1;
  while (k < ei && colidx[k - 1] <= colidx[k]) k++;
  if (k < ei && ei - bi > 32 && tmp_reserve(t, ei - bi))
    merge_sort(colidx + bi, val + bi, ei - bi, t->c, t->v);
  else if (k < ei) /* also when out of memory: slower, same result */
    mm_sort_pairs(colidx + bi, val + bi, k - bi, ei - bi);
  /* the usual row: no duplicate, and nothing to move */
  bool diag = bi < ei && colidx[bi] == row;
  for (k = bi + 1; k < ei && colidx[k] != colidx[k - 1]; k++) diag |= colidx[k] == row;
  if (k >= ei) {
    if (out != bi) {
      memmove(colidx + out, colidx + bi, (size_t)(ei - bi) * sizeof *colidx);
      memmove(val + out, val + bi, (size_t)(ei - bi) * sizeof *val);
    }
    *ndiag += diag;
    return out + (ei - bi);
  }
  const int64_t rs = out;
  for (k = bi; k < ei; k++) {
    if (out > rs && colidx[out - 1] == colidx[k]) {
      val[out - 1] += val[k];
      (*ndup)++;
    } else {
      colidx[out] = colidx[k];
      val[out] = val[k];
      *ndiag += colidx[out] == row;
      out++;
    }
  }
  return out;
}

cgm_status cgm_csr_from_coo(int32_t nrows, int32_t ncols, int64_t n, const int32_t *ri,
                            const int32_t *ci, const double *v, cgm_csr *A, int64_t *ndup,
                            cgm_error *err) {
  cgm_status st = cgm_csr_alloc(A, nrows, ncols, n, err);
  if (st) return st;
  /* Counting sort by row keeps the input order within a row. */
  for (int64_t k = 0; k < n; k++) A->rowptr[ri[k] + 1]++;
  for (int32_t i = 0; i < nrows; i++) A->rowptr[i + 1] += A->rowptr[i];
  int64_t *next = malloc(((size_t)nrows + 1) * sizeof *next);
  if (!next) {
    cgm_csr_free(A);
    return cgm_fail(err, CGM_ERUNTIME, "out of memory converting %lld entries", (long long)n);
  }
  memcpy(next, A->rowptr, ((size_t)nrows + 1) * sizeof *next);
  for (int64_t k = 0; k < n; k++) {
    int64_t p = next[ri[k]]++;
    A->colidx[p] = ci[k];
    A->val[p] = v ? v[k] : 1.0;
  }
  free(next);

  int64_t dup = 0, diag = 0, out = 0;
  mm_row_tmp tmp = {0};
  for (int32_t i = 0; i < nrows; i++) {
    const int64_t b = A->rowptr[i], e = A->rowptr[i + 1];
    A->rowptr[i] = out;
    out = mm_csr_sum_row(A->colidx, A->val, b, e, out, i, &dup, &diag, &tmp);
  }
  CGM_FREE(tmp.c, tmp.v);
  A->rowptr[nrows] = out;
  A->nnz = out;
  if (ndup) *ndup = dup;
  return CGM_OK;
}
