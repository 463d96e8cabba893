/* SPDX-License-Identifier: GPL-3.0-or-later */
/* CSR storage, the reference SpMV and the COO -> CSR conversion every reader
 * and generator goes through. */
#include "cgmodel/sparse.h"
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
  free(A->rowptr);
  free(A->colidx);
  free(A->val);
  memset(A, 0, sizeof *A);
}

void cgm_csr_spmv(const cgm_csr *A, const double *x, double *y) {
#pragma omp parallel for schedule(static)
  for (int32_t i = 0; i < A->nrows; i++) {
    double s = 0.0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) s += A->val[k] * x[A->colidx[k]];
    y[i] = s;
  }
}

void cgm_csr_diagonal(const cgm_csr *A, double *d) {
#pragma omp parallel for schedule(static)
  for (int32_t i = 0; i < A->nrows; i++) {
    d[i] = 0.0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (A->colidx[k] == i) d[i] = A->val[k];
  }
}

/* Binary search for column j in row i; -1 when absent. */
static int64_t find_entry(const cgm_csr *A, int32_t i, int32_t j) {
  int64_t lo = A->rowptr[i], hi = A->rowptr[i + 1] - 1;
  while (lo <= hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (A->colidx[mid] == j) return mid;
    if (A->colidx[mid] < j)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
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

/* A == A^T. pattern: entry for entry (a stored zero needs its mirror);
 * else as matrices, a missing entry being 0 (an explicit zero with no
 * mirror is symmetric, as SciPy's A != A.T sees it). Each entry above the
 * diagonal looks for its mirror below, equal, or (by value) its own zero;
 * then the entries below are all mirrors when as many of them (nonzero ones,
 * by value) lie below as were found: entries are distinct (checked: columns
 * rise strictly in a row). Half the searches of checking every entry. */
static bool symmetric(const cgm_csr *A, bool pattern) {
  if (A->nrows != A->ncols) return false;
  int bad = 0;
  int64_t found = 0, below = 0;
#pragma omp parallel for schedule(dynamic, 1024) reduction(| : bad) reduction(+ : found, below)
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

typedef struct {
  int32_t col;
  double val;
  int64_t pos; /* input position: ties keep it, so duplicates sum in file order */
} entry;

/* By column, then input position: a stable order whatever the C library's
 * qsort does, so duplicates of (i,j) and (j,i) of a symmetric file sum in
 * the same order and the matrix stays exactly symmetric. */
static int cmp_entry(const void *a, const void *b) {
  const entry *p = a, *q = b;
  if (p->col != q->col) return (p->col > q->col) - (p->col < q->col);
  return (p->pos > q->pos) - (p->pos < q->pos);
}

/* Sorts one row by column, stably. Rows from files and generators are nearly
 * always in order already; short rows use insertion sort, long unsorted ones
 * qsort with the input position as tie-break. */
static void sort_row(int32_t *col, double *val, int64_t len) {
  int64_t k = 1;
  while (k < len && col[k - 1] <= col[k]) k++;
  if (k >= len) return;
  if (len > 32) {
    entry *tmp = malloc((size_t)len * sizeof *tmp);
    if (tmp) {
      for (int64_t m = 0; m < len; m++) tmp[m] = (entry){col[m], val[m], m};
      qsort(tmp, (size_t)len, sizeof *tmp, cmp_entry);
      for (int64_t m = 0; m < len; m++) col[m] = tmp[m].col, val[m] = tmp[m].val;
      free(tmp);
      return;
    }
  }
  for (; k < len; k++) {
    int32_t c = col[k];
    double x = val[k];
    int64_t m = k - 1;
    while (m >= 0 && col[m] > c) {
      col[m + 1] = col[m];
      val[m + 1] = val[m];
      m--;
    }
    col[m + 1] = c;
    val[m + 1] = x;
  }
}

cgm_status cgm_csr_from_coo(int32_t nrows, int32_t ncols, int64_t n, const int32_t *ri,
                            const int32_t *ci, const double *v, cgm_csr *A, int64_t *ndup,
                            cgm_error *err) {
  cgm_status st = cgm_csr_alloc(A, nrows, ncols, n, err);
  if (st) return st;
  /* Counting sort by row keeps the input order within a row; files and
   * generators usually emit columns in order, so the insertion sort below
   * mostly has nothing to do. */
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

  int64_t dup = 0, out = 0;
  for (int32_t i = 0; i < nrows; i++) {
    int64_t b = A->rowptr[i], e = A->rowptr[i + 1];
    sort_row(A->colidx + b, A->val + b, e - b);
    A->rowptr[i] = out; /* compact in place, summing repeated columns */
    for (int64_t k = b; k < e; k++) {
      if (out > A->rowptr[i] && A->colidx[out - 1] == A->colidx[k]) {
        A->val[out - 1] += A->val[k];
        dup++;
      } else {
        A->colidx[out] = A->colidx[k];
        A->val[out] = A->val[k];
        out++;
      }
    }
  }
  A->rowptr[nrows] = out;
  A->nnz = out;
  if (ndup) *ndup = dup;
  return CGM_OK;
}
