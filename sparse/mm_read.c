/* Matrix Market reader (docs/matrix-market.md): the grammar.
 *
 * The file is read in large chunks (4 MiB, or the whole file when smaller)
 * and parsed with a hand-written pointer walk: every chunk handed to the
 * scanner ends with a '\n' (a sentinel one is appended after a last line
 * without it), so the scanners need no end checks inside a line. Integers
 * are parsed by hand; values by sparse/mm_number.h, bit-identical to strtod.
 * Entries go to coordinate arrays and then through cgm_csr_from_coo (sorts
 * rows, sums duplicates).
 *
 * Every error names the file and the line: "path:LINE: message". */
#define _POSIX_C_SOURCE 200809L

#include "cgmodel/sparse.h"
#include "sparse/mm_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ============================================================ reader === */

#define MM_CHUNK ((size_t)4 << 20)     /* read size */
#define MM_LINE_MAX ((size_t)64 << 20) /* longest line accepted */
/* A file may declare at most max(MM_ROWS_FREE, its size in bytes) rows (a
 * vector that many values): the CSR row pointer (8 bytes a row) or the dense
 * vector then takes at most 8 times the file, as the entries do, and a
 * 40-byte size line cannot make the reader allocate and touch gigabytes. */
#define MM_ROWS_FREE ((int64_t)1 << 16)

typedef struct {
  const char *path;
  cgm_error *err;
  int fd;
  char *buf; /* allocated cap + 1 bytes: room for a sentinel '\n' */
  size_t cap;
  size_t len; /* bytes in buf */
  char *p;    /* parse position */
  char *end;  /* just past the last complete line in buf */
  bool eof;
  int64_t line;  /* number of the line that starts at p */
  int64_t nread; /* bytes read from the file */
  int64_t fsize; /* size of a regular file, -1 otherwise */
  cgm_status st; /* the status of the last error reported */
} mmr;

typedef struct {
  bool array; /* format: array (dense) or coordinate */
  bool complex_field;
  cgm_mm_field field;
  cgm_mm_symmetry sym;
  int64_t rows, cols, entries;
  int64_t size_line;
} mm_header;

typedef struct {
  int32_t *ri, *ci;
  double *v; /* NULL for pattern */
  int64_t n, cap;
} coo;

