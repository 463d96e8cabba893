/* Matrix Market writer (docs/matrix-market.md).
 *
 * Values are printed with the shortest of %.15g, %.16g and %.17g that reads
 * back (strtod, or the reader's bit-identical parser) to the same double, so
 * a written file reads back bit-identical. Output goes through a 1 MiB
 * buffer and write(2) into a temporary file beside the target, renamed over
 * it once every write and the close succeeded (common/outfile.h). */
#define _POSIX_C_SOURCE 200809L

#include "cgmodel/sparse.h"
#include "sparse/mm_internal.h"

#include "common/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WBUF_SIZE ((size_t)1 << 20)
#define WBUF_LINE 96 /* longest line written: "2147483647 2147483647 -x.xxxxe-308\n" */

static bool same_bits(double a, double b) {
  uint64_t x, y;
  memcpy(&x, &a, sizeof x);
  memcpy(&y, &b, sizeof y);
  return x == y;
}

static inline char *put_u64(char *o, uint64_t x) {
  char t[20];
  int n = 0;
  do {
    t[n++] = (char)('0' + x % 10);
    x /= 10;
  } while (x);
  while (n) *o++ = t[--n];
  return o;
}

/* The %g rendering of the P significant digits d[0..P) with decimal
 * exponent X (value d0.d1d2... * 10^X), as glibc's printf("%.Pg") writes
 * it: scientific when X < -4 or X >= P, trailing zeros removed. */
static int render_g(char *buf, bool neg, const char *d, int P, int X) {
  char *o = buf;
  int m = P;
  while (m > 1 && d[m - 1] == '0') m--;
  if (neg) *o++ = '-';
  if (X < -4 || X >= P) {
    *o++ = d[0];
    if (m > 1) {
      *o++ = '.';
      memcpy(o, d + 1, (size_t)m - 1);
      o += m - 1;
    }
    *o++ = 'e';
    *o++ = X < 0 ? '-' : '+';
    int ax = X < 0 ? -X : X;
    if (ax >= 100) *o++ = (char)('0' + ax / 100);
    *o++ = (char)('0' + ax / 10 % 10);
    *o++ = (char)('0' + ax % 10);
  } else if (X >= 0) {
    memcpy(o, d, (size_t)X + 1);
    o += X + 1;
    if (m > X + 1) {
      *o++ = '.';
      memcpy(o, d + X + 1, (size_t)(m - X - 1));
      o += m - X - 1;
    }
  } else {
    *o++ = '0';
    *o++ = '.';
    for (int k = 0; k < -X - 1; k++) *o++ = '0';
    memcpy(o, d, (size_t)m);
    o += m;
  }
  *o = '\0';
  return (int)(o - buf);
}

/* The 17 significant digits of ax > 0 correctly rounded (as %.16e prints
 * them) and its decimal exponent, without printf: V = ax * 10^k in
 * [1e16, 1e17) is one correctly rounded x87 extended operation (10^k, k <= 27,
 * is exact there), so |V - exact| <= 2^-8; unless V is within 0.01 of a
 * rounding tie, rounding V to an integer gives the exact digits. Returns
 * false (ask printf) outside [1e-11, 1e43) or near a tie. */
