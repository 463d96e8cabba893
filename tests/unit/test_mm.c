/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Matrix Market reader and writer: the bundled SuiteSparse matrices against
 * an independent fscanf/strtod reader and MANIFEST.tsv, the float parser
 * against strtod (bit for bit), write/read round trips, every malformed
 * input of tests/data/mm (status, file name and line in the message),
 * duplicates, symmetric expansion, pipes, gzip and a mutation fuzz.
 *
 * Every read of a fixture is repeated with the parallel reader's settings
 * of read_configs (one thread, several, chunks of one line, tiny pieces of
 * a stream): the matrix must be bit-identical and an error message the same
 * string, line number included. */
#define _POSIX_C_SOURCE 200809L

#include "cgmodel/sparse.h"
#include "gzip_stored.h"
#include "sparse/mm_internal.h"
#include "sparse/rng.h"
#include "test_util.h"

#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmpdir[256];

static int tolower_ascii_helper(int c) {
  return c >= 'A' && c <= 'Z' ? c + 32 : c;
}
static bool is_digit_helper(char c) {
  return c >= '0' && c <= '9';
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static bool same_bits(double a, double b) {
  uint64_t x, y;
  memcpy(&x, &a, sizeof x);
  memcpy(&y, &b, sizeof y);
  return x == y;
}

static void tmp_path(char *buf, size_t n, const char *name) {
  snprintf(buf, n, "%s/%s", tmpdir, name);
}

static bool write_text(const char *path, const char *text, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(text, 1, len, f) == len;
  return fclose(f) == 0 && ok;
}

/* The reader's settings every fixture is read with, beside the default. */
static const struct {
  const char *name;
  cgm_mm_read_opts o;
} read_configs[] = {
    {"1 thread", {1, 0, 0}},
    {"3 threads", {3, 0, 0}},
    {"1 thread, 1-byte chunks", {1, 1, 0}},
    {"4 threads, 7-byte chunks", {4, 7, 0}},
    {"2 threads, 64-byte chunks, 5-byte stream pieces", {2, 64, 5}},
    {"8 threads, 1-byte chunks, 1-byte stream pieces", {8, 1, 1}},
};
#define N_CONFIGS ((int)(sizeof read_configs / sizeof *read_configs))

/* cfg -1: the defaults (the plain calls); else read_configs[cfg]. */
static cgm_status read_csr_cfg(const char *path, int cfg, cgm_csr *A, cgm_mm_info *info,
                               cgm_error *err) {
  if (cfg < 0) return cgm_mm_read_csr(path, A, info, err);
  return cgm_mm_read_csr_opts(path, &read_configs[cfg].o, A, info, err);
}

static cgm_status read_vector_cfg(const char *path, int cfg, double **v, int32_t *n,
                                  cgm_error *err) {
  if (cfg < 0) return cgm_mm_read_vector(path, v, n, err);
  return cgm_mm_read_vector_opts(path, &read_configs[cfg].o, v, n, err);
}

/* A random finite double: all bit patterns, with subnormals, huge values,
 * signed zeros and small integers mixed in. */
static double random_value(void) {
  switch (splitmix64(&rng_state) % 8) {
  case 0:
    return 0.0;
  case 1:
    return -0.0;
  case 2:
    return (double)((int64_t)(splitmix64(&rng_state) % 2001) - 1000);
  case 3: { /* subnormal */
    uint64_t b =
        (splitmix64(&rng_state) & ((1ull << 52) - 1)) | (splitmix64(&rng_state) & (1ull << 63));
    if (!(b & ((1ull << 52) - 1))) b |= 1;
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
  }
  case 4:
    return (splitmix64(&rng_state) & 1 ? -1 : 1) * 1.7976931348623157e308 *
           (0.5 + 0.5 * unif01(&rng_state));
  case 5:
    return (unif01(&rng_state) - 0.5) * 10.0;
  default: {
    for (;;) {
      uint64_t b = splitmix64(&rng_state);
      double x;
      memcpy(&x, &b, sizeof x);
      if (isfinite(x)) return x;
    }
  }
  }
}

/* ------------------------------------------------------ float parser --- */

static long n_parse_checked = 0;

/* cgm_mm_parse_double must agree with strtod bit for bit; a value strtod
 * overflows to Inf must be reported as non-finite. */
static void check_parse(const char *s) {
  char *e;
  double ref = strtod(s, &e);
  double got = 12345.0;
  cgm_num_result r = cgm_mm_parse_double(s, strlen(s), &got);
  n_parse_checked++;
  if (*e != '\0' || e == s) {
    CHECK_MSG(r != CGM_NUM_OK, "'%s' is not a whole number for strtod but parsed", s);
    return;
  }
  if (!isfinite(ref)) {
    CHECK_MSG(r == CGM_NUM_NONFINITE, "'%s': strtod gives %g, parser status %d", s, ref, r);
    return;
  }
  CHECK_MSG(r == CGM_NUM_OK && same_bits(got, ref),
            "'%s': strtod %.17g (%a), parser %.17g (%a) status %d", s, ref, ref, got, got, r);
}

static void test_float_parser(void) {
  static const char *edge[] = {
      "0",
      "-0",
      "+0",
      "0.0",
      "-0.0",
      "00000.0000e5",
      "0e999",
      "-0e-999",
      "1",
      "-1",
      "+1.",
      ".5",
      "-.5",
      "1E+05",
      "1e-05",
      "1e5",
      "1.",
      "1e22",
      "1e23",
      "1e-22",
      "1e-23",
      "0.1",
      "0.2",
      "0.3",
      "1e308",
      "1.7976931348623157e308",
      "1.7976931348623158e308",
      "1.7976931348623159e308",
      "1e309",
      "-1e309",
      "4.9e-324",
      "5e-324",
      "2.4703282292062327e-324",
      "2.4703282292062328e-324",
      "2.470328229206232720882e-324",
      "1e-320",
      "1e-400",
      "-1e-400",
      "2.2250738585072011e-308",
      "2.2250738585072012e-308",
      "2.2250738585072014e-308",
      "4.4501477170144023e-308",
      "8.98846567431158e307",
      "9007199254740992",
      "9007199254740993",
      "9007199254740994",
      "9007199254740995",
      "9007199254740993.0000000001",
      "18446744073709551615",
      "18446744073709551616",
      "9999999999999999999",
      "1234567890123456789012345",
      "1.234567890123456789012345",
      "0.000000000000000000000000001",
      "123456789012345678901234567890e-30",
      "1.00000000000000011102230246251565404236316680908203125",
      "1.00000000000000011102230246251565404236316680908203124",
      "1.00000000000000011102230246251565404236316680908203126",
      "3.0517578125e-05",
      "7.2057594037927933e16",
      "1448997445238699",
      "0.16683333333333334",
      "-0.16666666666666666",
      "6.0000000000000009",
      "1e-7",
      "123.456e-2",
      "0.000001",
      "1e0000000000000000000000001",
      "1e-0000000000000000000000001",
      "0.0000000000000000000000000000000000000001e40",
  };
  for (size_t k = 0; k < sizeof edge / sizeof *edge; k++) check_parse(edge[k]);

  static const char *bad[] = {"",     "-",     "+",     ".",     "-.",    "e5",   "1e",
                              "1e+",  "1e-",   "0x10",  "0x1p3", "1.5.2", "1..2", "--1",
                              "+-1",  "1e5.5", " 1",    "1 ",    "1,5",   "1f",   "info",
                              "nanx", "1d5",   "1e+-5", "e",     "..",    "1-",   "١"};
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    double v;
    cgm_num_result r = cgm_mm_parse_double(bad[k], strlen(bad[k]), &v);
    CHECK_MSG(r == CGM_NUM_BAD, "'%s' should be rejected as not a number (status %d)", bad[k], r);
  }
  static const char *nonfinite[] = {"nan",  "NaN",      "-nan",      "inf",   "-Inf",
                                    "+INF", "infinity", "-Infinity", "1e400", "-2e308"};
  for (size_t k = 0; k < sizeof nonfinite / sizeof *nonfinite; k++) {
    double v;
    cgm_num_result r = cgm_mm_parse_double(nonfinite[k], strlen(nonfinite[k]), &v);
    CHECK_MSG(r == CGM_NUM_NONFINITE, "'%s' should be non-finite (status %d)", nonfinite[k], r);
  }

  /* Random doubles in several printed forms. */
  static const char *fmts[] = {"%.17g", "%.15g", "%.16g", "%.6e", "%.16e", "%.20g", "%.3f"};
  char s[512];
  const int iters = 200000 / CGM_TEST_STRIDE;
  for (int it = 0; it < iters; it++) {
    double x;
    switch (it % 4) {
    case 0:
      x = random_value();
      break;
    case 1:
      x = unif01(&rng_state) * pow(10.0, (double)((int)(splitmix64(&rng_state) % 61) - 30));
      break;
    case 2:
      x = -unif01(&rng_state);
      break;
    default:
      x = (1.0 + 1e-3 * unif01(&rng_state)) * ((splitmix64(&rng_state) & 1) ? -1.0 : 6.0);
      break;
    }
    for (size_t f = 0; f < sizeof fmts / sizeof *fmts; f++) {
      if (f == 6 && fabs(x) > 1e30) continue; /* %.3f of 1e308: 300 digits, fine but slow */
      snprintf(s, sizeof s, fmts[f], x);
      check_parse(s);
    }
    /* random integers */
    snprintf(s, sizeof s, "%lld",
             (long long)(splitmix64(&rng_state) >> (splitmix64(&rng_state) % 64)) *
                 ((splitmix64(&rng_state) & 1) ? -1 : 1));
    check_parse(s);
  }
  /* Random decimal strings: 1..25 digits, a point anywhere, exponent
   * -350..350: hits every exponent of the Eisel-Lemire table. */
  for (int it = 0; it < 300000 / CGM_TEST_STRIDE; it++) {
    char *o = s;
    if (splitmix64(&rng_state) & 1) *o++ = (splitmix64(&rng_state) & 1) ? '-' : '+';
    int nd = 1 + (int)(splitmix64(&rng_state) % 25),
        point = (int)(splitmix64(&rng_state) % (unsigned)(nd + 2)) - 1;
    for (int k = 0; k < nd; k++) {
      if (k == point) *o++ = '.';
      *o++ = (char)('0' + splitmix64(&rng_state) % 10);
    }
    if (splitmix64(&rng_state) % 4)
      o += sprintf(o, "%c%d", (splitmix64(&rng_state) & 1) ? 'e' : 'E',
                   (int)(splitmix64(&rng_state) % 701) - 350);
    *o = '\0';
    check_parse(s);
  }
  /* Halfway cases: exact midpoints between neighbouring doubles, printed
   * with all their digits (%.40e keeps enough of them for small exponents)
   * and just above/below. */
  for (int it = 0; it < 20000 / CGM_TEST_STRIDE; it++) {
    double x = unif01(&rng_state) * pow(2.0, (double)((int)(splitmix64(&rng_state) % 200) - 100));
    double y = nextafter(x, INFINITY);
    long double mid = ((long double)x + (long double)y) / 2;
    snprintf(s, sizeof s, "%.40Le", mid); /* > 19 digits: strtod fallback */
    check_parse(s);
    snprintf(s, sizeof s, "%.18Le", mid); /* 19 digits: Eisel-Lemire near a tie */
    check_parse(s);
    snprintf(s, sizeof s, "%.16Le", mid);
    check_parse(s);
  }
  CHECK(n_parse_checked >= 1000000 / CGM_TEST_STRIDE);
  fprintf(stderr, "float parser: %ld strings compared with strtod\n", n_parse_checked);
}

static void test_format_double(void) {
  struct {
    double x;
    const char *s;
  } cases[] = {{0.1, "0.1"},
               {1.0 / 3, "0.3333333333333333"},
               {-1.0, "-1"},
               {6.0, "6"},
               {-0.0, "-0"},
               {0.0, "0"},
               {1e-320, "9.99988867182683e-321"},
               {2.0 / 3, "0.6666666666666666"},
               {1e15, "1e+15"},
               {123456789012345.0, "123456789012345"},
               {5e-324, "4.94065645841247e-324"},
               {1.7976931348623157e308, "1.7976931348623157e+308"}};
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    char b[32];
    cgm_mm_format_double(b, cases[k].x);
    CHECK_MSG(strcmp(b, cases[k].s) == 0, "format %.17g: got '%s', want '%s'", cases[k].x, b,
              cases[k].s);
  }
  /* The definition, checked literally: the first of %.15g, %.16g, %.17g
   * that strtod reads back to the same double. Value sets: all bit patterns;
   * log-uniform over the range of the printf-free path; short decimals
   * (17-digit expansions near ...000 / ...999); integers around 1e15..1e18
   * and odd multiples of 2^-q, whose exact expansions end in 5 (exact ties
   * at the 15th/16th/17th digit). */
  long checked = 0;
  for (int it = 0; it < 600000 / CGM_TEST_STRIDE; it++) {
    double x;
    char s[64];
    switch (it % 6) {
    case 0:
      x = random_value();
      break;
    case 1:
      x = (1.0 + unif01(&rng_state) * 9.0) *
          pow(10.0, (double)((int)(splitmix64(&rng_state) % 60) - 14));
      break;
    case 2: {
      int nd = 1 + (int)(splitmix64(&rng_state) % 17);
      char *o = s;
      for (int k = 0; k < nd; k++)
        *o++ =
            (char)('0' + (k == 0 ? 1 + splitmix64(&rng_state) % 9 : splitmix64(&rng_state) % 10));
      sprintf(o, "e%d", (int)(splitmix64(&rng_state) % 60) - 20);
      x = strtod(s, NULL);
      break;
    }
    case 3:
      x = (double)(int64_t)(1000000000000000ll +
                            (int64_t)(splitmix64(&rng_state) % 999000000000000000ull));
      break;
    case 4:
      x = ldexp((double)(splitmix64(&rng_state) % (1ull << 53) | 1),
                -(int)(splitmix64(&rng_state) % 80));
      break;
    default:
      x = (double)(int64_t)(splitmix64(&rng_state) % 2000000000000000ull) / 1024.0;
      break;
    }
    if (splitmix64(&rng_state) & 1) x = -x;
    char b[32], ref[32];
    int n = cgm_mm_format_double(b, x);
    CHECK((size_t)n == strlen(b));
    for (int p = 15; p <= 17; p++) {
      snprintf(ref, sizeof ref, "%.*g", p, x);
      if (same_bits(strtod(ref, NULL), x)) break;
    }
    CHECK_MSG(strcmp(b, ref) == 0, "format %a: '%s', printf '%s'", x, b, ref);
    CHECK_MSG(same_bits(strtod(b, NULL), x), "'%s' does not round-trip %a", b, x);
    checked++;
  }
  fprintf(stderr, "formatter: %ld values compared with the printf definition\n", checked);
}

