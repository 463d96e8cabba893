/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Matrix Market reader (docs/matrix-market.md): the grammar, read in parallel with the result and
 * the first error ("path:LINE: message") of a line-by-line reader, whatever the threads. The header
 * is read line by line. The body is cut into chunks of whole lines, parsed by OpenMP tasks while
 * the source (sparse/mm_source.h) reads the next piece. A chunk knows neither its first line's
 * number nor the entries before it, so it counts its own and keeps its first error relative to
 * itself; walking the chunks in file order gives the global line numbers, the entry one too many
 * and the first entry of each triangle of a symmetric file. A piece is freed once walked and
 * reading stops once the verdict is known: a stream is never held whole. */
#define _POSIX_C_SOURCE 200809L

#include "cgmodel/sparse.h"
#include "sparse/mm_entries.h"
#include "sparse/mm_internal.h"
#include "sparse/mm_sorted.h"
#include "sparse/mm_source.h"

#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

/* Rows cost 8 bytes each (row pointer or vector) without costing a byte of the file: a size line
 * may declare at most max(MM_ROWS_FREE, MM_ROWS_PER_ENTRY x ENTRIES) rows, and the entries must
 * be there before a row is allocated, so a 40-byte size line cannot make the reader touch
 * gigabytes. */
#define MM_ROWS_FREE ((int64_t)1 << 16)
#define MM_ROWS_PER_ENTRY 16

/* Bytes below which a file is read on one thread unless the caller asks for more (mmr_start). */
#define MM_SMALL_FILE ((int64_t)256 << 10)

/* Chunks per piece at most: a tiny chunk_bytes gets larger chunks instead. */
#define MM_MAX_CHUNKS_PER_PIECE ((int64_t)1 << 16)

typedef struct {
  const char *path;
  cgm_error *err;
  mm_source src;
  bool vector;   /* the caller reads a vector (array allowed, general and one column required) */
  bool square;   /* the caller needs a square matrix */
  char *piece;   /* the source's piece the header reads */
  char *p, *end; /* the lines of it the header has not read */
  int64_t line;  /* number of the line at p */
  cgm_status st; /* the status of the last error reported */
} mmr;

typedef struct {
  bool array; /* format: array (dense) or coordinate */
  cgm_mm_field field;
  cgm_mm_symmetry sym;
  int64_t rows, cols, entries;
  int64_t size_line;
} mm_header;