static bool digits17_fast(double ax, char d[17], int *X) {
#if LDBL_MANT_DIG >= 64
  static const long double p10[28] = {1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,
                                      1e7L,  1e8L,  1e9L,  1e10L, 1e11L, 1e12L, 1e13L,
                                      1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L,
                                      1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
  if (!(ax >= 1e-11 && ax < 1e43)) return false;
  int e10 = (int)floor(log10(ax));
  long double V = 0;
  for (int tries = 0; tries < 3; tries++) {
    int k = 16 - e10;
    if (k > 27 || k < -27) return false;
    V = k >= 0 ? (long double)ax * p10[k] : (long double)ax / p10[-k];
    if (V < 1e16L)
      e10--;
    else if (V >= 1e17L)
      e10++;
    else
      break;
  }
  if (!(V >= 1e16L && V < 1e17L)) return false;
  long double fl = floorl(V), frac = V - fl;
  if (fabsl(frac - 0.5L) <= 0.01L) return false;
  uint64_t v = (uint64_t)fl + (frac > 0.5L);
  if (v == UINT64_C(100000000000000000)) { /* rounded up to the next decade */
    v /= 10;
    e10++;
  }
  for (int k = 16; k >= 0; k--) {
    d[k] = (char)('0' + v % 10);
    v /= 10;
  }
  *X = e10;
  return true;
#else
  (void)ax, (void)d, (void)X;
  return false;
#endif
}

static bool round_trips(const char *s, int n, double x) {
  double y;
  return cgm_mm_parse_double(s, (size_t)n, &y) == CGM_NUM_OK && same_bits(x, y);
}

int cgm_mm_format_double(char *buf, double x) {
  /* Integers below 1e15 in magnitude: %.15g prints exactly their digits. */
  if (fabs(x) < 1e15 && x == trunc(x)) {
    char *o = buf;
    if (signbit(x)) *o++ = '-';
    o = put_u64(o, (uint64_t)fabs(x));
    *o = '\0';
    return (int)(o - buf);
  }
  /* One conversion to 17 significant digits (what %.17g prints). The
   * correctly rounded 16- and 15-digit forms follow from them unless the
   * dropped digits are exactly 5 or 50: the 17-digit value is within half a
   * unit of its last digit of the exact one, so a dropped 5 (50) could come
   * from either side of the tie; then printf is asked directly. */
  bool neg = signbit(x);
  char d17[17];
  int X;
  if (!digits17_fast(fabs(x), d17, &X)) {
    char e[48];
    snprintf(e, sizeof e, "%.16e", x);
    const char *p = e + neg;
    d17[0] = *p++;
    p++; /* the decimal point, whatever the locale */
    memcpy(d17 + 1, p, 16);
    p += 16;
    X = atoi(p + 1); /* after the 'e' */
  }
  for (int P = 15; P <= 16; P++) {
    int n;
    int tail = P == 16 ? d17[16] - '0' : (d17[15] - '0') * 10 + (d17[16] - '0');
    int half = P == 16 ? 5 : 50;
    if (tail == half) {
      n = snprintf(buf, 32, "%.*g", P, x);
      for (int k = 0; k < n; k++)
        if (buf[k] == ',') buf[k] = '.'; /* a locale with a decimal comma */
    } else {
      char d[17];
      int Xp = X;
      memcpy(d, d17, (size_t)P);
      if (tail > half) { /* round up, carrying */
        int k = P - 1;
        while (k >= 0 && d[k] == '9') d[k--] = '0';
        if (k >= 0) {
          d[k]++;
        } else {
          d[0] = '1'; /* 99..9 -> 100..0: one more decade */
          Xp++;
        }
      }
      n = render_g(buf, neg, d, P, Xp);
    }
    if (round_trips(buf, n, x)) return n;
  }
  return render_g(buf, neg, d17, 17, X); /* 17 digits always round-trip */
}

typedef struct {
  cgm_outfile out; /* a temporary file beside the target, renamed over it at the end */
  int fd;
  int errnum; /* first failure (errno) */
  char *buf;
  size_t len;
} mmw;

static void w_flush(mmw *w) {
  size_t off = 0;
  while (!w->errnum && off < w->len) {
    ssize_t k = write(w->fd, w->buf + off, w->len - off);
    if (k < 0) {
      if (errno == EINTR) continue;
      w->errnum = errno;
    } else if (k == 0) {
      w->errnum = EIO;
    } else {
      off += (size_t)k;
    }
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
  w->fd = -1;
  if (!path || !*path) return cgm_fail(err, CGM_EINPUT, "no output file name given");
  w->buf = malloc(WBUF_SIZE);
  if (!w->buf) return cgm_fail(err, CGM_ERUNTIME, "%s: out of memory for the write buffer", path);
  cgm_status st = cgm_outfile_open(&w->out, path, err);
  if (st) {
    free(w->buf);
    w->buf = NULL;
    return st;
  }
  w->fd = w->out.fd;
  return CGM_OK;
}

/* Flushes and renames over the target; on any failure the target is left
 * as it was (a device such as /dev/full is written in place, never removed). */
static cgm_status w_close(mmw *w, cgm_error *err) {
  if (!w->errnum) w_flush(w);
  free(w->buf);
  w->buf = NULL;
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
    if (!cgm_csr_is_symmetric(A))
      return cgm_fail(err, CGM_EINPUT,
                      "%s: the matrix is not symmetric: writing only its lower triangle would "
                      "lose entries; write it as general",
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
      o = put_u64(o, (uint64_t)i + 1);
      *o++ = ' ';
      o = put_u64(o, (uint64_t)j + 1);
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