/* -------------------------------------------------- reference reader --- */

/* An independent reader (fgets + strtoll + strtod) for the bundled files. */
typedef struct {
  bool sym, pattern, integer;
  int64_t rows, cols, stored, ndiag;
  int64_t n;
  int32_t *ri, *ci;
  double *v;
} refmat;

static void ref_free(refmat *m) {
  free(m->ri);
  free(m->ci);
  free(m->v);
  memset(m, 0, sizeof *m);
}

static bool ref_read(const char *path, refmat *m) {
  memset(m, 0, sizeof *m);
  FILE *f = fopen(path, "r");
  if (!f) return false;
  static char line[1 << 16];
  bool ok = false;
  if (!fgets(line, sizeof line, f)) goto out;
  for (char *c = line; *c; c++) *c = (char)tolower_ascii_helper(*c);
  m->sym = strstr(line, " symmetric") != NULL;
  m->pattern = strstr(line, " pattern") != NULL;
  m->integer = strstr(line, " integer") != NULL;
  do {
    if (!fgets(line, sizeof line, f)) goto out;
  } while (line[0] == '%');
  if (sscanf(line, "%lld %lld %lld", (long long *)&m->rows, (long long *)&m->cols,
             (long long *)&m->stored) != 3)
    goto out;
  int64_t cap = 2 * m->stored + 1;
  m->ri = malloc((size_t)cap * sizeof *m->ri);
  m->ci = malloc((size_t)cap * sizeof *m->ci);
  m->v = malloc((size_t)cap * sizeof *m->v);
  if (!m->ri || !m->ci || !m->v) goto out;
  for (int64_t k = 0; k < m->stored; k++) {
    if (!fgets(line, sizeof line, f)) goto out;
    char *e;
    long long i = strtoll(line, &e, 10), j = strtoll(e, &e, 10);
    double x = m->pattern ? 1.0 : strtod(e, &e);
    m->ri[m->n] = (int32_t)(i - 1);
    m->ci[m->n] = (int32_t)(j - 1);
    m->v[m->n++] = x;
    if (i == j) m->ndiag++;
  }
  if (m->sym) {
    int64_t n = m->n;
    for (int64_t k = 0; k < n; k++) {
      if (m->ri[k] == m->ci[k]) continue;
      m->ri[m->n] = m->ci[k];
      m->ci[m->n] = m->ri[k];
      m->v[m->n++] = m->v[k];
    }
  }
  ok = true;
out:
  fclose(f);
  return ok;
}

static bool csr_identical(const cgm_csr *A, const cgm_csr *B) {
  if (A->nrows != B->nrows || A->ncols != B->ncols || A->nnz != B->nnz) return false;
  if (memcmp(A->rowptr, B->rowptr, ((size_t)A->nrows + 1) * sizeof *A->rowptr)) return false;
  if (A->nnz && memcmp(A->colidx, B->colidx, (size_t)A->nnz * sizeof *A->colidx)) return false;
  for (int64_t k = 0; k < A->nnz; k++)
    if (!same_bits(A->val[k], B->val[k])) return false;
  return true;
}

static void test_bundled_matrices(void) {
  char mpath[512];
  snprintf(mpath, sizeof mpath, "%s/MANIFEST.tsv", CGM_DATA_DIR);
  FILE *f = fopen(mpath, "r");
  CHECK_MSG(f != NULL, "cannot open %s", mpath);
  if (!f) return;
  char line[4096];
  int count = 0, complex_seen = 0;
  if (!fgets(line, sizeof line, f)) line[0] = '\0'; /* header */
  while (fgets(line, sizeof line, f)) {
    char name[128], field[32], sym[32];
    long long rows, cols, stored, bytes;
    char spd[16];
    if (sscanf(line, "%127s %lld %lld %lld %31s %31s %15s %lld", name, &rows, &cols, &stored, field,
               sym, spd, &bytes) != 8)
      continue;
    count++;
    char path[512];
    snprintf(path, sizeof path, "%s/%s.mtx", CGM_DATA_DIR, name);
    cgm_csr A;
    cgm_mm_info info;
    cgm_error err = {0};
    cgm_status st = cgm_mm_read_csr(path, &A, &info, &err);
    if (strcmp(field, "complex") == 0) {
      complex_seen++;
      CHECK_MSG(st == CGM_EINPUT, "%s: complex file read with status %d", name, st);
      CHECK_MSG(strstr(err.msg, "complex") && strstr(err.msg, path) && strstr(err.msg, ":1: "),
                "%s: message '%s'", name, err.msg);
      cgm_csr_free(&A);
      continue;
    }
    CHECK_MSG(st == CGM_OK, "%s: %s", name, err.msg);
    if (st) continue;
    CHECK_MSG(A.nrows == rows && A.ncols == cols, "%s: %d x %d, manifest %lld x %lld", name,
              A.nrows, A.ncols, rows, cols);
    CHECK(info.entries_in_file == stored);
    CHECK_MSG(info.file_bytes == bytes, "%s: file_bytes %lld, manifest %lld", name,
              (long long)info.file_bytes, bytes);
    CHECK(info.duplicates_summed == 0);
    bool is_sym = strcmp(sym, "symmetric") == 0;
    CHECK(info.symmetry == (is_sym ? CGM_MM_SYMMETRIC : CGM_MM_GENERAL));
    cgm_mm_field want_field = strcmp(field, "pattern") == 0   ? CGM_MM_PATTERN
                              : strcmp(field, "integer") == 0 ? CGM_MM_INTEGER
                                                              : CGM_MM_REAL;
    CHECK_MSG(info.field == want_field, "%s: field %d", name, info.field);

    refmat m;
    CHECK_MSG(ref_read(path, &m), "%s: reference reader failed", name);
    int64_t want_nnz = is_sym ? 2 * stored - m.ndiag : stored;
    CHECK_MSG(A.nnz == want_nnz, "%s: nnz %lld, expected %lld (2*%lld - %lld diagonal)", name,
              (long long)A.nnz, (long long)want_nnz, stored, (long long)m.ndiag);
    cgm_csr R;
    cgm_error e2 = {0};
    CHECK_OK(
        cgm_csr_from_coo((int32_t)m.rows, (int32_t)m.cols, m.n, m.ri, m.ci, m.v, &R, NULL, &e2));
    CHECK_MSG(csr_identical(&A, &R), "%s: CSR differs from the strtod reference", name);
    if (is_sym) CHECK_MSG(cgm_csr_is_symmetric(&A), "%s: not symmetric after expansion", name);
    if (want_field == CGM_MM_PATTERN)
      for (int64_t k = 0; k < A.nnz; k++) CHECK(A.val[k] == 1.0);
    cgm_csr_free(&R);
    ref_free(&m);
    cgm_csr_free(&A);
  }
  fclose(f);
  /* every .mtx file of the directory is in the manifest (42 of them) */
  int files = 0;
  DIR *d = opendir(CGM_DATA_DIR);
  for (struct dirent *de; d && (de = readdir(d));) {
    size_t l = strlen(de->d_name);
    files += l > 4 && strcmp(de->d_name + l - 4, ".mtx") == 0;
  }
  if (d) closedir(d);
  CHECK_MSG(count == files && count >= 42, "manifest lists %d matrices, directory has %d", count,
            files);
  CHECK(complex_seen == 1);
}

/* ------------------------------------------------------- round trips --- */

static void random_csr(cgm_csr *A, int32_t rows, int32_t cols, int per_row, bool sym) {
  int64_t cap = (int64_t)rows * per_row * 2 + rows;
  int32_t *ri = malloc((size_t)cap * sizeof *ri), *ci = malloc((size_t)cap * sizeof *ci);
  double *v = malloc((size_t)cap * sizeof *v);
  int64_t n = 0;
  for (int32_t i = 0; i < rows; i++) {
    int len = (int)(splitmix64(&rng_state) % (unsigned)(per_row + 1));
    for (int t = 0; t < len; t++) {
      int32_t j = (int32_t)(splitmix64(&rng_state) % (uint64_t)(sym ? i + 1 : cols));
      double x = random_value();
      ri[n] = i, ci[n] = j, v[n++] = x;
      if (sym && j != i) ri[n] = j, ci[n] = i, v[n++] = x;
    }
  }
  cgm_error err = {0};
  /* duplicates are summed: that could overflow to Inf, so keep the first */
  cgm_csr_from_coo(rows, cols, n, ri, ci, v, A, NULL, &err);
  for (int64_t k = 0; k < A->nnz; k++)
    if (!isfinite(A->val[k])) A->val[k] = 1.5;
  if (sym) { /* summing in different orders may differ: re-mirror exactly */
    for (int32_t i = 0; i < rows; i++)
      for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
        int32_t j = A->colidx[k];
        if (j >= i) continue;
        for (int64_t m = A->rowptr[j]; m < A->rowptr[j + 1]; m++)
          if (A->colidx[m] == i) A->val[m] = A->val[k];
      }
  }
  free(ri);
  free(ci);
  free(v);
}

static void test_round_trip(void) {
  char path[512];
  tmp_path(path, sizeof path, "rt.mtx");
  for (int t = 0; t < 40; t++) {
    int32_t rows = 1 + (int32_t)(splitmix64(&rng_state) % 300),
            cols = 1 + (int32_t)(splitmix64(&rng_state) % 300);
    bool sym = t % 2 == 1;
    if (sym) cols = rows;
    cgm_csr A, B;
    random_csr(&A, rows, cols, 1 + (int)(splitmix64(&rng_state) % 12), sym);
    cgm_error err = {0};
    cgm_status st = cgm_mm_write_csr(path, &A, sym, &err);
    CHECK_MSG(st == CGM_OK, "write: %s", err.msg);
    cgm_mm_info info;
    st = cgm_mm_read_csr(path, &B, &info, &err);
    CHECK_MSG(st == CGM_OK, "read back: %s", err.msg);
    CHECK_MSG(csr_identical(&A, &B), "round trip %d (%s) is not bit-identical", t,
              sym ? "symmetric" : "general");
    CHECK(info.symmetry == (sym ? CGM_MM_SYMMETRIC : CGM_MM_GENERAL));
    CHECK(info.duplicates_summed == 0);
    if (sym) { /* the file holds the lower triangle only */
      int64_t lower = 0;
      for (int32_t i = 0; i < A.nrows; i++)
        for (int64_t k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) lower += A.colidx[k] <= i;
      CHECK(info.entries_in_file == lower);
    } else {
      CHECK(info.entries_in_file == A.nnz);
    }
    cgm_csr_free(&A);
    cgm_csr_free(&B);
  }
  /* A file larger than the 4 MiB read chunk: lines cross chunk ends. */
  {
    cgm_csr A, B;
    random_csr(&A, 20000, 20000, 40, true);
    cgm_error err = {0};
    CHECK_OK(cgm_mm_write_csr(path, &A, true, &err));
    struct stat sb;
    CHECK(stat(path, &sb) == 0 && sb.st_size > (8 << 20));
    CHECK_OK(cgm_mm_read_csr(path, &B, NULL, &err));
    CHECK_MSG(csr_identical(&A, &B), "large symmetric round trip differs");
    cgm_csr_free(&A);
    cgm_csr_free(&B);
  }
  /* The generator's Poisson matrix, general and symmetric. */
  {
    cgm_csr A, B;
    cgm_error err = {0};
    CHECK_OK(cgm_gen_poisson3d(12, &A, &err));
    for (int s = 0; s < 2; s++) {
      CHECK_OK(cgm_mm_write_csr(path, &A, s == 1, &err));
      CHECK_OK(cgm_mm_read_csr(path, &B, NULL, &err));
      CHECK(csr_identical(&A, &B));
      cgm_csr_free(&B);
    }
    cgm_csr_free(&A);
  }
  /* Exact file text for a tiny matrix. */
  {
    int64_t rp[] = {0, 2, 3};
    int32_t ci[] = {0, 1, 0};
    double v[] = {0.1, 1.0 / 3, -0.0};
    cgm_csr A = {2, 2, 3, rp, ci, v};
    cgm_error err = {0};
    CHECK_OK(cgm_mm_write_csr(path, &A, false, &err));
    FILE *f = fopen(path, "r");
    char text[512] = {0};
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f) fclose(f);
    text[n] = '\0';
    CHECK_MSG(strcmp(text, "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 0.1\n"
                           "1 2 0.3333333333333333\n2 1 -0\n") == 0,
              "written text:\n%s", text);
  }
  /* Vectors. */
  for (int t = 0; t < 20; t++) {
    int32_t n = 1 + (int32_t)(splitmix64(&rng_state) % 5000);
    double *x = malloc((size_t)n * sizeof *x), *y = NULL;
    for (int32_t i = 0; i < n; i++) x[i] = random_value();
    cgm_error err = {0};
    CHECK_OK(cgm_mm_write_vector(path, x, n, &err));
    int32_t m = 0;
    cgm_status st = cgm_mm_read_vector(path, &y, &m, &err);
    CHECK_MSG(st == CGM_OK, "vector read back: %s", err.msg);
    CHECK(m == n);
    if (st == CGM_OK && m == n)
      for (int32_t i = 0; i < n; i++) CHECK_MSG(same_bits(x[i], y[i]), "vector value %d", i);
    free(x);
    free(y);
  }
}