static CGM_PRINTF(4, 5) cgm_status
    fail_at(mmr *r, int64_t line, cgm_status code, const char *fmt, ...) {
  char msg[CGM_ERRMSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  r->st = code;
  return cgm_fail(r->err, code, "%s:%lld: %s", r->path, (long long)line, msg);
}

/* First binary byte in [s, e) (one that never occurs in a text file), or -1. */
static int find_binary(const char *s, const char *e) {
  for (const unsigned char *c = (const unsigned char *)s; c < (const unsigned char *)e; c++)
    if (!*c || *c == 0x7f || (*c < 0x20 && !strchr("\t\n\r\v\f", *c))) return *c;
  return -1;
}

/* A token for a message: at most 32 characters (then "..."), unprintable bytes as \xNN. */
static const char *tok_copy(char *dst, size_t dn, const char *s, size_t n) {
  size_t o = 0;
  for (size_t k = 0; k < n && o + 8 < dn; k++) {
    if (k == 32) {
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

/* The token at s, up to a blank or the end of the line, for a message. */
static const char *tok_desc(char *dst, size_t dn, const char *s) {
  size_t n = 0;
  while (n <= 32 && !mm_is_tok_end((unsigned char)s[n])) n++;
  return tok_copy(dst, dn, s, n);
}

/* Why the value at s, parsed as nr (CGM_NUM_OK: not an integer), is
 * refused: the message to msg (VMSG bytes), the status returned. */
#define VMSG 256
static cgm_status value_fail(char *msg, const char *s, cgm_num_result nr) {
  char tb[96];
  tok_desc(tb, sizeof tb, s);
  const char *t = s + (*s == '+' || *s == '-'); /* a number beyond the range, or NaN/Inf */
  const bool big = mm_is_digit((unsigned char)*t) || *t == '.';
  if (nr == CGM_NUM_NOMEM)
    snprintf(msg, VMSG, "out of memory parsing a value");
  else if (nr == CGM_NUM_NONFINITE)
    snprintf(msg, VMSG, "NaN/Inf value '%s' (%sonly finite values are accepted)", tb,
             big ? "beyond the double range: " : "");
  else if (nr == CGM_NUM_OK)
    snprintf(msg, VMSG, "non-integer value '%s' in an integer matrix", tb);
  else
    snprintf(msg, VMSG, "bad value '%s': not a number", tb);
  return nr == CGM_NUM_NOMEM ? CGM_ERUNTIME : CGM_EINPUT;
}

static cgm_status fail_source(mmr *r, int64_t line) {
  return fail_at(r, line, r->src.fail_code, "%s", r->src.fail_msg);
}

/* A line of MM_LINE_MAX bytes or more, or holding binary bytes, is that
 * error whatever else it holds (a line-by-line reader meets it before
 * parsing the line): its message for [ls, le) to msg, and true. */
static bool line_defect(const char *ls, const char *le, char *msg, size_t mn) {
  int b;
  if ((size_t)(le - ls) >= MM_LINE_MAX) {
    b = find_binary(ls, ls + MM_LINE_MAX);
    if (b < 0) {
      snprintf(msg, mn, "line longer than %zu MiB: not a Matrix Market file", MM_LINE_MAX >> 20);
      return true;
    }
  } else {
    b = find_binary(ls, le);
    if (b < 0) return false;
  }
  snprintf(msg, mn, "binary data (byte 0x%02x): not a Matrix Market text file", b);
  return true;
}

/* Makes [p, end) hold a line: 1, 0 at the end, -1 after reporting an error. */
static int fill(mmr *r) {
  if (r->p < r->end) return 1;
  mm_source_drop(&r->src, r->piece); /* every line of it is read */
  r->piece = NULL;
  char *p;
  size_t n;
  int f = mm_source_next(&r->src, &p, &n);
  if (f < 0) {
    fail_source(r, r->line);
    return -1;
  }
  if (f == 0) return 0;
  r->piece = r->p = p;
  r->end = p + n;
  return 1;
}

/* The next header line [*ls, *le), *le at its '\n', and its number: 1, 0 at
 * the end, -1 after reporting an error (a defective line among them). */
static int next_line(mmr *r, char **ls, char **le, int64_t *lineno) {
  int f = fill(r);
  if (f <= 0) return f;
  *ls = r->p;
  *le = memchr(r->p, '\n', (size_t)(r->end - r->p));
  *lineno = r->line++;
  r->p = *le + 1;
  char msg[128];
  if (line_defect(*ls, *le, msg, sizeof msg)) {
    fail_at(r, *lineno, CGM_EINPUT, "%s", msg);
    return -1;
  }
  return 1;
}

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

/* The index of s in the NULL-terminated kws, or -1. */
static int kw_index(const char *s, size_t n, const char *const *kws) {
  for (int k = 0; kws[k]; k++)
    if (mm_kw_eq(s, n, kws[k])) return k;
  return -1;
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

/* The row-count bound of MM_ROWS_FREE and MM_ROWS_PER_ENTRY. */
static cgm_status check_rows(mmr *r, const mm_header *h, bool vector) {
  if (h->rows <= MM_ROWS_FREE ||
      (h->rows + MM_ROWS_PER_ENTRY - 1) / MM_ROWS_PER_ENTRY <= h->entries)
    return CGM_OK;
  if (vector)
    return fail_at(r, h->size_line, CGM_EINPUT,
                   "a vector of %lld values is too long for its %lld entries: at most %lld (or "
                   "%d per entry), as it would take %lld bytes",
                   (long long)h->rows, (long long)h->entries, (long long)MM_ROWS_FREE,
                   MM_ROWS_PER_ENTRY, (long long)h->rows * 8);
  return fail_at(r, h->size_line, CGM_EINPUT,
                 "matrix %lld x %lld has too many rows for its %lld entries: at most %lld (or %d "
                 "per entry), as the row pointer alone would take %lld bytes",
                 (long long)h->rows, (long long)h->cols, (long long)h->entries,
                 (long long)MM_ROWS_FREE, MM_ROWS_PER_ENTRY, (long long)(h->rows + 1) * 8);
}

/* The banner, and what a file's first bytes tell. */
static cgm_status read_banner(mmr *r, mm_header *h) {
  memset(h, 0, sizeof *h);
  char *ls = NULL, *le = NULL;
  int64_t ln = 1;
  if (r->src.kind == MM_SRC_GZIP && !cgm_mm_have_gzip())
    return fail_at(r, 1, CGM_EINPUT,
                   "compressed file (gzip): this build cannot read gzip files (built without "
                   "zlib); decompress it first");
  int f = fill(r);
  if (f < 0) return r->st;
  if (f == 0) return fail_at(r, 1, CGM_EINPUT, "empty file: expected a %%%%MatrixMarket banner");

  /* compressed files, recognised by their magic number (a gzip file's text
   * is checked again: gzip inside gzip) */
  const unsigned char *u = (const unsigned char *)r->p;
  size_t n = (size_t)(r->end - r->p);
  const char *comp = NULL;
  if (n >= 2 && u[0] == 0x1f && u[1] == 0x8b)
    comp = "gzip";
  else if (n >= 4 && u[0] == 0x28 && u[1] == 0xb5 && u[2] == 0x2f && u[3] == 0xfd)
    comp = "zstd";
  else if (n >= 6 && memcmp(u, "\3757zXZ", 6) == 0) /* \375: 0xfd */
    comp = "xz";
  else if (n >= 4 && memcmp(u, "BZh", 3) == 0 && u[3] >= '1' && u[3] <= '9')
    comp = "bzip2";
  else if (n >= 4 && memcmp(u, "PK\x03\x04", 4) == 0)
    comp = "zip";
  if (comp) return fail_at(r, 1, CGM_EINPUT, "compressed file (%s): decompress it first", comp);

  f = next_line(r, &ls, &le, &ln);
  if (f <= 0) return f < 0 ? r->st : fail_at(r, 1, CGM_EINPUT, "empty file");
  if (le - ls >= 3 && memcmp(ls, "\xef\xbb\xbf", 3) == 0) ls += 3; /* UTF-8 byte order mark */

  const char *p = ls, *t[5];
  size_t tl[5];
  int nt = 0;
  char tb[64];
  while (nt < 5 && next_tok(&p, le, &t[nt], &tl[nt])) nt++;
  if (nt == 0 || !mm_kw_eq(t[0], tl[0], "%%matrixmarket"))
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
  if (!mm_kw_eq(t[1], tl[1], "matrix"))
    return fail_at(r, ln, CGM_EINPUT, "unsupported object '%s': only 'matrix' is supported",
                   tok_copy(tb, sizeof tb, t[1], tl[1]));
  static const char *const kws[3][5] = {{"coordinate", "array"},
                                        {"real", "integer", "pattern", "complex"},
                                        {"general", "symmetric", "skew-symmetric", "hermitian"}};
  static const char *const kw_what[3][2] = {
      {"format", "coordinate or array"},
      {"field", "real, integer, pattern or complex"},
      {"symmetry", "general, symmetric, skew-symmetric or hermitian"}};
  int kw[3];
  for (int k = 0; k < 3; k++)
    if ((kw[k] = kw_index(t[k + 2], tl[k + 2], kws[k])) < 0)
      return fail_at(r, ln, CGM_EINPUT, "unknown %s '%s' (expected %s)", kw_what[k][0],
                     tok_copy(tb, sizeof tb, t[k + 2], tl[k + 2]), kw_what[k][1]);
  const int fmt = kw[0], fld = kw[1], sym = kw[2];
  h->array = fmt == 1;
  h->field = fld == 3 ? CGM_MM_REAL : (cgm_mm_field)fld; /* the enum's order */
  h->sym = sym == 1 ? CGM_MM_SYMMETRIC : CGM_MM_GENERAL;
  if (fld == 3)
    return fail_at(r, ln, CGM_EINPUT,
                   "complex matrices are not supported: CG needs a real SPD matrix");
  if (sym == 3)
    return fail_at(r, ln, CGM_EINPUT,
                   "hermitian matrices are not supported (hermitian is for complex matrices): CG "
                   "needs a real SPD matrix; a real symmetric matrix is 'symmetric'");
  if (sym == 2)
    return fail_at(r, ln, CGM_EINPUT,
                   "skew-symmetric matrices are not supported: CG needs a real SPD matrix");
  if (h->array && h->field == CGM_MM_PATTERN)
    return fail_at(r, ln, CGM_EINPUT,
                   "'array pattern' is not valid Matrix Market: pattern "
                   "needs the coordinate format");
  if (h->array && !r->vector)
    return fail_at(r, ln, CGM_EINPUT,
                   "dense 'array' format is not supported for matrices: use the coordinate format");
  if (r->vector && h->sym != CGM_MM_GENERAL)
    return fail_at(r, ln, CGM_EINPUT, "a vector must be 'general', not 'symmetric'");
  return CGM_OK;
}

/* Comments and blank lines, then the size line and what it may declare (a
 * matrix not square, when the caller needs one, refused before its columns). */
static cgm_status read_size_line(mmr *r, mm_header *h) {
  char *ls = NULL, *le = NULL, tb[64];
  const char *p, *xt;
  size_t xl;
  int64_t ln = 0;
  do { /* comments and blank lines */
    int f = next_line(r, &ls, &le, &ln);
    if (f < 0) return r->st;
    if (f == 0)
      return fail_at(r, r->line, CGM_EINPUT, "missing size line: expected '%s' after the banner",
                     h->array ? "ROWS COLS" : "ROWS COLS ENTRIES");
    for (p = ls; p < le && mm_is_blank((unsigned char)*p);) p++;
  } while (p == le || *p == '%');
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
    if (e >= 2) /* "negative N" or "N is too large" */
      return fail_at(r, ln, CGM_EINPUT, "bad size line: %s%s %s%s", e == 2 ? "negative " : "",
                     names[k], tok_copy(tb, sizeof tb, st[k], sl[k]),
                     e == 3 ? " is too large" : "");
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
  if (r->vector && h->cols != 1)
    return fail_at(r, ln, CGM_EINPUT,
                   "a vector must have one column (n x 1); this one is %lld x %lld",
                   (long long)h->rows, (long long)h->cols);
  if (r->square && h->rows != h->cols)
    return fail_at(r, ln, CGM_EINPUT, "matrix is %lld x %lld: CG needs a square matrix",
                   (long long)h->rows, (long long)h->cols);
  /* Never trust the count for an allocation: every entry needs a line of at
   * least "i j\n" (4 bytes), "i j v\n" (6) or, in an array, "v\n" (2). */
  if (r->src.fsize >= 0) {
    int64_t minline = h->array ? 2 : h->field == CGM_MM_PATTERN ? 4 : 6;
    int64_t fit = (r->src.fsize + 1) / minline;
    if (h->entries > fit)
      return fail_at(r, ln, CGM_EINPUT,
                     "the size line declares %lld entries, but a file of %lld bytes can hold at "
                     "most %lld (truncated file?)",
                     (long long)h->entries, (long long)r->src.fsize, (long long)fit);
  }
  return check_rows(r, h, r->vector);
}

/* Banner, comments, size line, reading the map under the guard (mmr_start: a fault is CGM_EINPUT,
 * which the caller words as a change of the file). */
static void header_run(void *r_, void *h) {
  mmr *r = r_;
  r->st = read_banner(r, h);
  if (!r->st) r->st = read_size_line(r, h);
}

/* ================================================== the body, in chunks === */

enum { CH_PENDING, CH_DONE, CH_ERROR, CH_SKIPPED };

/* A symmetric file's first entry below ([0]) or above ([1]) the diagonal:
 * its line (-1: none), its entry number, its indices. */
typedef struct {
  int64_t line, idx;
  uint64_t i, j;
} mm_tri;

typedef struct {
  int64_t idx;
  const char *s, *e; /* whole lines: e[-1] == '\n' */
  int state;
  int64_t nlines; /* lines parsed (up to the error) */
  int64_t ndata;  /* entries (values) parsed (up to the error) */
  /* the first error, its line counted from the chunk's first line (0) */
  int64_t err_line;
  bool err_data; /* on a data line (the entry number ndata); else a comment or blank line */
  cgm_status err_code;
  char *err_msg;  /* NULL when there was no memory for it */
  mm_tri tri[2];  /* line and entry number counted in the chunk */
  mm_bucket bk[]; /* one per block of rows */
} mm_chunk;

typedef struct {
  mm_source *src; /* its reads of a map run under the source's guard */
  bool array;     /* one value per line, else coordinate entries */
  bool values, integer, sym;
  uint64_t M, N;
  int nb, shift; /* row blocks of 2^shift rows */
  int threads;
  int64_t chunk_bytes; /* <= 0: from each piece's size */
  mm_chunk **ch;
  int64_t nch, cap;
  _Atomic int64_t first_err; /* the lowest chunk with an error: later ones need not run */
  bool src_failed;           /* the source failed after the last chunk */
  bool nomem;                /* no memory for a chunk: stopped after the last one */
} body;

/* An earlier chunk ended in an error: this one is skipped. */
static bool skipped(body *X, mm_chunk *ch) {
  if (atomic_load_explicit(&X->first_err, memory_order_relaxed) >= ch->idx) return false;
  ch->state = CH_SKIPPED;
  return true;
}

/* The chunk ends in an error: the chunks after it need not run. */
static void note_error(body *X, mm_chunk *ch) {
  ch->state = CH_ERROR;
  int64_t cur = atomic_load(&X->first_err);
  while (ch->idx < cur && !atomic_compare_exchange_weak(&X->first_err, &cur, ch->idx)) {
  }
}

/* Records the chunk's first error, on its line `line` at ls: as line_defect
 * words it when the line has a defect and code is CGM_EINPUT. */
static CGM_PRINTF(7, 8) void chunk_fail(body *X, mm_chunk *ch, int64_t line, const char *ls,
                                        bool data, cgm_status code, const char *fmt, ...) {
  char msg[CGM_ERRMSG_MAX];
  const char *le = memchr(ls, '\n', (size_t)(ch->e - ls));
  if (code != CGM_EINPUT || !line_defect(ls, le, msg, sizeof msg)) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
  }
  ch->err_msg = strdup(msg);
  ch->err_line = line;
  ch->err_data = data;
  ch->err_code = code;
  note_error(X, ch);
}

/* Entry lines "ROW COL [VALUE]" into the chunk's buckets, with a line-by-line reader's checks; what
 * depends on other chunks (the entry count, both triangles) is left to tally_chunks(). */
static void parse_coordinate(void *X_, void *ch_) {
  body *X = X_;
  mm_chunk *ch = ch_;
  const bool values = X->values, integer = X->integer, sym = X->sym;
  const bool late_mirror = X->nb == 1; /* the assembly adds the mirrors */
  const uint64_t M = X->M, N = X->N;
  const int shift = X->shift;
  mm_bucket *const bk = ch->bk;
  const char *p = ch->s, *const end = ch->e;
  int64_t line = 0, k = 0;
  char tb[96], vm[VMSG];
#define FAIL(data, code, ...)                                                                      \
  do {                                                                                             \
    ch->nlines = line;                                                                             \
    ch->ndata = k;                                                                                 \
    chunk_fail(X, ch, line, ls, data, code, __VA_ARGS__);                                          \
    return;                                                                                        \
  } while (0)
  while (p < end) {
    if ((line & 8191) == 0 && line && skipped(X, ch)) return;
    const char *ls = p;
    while (*p == ' ' || *p == '\t') p++;
    if (!mm_is_digit((unsigned char)*p)) { /* a comment, a blank line or a bad one */
      const char *le = memchr(p, '\n', (size_t)(end - p)), *q = p;
      while (q < le && mm_is_blank((unsigned char)*q)) q++;
      const bool data = q < le && *q != '%';
      /* chunk_fail words it: too long, or the binary byte */
      if ((size_t)(le - ls) >= MM_LINE_MAX || find_binary(p, le) >= 0)
        FAIL(data, CGM_EINPUT, "%s", "binary data");
      if (data)
        FAIL(true, CGM_EINPUT, "bad row index '%s' (expected an integer in 1..%llu)",
             tok_desc(tb, sizeof tb, q), (unsigned long long)M);
      p = le + 1;
      line++;
      continue;
    }
    const char *ts = p;
    uint64_t i = 0;
    while (mm_is_digit((unsigned char)*p)) i = i * 10 + (uint64_t)(*p++ - '0');
    if (p - ts > 19) i = UINT64_MAX;
    /* the end of the line or another blank: the column's check below says it is missing */
    if (*p != '\n' && !mm_is_blank((unsigned char)*p))
      FAIL(true, CGM_EINPUT, "bad row index '%s' (expected an integer in 1..%llu)",
           tok_desc(tb, sizeof tb, ts), (unsigned long long)M);
    while (*p == ' ' || *p == '\t') p++;
    ts = p;
    uint64_t j = 0;
    while (mm_is_digit((unsigned char)*p)) j = j * 10 + (uint64_t)(*p++ - '0');
    if (p - ts > 19) j = UINT64_MAX;
    if (p == ts || !mm_is_tok_end((unsigned char)*p) || *p == '\0') {
      if (*p == '\n' || mm_is_blank((unsigned char)*p))
        FAIL(true, CGM_EINPUT, "missing column index (expected '%s')",
             values ? "ROW COL VALUE" : "ROW COL");
      FAIL(true, CGM_EINPUT, "bad column index '%s' (expected an integer in 1..%llu)",
           tok_desc(tb, sizeof tb, ts), (unsigned long long)N);
    }
    if (i - 1 >= M)
      FAIL(true, CGM_EINPUT, "row index %s out of range 1..%llu",
           tok_desc(tb, sizeof tb, ls + strspn(ls, " \t")), (unsigned long long)M);
    if (j - 1 >= N)
      FAIL(true, CGM_EINPUT, "column index %s out of range 1..%llu", tok_desc(tb, sizeof tb, ts),
           (unsigned long long)N);
    double v = 1.0;
    if (values) {
      while (*p == ' ' || *p == '\t') p++;
      if (*p == '\n' || mm_is_blank((unsigned char)*p))
        FAIL(true, CGM_EINPUT, "missing value (expected 'ROW COL VALUE' in a %s matrix)",
             integer ? "integer" : "real");
      const char *vs = p, *ve;
      bool frac = false;
      cgm_num_result nr = mm_parse_number(vs, end, &ve, &v, &frac);
      if (nr == CGM_NUM_OK && (!mm_is_tok_end((unsigned char)*ve) || *ve == '\0')) nr = CGM_NUM_BAD;
      if (nr != CGM_NUM_OK || (integer && frac)) FAIL(true, value_fail(vm, vs, nr), "%s", vm);
      p = ve;
    }
    while (mm_is_blank((unsigned char)*p)) p++;
    if (*p != '\n') {
      if (!values)
        FAIL(true, CGM_EINPUT, "value '%s' present in a pattern matrix (expected 'ROW COL')",
             tok_desc(tb, sizeof tb, p));
      FAIL(true, CGM_EINPUT, "extra token '%s' after the entry (expected 'ROW COL VALUE')",
           tok_desc(tb, sizeof tb, p));
    }
    if ((size_t)(p - ls) >= MM_LINE_MAX) FAIL(true, CGM_EINPUT, "%s", "line too long");
    p++;
    const bool mirror = sym && i != j;
    if (mirror && ch->tri[i < j].line < 0) ch->tri[i < j] = (mm_tri){line, k, i, j};
    const int32_t r0 = (int32_t)(i - 1), c0 = (int32_t)(j - 1);
    if (!mm_bucket_push(&bk[r0 >> shift], r0, c0, v) ||
        (mirror && !late_mirror && !mm_bucket_push(&bk[c0 >> shift], c0, r0, v)))
      FAIL(true, CGM_ERUNTIME, "out of memory after %lld entries", (long long)k);
    if (mirror && late_mirror) bk[0].nmirror++;
    line++;
    k++;
  }
  ch->nlines = line;
  ch->ndata = k;
  ch->state = CH_DONE;
}

/* Array values, one per line. */
static void parse_array(void *X_, void *ch_) {
  body *X = X_;
  mm_chunk *ch = ch_;
  const char *p = ch->s, *const end = ch->e;
  int64_t line = 0, k = 0;
  char tb[96], vm[VMSG];
  while (p < end) {
    if ((line & 8191) == 0 && line && skipped(X, ch)) return;
    const char *ls = p, *le = memchr(p, '\n', (size_t)(end - p));
    const char *q = ls;
    while (q < le && mm_is_blank((unsigned char)*q)) q++;
    bool data = q < le && *q != '%';
    if ((size_t)(le - ls) >= MM_LINE_MAX) FAIL(data, CGM_EINPUT, "%s", "line too long");
    if (!data) {
      if (find_binary(ls, le) >= 0) FAIL(false, CGM_EINPUT, "%s", "binary data");
      p = le + 1;
      line++;
      continue;
    }
    const char *ve;
    bool frac = false;
    double x = 0.0;
    cgm_num_result nr = mm_parse_number(q, end, &ve, &x, &frac);
    if (nr == CGM_NUM_OK && (!mm_is_tok_end((unsigned char)*ve) || *ve == '\0')) nr = CGM_NUM_BAD;
    if (nr != CGM_NUM_OK || (X->integer && frac)) FAIL(true, value_fail(vm, q, nr), "%s", vm);
    while (mm_is_blank((unsigned char)*ve)) ve++;
    if (*ve != '\n')
      FAIL(true, CGM_EINPUT, "extra token '%s' (an array file has one value per line)",
           tok_desc(tb, sizeof tb, ve));
    if (!mm_bucket_push(&ch->bk[0], 0, 0, x))
      FAIL(true, CGM_ERUNTIME, "out of memory after %lld values", (long long)k);
    p = le + 1;
    line++;
    k++;
  }
#undef FAIL
  ch->nlines = line;
  ch->ndata = k;
  ch->state = CH_DONE;
}

/* Parses a chunk under the source's guard: a fault (the file shrank) ends
 * it as an error, which the reader words as a change of the file. */
static void parse_chunk(body *X, mm_chunk *ch) {
  if (skipped(X, ch)) return;
  if (!mm_source_guard(X->src, X->array ? parse_array : parse_coordinate, X, ch)) {
    ch->err_code = CGM_EINPUT;
    note_error(X, ch);
  }
}

static void chunk_free(mm_chunk *ch, int nb) {
  if (!ch) return;
  for (int b = 0; b < nb; b++) mm_bucket_free(&ch->bk[b]);
  free(ch->err_msg);
  free(ch);
}

/* On all the parser's threads: the buckets of a large file are many small
 * pages, and one thread freeing them took 0.04 s of a 0.29 s read on 16. */
static void body_free(body *X) {
#pragma omp parallel for num_threads(X->threads > 1 ? X->threads : 1)                              \
    schedule(dynamic, 1) if (X->nch > 1)
  for (int64_t c = 0; c < X->nch; c++) chunk_free(X->ch[c], X->nb);
  free(X->ch); /* X is not read again */
}

/* Appends the whole lines [s, e) as chunks of about chunk_bytes (a line at least), the first new
 * one at *first. False when out of memory or when the text faulted; the chunks made so far stay. */
static bool add_chunks(body *X, const char *s, const char *e, int64_t *first) {
  *first = X->nch;
  int64_t len = e - s, cb = X->chunk_bytes;
  if (cb <= 0) /* a few chunks per thread, for balance; one when alone */
    cb = X->threads <= 1 ? len : len / (4 * (int64_t)X->threads);
  if (cb < len / MM_MAX_CHUNKS_PER_PIECE + 1) cb = len / MM_MAX_CHUNKS_PER_PIECE + 1;
  if (X->chunk_bytes <= 0 && X->threads > 1 && cb < ((int64_t)256 << 10)) cb = (int64_t)256 << 10;
  while (s < e) {
    const char *ce = mm_source_line_end(X->src, e - s > cb ? s + cb : e, e);
    if (!ce) return false;
    if (X->nch == X->cap) {
      int64_t ncap = X->cap ? 2 * X->cap : 64;
      mm_chunk **nc = realloc(X->ch, (size_t)ncap * sizeof *nc);
      if (!nc) return false;
      X->ch = nc;
      X->cap = ncap;
    }
    mm_chunk *ch = calloc(1, sizeof *ch + (size_t)X->nb * sizeof(mm_bucket));
    if (!ch) return false;
    ch->idx = X->nch;
    ch->s = s;
    ch->e = ce;
    ch->tri[0].line = ch->tri[1].line = -1;
    X->ch[X->nch++] = ch;
    s = ce;
  }
  return true;
}

/* The verdict on the chunks parsed so far, walked in file order: the first
 * error a line-by-line reader would meet, once it is known. */
typedef struct {
  const mm_header *h;
  int64_t next; /* the next chunk to walk */
  int64_t D, G; /* the entries before it, the line it starts at */
  bool have;    /* the verdict is known: vline, vcode, vmsg */
  int64_t vline;
  cgm_status vcode;
  char vmsg[CGM_ERRMSG_MAX];
  mm_tri tri[2]; /* lines counted in the file */
} tally;

/* The chunk being walked holds the entry one too many (after the L declared, only comments may
 * follow): its line in the chunk to T->vline, its message to T->vmsg. */
static void locate_extra(void *X_, void *T_) {
  const body *X = X_;
  tally *T = T_;
  const mm_chunk *ch = X->ch[T->next];
  const int64_t L = T->h->entries, t = L - T->D;
  const char *p = ch->s, *ls, *le, *q;
  int64_t line = 0, d = 0;
  for (;; p = le + 1, line++) {
    ls = p;
    le = memchr(p, '\n', (size_t)(ch->e - p));
    q = ls;
    while (q < le && mm_is_blank((unsigned char)*q)) q++;
    if (q < le && *q != '%' && d++ == t) break;
  }
  T->vline = line;
  if (line_defect(ls, le, T->vmsg, sizeof T->vmsg)) return;
  char tb[96];
  if (X->array)
    snprintf(T->vmsg, sizeof T->vmsg, "more values than the %lld declared on line %lld",
             (long long)L, (long long)T->h->size_line);
  else
    snprintf(T->vmsg, sizeof T->vmsg,
             "more entries than the %lld declared on line %lld (found '%s')", (long long)L,
             (long long)T->h->size_line, tok_desc(tb, sizeof tb, q));
}

/* A symmetric file with entries on both sides: a line-by-line reader stops
 * at the first entry that shows the mix, unless an error came before. */
static void both_triangles(tally *T) {
  static const char *const side[2] = {"below", "above"};
  const int l = T->tri[0].line >= T->tri[1].line ? 0 : 1; /* the later one */
  const mm_tri *a = &T->tri[l], *b = &T->tri[!l];
  if (T->have && a->line >= T->vline) return;
  T->vline = a->line, T->vcode = CGM_EINPUT, T->have = true;
  snprintf(T->vmsg, sizeof T->vmsg,
           "symmetric file has entries in both triangles: (%llu,%llu) is %s the diagonal, but "
           "line %lld has (%llu,%llu) %s it; a symmetric file stores one triangle only (both "
           "would be counted twice)",
           (unsigned long long)a->i, (unsigned long long)a->j, side[l], (long long)b->line,
           (unsigned long long)b->i, (unsigned long long)b->j, side[!l]);
}

/* Walks the chunks parsed since the last call. True once the verdict is
 * known: nothing after it can matter. */
static bool tally_chunks(body *X, tally *T) {
  const int64_t L = T->h->entries;
  for (; T->next < X->nch && !T->have; T->next++) {
    const mm_chunk *ch = X->ch[T->next];
    if (ch->state != CH_DONE && ch->state != CH_ERROR) { /* only after an error: never here */
      T->vline = T->G, T->vcode = CGM_ERUNTIME, T->have = true;
      snprintf(T->vmsg, sizeof T->vmsg, "internal error: chunk %lld was not parsed",
               (long long)T->next);
      break;
    }
    for (int t = 0; t < 2; t++)
      if (T->tri[t].line < 0 && ch->tri[t].line >= 0 && T->D + ch->tri[t].idx < L)
        T->tri[t] = ch->tri[t], T->tri[t].line += T->G;
    bool extra =
        ch->state == CH_ERROR && ch->err_data ? T->D + ch->ndata >= L : T->D + ch->ndata > L;
    if (extra) {
      if (!mm_source_guard(X->src, locate_extra, X, T)) return T->have = true;
      T->vline += T->G, T->vcode = CGM_EINPUT, T->have = true;
    } else if (ch->state == CH_ERROR) {
      T->vline = T->G + ch->err_line, T->vcode = ch->err_code, T->have = true;
      snprintf(T->vmsg, sizeof T->vmsg, "%s", ch->err_msg ? ch->err_msg : "out of memory");
    } else {
      T->D += ch->ndata;
      T->G += ch->nlines;
    }
    if (T->tri[0].line >= 0 && T->tri[1].line >= 0) both_triangles(T);
  }
  return T->have;
}

/* Parses the rest of the header's piece, then every piece of the source, each walked (tally_chunks)
 * and dropped once parsed, until the verdict is known: a stream is held a piece or two at a time.
 * The chunks run as OpenMP tasks while this thread fetches the next piece. */
static void parse_body(mmr *r, body *X, tally *T) {
  char *piece = r->piece, *s = r->p, *e = r->end;
  r->p = r->end;
  r->piece = NULL;
#pragma omp parallel num_threads(X->threads) if (X->threads > 1)
#pragma omp single
  {
    for (;;) {
      int64_t first = X->nch;
      if (s < e && !add_chunks(X, s, e, &first)) X->nomem = true;
      for (int64_t c = first; c < X->nch; c++) {
        mm_chunk *ch = X->ch[c];
#pragma omp task firstprivate(ch) default(shared)
        parse_chunk(X, ch);
      }
      /* the next piece while the tasks parse this one */
      char *ns = NULL;
      size_t n = 0;
      int f =
          X->nomem || atomic_load(&X->first_err) < INT64_MAX ? 0 : mm_source_next(&r->src, &ns, &n);
#pragma omp taskwait
      bool done = tally_chunks(X, T) || X->nomem;
      mm_source_drop(&r->src, piece);
      X->src_failed = f < 0;
      if (done || f <= 0) break;
      piece = s = ns;
      e = ns + n;
    }
  } /* the barrier: every task has run */
}

/* The verdict once the body is parsed: the first error of the text, or
 * CGM_OK with exactly the entries declared. */
static cgm_status tally_end(mmr *r, const body *X, const tally *T) {
  if (T->have) return fail_at(r, T->vline, T->vcode, "%s", T->vmsg);
  if (X->nomem) return fail_at(r, T->G, CGM_ERUNTIME, "out of memory for the parser's chunks");
  if (X->src_failed) return fail_source(r, T->G);
  if (T->D < T->h->entries)
    return fail_at(r, T->G, CGM_EINPUT,
                   "unexpected end of file after %lld of the %lld %s declared on line %lld "
                   "(truncated file?)",
                   (long long)T->D, (long long)T->h->entries, X->array ? "values" : "entries",
                   (long long)T->h->size_line);
  return CGM_OK;
}

/* Sets up X for the body of h and parses it. */
static cgm_status read_body(mmr *r, const mm_header *h, const cgm_mm_read_opts *o, body *X) {
  memset(X, 0, sizeof *X);
  atomic_init(&X->first_err, INT64_MAX);
  X->src = &r->src;
  X->array = h->array;
  X->values = h->field != CGM_MM_PATTERN;
  X->integer = h->field == CGM_MM_INTEGER;
  X->sym = h->sym == CGM_MM_SYMMETRIC;
  X->M = (uint64_t)h->rows;
  X->N = (uint64_t)h->cols;
  X->threads = o->threads;
  X->chunk_bytes = o->chunk_bytes;
  /* row blocks: a few per thread for the assembly's balance; an array's values all go to one */
  int64_t want = h->array || X->threads <= 1 ? 1 : 4 * (int64_t)X->threads;
  while ((((h->rows - 1) >> X->shift) + 1) > want) X->shift++;
  X->nb = (int)(((h->rows - 1) >> X->shift) + 1);
  tally T = {.h = h, .G = r->line, .tri = {{.line = -1}, {.line = -1}}};
  parse_body(r, X, &T);
  return tally_end(r, X, &T);
}

/* The chunks' buckets in file order, for the assembly. */
static mm_bucket **body_buckets(const body *X) {
  mm_bucket **bk = malloc((size_t)(X->nch > 0 ? X->nch : 1) * sizeof *bk);
  if (bk)
    for (int64_t c = 0; c < X->nch; c++) bk[c] = X->ch[c]->bk;
  return bk;
}

/* ============================================================ the API === */

cgm_mm_read_opts cgm_mm_read_opts_default(void) {
  return (cgm_mm_read_opts){0, 0, 0, false, false};
}

void (*mm_test_after_header)(const char *path);

/* A file that changed while it was read (a truncation that faulted, or its
 * size or times moved) gets that verdict, whatever the parse made of it. */
static cgm_status check_changed(mmr *r, cgm_status st) {
  if (!mm_source_changed(&r->src)) return st;
  return cgm_fail(r->err, CGM_EINPUT, "%s: the file changed while it was read", r->path);
}

/* Resolves the options to *o, opens path and reads its header. */
static cgm_status mmr_start(mmr *r, const char *path, const cgm_mm_read_opts *opts, bool vector,
                            cgm_mm_read_opts *o, mm_header *h, cgm_error *err) {
  *o = opts ? *opts : cgm_mm_read_opts_default();
  if (o->threads <= 0) o->threads = omp_get_max_threads();
  if (o->threads > 1024) o->threads = 1024; /* more is a mistake, not a machine */
  memset(r, 0, sizeof *r);
  r->path = path ? path : "(null)";
  r->err = err;
  r->line = 1;
  r->vector = vector;
  r->square = o->square && !vector;
  size_t piece = o->stream_bytes > 0 ? (size_t)o->stream_bytes : 0;
  cgm_status st = mm_source_open(&r->src, path, piece, err);
  /* A small file on OpenMP's default team: one thread. Its whole parse is about a millisecond,
   * and waking a team can cost more on a busy machine (a 100-byte file: 30 us a read on one
   * thread, 1.7 ms on 2 of 2 busy cores, 2026-12-02); a count the caller sets is kept. */
  if (!st && !(opts && opts->threads > 0) && r->src.fsize >= 0 && r->src.fsize < MM_SMALL_FILE)
    o->threads = 1;
  if (!st) st = mm_source_guard(&r->src, header_run, r, h) ? r->st : CGM_EINPUT;
  if (!st && mm_test_after_header) mm_test_after_header(r->path);
  return st;
}

cgm_status cgm_mm_read_csr_opts(const char *path, const cgm_mm_read_opts *opts, cgm_csr *A,
                                cgm_mm_info *info, cgm_error *err) {
  if (A) memset(A, 0, sizeof *A);
  if (info) memset(info, 0, sizeof *info);
  if (!A) return cgm_fail(err, CGM_EINPUT, "cgm_mm_read_csr: no output matrix");
  cgm_mm_read_opts o;
  mmr r;
  mm_header h;
  body X = {0};
  cgm_status st = mmr_start(&r, path, opts, false, &o, &h, err);
  if (!st && info) {
    info->field = h.field;
    info->symmetry = h.sym;
    info->entries_in_file = h.entries;
  }
  /* A mapped general file that ends with its newline: the sorted path
   * first (sparse/mm_sorted.h), the general one when the body is not such */
  bool sorted = false;
  if (!st && !h.array && h.sym == CGM_MM_GENERAL && !o.general_only && r.src.kind == MM_SRC_MAP &&
      r.src.map_piece_len == r.src.map_len && r.end == r.src.map + r.src.map_len) {
    const mm_sorted_shape sh = {h.rows, h.cols, h.entries, h.field != CGM_MM_PATTERN,
                                h.field == CGM_MM_INTEGER};
    sorted = mm_sorted_csr(&r.src, r.p, r.end, &sh, o.threads, A) == 1;
  }
  if (!st && !sorted) st = read_body(&r, &h, &o, &X);
  st = check_changed(&r, st);
  mm_source_release_text(&r.src); /* before the CSR is allocated */
  mm_csr_stats cs = {0};
  if (!st && !sorted) {
    mm_bucket **bk = body_buckets(&X);
    mm_entries E = {bk, X.nch, X.nb, X.shift, X.sym && X.nb == 1};
    st = bk ? mm_assemble_csr(&E, (int32_t)h.rows, (int32_t)h.cols, o.threads, A, &cs)
            : CGM_ERUNTIME;
    free(bk);
    if (st)
      cgm_fail(err, st, "%s: out of memory for a %lld x %lld matrix with its entries", r.path,
               (long long)h.rows, (long long)h.cols);
  }
  body_free(&X);
  /* Finite values can sum to +-Inf ("1 1 1e308" twice): refused like an Inf
   * in the file (fuzz_mm's finiteness check; docs/reliability.md). */
  if (!st && cs.nonfinite)
    st = cgm_fail(err, CGM_EINPUT,
                  "%s: duplicate entries of (%d,%d) sum to %s, beyond the double range: only "
                  "finite values are accepted",
                  r.path, cs.bad_i + 1, cs.bad_j + 1, cs.bad_neg ? "-Inf" : "+Inf");
  if (!st && info) {
    /* a symmetric file's duplicates as lines of the file, not as expanded
     * entries: distinct diagonal d, distinct off-diagonal pairs (nnz - d) / 2 */
    info->duplicates_summed = h.sym == CGM_MM_SYMMETRIC
                                  ? h.entries - cs.diag_rows - (A->nnz - cs.diag_rows) / 2
                                  : cs.dups;
    info->sorted = sorted;
  }
  if (info) info->file_bytes = r.src.nread;
  mm_source_close(&r.src);
  if (st) cgm_csr_free(A);
  return st;
}

cgm_status cgm_mm_read_csr(const char *path, cgm_csr *A, cgm_mm_info *info, cgm_error *err) {
  return cgm_mm_read_csr_opts(path, NULL, A, info, err);
}

cgm_status cgm_mm_read_vector_opts(const char *path, const cgm_mm_read_opts *opts, double **v,
                                   int32_t *n, cgm_error *err) {
  if (v) *v = NULL;
  if (n) *n = 0;
  if (!v || !n) return cgm_fail(err, CGM_EINPUT, "cgm_mm_read_vector: no output vector");
  cgm_mm_read_opts o;
  mmr r;
  mm_header h;
  body X = {0};
  double *x = NULL;
  cgm_status st = mmr_start(&r, path, opts, true, &o, &h, err);
  if (!st) st = read_body(&r, &h, &o, &X);
  st = check_changed(&r, st);
  mm_source_release_text(&r.src);
  if (!st) {
    x = h.array ? malloc((size_t)h.rows * sizeof *x) : calloc((size_t)h.rows, sizeof *x);
    mm_bucket **bk = x ? body_buckets(&X) : NULL;
    if (!bk)
      st = cgm_fail(err, CGM_ERUNTIME, "%s: out of memory for a vector of %lld values", r.path,
                    (long long)h.rows);
    mm_entries E = {bk, X.nch, X.nb, X.shift, false};
    if (!st && h.array) mm_assemble_values(&E, x);
    if (!st && !h.array) mm_assemble_dense(&E, o.threads, x);
    free(bk);
  }
  body_free(&X);
  for (int64_t i = 0; !st && !h.array && i < h.rows; i++)
    if (!isfinite(x[i]))
      st = cgm_fail(err, CGM_EINPUT,
                    "%s: duplicate entries of row %lld sum to %s, beyond the double range: only "
                    "finite values are accepted",
                    r.path, (long long)i + 1, x[i] > 0 ? "+Inf" : "-Inf");
  mm_source_close(&r.src);
  if (st) free(x);
  *v = st ? NULL : x;
  *n = st ? 0 : (int32_t)h.rows;
  return st;
}

cgm_status cgm_mm_read_vector(const char *path, double **v, int32_t *n, cgm_error *err) {
  return cgm_mm_read_vector_opts(path, NULL, v, n, err);
}
