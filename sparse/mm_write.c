/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Matrix Market writer (docs/matrix-market.md): values in the shortest form that reads back to the
 * same double (cgm_mm_format_double), through a 1 MiB buffer into a temporary file renamed over the
 * target once every write and the close succeeded (common/outfile.h). */
#define _POSIX_C_SOURCE 200809L

#include "cgmodel/sparse.h"
#include "sparse/mm_internal.h"

#include "common/outfile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WBUF_SIZE ((size_t)1 << 20)
#define WBUF_LINE 96 /* longest line written: "2147483647 2147483647 -x.xxxxe-308\n" */

typedef struct {
  cgm_outfile out; /* a temporary file beside the target, renamed over it at the end */
  int errnum;      /* first failure (errno) */
  char *buf;
  size_t len;
} mmw;

static void w_flush(mmw *w) {
  size_t off = 0;
  while (!w->errnum && off < w->len) {
    const ssize_t k = write(w->out.fd, w->buf + off, w->len - off);
    if (k > 0)
      off += (size_t)k;
    else if (k == 0 || errno != EINTR)
      w->errnum = k == 0 ? EIO : errno;
  }
  w->len = 0;
}

/* Room for one line; false once a write has failed. */
static inline bool w_room(mmw *w) {
  if (w->len + WBUF_LINE > WBUF_SIZE) w_flush(w);
  return !w->errnum;
}

static cgm_status w_open(mmw *w, const char *path, cgm_error *err) {
  memset(w, 0, sizeof *w);
  if (!path || !*path) return cgm_fail(err, CGM_EINPUT, "no output file name given");
  w->buf = malloc(WBUF_SIZE);
  if (!w->buf) return cgm_fail(err, CGM_ERUNTIME, "%s: out of memory for the write buffer", path);
  cgm_status st = cgm_outfile_open(&w->out, path, err);
  if (st) free(w->buf); /* the callers return at once */
  return st;
}

/* Flushes and renames over the target; on any failure the target is left
 * as it was (a device such as /dev/full is written in place, never removed). */
static cgm_status w_close(mmw *w, cgm_error *err) {
  if (!w->errnum) w_flush(w);
  free(w->buf);
  if (w->errnum) {
    char path[1024];
    snprintf(path, sizeof path, "%s", w->out.path);
    cgm_outfile_commit(&w->out, false, err);
    return cgm_fail(err, CGM_ERUNTIME,
                    "%s: write failed: %s (the old file, if any, is left as it was)", path,
                    strerror(w->errnum));
  }
  return cgm_outfile_commit(&w->out, true, err);
}

static cgm_status check_csr(const cgm_csr *A, bool symmetric, const char *path, cgm_error *err) {
  if (!A || (A->nrows > 0 && !A->rowptr) || (A->nnz > 0 && (!A->colidx || !A->val)))
    return cgm_fail(err, CGM_EINPUT, "%s: no matrix to write", path);
  if (A->nrows <= 0 || A->ncols <= 0)
    return cgm_fail(err, CGM_EINPUT,
                    "%s: cannot write an empty %d x %d matrix (Matrix Market readers reject it)",
                    path, A->nrows, A->ncols);
  if (A->rowptr[0] != 0 || A->rowptr[A->nrows] != A->nnz)
    return cgm_fail(err, CGM_EINPUT,
                    "%s: invalid CSR: rowptr[0] = %lld, rowptr[n] = %lld, nnz %lld", path,
                    (long long)A->rowptr[0], (long long)A->rowptr[A->nrows], (long long)A->nnz);
  for (int32_t i = 0; i < A->nrows; i++) {
    if (A->rowptr[i + 1] < A->rowptr[i])
      return cgm_fail(err, CGM_EINPUT, "%s: invalid CSR: rowptr decreases at row %d", path, i);
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      if (A->colidx[k] < 0 || A->colidx[k] >= A->ncols)
        return cgm_fail(err, CGM_EINPUT, "%s: invalid CSR: column %d out of range in row %d", path,
                        A->colidx[k], i);
      if (!isfinite(A->val[k]))
        return cgm_fail(err, CGM_EINPUT,
                        "%s: value at (%d,%d) is NaN/Inf: it cannot be written (readers reject "
                        "non-finite values)",
                        path, i + 1, A->colidx[k] + 1);
    }
  }
  if (symmetric) {
    if (A->nrows != A->ncols)
      return cgm_fail(err, CGM_EINPUT, "%s: a %d x %d matrix cannot be written as symmetric", path,
                      A->nrows, A->ncols);
    if (!mm_csr_symmetric_pattern(A))
      return cgm_fail(err, CGM_EINPUT,
                      "%s: the matrix is not symmetric entry for entry: writing only its lower "
                      "triangle would lose entries; write it as general",
                      path);
  }
  return CGM_OK;
}

cgm_status cgm_mm_write_csr(const char *path, const cgm_csr *A, bool symmetric, cgm_error *err) {
  cgm_status st = check_csr(A, symmetric, path ? path : "(null)", err);
  if (st) return st;
  int64_t count = A->nnz;
  if (symmetric) {
    count = 0;
    for (int32_t i = 0; i < A->nrows; i++)
      for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) count += A->colidx[k] <= i;
  }
  mmw w;
  st = w_open(&w, path, err);
  if (st) return st;
  w.len =
      (size_t)snprintf(w.buf, WBUF_SIZE, "%%%%MatrixMarket matrix coordinate real %s\n%d %d %lld\n",
                       symmetric ? "symmetric" : "general", A->nrows, A->ncols, (long long)count);
  for (int32_t i = 0; i < A->nrows && !w.errnum; i++) {
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      int32_t j = A->colidx[k];
      if (symmetric && j > i) continue; /* upper triangle: implied by the lower */
      if (!w_room(&w)) break;
      char *o = w.buf + w.len;
      o = mm_put_u64(o, (uint64_t)i + 1);
      *o++ = ' ';
      o = mm_put_u64(o, (uint64_t)j + 1);
      *o++ = ' ';
      o += cgm_mm_format_double(o, A->val[k]);
      *o++ = '\n';
      w.len = (size_t)(o - w.buf);
    }
  }
  return w_close(&w, err);
}

cgm_status cgm_mm_write_vector(const char *path, const double *v, int32_t n, cgm_error *err) {
  const char *p = path ? path : "(null)";
  if (n <= 0)
    return cgm_fail(err, CGM_EINPUT,
                    "%s: cannot write an empty vector (%d values): Matrix Market readers reject it",
                    p, n);
  if (!v) return cgm_fail(err, CGM_EINPUT, "%s: no vector to write", p);
  for (int32_t i = 0; i < n; i++)
    if (!isfinite(v[i]))
      return cgm_fail(err, CGM_EINPUT,
                      "%s: value %d is NaN/Inf: it cannot be written (readers reject non-finite "
                      "values)",
                      p, i + 1);
  mmw w;
  cgm_status st = w_open(&w, path, err);
  if (st) return st;
  w.len =
      (size_t)snprintf(w.buf, WBUF_SIZE, "%%%%MatrixMarket matrix array real general\n%d 1\n", n);
  for (int32_t i = 0; i < n; i++) {
    if (!w_room(&w)) break;
    char *o = w.buf + w.len;
    o += cgm_mm_format_double(o, v[i]);
    *o++ = '\n';
    w.len = (size_t)(o - w.buf);
  }
  return w_close(&w, err);
}