static void test_writer_errors(void) {
  char path[512];
  tmp_path(path, sizeof path, "w_err.mtx");
  cgm_error err = {0};
  /* not symmetric, written as symmetric: refused, no file left */
  int64_t rp[] = {0, 2, 3};
  int32_t ci[] = {0, 1, 0};
  double v[] = {1.0, 2.0, 3.0};
  cgm_csr A = {2, 2, 3, rp, ci, v};
  unlink(path);
  CHECK(cgm_mm_write_csr(path, &A, true, &err) == CGM_EINPUT);
  CHECK(strstr(err.msg, "not symmetric") != NULL);
  CHECK(access(path, F_OK) != 0);
  /* symmetric by value (an explicit zero at (1,2), none at (2,1)), not
   * entry for entry: its lower triangle alone would lose the zero */
  v[1] = 0.0;
  ci[2] = 1;
  CHECK(cgm_csr_is_symmetric(&A));
  CHECK(cgm_mm_write_csr(path, &A, true, &err) == CGM_EINPUT);
  CHECK(strstr(err.msg, "not symmetric entry for entry") != NULL);
  CHECK(access(path, F_OK) != 0);
  /* NaN */
  v[1] = NAN;
  CHECK(cgm_mm_write_csr(path, &A, false, &err) == CGM_EINPUT);
  CHECK(strstr(err.msg, "NaN/Inf") != NULL);
  double vec[] = {1.0, INFINITY};
  CHECK(cgm_mm_write_vector(path, vec, 2, &err) == CGM_EINPUT);
  CHECK(access(path, F_OK) != 0);
  v[1] = 2.0;
  /* a directory that does not exist */
  CHECK(cgm_mm_write_csr("/nonexistent-dir-cgm/x.mtx", &A, false, &err) == CGM_EINPUT);
  CHECK(strstr(err.msg, "/nonexistent-dir-cgm/x.mtx") && strstr(err.msg, strerror(ENOENT)));
  /* disk full: /dev/full fails every write with ENOSPC; it must not be
   * removed (it is not a regular file) */
  struct stat sb;
  if (stat("/dev/full", &sb) == 0 && S_ISCHR(sb.st_mode)) {
    cgm_csr P;
    CHECK_OK(cgm_gen_poisson2d(300, &P, &err));
    CHECK(cgm_mm_write_csr("/dev/full", &P, false, &err) == CGM_ERUNTIME);
    CHECK_MSG(strstr(err.msg, strerror(ENOSPC)) && strstr(err.msg, "/dev/full"), "%s", err.msg);
    CHECK(cgm_mm_write_vector("/dev/full", v, 3, &err) == CGM_ERUNTIME);
    CHECK(stat("/dev/full", &sb) == 0 && S_ISCHR(sb.st_mode));
    cgm_csr_free(&P);
  }
}

/* ---------------------------------------------------------- bad input --- */

typedef struct {
  const char *file;
  bool vector;
  cgm_status code;
  int line; /* 0: no line number (open failures) */
  const char *want;
} bad_case;

static const bad_case bad_cases[] = {
    {"empty.mtx", false, CGM_EINPUT, 1, "empty file"},
    {"no_banner.mtx", false, CGM_EINPUT, 1, "missing Matrix Market banner"},
    {"banner_object.mtx", false, CGM_EINPUT, 1, "unsupported object 'vector'"},
    {"banner_format.mtx", false, CGM_EINPUT, 1, "unknown format 'coordinates'"},
    {"banner_field.mtx", false, CGM_EINPUT, 1, "unknown field 'double'"},
    {"banner_symmetry.mtx", false, CGM_EINPUT, 1, "unknown symmetry 'symetric'"},
    {"banner_short.mtx", false, CGM_EINPUT, 1, "incomplete banner"},
    {"banner_extra.mtx", false, CGM_EINPUT, 1, "extra token 'extra'"},
    {"complex.mtx", false, CGM_EINPUT, 1,
     "complex matrices are not supported: CG needs a real SPD matrix"},
    {"hermitian.mtx", false, CGM_EINPUT, 1, "complex matrices are not supported"},
    {"real_hermitian.mtx", false, CGM_EINPUT, 1, "hermitian matrices are not supported"},
    {"skew.mtx", false, CGM_EINPUT, 1, "skew-symmetric matrices are not supported"},
    {"array_matrix.mtx", false, CGM_EINPUT, 1, "use the coordinate format"},
    {"size_missing.mtx", false, CGM_EINPUT, 4, "missing size line"},
    {"size_nonnumeric.mtx", false, CGM_EINPUT, 3, "column count 'x' is not a number"},
    {"size_negative.mtx", false, CGM_EINPUT, 2, "negative row count -3"},
    {"size_zero.mtx", false, CGM_EINPUT, 2, "empty matrix"},
    {"size_toofew.mtx", false, CGM_EINPUT, 2, "expected 'ROWS COLS ENTRIES', found 2 numbers"},
    {"size_extra.mtx", false, CGM_EINPUT, 2, "extra token '1'"},
    {"size_rows_huge.mtx", false, CGM_EINPUT, 2, "at most 2147483647"},
    {"size_cols_huge.mtx", false, CGM_EINPUT, 2, "at most 2147483647"},
    {"size_entries_huge.mtx", false, CGM_EINPUT, 2, "can hold at most"},
    {"size_entries_overflow.mtx", false, CGM_EINPUT, 2,
     "entry count 123456789012345678901234567890 is too large"},
    {"sym_nonsquare.mtx", false, CGM_EINPUT, 2, "must be square"},
    {"truncated.mtx", false, CGM_EINPUT, 6, "unexpected end of file after 3 of the 4 entries"},
    {"truncated_noeol.mtx", false, CGM_EINPUT, 6, "truncated file"},
    {"too_many.mtx", false, CGM_EINPUT, 5, "more entries than the 2 declared on line 2"},
    {"trailing_garbage.mtx", false, CGM_EINPUT, 4, "more entries than the 1 declared"},
    {"row_zero.mtx", false, CGM_EINPUT, 3, "row index 0 out of range 1..3"},
    {"row_big.mtx", false, CGM_EINPUT, 4, "row index 4 out of range 1..3"},
    {"col_big.mtx", false, CGM_EINPUT, 3, "column index 4 out of range 1..3"},
    {"row_huge_digits.mtx", false, CGM_EINPUT, 3, "out of range"},
    {"row_nonnumeric.mtx", false, CGM_EINPUT, 3, "bad row index 'x'"},
    {"row_float.mtx", false, CGM_EINPUT, 3, "bad row index '1.0'"},
    {"row_negative.mtx", false, CGM_EINPUT, 3, "bad row index '-1'"},
    {"col_nonnumeric.mtx", false, CGM_EINPUT, 3, "bad column index 'b'"},
    {"col_missing.mtx", false, CGM_EINPUT, 3, "missing column index"},
    {"value_missing.mtx", false, CGM_EINPUT, 3, "missing value"},
    {"value_nonnumeric.mtx", false, CGM_EINPUT, 3, "bad value 'abc'"},
    {"value_nan.mtx", false, CGM_EINPUT, 4, "NaN/Inf value 'nan'"},
    {"value_inf.mtx", false, CGM_EINPUT, 3, "NaN/Inf value '-Inf'"},
    {"value_overflow.mtx", false, CGM_EINPUT, 3, "NaN/Inf value '1e999'"},
    {"value_bad_exponent.mtx", false, CGM_EINPUT, 3, "bad value '1e+'"},
    {"value_hex.mtx", false, CGM_EINPUT, 3, "bad value '0x1p3'"},
    {"value_comma.mtx", false, CGM_EINPUT, 3, "bad value '1,5'"},
    {"extra_token.mtx", false, CGM_EINPUT, 3, "extra token '2.0'"},
    {"pattern_value.mtx", false, CGM_EINPUT, 3, "value '1.0' present in a pattern matrix"},
    {"integer_frac.mtx", false, CGM_EINPUT, 4, "non-integer value '1.5'"},
    {"integer_exp.mtx", false, CGM_EINPUT, 3, "non-integer value '1e3'"},
    {"binary_nul.mtx", false, CGM_EINPUT, 4, "binary data"},
    {"binary_comment.mtx", false, CGM_EINPUT, 3, "binary data"},
    {"binary_garbage.mtx", false, CGM_EINPUT, 1, "binary data"},
    {"both_triangles.mtx", false, CGM_EINPUT, 6, "both triangles"},
    {"both_triangles_upper_first.mtx", false, CGM_EINPUT, 6,
     "(3,1) is below the diagonal, but line 4"},
    {"vec_two_cols.mtx", true, CGM_EINPUT, 2, "one column"},
    {"vec_coord_two_cols.mtx", true, CGM_EINPUT, 2, "one column"},
    {"vec_truncated.mtx", true, CGM_EINPUT, 5, "unexpected end of file after 2 of the 3 values"},
    {"vec_extra_values.mtx", true, CGM_EINPUT, 5, "more values than the 2 declared"},
    {"vec_two_per_line.mtx", true, CGM_EINPUT, 3, "extra token '2'"},
    {"vec_array_pattern.mtx", true, CGM_EINPUT, 1, "pattern"},
    {"vec_symmetric.mtx", true, CGM_EINPUT, 1, "must be 'general'"},
    {"vec_nan.mtx", true, CGM_EINPUT, 4, "NaN/Inf value"},
    {"vec_integer_frac.mtx", true, CGM_EINPUT, 4, "non-integer value '2.5'"},
    {"vec_empty.mtx", true, CGM_EINPUT, 2, "empty matrix"},
    {"complex.mtx", true, CGM_EINPUT, 1, "complex"},
    {"binary_garbage.mtx", true, CGM_EINPUT, 1, "binary data"},
    {"empty.mtx", true, CGM_EINPUT, 1, "empty file"},
};

/* The same status and the same message, to the byte, with every setting of
 * read_configs (a FIFO can be read only once: it is left out). */
static void check_same_failure(const char *path, bool vector, cgm_status st, const char *msg) {
  struct stat sb;
  if (stat(path, &sb) == 0 && S_ISFIFO(sb.st_mode)) return;
  for (int c = 0; c < N_CONFIGS; c++) {
    cgm_error e2 = {0};
    cgm_status s2;
    if (vector) {
      double *v2 = (double *)&sb;
      int32_t n2 = 77;
      s2 = read_vector_cfg(path, c, &v2, &n2, &e2);
      CHECK_MSG(v2 == NULL && n2 == 0, "%s (%s): outputs not reset", path, read_configs[c].name);
      if (s2 == CGM_OK) free(v2);
    } else {
      cgm_csr B;
      s2 = read_csr_cfg(path, c, &B, NULL, &e2);
      CHECK_MSG(B.rowptr == NULL && B.colidx == NULL && B.val == NULL, "%s (%s): B not empty", path,
                read_configs[c].name);
      cgm_csr_free(&B);
    }
    CHECK_MSG(s2 == st && strcmp(e2.msg, msg) == 0, "%s (%s): status %d '%s', default %d '%s'",
              path, read_configs[c].name, s2, e2.msg, st, msg);
  }
}