static cgm_status fail_at(mmr *r, int64_t line, cgm_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static cgm_status fail_at(mmr *r, int64_t line, cgm_status code, const char *fmt, ...) {
  char msg[CGM_ERRMSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  r->st = code;
  return cgm_fail(r->err, code, "%s:%lld: %s", r->path, (long long)line, msg);
}

/* Bytes that never occur in a text file. */
static inline bool is_binary_byte(unsigned char c) {
  return c == 0 || c == 0x7f ||
         (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\v' && c != '\f');
}

/* First binary byte in [s, e), or -1. */
static int find_binary(const char *s, const char *e) {
  for (; s < e; s++)
    if (is_binary_byte((unsigned char)*s)) return (unsigned char)*s;
  return -1;
}

static cgm_status fail_binary(mmr *r, int64_t line, int byte) {
  return fail_at(r, line, CGM_EINPUT, "binary data (byte 0x%02x): not a Matrix Market text file",
                 byte);
}

/* The token at s (up to a blank or the end of the line) for a message:
 * at most 32 characters, unprintable bytes as \xNN. */
static const char *tok_desc(char *dst, size_t dn, const char *s) {
  size_t o = 0;
  int k = 0;
  for (; !mm_is_tok_end((unsigned char)*s) && o + 8 < dn; s++, k++) {
    if (k == 32) {
      memcpy(dst + o, "...", 3);
      o += 3;
      break;
    }
    unsigned char c = (unsigned char)*s;
    if (c >= 0x20 && c < 0x7f && c != '\'')
      dst[o++] = (char)c;
    else
      o += (size_t)snprintf(dst + o, dn - o, "\\x%02x", c);
  }
  dst[o] = '\0';
  return dst;
}

/* An error on the data line that starts at ls: reported as binary data when
 * the line holds such bytes, else with the message given. */
static cgm_status fail_line(mmr *r, int64_t line, const char *ls, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static cgm_status fail_line(mmr *r, int64_t line, const char *ls, const char *fmt, ...) {
  const char *le = memchr(ls, '\n', (size_t)(r->end - ls));
  int b = find_binary(ls, le ? le : r->end);
  if (b >= 0) return fail_binary(r, line, b);
  char msg[CGM_ERRMSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return fail_at(r, line, CGM_EINPUT, "%s", msg);
}

/* Why a value is NaN/Inf: spelled so, or a number beyond the double range. */
static const char *nonfinite_why(const char *s) {
  s += *s == '+' || *s == '-';
  return mm_is_digit((unsigned char)*s) || *s == '.'
             ? "beyond the double range: only finite values are accepted"
             : "only finite values are accepted";
}

static cgm_status mmr_open(mmr *r, const char *path, cgm_error *err) {
  memset(r, 0, sizeof *r);
  r->path = path ? path : "(null)";
  r->err = err;
  r->fd = -1;
  r->line = 1;
  r->fsize = -1;
  if (!path || !*path) return cgm_fail(err, CGM_EINPUT, "no Matrix Market file name given");
  int fd = open(path, O_RDONLY);
  if (fd < 0) return cgm_fail(err, CGM_EINPUT, "%s: cannot open: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return cgm_fail(err, CGM_EINPUT, "%s: cannot open: %s", path, strerror(e));
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    return cgm_fail(err, CGM_EINPUT, "%s: cannot read: %s", path, strerror(EISDIR));
  }
  size_t cap = MM_CHUNK;
  if (S_ISREG(st.st_mode)) {
    r->fsize = (int64_t)st.st_size;
    /* small file: one buffer holds it all, and the read after it sees EOF */
    if ((uint64_t)st.st_size < cap) cap = (size_t)st.st_size + 64;
  }
  r->buf = malloc(cap + 1);
  if (!r->buf) {
    close(fd);
    return cgm_fail(err, CGM_ERUNTIME, "%s: out of memory for a %zu-byte read buffer", path, cap);
  }
  r->fd = fd;
  r->cap = cap;
  r->p = r->end = r->buf;
  return CGM_OK;
}

static void mmr_close(mmr *r) {
  if (r->fd >= 0) close(r->fd);
  free(r->buf);
  r->fd = -1;
  r->buf = NULL;
}

/* Makes [p, end) hold at least one complete line. Returns 1 when it does, 0
 * at the end of the input, -1 after reporting an error. */
static int mmr_fill(mmr *r) {
  if (r->p < r->end) return 1;
  size_t keep = r->len - (size_t)(r->p - r->buf);
  if (keep && r->p != r->buf) memmove(r->buf, r->p, keep);
  r->len = keep;
  r->p = r->end = r->buf;
  size_t scanned = 0; /* buf[0, scanned) holds no '\n' */
  for (;;) {
    for (size_t k = r->len; k > scanned; k--) {
      if (r->buf[k - 1] == '\n') {
        r->end = r->buf + k;
        return 1;
      }
    }
    scanned = r->len;
    if (r->eof) {
      if (r->len == 0) return 0;
      r->buf[r->len++] = '\n'; /* last line without a newline: the +1 byte */
      r->end = r->buf + r->len;
      return 1;
    }
    if (r->len == r->cap) { /* a line longer than the buffer */
      int b = find_binary(r->buf, r->buf + r->len);
      if (b >= 0) {
        fail_binary(r, r->line, b);
        return -1;
      }
      if (r->cap >= MM_LINE_MAX) {
        fail_at(r, r->line, CGM_EINPUT, "line longer than %zu MiB: not a Matrix Market file",
                MM_LINE_MAX >> 20);
        return -1;
      }
      size_t ncap = 2 * r->cap;
      char *nb = realloc(r->buf, ncap + 1);
      if (!nb) {
        fail_at(r, r->line, CGM_ERUNTIME, "out of memory for a %zu-byte line buffer", ncap);
        return -1;
      }
      r->buf = nb;
      r->cap = ncap;
      r->p = r->end = r->buf;
    }
    ssize_t k = read(r->fd, r->buf + r->len, r->cap - r->len);
    if (k < 0) {
      if (errno == EINTR) continue;
      fail_at(r, r->line, errno == EISDIR ? CGM_EINPUT : CGM_ERUNTIME, "read error: %s",
              strerror(errno));
      return -1;
    }
    if (k == 0) {
      r->eof = true;
      continue;
    }
    r->len += (size_t)k;
    r->nread += k;
  }
}

/* The next line as [*ls, *le), *le at its '\n'; *lineno its number.
 * Returns 1, 0 at the end of the input, -1 after an error. */
static int next_line(mmr *r, char **ls, char **le, int64_t *lineno) {
  int f = mmr_fill(r);
  if (f <= 0) return f;
  *ls = r->p;
  *le = memchr(r->p, '\n', (size_t)(r->end - r->p));
  *lineno = r->line++;
  r->p = *le + 1;
  return 1;
}

/* After the L declared entries (values) only blank lines and comments may
 * follow; the first other line is an error naming it (with its first token
 * when show_token). */
static cgm_status expect_end(mmr *r, const char *what, int64_t L, int64_t size_line,
                             bool show_token) {
  for (;;) {
    char *ls, *le;
    int64_t ln;
    int f = next_line(r, &ls, &le, &ln);
    if (f < 0) return r->st;
    if (f == 0) return CGM_OK;
    int b = find_binary(ls, le);
    if (b >= 0) return fail_binary(r, ln, b);
    const char *q = ls;
    while (q < le && mm_is_blank((unsigned char)*q)) q++;
    if (q == le || *q == '%') continue;
    char tb[96];
    if (!show_token)
      return fail_at(r, ln, CGM_EINPUT, "more %s than the %lld declared on line %lld", what,
                     (long long)L, (long long)size_line);
    return fail_at(r, ln, CGM_EINPUT, "more %s than the %lld declared on line %lld (found '%s')",
                   what, (long long)L, (long long)size_line, tok_desc(tb, sizeof tb, q));
  }
}

/* Next blank-separated token in [*pp, le); false when none is left. */
static bool next_tok(const char **pp, const char *le, const char **ts, size_t *tl) {
  const char *p = *pp;
  while (p < le && mm_is_blank((unsigned char)*p)) p++;
  if (p >= le) {
    *pp = p;
    return false;
  }
  const char *s = p;
  while (p < le && !mm_is_blank((unsigned char)*p)) p++;
  *ts = s;
  *tl = (size_t)(p - s);
  *pp = p;
  return true;
}

static bool kw_eq(const char *s, size_t n, const char *kw) {
  if (strlen(kw) != n) return false;
  for (size_t k = 0; k < n; k++)
    if (mm_lower_ascii((unsigned char)s[k]) != kw[k]) return false;
  return true;
}

/* A token copied for a message (at most 40 characters, unprintables as
 * \xNN). */
static const char *tok_copy(char *dst, size_t dn, const char *s, size_t n) {
  size_t o = 0;
  for (size_t k = 0; k < n && o + 8 < dn; k++) {
    if (k == 40) {
      memcpy(dst + o, "...", 3);
      o += 3;
      break;
    }
    unsigned char c = (unsigned char)s[k];
    if (c >= 0x20 && c < 0x7f && c != '\'')
      dst[o++] = (char)c;
    else
      o += (size_t)snprintf(dst + o, dn - o, "\\x%02x", c);
  }
  dst[o] = '\0';
  return dst;
}

/* Size-line number: [+]digits, at most 18 digits (int64 without overflow).
 * 0 ok, 1 not a number, 2 negative, 3 too large. */
static int parse_size_int(const char *s, size_t n, int64_t *out) {
  size_t k = 0;
  bool neg = false;
  if (k < n && (s[k] == '+' || s[k] == '-')) neg = s[k++] == '-';
  if (k == n) return 1;
  while (k + 1 < n && s[k] == '0') k++;
  if (n - k > 18) {
    for (size_t m = k; m < n; m++)
      if (!mm_is_digit((unsigned char)s[m])) return 1;
    return neg ? 2 : 3;
  }
  int64_t v = 0;
  for (; k < n; k++) {
    if (!mm_is_digit((unsigned char)s[k])) return 1;
    v = v * 10 + (s[k] - '0');
  }
  if (neg && v > 0) return 2;
  *out = v;
  return 0;
}

static const char *field_name(const mm_header *h) {
  if (h->complex_field) return "complex";
  switch (h->field) {
  case CGM_MM_REAL:
    return "real";
  case CGM_MM_INTEGER:
    return "integer";
  case CGM_MM_PATTERN:
    return "pattern";
  }
  return "?";
}

/* The row-count bound of MM_ROWS_FREE for a file of `bytes` bytes. */
static cgm_status check_rows(mmr *r, const mm_header *h, bool vector, int64_t bytes) {
  if (h->rows <= MM_ROWS_FREE || h->rows <= bytes) return CGM_OK;
  if (vector)
    return fail_at(r, h->size_line, CGM_EINPUT,
                   "a vector of %lld values is too long for a file of %lld bytes: at most %lld "
                   "(or one per byte of the file), as it would take %lld bytes",
                   (long long)h->rows, (long long)bytes, (long long)MM_ROWS_FREE,
                   (long long)h->rows * 8);
  return fail_at(r, h->size_line, CGM_EINPUT,
                 "matrix %lld x %lld has too many rows for a file of %lld bytes: at most %lld (or "
                 "one per byte of the file), as the row pointer alone would take %lld bytes",
                 (long long)h->rows, (long long)h->cols, (long long)bytes, (long long)MM_ROWS_FREE,
                 (long long)(h->rows + 1) * 8);
}

/* Banner, comments, size line. want_vector: the caller reads a vector
 * (array allowed, one column required). */
static cgm_status read_header(mmr *r, mm_header *h, bool want_vector) {
  memset(h, 0, sizeof *h);
  char *ls = NULL, *le = NULL;
  int64_t ln = 1;
  int f = mmr_fill(r);
  if (f < 0) return r->st;
  if (f == 0) return fail_at(r, 1, CGM_EINPUT, "empty file: expected a %%%%MatrixMarket banner");

  /* compressed files, recognised by their magic number */
  const unsigned char *u = (const unsigned char *)r->buf;
  size_t n = r->len;
  const char *comp = NULL;
  if (n >= 2 && u[0] == 0x1f && u[1] == 0x8b)
    comp = "gzip";
  else if (n >= 4 && u[0] == 0x28 && u[1] == 0xb5 && u[2] == 0x2f && u[3] == 0xfd)
    comp = "zstd";
  else if (n >= 6 && memcmp(u,
                            "\xfd"
                            "7zXZ\0",
                            6) == 0)
    comp = "xz";
  else if (n >= 4 && memcmp(u, "BZh", 3) == 0 && u[3] >= '1' && u[3] <= '9')
    comp = "bzip2";
  else if (n >= 4 && memcmp(u, "PK\x03\x04", 4) == 0)
    comp = "zip";
  if (comp) return fail_at(r, 1, CGM_EINPUT, "compressed file (%s): decompress it first", comp);

  f = next_line(r, &ls, &le, &ln);
  if (f <= 0) return f < 0 ? r->st : fail_at(r, 1, CGM_EINPUT, "empty file");
  if (le - ls >= 3 && memcmp(ls, "\xef\xbb\xbf", 3) == 0) ls += 3; /* UTF-8 byte order mark */
  int b = find_binary(ls, le);
  if (b >= 0) return fail_binary(r, ln, b);

  const char *p = ls, *t[5];
  size_t tl[5];
  int nt = 0;
  char tb[64];
  while (nt < 5 && next_tok(&p, le, &t[nt], &tl[nt])) nt++;
  if (nt == 0 || !kw_eq(t[0], tl[0], "%%matrixmarket"))
    return fail_at(r, ln, CGM_EINPUT,
                   "missing Matrix Market banner: the first line must start with %%%%MatrixMarket "
                   "(found '%s')",
                   nt ? tok_copy(tb, sizeof tb, t[0], tl[0]) : "");
  if (nt < 5)
    return fail_at(r, ln, CGM_EINPUT,
                   "incomplete banner: expected '%%%%MatrixMarket matrix FORMAT FIELD SYMMETRY' "
                   "(%d of 4 keywords)",
                   nt - 1);
  const char *xt;
  size_t xl;
  if (next_tok(&p, le, &xt, &xl))
    return fail_at(r, ln, CGM_EINPUT, "extra token '%s' after the banner keywords",
                   tok_copy(tb, sizeof tb, xt, xl));
  if (!kw_eq(t[1], tl[1], "matrix"))
    return fail_at(r, ln, CGM_EINPUT, "unsupported object '%s': only 'matrix' is supported",
                   tok_copy(tb, sizeof tb, t[1], tl[1]));
  if (kw_eq(t[2], tl[2], "coordinate"))
    h->array = false;
  else if (kw_eq(t[2], tl[2], "array"))
    h->array = true;
  else
    return fail_at(r, ln, CGM_EINPUT, "unknown format '%s' (expected coordinate or array)",
                   tok_copy(tb, sizeof tb, t[2], tl[2]));
  if (kw_eq(t[3], tl[3], "real"))
    h->field = CGM_MM_REAL;
  else if (kw_eq(t[3], tl[3], "integer"))
    h->field = CGM_MM_INTEGER;
  else if (kw_eq(t[3], tl[3], "pattern"))
    h->field = CGM_MM_PATTERN;
  else if (kw_eq(t[3], tl[3], "complex"))
    h->complex_field = true;
  else
    return fail_at(r, ln, CGM_EINPUT,
                   "unknown field '%s' (expected real, integer, pattern or complex)",
                   tok_copy(tb, sizeof tb, t[3], tl[3]));
  bool skew = false, herm = false;
  if (kw_eq(t[4], tl[4], "general"))
    h->sym = CGM_MM_GENERAL;
  else if (kw_eq(t[4], tl[4], "symmetric"))
    h->sym = CGM_MM_SYMMETRIC;
  else if (kw_eq(t[4], tl[4], "skew-symmetric"))
    skew = true;
  else if (kw_eq(t[4], tl[4], "hermitian"))
    herm = true;
  else
    return fail_at(r, ln, CGM_EINPUT,
                   "unknown symmetry '%s' (expected general, symmetric, skew-symmetric or "
                   "hermitian)",
                   tok_copy(tb, sizeof tb, t[4], tl[4]));
  if (h->complex_field)
    return fail_at(r, ln, CGM_EINPUT,
                   "complex matrices are not supported: CG needs a real SPD matrix");
  if (herm)
    return fail_at(r, ln, CGM_EINPUT,
                   "hermitian matrices are not supported (hermitian is for complex matrices): CG "
                   "needs a real SPD matrix; a real symmetric matrix is 'symmetric'");
  if (skew)
    return fail_at(r, ln, CGM_EINPUT,
                   "skew-symmetric matrices are not supported: CG needs a real SPD matrix");
  if (h->array && h->field == CGM_MM_PATTERN)
    return fail_at(r, ln, CGM_EINPUT,
                   "'array pattern' is not valid Matrix Market: pattern "
                   "needs the coordinate format");
  if (h->array && !want_vector)
    return fail_at(r, ln, CGM_EINPUT,
                   "dense 'array' format is not supported for matrices: use the coordinate format");
  if (want_vector && h->sym != CGM_MM_GENERAL)
    return fail_at(r, ln, CGM_EINPUT, "a vector must be 'general', not 'symmetric'");

  /* comments and blank lines, then the size line */
  for (;;) {
    f = next_line(r, &ls, &le, &ln);
    if (f < 0) return r->st;
    if (f == 0)
      return fail_at(r, r->line, CGM_EINPUT, "missing size line: expected '%s' after the banner",
                     h->array ? "ROWS COLS" : "ROWS COLS ENTRIES");
    b = find_binary(ls, le);
    if (b >= 0) return fail_binary(r, ln, b);
    p = ls;
    while (p < le && mm_is_blank((unsigned char)*p)) p++;
    if (p == le || *p == '%') continue;
    break;
  }
  h->size_line = ln;
  int want = h->array ? 2 : 3;
  const char *st[3];
  size_t sl[3];
  int64_t sv[3] = {0, 0, 0};
  const char *names[3] = {"row count", "column count", "entry count"};
  const char *shape = h->array ? "ROWS COLS" : "ROWS COLS ENTRIES";
  p = ls;
  for (int k = 0; k < want; k++) {
    if (!next_tok(&p, le, &st[k], &sl[k]))
      return fail_at(r, ln, CGM_EINPUT, "bad size line: expected '%s', found %d number%s", shape, k,
                     k == 1 ? "" : "s");
    int e = parse_size_int(st[k], sl[k], &sv[k]);
    if (e == 1)
      return fail_at(r, ln, CGM_EINPUT, "bad size line: %s '%s' is not a number (expected '%s')",
                     names[k], tok_copy(tb, sizeof tb, st[k], sl[k]), shape);
    if (e == 2)
      return fail_at(r, ln, CGM_EINPUT, "bad size line: negative %s %s", names[k],
                     tok_copy(tb, sizeof tb, st[k], sl[k]));
    if (e == 3)
      return fail_at(r, ln, CGM_EINPUT, "bad size line: %s %s is too large", names[k],
                     tok_copy(tb, sizeof tb, st[k], sl[k]));
  }
  if (next_tok(&p, le, &xt, &xl))
    return fail_at(r, ln, CGM_EINPUT, "bad size line: extra token '%s' (expected '%s')",
                   tok_copy(tb, sizeof tb, xt, xl), shape);
  h->rows = sv[0];
  h->cols = sv[1];
  h->entries = h->array ? 0 : sv[2]; /* an array's rows x cols once both are < 2^31 (below) */
  if (h->rows == 0 || h->cols == 0)
    return fail_at(r, ln, CGM_EINPUT, "empty matrix: %lld rows, %lld columns", (long long)h->rows,
                   (long long)h->cols);
  if (h->rows > INT32_MAX || h->cols > INT32_MAX)
    return fail_at(r, ln, CGM_EINPUT,
                   "matrix %lld x %lld is too large: rows and columns must be at most %d (int32 "
                   "indices)",
                   (long long)h->rows, (long long)h->cols, INT32_MAX);
  if (h->array) h->entries = h->rows * h->cols; /* < 2^62: no overflow */
  if (h->sym == CGM_MM_SYMMETRIC && h->rows != h->cols)
    return fail_at(r, ln, CGM_EINPUT, "symmetric matrix must be square, not %lld x %lld",
                   (long long)h->rows, (long long)h->cols);
  if (want_vector && h->cols != 1)
    return fail_at(r, ln, CGM_EINPUT,
                   "a vector must have one column (n x 1); this one is %lld x %lld",
                   (long long)h->rows, (long long)h->cols);
  /* Never trust the count for an allocation: every entry needs a line of at
   * least "i j\n" (4 bytes), "i j v\n" (6) or, in an array, "v\n" (2). */
  if (r->fsize >= 0) {
    int64_t minline = h->array ? 2 : h->field == CGM_MM_PATTERN ? 4 : 6;
    int64_t fit = (r->fsize + 1) / minline;
    if (h->entries > fit)
      return fail_at(r, ln, CGM_EINPUT,
                     "the size line declares %lld entries, but a file of %lld bytes can hold at "
                     "most %lld (truncated file?)",
                     (long long)h->entries, (long long)r->fsize, (long long)fit);
    /* a pipe is checked once its size is known, after the entries */
    return check_rows(r, h, want_vector, r->fsize);
  }
  return CGM_OK;
}

static void coo_free(coo *c) {
  free(c->ri);
  free(c->ci);
  free(c->v);
  memset(c, 0, sizeof *c);
}

static bool coo_reserve(coo *c, int64_t cap, bool values) {
  if (cap <= c->cap) return true;
  if ((uint64_t)cap > SIZE_MAX / sizeof(double)) return false;
  size_t n = (size_t)(cap > 0 ? cap : 1);
  int32_t *ri = realloc(c->ri, n * sizeof *ri);
  if (ri) c->ri = ri;
  int32_t *ci = realloc(c->ci, n * sizeof *ci);
  if (ci) c->ci = ci;
  double *v = values ? realloc(c->v, n * sizeof *v) : NULL;
  if (v) c->v = v;
  if (!ri || !ci || (values && !v)) return false;
  c->cap = cap;
  return true;
}

/* Reads the entry lines of a coordinate file into c (1-based indices made
 * 0-based, range-checked), then checks that only blank lines or comments
 * follow. *ndiag counts the diagonal entries. */
static cgm_status read_coordinate(mmr *r, const mm_header *h, coo *c, int64_t *ndiag) {
  const bool values = h->field != CGM_MM_PATTERN;
  const bool integer = h->field == CGM_MM_INTEGER;
  const bool sym = h->sym == CGM_MM_SYMMETRIC;
  const uint64_t M = (uint64_t)h->rows, N = (uint64_t)h->cols;
  const int64_t L = h->entries;
  int64_t cap0 = r->fsize >= 0 ? L : (L < (1 << 16) ? L : (1 << 16));
  if (!coo_reserve(c, cap0, values))
    return fail_at(r, h->size_line, CGM_ERUNTIME, "out of memory for %lld entries",
                   (long long)cap0);
  char tb[96];
  int64_t nd = 0;
  /* symmetric: the first off-diagonal entry of each triangle, to report a
   * file that holds both */
  int64_t lo_line = 0, up_line = 0;
  uint64_t lo_i = 0, lo_j = 0, up_i = 0, up_j = 0;

  char *p = r->p, *end = r->end;
  int64_t line = r->line;
  int64_t k = 0;
  int32_t *ri = c->ri, *ci = c->ci;
  double *vv = c->v;
  while (k < L) {
    if (p >= end) {
      r->p = p;
      r->line = line;
      int f = mmr_fill(r);
      if (f < 0) return r->st;
      if (f == 0)
        return fail_at(r, line, CGM_EINPUT,
                       "unexpected end of file after %lld of the %lld entries declared on line "
                       "%lld (truncated file?)",
                       (long long)k, (long long)L, (long long)h->size_line);
      p = r->p;
      end = r->end;
    }
    char *ls = p;
    while (*p == ' ' || *p == '\t') p++;
    if (!mm_is_digit((unsigned char)*p)) {
      if (*p == '\n' || *p == '%' || mm_is_blank((unsigned char)*p)) {
        char *le = memchr(p, '\n', (size_t)(end - p));
        int b = find_binary(p, le);
        if (b >= 0) return fail_binary(r, line, b);
        const char *q = p;
        while (q < le && mm_is_blank((unsigned char)*q)) q++;
        if (q < le && *q != '%')
          return fail_line(r, line, ls, "bad row index '%s' (expected an integer in 1..%llu)",
                           tok_desc(tb, sizeof tb, q), (unsigned long long)M);
        p = le + 1;
        line++;
        continue;
      }
      return fail_line(r, line, ls, "bad row index '%s' (expected an integer in 1..%llu)",
                       tok_desc(tb, sizeof tb, p), (unsigned long long)M);
    }
    /* row index */
    const char *ts = p;
    uint64_t i = 0;
    while (mm_is_digit((unsigned char)*p)) i = i * 10 + (uint64_t)(*p++ - '0');
    if (p - ts > 19) i = UINT64_MAX;
    if (*p != ' ' && *p != '\t') {
      if (*p == '\n' || mm_is_blank((unsigned char)*p))
        return fail_line(r, line, ls, "missing column index (expected '%s')",
                         values ? "ROW COL VALUE" : "ROW COL");
      return fail_line(r, line, ls, "bad row index '%s' (expected an integer in 1..%llu)",
                       tok_desc(tb, sizeof tb, ts), (unsigned long long)M);
    }
    while (*p == ' ' || *p == '\t') p++;
    /* column index */
    ts = p;
    uint64_t j = 0;
    while (mm_is_digit((unsigned char)*p)) j = j * 10 + (uint64_t)(*p++ - '0');
    if (p - ts > 19) j = UINT64_MAX;
    if (p == ts || !mm_is_tok_end((unsigned char)*p) || *p == '\0') {
      if (*p == '\n' || mm_is_blank((unsigned char)*p))
        return fail_line(r, line, ls, "missing column index (expected '%s')",
                         values ? "ROW COL VALUE" : "ROW COL");
      return fail_line(r, line, ls, "bad column index '%s' (expected an integer in 1..%llu)",
                       tok_desc(tb, sizeof tb, ts), (unsigned long long)N);
    }
    if (i - 1 >= M)
      return fail_line(r, line, ls, "row index %s out of range 1..%llu",
                       tok_desc(tb, sizeof tb, ls + strspn(ls, " \t")), (unsigned long long)M);
    if (j - 1 >= N)
      return fail_line(r, line, ls, "column index %s out of range 1..%llu",
                       tok_desc(tb, sizeof tb, ts), (unsigned long long)N);
    /* value */
    double v = 1.0;
    if (values) {
      while (*p == ' ' || *p == '\t') p++;
      if (*p == '\n' || mm_is_blank((unsigned char)*p))
        return fail_line(r, line, ls, "missing value (expected 'ROW COL VALUE' in a %s matrix)",
                         field_name(h));
      const char *vs = p, *ve;
      bool frac = false;
      cgm_num_result nr = mm_parse_number(vs, &ve, &v, &frac);
      if (nr == CGM_NUM_OK && !mm_is_tok_end((unsigned char)*ve)) nr = CGM_NUM_BAD;
      if (nr == CGM_NUM_OK && *ve == '\0') nr = CGM_NUM_BAD;
      if (nr != CGM_NUM_OK) {
        if (nr == CGM_NUM_NOMEM)
          return fail_at(r, line, CGM_ERUNTIME, "out of memory parsing a value");
        if (nr == CGM_NUM_NONFINITE)
          return fail_line(r, line, ls, "NaN/Inf value '%s' (%s)", tok_desc(tb, sizeof tb, vs),
                           nonfinite_why(vs));
        return fail_line(r, line, ls, "bad value '%s': not a number", tok_desc(tb, sizeof tb, vs));
      }
      if (integer && frac)
        return fail_line(r, line, ls, "non-integer value '%s' in an integer matrix",
                         tok_desc(tb, sizeof tb, vs));
      p = (char *)ve;
    }
    while (mm_is_blank((unsigned char)*p)) p++;
    if (*p != '\n') {
      if (!values)
        return fail_line(r, line, ls, "value '%s' present in a pattern matrix (expected 'ROW COL')",
                         tok_desc(tb, sizeof tb, p));
      return fail_line(r, line, ls, "extra token '%s' after the entry (expected 'ROW COL VALUE')",
                       tok_desc(tb, sizeof tb, p));
    }
    p++;
    if (i == j) {
      nd++;
    } else if (sym) {
      if (i > j) {
        if (!lo_line) lo_line = line, lo_i = i, lo_j = j;
        if (up_line)
          return fail_at(r, line, CGM_EINPUT,
                         "symmetric file has entries in both triangles: (%llu,%llu) is below the "
                         "diagonal, but line %lld has (%llu,%llu) above it; a symmetric file "
                         "stores one triangle only (both would be counted twice)",
                         (unsigned long long)i, (unsigned long long)j, (long long)up_line,
                         (unsigned long long)up_i, (unsigned long long)up_j);
      } else {
        if (!up_line) up_line = line, up_i = i, up_j = j;
        if (lo_line)
          return fail_at(r, line, CGM_EINPUT,
                         "symmetric file has entries in both triangles: (%llu,%llu) is above the "
                         "diagonal, but line %lld has (%llu,%llu) below it; a symmetric file "
                         "stores one triangle only (both would be counted twice)",
                         (unsigned long long)i, (unsigned long long)j, (long long)lo_line,
                         (unsigned long long)lo_i, (unsigned long long)lo_j);
      }
    }
    line++;
    if (k == c->cap) { /* size unknown (a pipe): grow */
      int64_t ncap = c->cap < L / 2 ? 2 * c->cap : L;
      if (ncap < 16) ncap = 16 < L ? 16 : L;
      if (!coo_reserve(c, ncap, values))
        return fail_at(r, line - 1, CGM_ERUNTIME, "out of memory for %lld entries",
                       (long long)ncap);
      ri = c->ri;
      ci = c->ci;
      vv = c->v;
    }
    ri[k] = (int32_t)(i - 1);
    ci[k] = (int32_t)(j - 1);
    if (values) vv[k] = v;
    k++;
  }
  c->n = k;
  *ndiag = nd;
  r->p = p;
  r->line = line;

  /* only blank lines and comments may follow */
  return expect_end(r, "entries", L, h->size_line, true);
}

cgm_status cgm_mm_read_csr(const char *path, cgm_csr *A, cgm_mm_info *info, cgm_error *err) {
  if (A) memset(A, 0, sizeof *A);
  if (info) memset(info, 0, sizeof *info);
  if (!A) return cgm_fail(err, CGM_EINPUT, "cgm_mm_read_csr: no output matrix");
  mmr r;
  cgm_status st = mmr_open(&r, path, err);
  if (st) return st;
  mm_header h;
  coo c = {0};
  int64_t ndiag = 0, ndup = 0;
  st = read_header(&r, &h, false);
  if (!st && info) {
    info->field = h.field;
    info->symmetry = h.sym;
    info->entries_in_file = h.entries;
  }
  if (!st) st = read_coordinate(&r, &h, &c, &ndiag);
  if (!st && r.fsize < 0) st = check_rows(&r, &h, false, r.nread);
  if (!st && h.sym == CGM_MM_SYMMETRIC) {
    /* expand: the mirror of every off-diagonal entry */
    int64_t off = c.n - ndiag, n = c.n;
    if (!coo_reserve(&c, n + off, h.field != CGM_MM_PATTERN)) {
      st = cgm_fail(err, CGM_ERUNTIME, "%s: out of memory expanding %lld symmetric entries", path,
                    (long long)n);
    } else {
      int64_t o = n;
      for (int64_t k = 0; k < n; k++) {
        if (c.ri[k] == c.ci[k]) continue;
        c.ri[o] = c.ci[k];
        c.ci[o] = c.ri[k];
        if (c.v) c.v[o] = c.v[k];
        o++;
      }
      c.n = o;
    }
  }
  if (!st) {
    st = cgm_csr_from_coo((int32_t)h.rows, (int32_t)h.cols, c.n, c.ri, c.ci, c.v, A, &ndup, err);
    if (st) cgm_error_prefix(err, "%s: ", path);
  }
  /* Finite values can sum to +-Inf ("1 1 1e308" twice): refused like an Inf
   * in the file (fuzz_mm's finiteness check; docs/reliability.md). */
  if (!st && ndup > 0)
    for (int32_t i = 0; i < A->nrows && !st; i++)
      for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        if (!isfinite(A->val[k])) {
          st = cgm_fail(err, CGM_EINPUT,
                        "%s: duplicate entries of (%d,%d) sum to %s, beyond the double range: "
                        "only finite values are accepted",
                        path, i + 1, A->colidx[k] + 1, A->val[k] > 0 ? "+Inf" : "-Inf");
          break;
        }
  coo_free(&c);
  if (!st && info) {
    if (h.sym == CGM_MM_SYMMETRIC) {
      /* report duplicates as lines of the file, not as expanded entries:
       * distinct diagonal d, distinct off-diagonal pairs o = (nnz - d) / 2 */
      int64_t d = 0;
      for (int32_t i = 0; i < A->nrows; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
          if (A->colidx[k] == i) {
            d++;
            break;
          }
      ndup = h.entries - d - (A->nnz - d) / 2;
    }
    info->duplicates_summed = ndup;
  }
  if (info) info->file_bytes = r.nread;
  mmr_close(&r);
  if (st) cgm_csr_free(A);
  return st;
}

/* Array values, one per line, column-major (one column here), into *vp
 * (malloc'ed here: h->entries values for a regular file, whose size bounds
 * them; grown as values arrive from a pipe). */
static cgm_status read_array(mmr *r, const mm_header *h, double **vp) {
  char tb[96];
  const int64_t L = h->entries;
  int64_t cap = r->fsize >= 0 || L < (1 << 16) ? L : (1 << 16);
  double *v = malloc((size_t)cap * sizeof *v);
  if (!v)
    return fail_at(r, h->size_line, CGM_ERUNTIME, "out of memory for %lld values", (long long)cap);
  *vp = v;
  int64_t k = 0;
  while (k < L) {
    char *ls, *le;
    int64_t ln;
    int f = next_line(r, &ls, &le, &ln);
    if (f < 0) return r->st;
    if (f == 0)
      return fail_at(r, r->line, CGM_EINPUT,
                     "unexpected end of file after %lld of the %lld values declared on "
                     "line %lld (truncated file?)",
                     (long long)k, (long long)L, (long long)h->size_line);
    const char *p = ls;
    while (p < le && mm_is_blank((unsigned char)*p)) p++;
    if (p == le || *p == '%') {
      int b = find_binary(ls, le);
      if (b >= 0) return fail_binary(r, ln, b);
      continue;
    }
    const char *ve;
    bool frac = false;
    double x = 0.0;
    cgm_num_result nr = mm_parse_number(p, &ve, &x, &frac);
    if (nr == CGM_NUM_OK && (!mm_is_tok_end((unsigned char)*ve) || *ve == '\0')) nr = CGM_NUM_BAD;
    if (nr == CGM_NUM_NOMEM) return fail_at(r, ln, CGM_ERUNTIME, "out of memory parsing a value");
    if (nr == CGM_NUM_NONFINITE)
      return fail_line(r, ln, ls, "NaN/Inf value '%s' (%s)", tok_desc(tb, sizeof tb, p),
                       nonfinite_why(p));
    if (nr != CGM_NUM_OK)
      return fail_line(r, ln, ls, "bad value '%s': not a number", tok_desc(tb, sizeof tb, p));
    if (h->field == CGM_MM_INTEGER && frac)
      return fail_line(r, ln, ls, "non-integer value '%s' in an integer matrix",
                       tok_desc(tb, sizeof tb, p));
    while (mm_is_blank((unsigned char)*ve)) ve++;
    if (*ve != '\n')
      return fail_line(r, ln, ls, "extra token '%s' (an array file has one value per line)",
                       tok_desc(tb, sizeof tb, ve));
    if (k == cap) { /* size unknown (a pipe): grow */
      int64_t ncap = cap < L / 2 ? 2 * cap : L;
      double *nv = realloc(v, (size_t)ncap * sizeof *v);
      if (!nv)
        return fail_at(r, ln, CGM_ERUNTIME, "out of memory for %lld values", (long long)ncap);
      *vp = v = nv;
      cap = ncap;
    }
    v[k++] = x;
  }
  return expect_end(r, "values", L, h->size_line, false);
}

cgm_status cgm_mm_read_vector(const char *path, double **v, int32_t *n, cgm_error *err) {
  if (v) *v = NULL;
  if (n) *n = 0;
  if (!v || !n) return cgm_fail(err, CGM_EINPUT, "cgm_mm_read_vector: no output vector");
  mmr r;
  cgm_status st = mmr_open(&r, path, err);
  if (st) return st;
  mm_header h;
  double *x = NULL;
  st = read_header(&r, &h, true);
  if (!st && h.array) {
    st = read_array(&r, &h, &x);
  } else if (!st) {
    coo c = {0};
    int64_t nd = 0;
    st = read_coordinate(&r, &h, &c, &nd);
    if (!st && r.fsize < 0) st = check_rows(&r, &h, true, r.nread);
    if (!st) {
      x = calloc((size_t)h.rows, sizeof *x);
      if (!x)
        st = cgm_fail(err, CGM_ERUNTIME, "%s: out of memory for a vector of %lld values", path,
                      (long long)h.rows);
    }
    if (!st)
      for (int64_t k = 0; k < c.n; k++) x[c.ri[k]] += c.v ? c.v[k] : 1.0;
    for (int64_t i = 0; !st && i < h.rows; i++)
      if (!isfinite(x[i]))
        st = cgm_fail(err, CGM_EINPUT,
                      "%s: duplicate entries of row %lld sum to %s, beyond the double range: only "
                      "finite values are accepted",
                      path, (long long)i + 1, x[i] > 0 ? "+Inf" : "-Inf");
    coo_free(&c);
  }
  mmr_close(&r);
  if (st) {
    free(x);
    return st;
  }
  *v = x;
  *n = (int32_t)h.rows;
  return CGM_OK;
}