static void check_failure(const char *path, bool vector, cgm_status code, int line,
                          const char *want) {
  cgm_error err = {0};
  cgm_status st;
  cgm_csr A;
  double *v = (double *)&A; /* must be reset to NULL on failure */
  int32_t n = 77;
  if (vector) {
    st = cgm_mm_read_vector(path, &v, &n, &err);
    CHECK_MSG(v == NULL && n == 0, "%s: outputs not reset on failure", path);
  } else {
    cgm_mm_info info;
    st = cgm_mm_read_csr(path, &A, &info, &err);
    CHECK_MSG(A.rowptr == NULL && A.colidx == NULL && A.val == NULL, "%s: A not empty", path);
  }
  CHECK_MSG(st == code, "%s: status %d, expected %d (%s)", path, st, code, err.msg);
  CHECK_MSG(err.code == code, "%s: err.code %d", path, err.code);
  char prefix[600];
  if (line > 0)
    snprintf(prefix, sizeof prefix, "%s:%d: ", path, line);
  else
    snprintf(prefix, sizeof prefix, "%s: ", path);
  CHECK_MSG(strncmp(err.msg, prefix, strlen(prefix)) == 0, "message '%s' does not start with '%s'",
            err.msg, prefix);
  CHECK_MSG(strstr(err.msg, want) != NULL, "message '%s' lacks '%s'", err.msg, want);
  check_same_failure(path, vector, st, err.msg);
}

static void test_bad_inputs(void) {
  for (size_t k = 0; k < sizeof bad_cases / sizeof *bad_cases; k++) {
    char path[512];
    snprintf(path, sizeof path, "%s/mm/%s", CGM_TESTDATA_DIR, bad_cases[k].file);
    check_failure(path, bad_cases[k].vector, bad_cases[k].code, bad_cases[k].line,
                  bad_cases[k].want);
  }
  char path[512];
  snprintf(path, sizeof path, "%s/mm", CGM_TESTDATA_DIR);
  check_failure(path, false, CGM_EINPUT, 0, strerror(EISDIR));
  check_failure(path, true, CGM_EINPUT, 0, strerror(EISDIR));
  snprintf(path, sizeof path, "%s/mm/no-such-file.mtx", CGM_TESTDATA_DIR);
  check_failure(path, false, CGM_EINPUT, 0, strerror(ENOENT));
  cgm_csr A;
  cgm_error err = {0};
  CHECK(cgm_mm_read_csr(NULL, &A, NULL, &err) == CGM_EINPUT);
  CHECK(cgm_mm_read_csr("", &A, NULL, &err) == CGM_EINPUT);

  /* generated cases: a file whose size line claims more entries than the
   * bytes that follow (never allocated blindly), a line longer than the
   * read buffer, a NUL-free binary blob */
  char tp[512];
  tmp_path(tp, sizeof tp, "long_line.mtx");
  {
    size_t len = (size_t)9 << 20;
    char *t = malloc(len + 200);
    int h = sprintf(t, "%%%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 ");
    memset(t + h, '1', len);
    memcpy(t + h + len, "\n", 1);
    write_text(tp, t, (size_t)h + len + 1);
    free(t);
    check_failure(tp, false, CGM_EINPUT, 3, "NaN/Inf value"); /* 9M digits: overflows */
  }
  tmp_path(tp, sizeof tp, "high_bytes.mtx");
  {
    const char t[] = "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 \xc3\xa9\n";
    write_text(tp, t, sizeof t - 1);
    check_failure(tp, false, CGM_EINPUT, 3, "bad value '\\xc3\\xa9'");
  }
}

/* ------------------------------------------------------- good inputs --- */

typedef struct {
  int32_t i, j;
  double v;
} ent;

/* The same matrix, bit for bit, and the same info with every setting of
 * read_configs. */
static void check_same_matrix(const char *path, const cgm_csr *A, const cgm_mm_info *info) {
  for (int c = 0; c < N_CONFIGS; c++) {
    cgm_csr B;
    cgm_mm_info bi;
    cgm_error err = {0};
    cgm_status st = read_csr_cfg(path, c, &B, &bi, &err);
    CHECK_MSG(st == CGM_OK, "%s (%s): %s", path, read_configs[c].name, err.msg);
    CHECK_MSG(st != CGM_OK || csr_identical(A, &B), "%s (%s): CSR differs", path,
              read_configs[c].name);
    CHECK_MSG(st != CGM_OK || memcmp(&bi, info, sizeof bi) == 0, "%s (%s): info differs", path,
              read_configs[c].name);
    cgm_csr_free(&B);
  }
}

static void check_matrix(const char *file, int32_t rows, int32_t cols, const ent *e, int n,
                         int64_t dups, cgm_mm_field field, cgm_mm_symmetry sym) {
  char path[512];
  snprintf(path, sizeof path, "%s/mm/%s", CGM_TESTDATA_DIR, file);
  cgm_csr A;
  cgm_mm_info info;
  cgm_error err = {0};
  cgm_status st = cgm_mm_read_csr(path, &A, &info, &err);
  CHECK_MSG(st == CGM_OK, "%s: %s", file, err.msg);
  if (st) return;
  CHECK_MSG(A.nrows == rows && A.ncols == cols && A.nnz == n, "%s: %d x %d nnz %lld", file, A.nrows,
            A.ncols, (long long)A.nnz);
  CHECK_MSG(info.duplicates_summed == dups, "%s: duplicates %lld, expected %lld", file,
            (long long)info.duplicates_summed, (long long)dups);
  CHECK(info.field == field && info.symmetry == sym);
  struct stat sb;
  CHECK(stat(path, &sb) == 0 && info.file_bytes == sb.st_size);
  check_same_matrix(path, &A, &info);
  if (A.nnz == n) {
    int k = 0;
    for (int32_t i = 0; i < A.nrows; i++)
      for (int64_t p = A.rowptr[i]; p < A.rowptr[i + 1]; p++, k++)
        CHECK_MSG(e[k].i == i && e[k].j == A.colidx[p] && same_bits(e[k].v, A.val[p]),
                  "%s: entry %d is (%d,%d) %.17g, expected (%d,%d) %.17g", file, k, i, A.colidx[p],
                  A.val[p], e[k].i, e[k].j, e[k].v);
  }
  cgm_csr_free(&A);
}

static void test_good_inputs(void) {
  const ent three[] = {{0, 0, 1.5}, {1, 0, -2}, {2, 2, 0.4}};
  check_matrix("ok_crlf.mtx", 3, 3, three, 3, 0, CGM_MM_REAL, CGM_MM_GENERAL);
  check_matrix("ok_comments.mtx", 3, 3, three, 3, 0, CGM_MM_REAL, CGM_MM_GENERAL);
  check_matrix("ok_case.mtx", 3, 3, three, 3, 0, CGM_MM_REAL, CGM_MM_GENERAL);
  check_matrix("ok_noeol.mtx", 3, 3, three, 3, 0, CGM_MM_REAL, CGM_MM_GENERAL);
  const ent sym[] = {{0, 0, 4}, {0, 1, -1}, {1, 0, -1}, {1, 2, -1.5}, {2, 1, -1.5}, {2, 2, 4}};
  check_matrix("ok_sym_lower.mtx", 3, 3, sym, 6, 0, CGM_MM_REAL, CGM_MM_SYMMETRIC);
  check_matrix("ok_sym_upper.mtx", 3, 3, sym, 6, 0, CGM_MM_REAL, CGM_MM_SYMMETRIC);
  /* (1,1): 1 + 2 + 0.25, (2,3): 0.5 + 0.25: three lines hit an earlier (i,j) */
  const ent dup[] = {{0, 0, 3.25}, {1, 2, 0.75}, {2, 0, 7}};
  check_matrix("ok_dup.mtx", 3, 3, dup, 3, 3, CGM_MM_REAL, CGM_MM_GENERAL);
  /* symmetric: (2,1) twice and (1,1) twice: two duplicate lines */
  const ent sdup[] = {{0, 0, 4}, {0, 1, 1.5}, {1, 0, 1.5}, {2, 2, 1}};
  check_matrix("ok_sym_dup.mtx", 3, 3, sdup, 4, 2, CGM_MM_REAL, CGM_MM_SYMMETRIC);
  const ent in[] = {{0, 0, -3}, {0, 1, 0}, {1, 1, 12}};
  check_matrix("ok_integer.mtx", 2, 2, in, 3, 0, CGM_MM_INTEGER, CGM_MM_GENERAL);
  const ent pat[] = {{0, 0, 1}, {0, 1, 1}, {1, 0, 1}, {2, 2, 1}};
  check_matrix("ok_pattern.mtx", 3, 3, pat, 4, 0, CGM_MM_PATTERN, CGM_MM_SYMMETRIC);
  const ent ns[] = {{0, 2, 1}, {1, 0, 2}, {1, 1, 3}};
  check_matrix("ok_nonsquare.mtx", 2, 3, ns, 3, 0, CGM_MM_REAL, CGM_MM_GENERAL);
  check_matrix("ok_no_entries.mtx", 3, 3, NULL, 0, 0, CGM_MM_REAL, CGM_MM_GENERAL);

  char path[512];
  double *v = NULL;
  int32_t n = 0;
  cgm_error err = {0};
  for (int c = -1; c < N_CONFIGS; c++) {
    snprintf(path, sizeof path, "%s/mm/ok_vec_array.mtx", CGM_TESTDATA_DIR);
    CHECK_OK(read_vector_cfg(path, c, &v, &n, &err));
    CHECK(n == 3 && v && same_bits(v[0], 1.5) && same_bits(v[1], -0.0) && same_bits(v[2], 1e-320));
    free(v);
    v = NULL;
    snprintf(path, sizeof path, "%s/mm/ok_vec_coord.mtx", CGM_TESTDATA_DIR);
    CHECK_OK(read_vector_cfg(path, c, &v, &n, &err));
    CHECK(n == 4 && v && v[0] == 1 && v[1] == 0 && v[2] == 0 && v[3] == 3);
    free(v);
    v = NULL;
  }
}

static bool read_file(const char *path, char **buf, size_t *len);

/* The read end of the pipe serve_pipe made, closed by serve_end. */
static int served_fd = -1;

/* Serves text once through a pipe (a child process writes it and exits);
 * path gets the name of its read end, /proc/self/fd/N, a stream by
 * contract for the reader. Returns the child's pid, or -1. */
static pid_t serve_pipe(char *path, const char *text, size_t len) {
  int p[2];
  if (pipe(p) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    close(p[0]);
    size_t off = 0;
    while (off < len) {
      ssize_t k = write(p[1], text + off, len - off);
      if (k <= 0) break;
      off += (size_t)k;
    }
    _exit(0);
  }
  close(p[1]);
  served_fd = p[0];
  snprintf(path, 64, "/proc/self/fd/%d", p[0]);
  return pid;
}

/* Closes the pipe (a writer still writing gets EPIPE) and waits for it. */
static void serve_end(pid_t pid) {
  close(served_fd);
  served_fd = -1;
  if (pid > 0) waitpid(pid, NULL, 0);
}

/* Reading through a pipe: the size is unknown, the entry arrays grow, data
 * arrives in small pieces. */
static void test_pipe(void) {
  char file[512], fifo[512];
  tmp_path(file, sizeof file, "pipe_src.mtx");
  cgm_csr A, B;
  cgm_error err = {0};
  random_csr(&A, 3000, 2000, 60, false); /* ~90k entries: more than the first 64k */
  CHECK_OK(cgm_mm_write_csr(file, &A, false, &err));
  size_t len = 0;
  char *text = NULL;
  CHECK(read_file(file, &text, &len));
  pid_t pid = serve_pipe(fifo, text, len);
  CHECK(pid > 0);
  cgm_mm_info info;
  cgm_status st = cgm_mm_read_csr(fifo, &B, &info, &err);
  CHECK_MSG(st == CGM_OK, "pipe: %s", err.msg);
  serve_end(pid);
  CHECK(info.file_bytes == (int64_t)len);
  CHECK(st == CGM_OK && csr_identical(&A, &B));
  free(text);
  cgm_csr_free(&A);
  cgm_csr_free(&B);
}

/* The row-count bound (docs/matrix-market.md, "Resource bounds"): a size
 * line may declare at most max(2^16, 16 x entries) rows, so that a 60-byte
 * file cannot make the reader allocate and touch 12 GB of row pointers (found
 * by tests/fuzz/fuzz_pipeline: "1500000000 3 1"), nor can a size line
 * followed by megabytes of comments. Files and pipes alike, at the size
 * line; a vector read from a pipe grows as values arrive. */
static void test_resource_bounds(void) {
  char tp[512], fifo[512];
  tmp_path(tp, sizeof tp, "bounds.mtx");
  const char huge[] = "%%MatrixMarket matrix coordinate real general\n1500000000 3 1\n1 1 1\n";
  const char hugev[] = "%%MatrixMarket matrix coordinate real general\n1500000000 1 1\n1 1 1\n";
  write_text(tp, huge, sizeof huge - 1);
  check_failure(tp, false, CGM_EINPUT, 2,
                "1500000000 x 3 has too many rows for its 1 entries: at most 65536 (or 16 per "
                "entry), as the row pointer alone would take 12000000008 bytes");
  write_text(tp, hugev, sizeof hugev - 1);
  check_failure(tp, true, CGM_EINPUT, 2, "vector of 1500000000 values is too long");
  pid_t pid = serve_pipe(fifo, huge, sizeof huge - 1);
  if (pid > 0) {
    check_failure(fifo, false, CGM_EINPUT, 2, "too many rows for its 1 entries");
    serve_end(pid);
  }
  pid = serve_pipe(fifo, hugev, sizeof hugev - 1);
  if (pid > 0) {
    check_failure(fifo, true, CGM_EINPUT, 2, "too long for its 1 entries");
    serve_end(pid);
  }
  /* an array's rows x cols is computed only once both are in range (it
   * overflowed int64 before: UBSan, found by tests/fuzz/fuzz_mm, corpus file
   * array_size_overflow.mtx) */
  const char ovf[] = "%%MatrixMarket matrix array real general\n27283942 1061728394283945\n1\n";
  write_text(tp, ovf, sizeof ovf - 1);
  check_failure(tp, true, CGM_EINPUT, 2, "27283942 x 1061728394283945 is too large");
  /* an array vector from a pipe that declares 2e9 values is not allocated
   * up front: it ends as a truncated file */
  const char arr[] = "%%MatrixMarket matrix array real general\n2000000000 1\n1.5\n";
  pid = serve_pipe(fifo, arr, sizeof arr - 1);
  if (pid > 0) {
    check_failure(fifo, true, CGM_EINPUT, 4, "after 1 of the 2000000000 values");
    serve_end(pid);
  }

  /* the edge: 2^16 rows read from any file, 2^16 + 1 need 4097 entries */
  cgm_csr A;
  cgm_error err = {0};
  const char edge[] = "%%MatrixMarket matrix coordinate real general\n65536 65536 0\n";
  write_text(tp, edge, sizeof edge - 1);
  CHECK_OK(cgm_mm_read_csr(tp, &A, NULL, &err));
  CHECK(A.nrows == 65536 && A.nnz == 0 && A.rowptr && A.rowptr[65536] == 0);
  cgm_csr_free(&A);
  const char over[] = "%%MatrixMarket matrix coordinate real general\n65537 65537 0\n";
  write_text(tp, over, sizeof over - 1);
  check_failure(tp, false, CGM_EINPUT, 2, "at most 65536 (or 16 per entry)");
  /* a long comment does not pay for rows (it did when the bound was the
   * file's bytes); 16 rows an entry read, 17 do not */
  for (int more = 0; more < 2; more++) {
    size_t pad = 1000000;
    char *t = malloc(pad + 60000);
    int h = sprintf(t, "%%%%MatrixMarket matrix coordinate real general\n%%");
    memset(t + h, 'x', pad);
    size_t len = (size_t)h + pad;
    const int32_t nent = 5000, rows = 16 * nent + more;
    len += (size_t)sprintf(t + len, "\n%d %d %d\n", rows, rows, nent);
    for (int32_t k = 0; k < nent; k++) len += (size_t)sprintf(t + len, "%d 1 2.5\n", 16 * k + 1);
    write_text(tp, t, len);
    for (int fromPipe = 0; fromPipe < 2; fromPipe++) {
      pid = fromPipe ? serve_pipe(fifo, t, len) : 0;
      const char *path = fromPipe ? fifo : tp;
      if (more) {
        check_failure(path, false, CGM_EINPUT, 3, "80001 x 80001 has too many rows");
      } else {
        CHECK_OK(cgm_mm_read_csr(path, &A, NULL, &err));
        CHECK(A.nrows == rows && A.nnz == nent && A.colidx[0] == 0 && A.val[0] == 2.5);
        cgm_csr_free(&A);
      }
      if (fromPipe) serve_end(pid);
    }
    free(t);
  }
  /* an array vector from a pipe longer than the first allocation */
  {
    const int32_t n = 100000;
    char *t = malloc((size_t)n * 12 + 100);
    size_t len = (size_t)sprintf(t, "%%%%MatrixMarket matrix array real general\n%d 1\n", n);
    for (int32_t i = 0; i < n; i++) len += (size_t)sprintf(t + len, "%d.25\n", i);
    pid = serve_pipe(fifo, t, len);
    if (pid > 0) {
      double *v = NULL;
      int32_t m = 0;
      CHECK_OK(cgm_mm_read_vector(fifo, &v, &m, &err));
      CHECK(m == n && v && v[0] == 0.25 && v[n - 1] == n - 1 + 0.25);
      free(v);
      serve_end(pid);
    }
    free(t);
  }
  unlink(tp);
}

/* Duplicates of finite values that sum beyond the double range are refused
 * like an Inf in the file (the CSR had +Inf before; docs/reliability.md, finding 4). */
static void test_sum_overflow(void) {
  char tp[512];
  tmp_path(tp, sizeof tp, "sum_overflow.mtx");
  const char gen[] = "%%MatrixMarket matrix coordinate real general\n2 2 3\n2 1 1e308\n1 1 "
                     "1\n2 1 1e308\n";
  write_text(tp, gen, sizeof gen - 1);
  check_failure(tp, false, CGM_EINPUT, 0, "duplicate entries of (2,1) sum to +Inf");
  const char sym[] = "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n3 1 -1.5e308\n3 1 "
                     "-1e308\n";
  write_text(tp, sym, sizeof sym - 1);
  check_failure(tp, false, CGM_EINPUT, 0, "duplicate entries of (1,3) sum to -Inf");
  const char vec[] = "%%MatrixMarket matrix coordinate real general\n3 1 2\n2 1 1e308\n2 1 "
                     "1e308\n";
  write_text(tp, vec, sizeof vec - 1);
  check_failure(tp, true, CGM_EINPUT, 0, "duplicate entries of row 2 sum to +Inf");
  /* a sum that comes back into range is fine */
  const char ok[] = "%%MatrixMarket matrix coordinate real general\n1 1 3\n1 1 1e308\n1 1 "
                    "-1e308\n1 1 1e308\n";
  write_text(tp, ok, sizeof ok - 1);
  cgm_csr A;
  cgm_error err = {0};
  CHECK_OK(cgm_mm_read_csr(tp, &A, NULL, &err));
  CHECK(A.nnz == 1 && A.val[0] == 1e308);
  cgm_csr_free(&A);
  unlink(tp);
}

/* ------------------------------------------------- parallel reading --- */

/* A Matrix Market text as lines, to write, to break one line of, and to
 * know the line number of every entry. */
typedef struct {
  char **line;
  size_t *len;
  int64_t n, cap;
  int64_t *entry_line; /* 1-based line of entry k */
  int64_t nent, size_line;
} mmtext;

static void mt_add(mmtext *t, const char *s, size_t len) {
  if (t->n == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 1024;
    t->line = realloc(t->line, (size_t)t->cap * sizeof *t->line);
    t->len = realloc(t->len, (size_t)t->cap * sizeof *t->len);
  }
  t->line[t->n] = malloc(len + 1);
  memcpy(t->line[t->n], s, len);
  t->line[t->n][len] = '\0';
  t->len[t->n++] = len;
}

static void mt_addf(mmtext *t, const char *fmt, ...) {
  char b[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(b, sizeof b, fmt, ap);
  va_end(ap);
  mt_add(t, b, (size_t)n);
}

/* Replaces line number ln (1-based). */
static void mt_set(mmtext *t, int64_t ln, const char *s, size_t len) {
  free(t->line[ln - 1]);
  t->line[ln - 1] = malloc(len + 1);
  memcpy(t->line[ln - 1], s, len);
  t->line[ln - 1][len] = '\0';
  t->len[ln - 1] = len;
}

/* The text with every line ended by eol ("\n", or "\r\n" for CRLF). */
static char *mt_join_eol(const mmtext *t, const char *eol, size_t *len) {
  const size_t el = strlen(eol);
  size_t n = 0;
  for (int64_t k = 0; k < t->n; k++) n += t->len[k] + el;
  char *b = malloc(n + 1), *o = b;
  for (int64_t k = 0; k < t->n; k++) {
    memcpy(o, t->line[k], t->len[k]);
    o += t->len[k];
    memcpy(o, eol, el);
    o += el;
  }
  *len = n;
  return b;
}

static char *mt_join(const mmtext *t, size_t *len) {
  return mt_join_eol(t, "\n", len);
}

static void mt_write(const mmtext *t, const char *path) {
  size_t n;
  char *b = mt_join(t, &n);
  CHECK(write_text(path, b, n));
  free(b);
}

static void mt_free(mmtext *t) {
  for (int64_t k = 0; k < t->n; k++) free(t->line[k]);
  free(t->line);
  free(t->len);
  free(t->entry_line);
  memset(t, 0, sizeof *t);
}

/* A coordinate file of nent entries in random order: rows x cols (square
 * and the lower triangle when sym), about one entry in eight repeating an
 * earlier (i,j), values of 17 digits (integers in -1000..1000 in an integer
 * file), a comment or a blank line now and then. R: the reference CSR,
 * cgm_csr_from_coo over the same triplets in file order (the mirrors after
 * them, as the reader before the parallel one did); dups: its duplicate
 * count. */
static void gen_text(mmtext *t, int32_t rows, int32_t cols, int64_t nent, bool sym,
                     cgm_mm_field field, cgm_csr *R, int64_t *dups) {
  const bool pattern = field == CGM_MM_PATTERN, integer = field == CGM_MM_INTEGER;
  memset(t, 0, sizeof *t);
  const char *fname = pattern ? "pattern" : integer ? "integer" : "real";
  mt_addf(t, "%%%%MatrixMarket matrix coordinate %s %s", fname, sym ? "symmetric" : "general");
  mt_addf(t, "%% generated by test_mm");
  mt_addf(t, "%d %d %lld", rows, cols, (long long)nent);
  t->size_line = 3;
  t->nent = nent;
  t->entry_line = malloc((size_t)nent * sizeof *t->entry_line);
  int32_t *ri = malloc((size_t)(2 * nent + 1) * sizeof *ri);
  int32_t *ci = malloc((size_t)(2 * nent + 1) * sizeof *ci);
  double *v = malloc((size_t)(2 * nent + 1) * sizeof *v);
  for (int64_t k = 0; k < nent; k++) {
    uint64_t u = splitmix64(&rng_state);
    if (u % 97 == 0) mt_addf(t, "%% comment %lld", (long long)k);
    if (u % 89 == 1) mt_addf(t, u & 1 ? "" : "  \t");
    int32_t i, j;
    if (k > 0 && u % 8 == 3) { /* a duplicate of an earlier entry */
      int64_t m = (int64_t)(splitmix64(&rng_state) % (uint64_t)k);
      i = ri[m], j = ci[m];
    } else {
      i = (int32_t)(splitmix64(&rng_state) % (uint64_t)rows);
      j = (int32_t)(splitmix64(&rng_state) % (uint64_t)cols);
      if (sym && j > i) {
        int32_t x = i;
        i = j, j = x;
      }
    }
    double x = pattern   ? 1.0
               : integer ? (double)((int64_t)(splitmix64(&rng_state) % 2001) - 1000)
                         : (unif01(&rng_state) - 0.3) *
                               pow(10.0, (double)((int)(splitmix64(&rng_state) % 9) - 4));
    ri[k] = i, ci[k] = j, v[k] = x;
    t->entry_line[k] = t->n + 1;
    if (pattern)
      mt_addf(t, "%d %d", i + 1, j + 1);
    else if (integer)
      mt_addf(t, "%d %d %d", i + 1, j + 1, (int)x);
    else
      mt_addf(t, "%d %d %.17g", i + 1, j + 1, x);
  }
  int64_t n = nent;
  if (sym)
    for (int64_t k = 0; k < nent; k++)
      if (ri[k] != ci[k]) ri[n] = ci[k], ci[n] = ri[k], v[n++] = v[k];
  cgm_error err = {0};
  CHECK_OK(cgm_csr_from_coo(rows, cols, n, ri, ci, v, R, dups, &err));
  free(ri);
  free(ci);
  free(v);
}

/* Reading path with o: OK and bit-identical to R. */
static void check_reads_as(const char *path, const cgm_mm_read_opts *o, const cgm_csr *R,
                           const char *what) {
  cgm_csr A;
  cgm_error err = {0};
  cgm_status st = cgm_mm_read_csr_opts(path, o, &A, NULL, &err);
  CHECK_MSG(st == CGM_OK, "%s (threads %d, chunks %lld, pieces %lld): %s", what, o ? o->threads : 0,
            o ? (long long)o->chunk_bytes : 0LL, o ? (long long)o->stream_bytes : 0LL, err.msg);
  CHECK_MSG(st != CGM_OK || csr_identical(&A, R),
            "%s (threads %d, chunks %lld, pieces %lld): CSR differs from the reference", what,
            o ? o->threads : 0, o ? (long long)o->chunk_bytes : 0LL,
            o ? (long long)o->stream_bytes : 0LL);
  cgm_csr_free(&A);
}

/* A large generated file gives the same CSR, bit for bit, with one thread or
 * many, one chunk or thousands, from a file, a pipe or gzip, and the same as
 * the sequential COO -> CSR conversion of the same entries. */
static void test_parallel_identical(void) {
  char tp[512], fifo[512];
  tmp_path(tp, sizeof tp, "par.mtx");
  const cgm_mm_read_opts extra[] = {{1, 0, 0},    {2, 4096, 0},    {5, 333, 0},
                                    {16, 1, 0},   {3, 100000, 0},  {2, 0, 4096},
                                    {7, 999, 77}, {1, 1 << 20, 0}, {64, 2000, 0}};
  struct {
    int32_t rows, cols;
    int64_t nent;
    bool sym;
    cgm_mm_field field;
  } kinds[] = {{5000, 4000, 80000, false, CGM_MM_REAL},
               {6000, 6000, 60000, true, CGM_MM_REAL},
               {3000, 3000, 30000, false, CGM_MM_PATTERN}};
  for (size_t kk = 0; kk < sizeof kinds / sizeof *kinds; kk++) {
    mmtext t;
    cgm_csr R;
    int64_t dups = 0;
    gen_text(&t, kinds[kk].rows, kinds[kk].cols, kinds[kk].nent, kinds[kk].sym, kinds[kk].field, &R,
             &dups);
    mt_write(&t, tp);
    CHECK(dups > 1000);
    cgm_csr A;
    cgm_mm_info info;
    cgm_error err = {0};
    CHECK_OK(cgm_mm_read_csr(tp, &A, &info, &err));
    CHECK_MSG(csr_identical(&A, &R), "kind %zu: default read differs from the reference", kk);
    if (!kinds[kk].sym) CHECK(info.duplicates_summed == dups);
    cgm_csr_free(&A);
    check_same_matrix(tp, &R, &info);
    for (size_t c = 0; c < sizeof extra / sizeof *extra; c++)
      check_reads_as(tp, &extra[c], &R, "generated file");
    /* through a pipe, in small pieces */
    size_t len;
    char *text = mt_join(&t, &len);
    cgm_mm_read_opts po = {3, 2048, 1000};
    pid_t pid = serve_pipe(fifo, text, len);
    if (pid > 0) {
      check_reads_as(fifo, &po, &R, "generated file through a pipe");
      serve_end(pid);
    }
    free(text);
    mt_free(&t);
    cgm_csr_free(&R);
  }
  unlink(tp);
}

/* The same file read with 1, 2, 3 and 7 threads: the CSR and the info of
 * the serial parse (one thread, one chunk), bit for bit, for each field and
 * symmetry, with comments and blank lines among the entries and with LF or
 * CRLF line ends (a CRLF file reads as its LF twin). The chunks are the
 * reader's own choice (several per thread on these 2-5 MB files) and,
 * separately, 4093 bytes: chunk borders then fall at hundreds of places
 * inside the runs of comments, blank lines and duplicates. */
static void test_thread_counts(void) {
  char tp[512];
  tmp_path(tp, sizeof tp, "threads.mtx");
  const int threads[] = {1, 2, 3, 7};
  const int64_t chunks[] = {0, 4093};
  struct {
    const char *name;
    bool sym;
    cgm_mm_field field;
  } kinds[] = {
      {"real general", false, CGM_MM_REAL},       {"real symmetric", true, CGM_MM_REAL},
      {"pattern general", false, CGM_MM_PATTERN}, {"pattern symmetric", true, CGM_MM_PATTERN},
      {"integer general", false, CGM_MM_INTEGER}, {"integer symmetric", true, CGM_MM_INTEGER}};
  for (size_t kk = 0; kk < sizeof kinds / sizeof *kinds; kk++) {
    mmtext t;
    cgm_csr R, S;
    int64_t dups;
    gen_text(&t, 20000, 20000, 120000, kinds[kk].sym, kinds[kk].field, &R, &dups);
    cgm_mm_info si;
    for (int crlf = 0; crlf < 2; crlf++) {
      size_t len;
      char *text = mt_join_eol(&t, crlf ? "\r\n" : "\n", &len);
      CHECK(write_text(tp, text, len));
      free(text);
      const char *eol = crlf ? "CRLF" : "LF";
      cgm_mm_info info;
      cgm_error err = {0};
      if (!crlf) { /* the serial parse: one thread, one chunk */
        cgm_mm_read_opts serial = {1, 0, 0};
        CHECK_OK(cgm_mm_read_csr_opts(tp, &serial, &S, &si, &err));
        CHECK_MSG(csr_identical(&S, &R), "%s: serial parse differs from the reference",
                  kinds[kk].name);
      }
      for (size_t a = 0; a < sizeof threads / sizeof *threads; a++)
        for (size_t b = 0; b < sizeof chunks / sizeof *chunks; b++) {
          cgm_mm_read_opts o = {threads[a], chunks[b], 0};
          cgm_csr A;
          cgm_status st = cgm_mm_read_csr_opts(tp, &o, &A, &info, &err);
          CHECK_MSG(st == CGM_OK, "%s, %s, %d threads, chunks %lld: %s", kinds[kk].name, eol,
                    threads[a], (long long)chunks[b], err.msg);
          CHECK_MSG(st != CGM_OK || csr_identical(&A, &S),
                    "%s, %s, %d threads, chunks %lld: CSR differs from the serial parse",
                    kinds[kk].name, eol, threads[a], (long long)chunks[b]);
          /* the info but the byte count, which CR makes larger */
          info.file_bytes = si.file_bytes;
          CHECK_MSG(st != CGM_OK || memcmp(&info, &si, sizeof info) == 0,
                    "%s, %s, %d threads, chunks %lld: info differs from the serial parse",
                    kinds[kk].name, eol, threads[a], (long long)chunks[b]);
          cgm_csr_free(&A);
        }
    }
    cgm_csr_free(&S);
    cgm_csr_free(&R);
    mt_free(&t);
  }
  unlink(tp);
}

/* check_failure on the text t written to a file, and through a pipe with
 * small pieces: the message must be the same, line included. */
static void check_text_fails(const mmtext *t, const char *name, cgm_status code, int64_t line,
                             const char *want) {
  char tp[512], fifo[512];
  tmp_path(tp, sizeof tp, name);
  mt_write(t, tp);
  check_failure(tp, false, code, (int)line, want);
  size_t len;
  char *text = mt_join(t, &len);
  cgm_mm_read_opts po = {4, 1000, 3000};
  pid_t pid = serve_pipe(fifo, text, len);
  if (pid > 0) {
    cgm_csr A;
    cgm_error e1 = {0}, e2 = {0};
    cgm_status s1 = cgm_mm_read_csr_opts(fifo, &po, &A, NULL, &e1);
    serve_end(pid);
    cgm_mm_read_csr(tp, &A, NULL, &e2);
    /* the messages differ only in the path */
    const char *m1 = strchr(e1.msg + strlen(fifo), ':'), *m2 = strchr(e2.msg + strlen(tp), ':');
    CHECK_MSG(s1 == code && m1 && m2 && strcmp(m1, m2) == 0, "%s through a pipe: '%s', file: '%s'",
              name, e1.msg, e2.msg);
  }
  free(text);
  unlink(tp);
}

/* Errors deep in a later chunk are reported with their own line, and the
 * first one in the file wins, whatever chunk finds it first. */
static void test_deep_errors(void) {
  mmtext t;
  cgm_csr R;
  int64_t dups;
  const int64_t nent = 40000; /* about 1.2 MB: several chunks on every setting */
  gen_text(&t, 3000, 3000, nent, false, CGM_MM_REAL, &R, &dups);
  cgm_csr_free(&R);
  char want[256];
  const int64_t k1 = 12001, k2 = 32494;
  const int64_t l1 = t.entry_line[k1], l2 = t.entry_line[k2];
  char *keep1 = strdup(t.line[l1 - 1]), *keep2 = strdup(t.line[l2 - 1]);
  size_t kl1 = strlen(keep1), kl2 = strlen(keep2);

  mt_set(&t, l2, "7 8 abc", 7);
  check_text_fails(&t, "deep_value.mtx", CGM_EINPUT, l2, "bad value 'abc': not a number");
  mt_set(&t, l2, "3001 8 1.5", 10);
  check_text_fails(&t, "deep_row.mtx", CGM_EINPUT, l2, "row index 3001 out of range 1..3000");
  mt_set(&t, l2, "% a \x01 comment", 14);
  check_text_fails(&t, "deep_binary.mtx", CGM_EINPUT, l2, "binary data (byte 0x01)");
  /* two errors: the first in the file wins */
  mt_set(&t, l1, "1 1 1 1", 7);
  check_text_fails(&t, "deep_two.mtx", CGM_EINPUT, l1, "extra token '1' after the entry");
  mt_set(&t, l1, keep1, kl1);
  mt_set(&t, l2, keep2, kl2);

  /* fewer entries declared than the file holds: the first extra one */
  const int64_t L = nent - 1000;
  char sl[64];
  int sn = snprintf(sl, sizeof sl, "3000 3000 %lld", (long long)L);
  mt_set(&t, t.size_line, sl, (size_t)sn);
  int64_t lx = t.entry_line[L];
  char tok[32];
  snprintf(tok, sizeof tok, "%.*s", (int)strcspn(t.line[lx - 1], " "), t.line[lx - 1]);
  snprintf(want, sizeof want, "more entries than the %lld declared on line 3 (found '%s')",
           (long long)L, tok);
  check_text_fails(&t, "deep_more.mtx", CGM_EINPUT, lx, want);
  /* after the declared count, a bad line is one entry too many too */
  char *keepx = strdup(t.line[lx + 5 - 1]);
  mt_set(&t, lx + 5, "zzz", 3);
  check_text_fails(&t, "deep_more_bad_after.mtx", CGM_EINPUT, lx, want);
  mt_set(&t, lx + 5, keepx, strlen(keepx));
  free(keepx);
  keepx = strdup(t.line[lx - 1]);
  mt_set(&t, lx, "zzz 1", 5);
  snprintf(want, sizeof want, "more entries than the %lld declared on line 3 (found 'zzz')",
           (long long)L);
  check_text_fails(&t, "deep_more_bad.mtx", CGM_EINPUT, lx, want);
  mt_set(&t, lx, "1 \x02", 3);
  check_text_fails(&t, "deep_more_binary.mtx", CGM_EINPUT, lx, "binary data (byte 0x02)");
  mt_set(&t, lx, keepx, strlen(keepx));
  free(keepx);
  /* more declared than there are: the end of the file, after the last line */
  sn = snprintf(sl, sizeof sl, "3000 3000 %lld", (long long)nent + 5);
  mt_set(&t, t.size_line, sl, (size_t)sn);
  snprintf(want, sizeof want, "unexpected end of file after %lld of the %lld entries",
           (long long)nent, (long long)nent + 5);
  check_text_fails(&t, "deep_eof.mtx", CGM_EINPUT, t.n + 1, want);
  mt_free(&t);

  /* a symmetric file with one entry above the diagonal deep inside */
  gen_text(&t, 3000, 3000, nent, true, CGM_MM_REAL, &R, &dups);
  cgm_csr_free(&R);
  int64_t first_lo = -1;
  uint64_t fi = 0, fj = 0;
  for (int64_t k = 0; k < nent && first_lo < 0; k++) {
    unsigned a, b;
    if (sscanf(t.line[t.entry_line[k] - 1], "%u %u", &a, &b) == 2 && a > b)
      first_lo = t.entry_line[k], fi = a, fj = b;
  }
  mt_set(&t, l2, "5 2999 0.5", 10);
  snprintf(want, sizeof want, "(5,2999) is above the diagonal, but line %lld has (%llu,%llu) below",
           (long long)first_lo, (unsigned long long)fi, (unsigned long long)fj);
  check_text_fails(&t, "deep_triangles.mtx", CGM_EINPUT, l2, want);
  /* ... and an error before it wins */
  mt_set(&t, l1, "5 5 1e999", 9);
  check_text_fails(&t, "deep_triangles_late.mtx", CGM_EINPUT, l1, "NaN/Inf value '1e999'");
  mt_free(&t);
  free(keep1);
  free(keep2);

  /* a line of 64 MiB in the middle: too long, wherever the chunks fall */
  {
    gen_text(&t, 300, 300, 2000, false, CGM_MM_REAL, &R, &dups);
    cgm_csr_free(&R);
    size_t big = (size_t)64 << 20;
    char *c = malloc(big);
    memset(c, 'x', big);
    c[0] = '%';
    mt_set(&t, t.entry_line[1500], c, big);
    free(c);
    check_text_fails(&t, "deep_long_line.mtx", CGM_EINPUT, t.entry_line[1500],
                     "line longer than 64 MiB");
    mt_free(&t);
  }
}

/* ---------------------------------------------------------------- gzip --- */

static bool read_file(const char *path, char **buf, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  *buf = malloc((size_t)n + 1);
  *len = fread(*buf, 1, (size_t)n, f);
  fclose(f);
  return *len == (size_t)n;
}

/* gzip files are read directly, recognised by their first bytes: the same
 * matrix as their text, bit for bit, with every setting; errors in the text
 * name the text's lines; a truncated or corrupt stream is an error naming
 * the file and the line it stopped in. A build without zlib refuses them
 * and says so. */
static void test_gzip(void) {
  char gz[512], plain[512], fifo[512];
  tmp_path(gz, sizeof gz, "g.mtx.gz");
  tmp_path(plain, sizeof plain, "g.mtx");
  char fixture[512];
  snprintf(fixture, sizeof fixture, "%s/mm/gzip.mtx.gz", CGM_TESTDATA_DIR);
  if (!cgm_mm_have_gzip()) {
    check_failure(fixture, false, CGM_EINPUT, 1,
                  "compressed file (gzip): this build cannot read gzip files");
    check_failure(fixture, true, CGM_EINPUT, 1, "this build cannot read gzip files");
    fprintf(stderr, "gzip: not in this build (no zlib): refusal checked\n");
    return;
  }
  /* the fixture: 2 x 2, (1,1) = 1 */
  {
    cgm_csr A;
    cgm_mm_info info;
    cgm_error err = {0};
    CHECK_OK(cgm_mm_read_csr(fixture, &A, &info, &err));
    CHECK(A.nrows == 2 && A.nnz == 1 && A.colidx[0] == 0 && A.val[0] == 1.0);
    struct stat sb;
    CHECK(stat(fixture, &sb) == 0 && info.file_bytes == sb.st_size); /* compressed bytes */
    check_same_matrix(fixture, &A, &info);
    cgm_csr_free(&A);
    check_failure(fixture, true, CGM_EINPUT, 2, "a vector must have one column");
  }

  /* a generated matrix, stored and compressed by gzip(1) */
  mmtext t;
  cgm_csr R;
  int64_t dups;
  gen_text(&t, 2000, 2000, 30000, true, CGM_MM_REAL, &R, &dups);
  size_t len;
  char *text = mt_join(&t, &len);
  unsigned char *z = malloc(2 * gzip_stored_bound(len) + 64);
  size_t zn = gzip_stored(z, text, len);
  CHECK(write_text(gz, (const char *)z, zn));
  CHECK(write_text(plain, text, len));
  check_reads_as(gz, NULL, &R, "stored gzip");
  for (int c = 0; c < N_CONFIGS; c++) check_reads_as(gz, &read_configs[c].o, &R, "stored gzip");
  /* the name does not matter, the first bytes do */
  char named[512];
  tmp_path(named, sizeof named, "g_named.mtx");
  CHECK(write_text(named, (const char *)z, zn));
  check_reads_as(named, NULL, &R, "gzip named .mtx");
  unlink(named);
  tmp_path(named, sizeof named, "g_plain.mtx.gz");
  CHECK(write_text(named, text, len));
  check_reads_as(named, NULL, &R, "text named .gz");
  unlink(named);
  /* through a pipe */
  pid_t pid = serve_pipe(fifo, (const char *)z, zn);
  if (pid > 0) {
    cgm_mm_read_opts po = {3, 4096, 10000};
    check_reads_as(fifo, &po, &R, "gzip through a pipe");
    serve_end(pid);
  }
  /* two members, as cat a.gz b.gz makes: one text */
  {
    size_t half = len / 2;
    while (text[half - 1] != '\n') half++;
    size_t n1 = gzip_stored(z, text, half);
    size_t n2 = gzip_stored(z + n1, text + half, len - half);
    CHECK(write_text(gz, (const char *)z, n1 + n2));
    check_reads_as(gz, NULL, &R, "two gzip members");
    cgm_mm_read_opts o = {2, 999, 3333};
    check_reads_as(gz, &o, &R, "two gzip members");
  }
  /* compressed for real by gzip(1), when it is there */
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "gzip -c -6 '%s' > '%s' 2>/dev/null", plain, gz);
  bool have_gzip_cmd = system(cmd) == 0;
  if (have_gzip_cmd) {
    check_reads_as(gz, NULL, &R, "gzip -6");
    for (int c = 0; c < N_CONFIGS; c++) check_reads_as(gz, &read_configs[c].o, &R, "gzip -6");
  }
  /* the .gz reads as the plain file: the same CSR and info but the byte
   * count, which is the compressed file's */
  {
    cgm_csr P, G;
    cgm_mm_info pi, gi;
    cgm_error err = {0};
    CHECK_OK(cgm_mm_read_csr(plain, &P, &pi, &err));
    CHECK_OK(cgm_mm_read_csr(gz, &G, &gi, &err));
    CHECK(csr_identical(&P, &G));
    struct stat sb;
    CHECK(stat(gz, &sb) == 0 && gi.file_bytes == sb.st_size && pi.file_bytes == (int64_t)len);
    gi.file_bytes = pi.file_bytes;
    CHECK(memcmp(&pi, &gi, sizeof pi) == 0);
    cgm_csr_free(&P);
    cgm_csr_free(&G);
  }

  /* truncated: in the middle of the text, the stream stops in a line; the
   * lines before it are parsed, the error names that line */
  zn = gzip_stored(z, text, len);
  size_t cut = 10 + 5 + len / 3; /* inside a stored block (of 64 KiB) */
  {
    /* the text bytes before the cut: stored blocks of 65535 bytes, each
     * after a 5-byte block header */
    size_t tb = 0, zb = 10;
    while (zb + 5 + 65535 < cut && tb + 65535 < len) zb += 5 + 65535, tb += 65535;
    size_t in_block = cut > zb + 5 ? cut - zb - 5 : 0;
    size_t text_before = tb + in_block;
    int64_t line = 1;
    for (size_t k = 0; k < text_before; k++) line += text[k] == '\n';
    CHECK(write_text(gz, (const char *)z, cut));
    check_failure(gz, false, CGM_EINPUT, (int)line, "truncated gzip file");
  }
  CHECK(write_text(gz, (const char *)z, zn - 3)); /* in the trailer: all text read */
  check_failure(gz, false, CGM_EINPUT, (int)t.n + 1, "truncated gzip file");
  CHECK(write_text(gz, (const char *)z, 10)); /* the header alone */
  check_failure(gz, false, CGM_EINPUT, 1, "truncated gzip file");
  CHECK(write_text(gz, "\x1f\x8b", 2));
  check_failure(gz, false, CGM_EINPUT, 1, "gzip");
  /* a wrong CRC: found once the whole text is out */
  z[zn - 8] ^= 0x5a;
  CHECK(write_text(gz, (const char *)z, zn));
  check_failure(gz, false, CGM_EINPUT, (int)t.n + 1, "corrupt gzip data: incorrect data check");
  z[zn - 8] ^= 0x5a;
  /* something after the member that is not another one */
  memcpy(z + zn, "junk", 4);
  CHECK(write_text(gz, (const char *)z, zn + 4));
  check_failure(gz, false, CGM_EINPUT, (int)t.n + 1, "are not another gzip member");
  /* a corrupt deflate stream (a stored block's length check broken) */
  z[10 + 3] ^= 0xff;
  CHECK(write_text(gz, (const char *)z, zn));
  check_failure(gz, false, CGM_EINPUT, 1, "corrupt gzip data: invalid stored block lengths");
  z[10 + 3] ^= 0xff;
  /* real compressed data with a byte flipped: some error, never a crash,
   * the same whatever the settings */
  if (have_gzip_cmd) {
    char *zz;
    size_t zl;
    snprintf(cmd, sizeof cmd, "gzip -c -6 '%s' > '%s' 2>/dev/null", plain, gz);
    if (system(cmd) == 0 && read_file(gz, &zz, &zl)) {
      for (int it = 0; it < 6; it++) {
        size_t at = 10 + (size_t)(splitmix64(&rng_state) % (zl - 18));
        zz[at] ^= (char)(1 + splitmix64(&rng_state) % 255);
        CHECK(write_text(gz, zz, zl));
        cgm_csr A;
        cgm_error err = {0};
        cgm_status st = cgm_mm_read_csr(gz, &A, NULL, &err);
        CHECK_MSG(st == CGM_EINPUT, "flipped gzip byte at %zu: status %d (%s)", at, st, err.msg);
        cgm_csr_free(&A);
        if (st) check_same_failure(gz, false, st, err.msg);
      }
      free(zz);
    }
  }
  /* an error in the text: its line in the text */
  {
    int64_t ln = t.entry_line[25000];
    mt_set(&t, ln, "1 1 0x10", 8);
    free(text);
    text = mt_join(&t, &len);
    zn = gzip_stored(z, text, len);
    CHECK(write_text(gz, (const char *)z, zn));
    check_failure(gz, false, CGM_EINPUT, (int)ln, "bad value '0x10'");
  }
  /* vectors */
  {
    const char vt[] = "%%MatrixMarket matrix array real general\n3 1\n1.5\n-0\n1e-320\n";
    zn = gzip_stored(z, vt, sizeof vt - 1);
    CHECK(write_text(gz, (const char *)z, zn));
    for (int c = -1; c < N_CONFIGS; c++) {
      double *v = NULL;
      int32_t n = 0;
      cgm_error err = {0};
      CHECK_OK(read_vector_cfg(gz, c, &v, &n, &err));
      CHECK(n == 3 && v && same_bits(v[0], 1.5) && same_bits(v[1], -0.0) &&
            same_bits(v[2], 1e-320));
      free(v);
    }
    const char vt2[] = "%%MatrixMarket matrix array real general\n3 1\n1.5\n-0\n";
    zn = gzip_stored(z, vt2, sizeof vt2 - 1);
    CHECK(write_text(gz, (const char *)z, zn));
    check_failure(gz, true, CGM_EINPUT, 5, "unexpected end of file after 2 of the 3 values");
  }
  /* gzip inside gzip is not unpacked twice */
  {
    size_t n1 = gzip_stored(z, "abc\n", 4);
    unsigned char *z2 = malloc(gzip_stored_bound(n1) + 16);
    size_t n2 = gzip_stored(z2, (const char *)z, n1);
    CHECK(write_text(gz, (const char *)z2, n2));
    check_failure(gz, false, CGM_EINPUT, 1, "compressed file (gzip): decompress it first");
    free(z2);
  }
  free(z);
  free(text);
  mt_free(&t);
  cgm_csr_free(&R);
  unlink(gz);
  unlink(plain);
}

/* Random mutations of small valid files: every outcome is either a matrix or
 * an error "path:LINE: ..." with CGM_EINPUT, never a crash (ASan build). */
static void test_fuzz(void) {
  const char *src[] = {"ok_comments.mtx", "ok_sym_lower.mtx", "ok_dup.mtx",
                       "ok_integer.mtx",  "ok_pattern.mtx",   "ok_vec_array.mtx"};
  char path[512], tp[512];
  tmp_path(tp, sizeof tp, "fuzz.mtx");
  static const char alphabet[] = "0123456789 \n\t.eE+-%%a\0\r";
  int failures = 0, successes = 0;
  for (size_t s = 0; s < sizeof src / sizeof *src; s++) {
    snprintf(path, sizeof path, "%s/mm/%s", CGM_TESTDATA_DIR, src[s]);
    FILE *f = fopen(path, "rb");
    char orig[4096];
    size_t len = f ? fread(orig, 1, sizeof orig, f) : 0;
    if (f) fclose(f);
    for (int it = 0; it < 1500 / CGM_TEST_STRIDE; it++) {
      char t[4200];
      memcpy(t, orig, len);
      size_t n = len;
      int muts = 1 + (int)(splitmix64(&rng_state) % 3);
      for (int m = 0; m < muts && n > 0; m++) {
        size_t at = (size_t)(splitmix64(&rng_state) % n);
        switch (splitmix64(&rng_state) % 4) {
        case 0:
          t[at] = alphabet[splitmix64(&rng_state) % (sizeof alphabet - 1)];
          break;
        case 1:
          n = at;
          break; /* truncate */
        case 2:
          memmove(t + at, t + at + 1, n - at - 1), n--;
          break;
        default:
          if (n < sizeof t - 1) {
            memmove(t + at + 1, t + at, n - at);
            t[at] = alphabet[splitmix64(&rng_state) % (sizeof alphabet - 1)];
            n++;
          }
        }
      }
      write_text(tp, t, n);
      cgm_error err = {0};
      cgm_status st;
      if (s == 5) {
        double *v = NULL;
        int32_t vn;
        st = cgm_mm_read_vector(tp, &v, &vn, &err);
        free(v);
      } else {
        cgm_csr A;
        cgm_mm_info info;
        st = cgm_mm_read_csr(tp, &A, &info, &err);
        if (st == CGM_OK) {
          for (int64_t k = 0; k < A.nnz; k++) CHECK(isfinite(A.val[k]));
          for (int32_t i = 0; i < A.nrows; i++)
            for (int64_t k = A.rowptr[i]; k < A.rowptr[i + 1]; k++)
              CHECK(A.colidx[k] >= 0 && A.colidx[k] < A.ncols);
        }
        /* one of the parallel settings: the same matrix or message */
        int c = (int)(splitmix64(&rng_state) % N_CONFIGS);
        cgm_csr B;
        cgm_mm_info bi;
        cgm_error e2 = {0};
        cgm_status s2 = read_csr_cfg(tp, c, &B, &bi, &e2);
        CHECK_MSG(s2 == st && (st ? strcmp(e2.msg, err.msg) == 0
                                  : csr_identical(&A, &B) && memcmp(&bi, &info, sizeof bi) == 0),
                  "fuzz (%s): status %d '%s', default %d '%s'", read_configs[c].name, s2, e2.msg,
                  st, err.msg);
        cgm_csr_free(&B);
        cgm_csr_free(&A);
      }
      if (st == CGM_OK) {
        successes++;
        continue;
      }
      failures++;
      CHECK_MSG(st == CGM_EINPUT, "fuzz: status %d: %s", st, err.msg);
      size_t pl = strlen(tp);
      bool shape =
          strncmp(err.msg, tp, pl) == 0 && err.msg[pl] == ':' && is_digit_helper(err.msg[pl + 1]);
      CHECK_MSG(shape, "fuzz: message without path:LINE: '%s'", err.msg);
    }
  }
  fprintf(stderr, "fuzz: %d mutated files read, %d rejected\n", successes, failures);
}

/* A text of R row by row: every entry "I J V" with the given separators
 * (lead before I, sep between tokens, eol at the end), V written to round
 * trip (or an integer, or none for a pattern); `extra` (NULL: none) after
 * the entry of index at. */
static char *sorted_text(const cgm_csr *R, cgm_mm_field field, const char *lead, const char *sep,
                         const char *eol, int64_t at, const char *extra, size_t *len) {
  const char *fname = field == CGM_MM_PATTERN   ? "pattern"
                      : field == CGM_MM_INTEGER ? "integer"
                                                : "real";
  size_t cap = 256 + (size_t)R->nnz * 64 + (extra ? strlen(extra) : 0);
  char *t = malloc(cap);
  if (!t) return NULL;
  size_t n = (size_t)snprintf(
      t, cap, "%%%%MatrixMarket matrix coordinate %s general\n%% sorted\n%d %d %lld\n", fname,
      R->nrows, R->ncols, (long long)R->nnz);
  int64_t k = 0;
  for (int32_t i = 0; i < R->nrows; i++)
    for (int64_t q = R->rowptr[i]; q < R->rowptr[i + 1]; q++, k++) {
      char v[40] = "";
      if (field == CGM_MM_REAL) cgm_mm_format_double(v, R->val[q]);
      if (field == CGM_MM_INTEGER) snprintf(v, sizeof v, "%lld", (long long)R->val[q]);
      n += (size_t)snprintf(t + n, cap - n, "%s%d%s%d%s%s%s", lead, i + 1, sep, R->colidx[q] + 1,
                            field == CGM_MM_PATTERN ? "" : sep, v, eol);
      if (k == at && extra) n += (size_t)snprintf(t + n, cap - n, "%s", extra);
    }
  *len = n;
  return t;
}

/* A random R of rows x cols with empty rows at the start, in the middle and
 * at the end, columns sorted; values exact integers for an integer field, 1
 * for a pattern. */
static void sorted_matrix(int32_t rows, int32_t cols, cgm_mm_field field, uint64_t seed,
                          cgm_csr *R) {
  memset(R, 0, sizeof *R);
  R->nrows = rows, R->ncols = cols;
  R->rowptr = calloc((size_t)rows + 1, sizeof *R->rowptr);
  R->colidx = malloc((size_t)rows * 24 * sizeof *R->colidx);
  R->val = malloc((size_t)rows * 24 * sizeof *R->val);
  uint64_t x = seed;
  int64_t k = 0;
  for (int32_t i = 0; i < rows; i++) {
    R->rowptr[i] = k;
    if (i < 3 || (i > rows / 2 && i < rows / 2 + 5) || i >= rows - 4) continue;
    int32_t c = 0;
    for (int e = 0; e < 20; e++) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      c += 1 + (int32_t)((x >> 33) % (uint64_t)(cols / 24 > 1 ? cols / 24 : 1));
      if (c > cols) break;
      R->colidx[k] = c - 1;
      R->val[k] = field == CGM_MM_PATTERN   ? 1.0
                  : field == CGM_MM_INTEGER ? (double)((int64_t)(x >> 40) - (1 << 23))
                                            : ((double)(x >> 11) * 0x1p-53 - 0.5) * 1e3;
      k++;
    }
  }
  R->rowptr[rows] = k;
  R->nnz = k;
}

/* tp read on each of `threads` by the general path (info.sorted false),
 * giving R bit for bit. */
static void check_general_path(const char *tp, const cgm_csr *R, const int *threads, size_t nt,
                               const char *what) {
  for (size_t ti = 0; ti < nt; ti++) {
    cgm_mm_read_opts o = cgm_mm_read_opts_default();
    o.threads = threads[ti];
    cgm_csr A;
    cgm_mm_info ia;
    cgm_error err = {0};
    CHECK_OK(cgm_mm_read_csr_opts(tp, &o, &A, &ia, &err));
    CHECK_MSG(!ia.sorted && csr_identical(&A, R), "%s, %d threads: sorted %d", what, threads[ti],
              ia.sorted);
    cgm_csr_free(&A);
  }
}

/* One read of a file: its CSR (when st is CGM_OK), info and error. */
typedef struct {
  cgm_csr A;
  cgm_mm_info info;
  cgm_error err;
  cgm_status st;
} mm_read;

/* The file at tp read on `threads` threads as the reader chooses (r[0])
 * and through the general path alone (r[1]). */
static void read_both(const char *tp, int threads, mm_read r[2]) {
  cgm_mm_read_opts o = cgm_mm_read_opts_default();
  o.threads = threads;
  for (int k = 0; k < 2; k++) {
    o.general_only = k == 1;
    memset(&r[k].err, 0, sizeof r[k].err);
    r[k].st = cgm_mm_read_csr_opts(tp, &o, &r[k].A, &r[k].info, &r[k].err);
  }
}

/* The sorted path (sparse/mm_sorted.c): a general file row by row is read
 * straight into the CSR, bit for bit the general path's, on 1 to 7
 * threads, whatever its blanks and line ends; anything else falls back to
 * the general path (info.sorted false) with the same result or the same
 * error: a comment or blank line among the entries, two entries out of
 * order (also across chunks), a duplicate, a last line without newline, a
 * bad value, a symmetric file. */
static void test_sorted_path(void) {
  char tp[512];
  tmp_path(tp, sizeof tp, "sorted.mtx");
  const int threads[] = {1, 2, 3, 7};
  const cgm_mm_field fields[] = {CGM_MM_REAL, CGM_MM_INTEGER, CGM_MM_PATTERN};
  const struct {
    const char *lead, *sep, *eol;
  } styles[] = {{"", " ", "\n"}, {" \t", "\t ", " \r\n"}, {"", "  ", "\t\n"}};
  for (size_t fi = 0; fi < 3; fi++) {
    cgm_csr R;
    sorted_matrix(9000, 7000, fields[fi], 11 + fi, &R);
    CHECK(R.nnz > 100000);
    for (size_t si = 0; si < 3; si++) {
      size_t len;
      char *text = sorted_text(&R, fields[fi], styles[si].lead, styles[si].sep, styles[si].eol, -1,
                               NULL, &len);
      CHECK(text && write_text(tp, text, len));
      free(text);
      for (size_t ti = 0; ti < 4; ti++) {
        mm_read r[2];
        read_both(tp, threads[ti], r);
        CHECK_MSG(r[0].st == CGM_OK && r[1].st == CGM_OK, "%s / %s", r[0].err.msg, r[1].err.msg);
        if (r[0].st || r[1].st) continue;
        CHECK_MSG(r[0].info.sorted && !r[1].info.sorted,
                  "field %zu style %zu, %d threads: sorted path %d, general %d", fi, si,
                  threads[ti], r[0].info.sorted, r[1].info.sorted);
        CHECK_MSG(csr_identical(&r[0].A, &R) && csr_identical(&r[1].A, &R),
                  "field %zu style %zu, %d threads: a CSR differs from the matrix written", fi, si,
                  threads[ti]);
        r[0].info.sorted = false;
        CHECK(memcmp(&r[0].info, &r[1].info, sizeof r[0].info) == 0);
        cgm_csr_free(&r[0].A);
        cgm_csr_free(&r[1].A);
      }
    }
    cgm_csr_free(&R);
  }

  /* what the sorted path must leave to the general one */
  cgm_csr R;
  sorted_matrix(9000, 7000, CGM_MM_REAL, 5, &R);
  const int64_t mid = R.nnz / 2;
  char swap[160], dup[160], lastv[160];
  {
    /* the entry after mid written again (a duplicate), and one before it (out of order) */
    int32_t i = 0;
    while (R.rowptr[i + 1] <= mid + 1) i++;
    snprintf(dup, sizeof dup, "%d %d 1.5\n", i + 1, R.colidx[mid + 1] + 1);
    snprintf(swap, sizeof swap, "%d %d 2.5\n", 1, 1);
    snprintf(lastv, sizeof lastv, "%d %d x\n", i + 1, R.colidx[mid + 1] + 1);
  }
  const struct {
    const char *what, *extra;
    bool error; /* the general path refuses it too */
  } fb[] = {{"a comment among the entries", "% a comment\n", false},
            {"a blank line among the entries", "\n", false},
            {"an entry out of order", swap, true}, /* one entry too many, and out of order */
            {"a duplicate", dup, true},            /* likewise: the count says L */
            {"a bad value", lastv, true}};
  for (size_t k = 0; k < sizeof fb / sizeof *fb; k++) {
    size_t len;
    char *text = sorted_text(&R, CGM_MM_REAL, "", " ", "\n", mid, fb[k].extra, &len);
    CHECK(text && write_text(tp, text, len));
    free(text);
    for (size_t ti = 0; ti < 4; ti++) {
      mm_read r[2];
      read_both(tp, threads[ti], r);
      CHECK_MSG(r[0].st == r[1].st && (r[0].st != CGM_OK) == fb[k].error &&
                    !strcmp(r[0].err.msg, r[1].err.msg),
                "%s, %d threads: %d '%s' against the general path's %d '%s'", fb[k].what,
                threads[ti], r[0].st, r[0].err.msg, r[1].st, r[1].err.msg);
      CHECK_MSG(
          r[0].st != CGM_OK || r[1].st != CGM_OK ||
              (!r[0].info.sorted && csr_identical(&r[0].A, &r[1].A) && csr_identical(&r[0].A, &R)),
          "%s, %d threads: not the general path's CSR", fb[k].what, threads[ti]);
      for (int j = 0; j < 2; j++)
        if (r[j].st == CGM_OK) cgm_csr_free(&r[j].A);
    }
  }
  /* two neighbouring entries of a row exchanged: the count right, the order not */
  {
    size_t len;
    char *text = sorted_text(&R, CGM_MM_REAL, "", " ", "\n", -1, NULL, &len);
    CHECK(text != NULL);
    int32_t i = R.nrows / 3;
    while (R.rowptr[i + 1] - R.rowptr[i] < 2) i++;
    /* the lines of entries q and q + 1: after the 3 header lines */
    const int64_t q = R.rowptr[i];
    char *a = text;
    for (int64_t l = 0; l < 3 + q; l++) a = strchr(a, '\n') + 1;
    char *b = strchr(a, '\n') + 1, *c = strchr(b, '\n') + 1;
    char tmp[128];
    const size_t la = (size_t)(b - a), lb = (size_t)(c - b);
    memcpy(tmp, a, la);
    memmove(a, b, lb);
    memcpy(a + lb, tmp, la);
    CHECK(write_text(tp, text, len));
    free(text);
    check_general_path(tp, &R, threads, 4, "two entries exchanged");
  }
  /* out of order across chunks: the second half of the rows first */
  {
    int32_t h = R.nrows / 2;
    size_t cap = 256 + (size_t)R.nnz * 64, n;
    char *t = malloc(cap);
    n = (size_t)snprintf(t, cap, "%%%%MatrixMarket matrix coordinate real general\n%d %d %lld\n",
                         R.nrows, R.ncols, (long long)R.nnz);
    for (int part = 0; part < 2; part++)
      for (int32_t i = part ? 0 : h; i < (part ? h : R.nrows); i++)
        for (int64_t q = R.rowptr[i]; q < R.rowptr[i + 1]; q++) {
          char v[40];
          cgm_mm_format_double(v, R.val[q]);
          n += (size_t)snprintf(t + n, cap - n, "%d %d %s\n", i + 1, R.colidx[q] + 1, v);
        }
    CHECK(write_text(tp, t, n));
    free(t);
    check_general_path(tp, &R, threads, 4, "halves swapped");
  }
  /* the last line without its newline; a symmetric file */
  {
    size_t len;
    char *text = sorted_text(&R, CGM_MM_REAL, "", " ", "\n", -1, NULL, &len);
    CHECK(text && write_text(tp, text, len - 1));
    check_general_path(tp, &R, threads, 4, "no newline at the end");
    free(text);
    cgm_csr P;
    cgm_error err = {0};
    CHECK_OK(cgm_gen_poisson2d(100, &P, &err));
    CHECK_OK(cgm_mm_write_csr(tp, &P, true, &err)); /* the lower triangle, row by row */
    check_general_path(tp, &P, threads, 4, "symmetric");
    cgm_csr_free(&P);
  }
  cgm_csr_free(&R);
  unlink(tp);
}

int main(void) {
  const char *base = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/cgm_test_mm_XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(tmpdir)) {
    fprintf(stderr, "mkdtemp(%s): %s\n", tmpdir, strerror(errno));
    return 1;
  }
  test_float_parser();
  test_format_double();
  test_bundled_matrices();
  test_round_trip();
  test_writer_errors();
  test_bad_inputs();
  test_good_inputs();
  test_pipe();
  test_resource_bounds();
  test_sum_overflow();
  test_parallel_identical();
  test_thread_counts();
  test_deep_errors();
  test_gzip();
  test_sorted_path();
  test_fuzz();

  const char *names[] = {"rt.mtx",       "w_err.mtx", "long_line.mtx", "high_bytes.mtx",
                         "pipe_src.mtx", "pipe.fifo", "fuzz.mtx"};
  for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
    char p[512];
    tmp_path(p, sizeof p, names[k]);
    unlink(p);
  }
  rmdir(tmpdir);
  TEST_MAIN_END();
}
