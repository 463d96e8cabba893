/* Matrix Market reader and writer: the bundled SuiteSparse matrices against
 * an independent fscanf/strtod reader and MANIFEST.tsv, the float parser
 * against strtod (bit for bit), write/read round trips, every malformed
 * input of tests/data/mm (status, file name and line in the message),
 * duplicates, symmetric expansion, pipes and a mutation fuzz. */
#define _POSIX_C_SOURCE 200809L

#include "cgmodel/sparse.h"
#include "sparse/mm_internal.h"
#include "test_util.h"

#include <dirent.h>
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
static uint64_t rnd(void) { /* splitmix64 */
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static double rnd01(void) {
  return (double)(rnd() >> 11) * 0x1p-53;
}

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

/* A random finite double: all bit patterns, with subnormals, huge values,
 * signed zeros and small integers mixed in. */
static double random_value(void) {
  switch (rnd() % 8) {
  case 0:
    return 0.0;
  case 1:
    return -0.0;
  case 2:
    return (double)((int64_t)(rnd() % 2001) - 1000);
  case 3: { /* subnormal */
    uint64_t b = (rnd() & ((1ull << 52) - 1)) | (rnd() & (1ull << 63));
    if (!(b & ((1ull << 52) - 1))) b |= 1;
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
  }
  case 4:
    return (rnd() & 1 ? -1 : 1) * 1.7976931348623157e308 * (0.5 + 0.5 * rnd01());
  case 5:
    return (rnd01() - 0.5) * 10.0;
  default: {
    for (;;) {
      uint64_t b = rnd();
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
  const int iters = 200000;
  for (int it = 0; it < iters; it++) {
    double x;
    switch (it % 4) {
    case 0:
      x = random_value();
      break;
    case 1:
      x = rnd01() * pow(10.0, (double)((int)(rnd() % 61) - 30));
      break;
    case 2:
      x = -rnd01();
      break;
    default:
      x = (1.0 + 1e-3 * rnd01()) * ((rnd() & 1) ? -1.0 : 6.0);
      break;
    }
    for (size_t f = 0; f < sizeof fmts / sizeof *fmts; f++) {
      if (f == 6 && fabs(x) > 1e30) continue; /* %.3f of 1e308: 300 digits, fine but slow */
      snprintf(s, sizeof s, fmts[f], x);
      check_parse(s);
    }
    /* random integers */
    snprintf(s, sizeof s, "%lld", (long long)(rnd() >> (rnd() % 64)) * ((rnd() & 1) ? -1 : 1));
    check_parse(s);
  }
  /* Random decimal strings: 1..25 digits, a point anywhere, exponent
   * -350..350: hits every exponent of the Eisel-Lemire table. */
  for (int it = 0; it < 300000; it++) {
    char *o = s;
    if (rnd() & 1) *o++ = (rnd() & 1) ? '-' : '+';
    int nd = 1 + (int)(rnd() % 25), point = (int)(rnd() % (unsigned)(nd + 2)) - 1;
    for (int k = 0; k < nd; k++) {
      if (k == point) *o++ = '.';
      *o++ = (char)('0' + rnd() % 10);
    }
    if (rnd() % 4) o += sprintf(o, "%c%d", (rnd() & 1) ? 'e' : 'E', (int)(rnd() % 701) - 350);
    *o = '\0';
    check_parse(s);
  }
  /* Halfway cases: exact midpoints between neighbouring doubles, printed
   * with all their digits (%.40e keeps enough of them for small exponents)
   * and just above/below. */
  for (int it = 0; it < 20000; it++) {
    double x = rnd01() * pow(2.0, (double)((int)(rnd() % 200) - 100));
    double y = nextafter(x, INFINITY);
    long double mid = ((long double)x + (long double)y) / 2;
    snprintf(s, sizeof s, "%.40Le", mid); /* > 19 digits: strtod fallback */
    check_parse(s);
    snprintf(s, sizeof s, "%.18Le", mid); /* 19 digits: Eisel-Lemire near a tie */
    check_parse(s);
    snprintf(s, sizeof s, "%.16Le", mid);
    check_parse(s);
  }
  CHECK(n_parse_checked >= 1000000);
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
  for (int it = 0; it < 600000; it++) {
    double x;
    char s[64];
    switch (it % 6) {
    case 0:
      x = random_value();
      break;
    case 1:
      x = (1.0 + rnd01() * 9.0) * pow(10.0, (double)((int)(rnd() % 60) - 14));
      break;
    case 2: {
      int nd = 1 + (int)(rnd() % 17);
      char *o = s;
      for (int k = 0; k < nd; k++) *o++ = (char)('0' + (k == 0 ? 1 + rnd() % 9 : rnd() % 10));
      sprintf(o, "e%d", (int)(rnd() % 60) - 20);
      x = strtod(s, NULL);
      break;
    }
    case 3:
      x = (double)(int64_t)(1000000000000000ll + (int64_t)(rnd() % 999000000000000000ull));
      break;
    case 4:
      x = ldexp((double)(rnd() % (1ull << 53) | 1), -(int)(rnd() % 80));
      break;
    default:
      x = (double)(int64_t)(rnd() % 2000000000000000ull) / 1024.0;
      break;
    }
    if (rnd() & 1) x = -x;
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
    int len = (int)(rnd() % (unsigned)(per_row + 1));
    for (int t = 0; t < len; t++) {
      int32_t j = (int32_t)(rnd() % (uint64_t)(sym ? i + 1 : cols));
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
    int32_t rows = 1 + (int32_t)(rnd() % 300), cols = 1 + (int32_t)(rnd() % 300);
    bool sym = t % 2 == 1;
    if (sym) cols = rows;
    cgm_csr A, B;
    random_csr(&A, rows, cols, 1 + (int)(rnd() % 12), sym);
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
    int32_t n = 1 + (int32_t)(rnd() % 5000);
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
    {"gzip.mtx.gz", false, CGM_EINPUT, 1, "compressed file (gzip): decompress it first"},
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
    {"gzip.mtx.gz", true, CGM_EINPUT, 1, "compressed"},
    {"binary_garbage.mtx", true, CGM_EINPUT, 1, "binary data"},
    {"empty.mtx", true, CGM_EINPUT, 1, "empty file"},
};

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
  snprintf(path, sizeof path, "%s/mm/ok_vec_array.mtx", CGM_TESTDATA_DIR);
  CHECK_OK(cgm_mm_read_vector(path, &v, &n, &err));
  CHECK(n == 3 && v && same_bits(v[0], 1.5) && same_bits(v[1], -0.0) && same_bits(v[2], 1e-320));
  free(v);
  v = NULL;
  snprintf(path, sizeof path, "%s/mm/ok_vec_coord.mtx", CGM_TESTDATA_DIR);
  CHECK_OK(cgm_mm_read_vector(path, &v, &n, &err));
  CHECK(n == 4 && v && v[0] == 1 && v[1] == 0 && v[2] == 0 && v[3] == 3);
  free(v);
}

/* Reading through a pipe: the size is unknown, the entry arrays grow, data
 * arrives in small pieces. */
static void test_pipe(void) {
  char file[512], fifo[512];
  tmp_path(file, sizeof file, "pipe_src.mtx");
  tmp_path(fifo, sizeof fifo, "pipe.fifo");
  cgm_csr A, B;
  cgm_error err = {0};
  random_csr(&A, 3000, 2000, 60, false); /* ~90k entries: more than the first 64k */
  CHECK_OK(cgm_mm_write_csr(file, &A, false, &err));
  if (mkfifo(fifo, 0600) != 0) {
    fprintf(stderr, "mkfifo failed (%s): pipe test skipped\n", strerror(errno));
    cgm_csr_free(&A);
    return;
  }
  pid_t pid = fork();
  if (pid == 0) {
    int in = open(file, O_RDONLY), out = open(fifo, O_WRONLY);
    char buf[10007];
    ssize_t k;
    while (in >= 0 && out >= 0 && (k = read(in, buf, sizeof buf)) > 0)
      if (write(out, buf, (size_t)k) != k) break;
    _exit(0);
  }
  CHECK(pid > 0);
  cgm_mm_info info;
  cgm_status st = cgm_mm_read_csr(fifo, &B, &info, &err);
  CHECK_MSG(st == CGM_OK, "pipe: %s", err.msg);
  if (pid > 0) waitpid(pid, NULL, 0);
  struct stat sb;
  CHECK(stat(file, &sb) == 0 && info.file_bytes == sb.st_size);
  CHECK(st == CGM_OK && csr_identical(&A, &B));
  cgm_csr_free(&A);
  cgm_csr_free(&B);
  unlink(fifo);
}

/* Serves text once through the FIFO at path (a child process writes it and
 * exits); returns the child's pid, or -1 when FIFOs are unavailable. */
static pid_t serve_fifo(const char *path, const char *text, size_t len) {
  unlink(path);
  if (mkfifo(path, 0600) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    int out = open(path, O_WRONLY);
    size_t off = 0;
    while (out >= 0 && off < len) {
      ssize_t k = write(out, text + off, len - off);
      if (k <= 0) break;
      off += (size_t)k;
    }
    _exit(0);
  }
  return pid;
}

/* The row-count bound (docs/matrix-market.md, "Resource bounds"): a size
 * line may declare at most max(2^16, file bytes) rows, so that a 60-byte
 * file cannot make the reader allocate and touch 12 GB of row pointers (found
 * by tests/fuzz/fuzz_pipeline: "1500000000 3 1"). Regular files are checked
 * at the size line, pipes once their size is known; a vector read from a pipe
 * grows as values arrive. */
static void test_resource_bounds(void) {
  char tp[512], fifo[512];
  tmp_path(tp, sizeof tp, "bounds.mtx");
  tmp_path(fifo, sizeof fifo, "bounds.fifo");
  const char huge[] = "%%MatrixMarket matrix coordinate real general\n1500000000 3 1\n1 1 1\n";
  const char hugev[] = "%%MatrixMarket matrix coordinate real general\n1500000000 1 1\n1 1 1\n";
  write_text(tp, huge, sizeof huge - 1);
  check_failure(tp, false, CGM_EINPUT, 2, "too many rows for a file of 67 bytes: at most 65536");
  write_text(tp, hugev, sizeof hugev - 1);
  check_failure(tp, true, CGM_EINPUT, 2, "vector of 1500000000 values is too long");
  pid_t pid = serve_fifo(fifo, huge, sizeof huge - 1);
  if (pid > 0) {
    check_failure(fifo, false, CGM_EINPUT, 2, "too many rows for a file of 67 bytes");
    waitpid(pid, NULL, 0);
  }
  pid = serve_fifo(fifo, hugev, sizeof hugev - 1);
  if (pid > 0) {
    check_failure(fifo, true, CGM_EINPUT, 2, "too long for a file of 67 bytes");
    waitpid(pid, NULL, 0);
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
  pid = serve_fifo(fifo, arr, sizeof arr - 1);
  if (pid > 0) {
    check_failure(fifo, true, CGM_EINPUT, 4, "after 1 of the 2000000000 values");
    waitpid(pid, NULL, 0);
  }

  /* the edge: 2^16 rows read from any file, 2^16 + 1 need as many bytes */
  cgm_csr A;
  cgm_error err = {0};
  const char edge[] = "%%MatrixMarket matrix coordinate real general\n65536 65536 0\n";
  write_text(tp, edge, sizeof edge - 1);
  CHECK_OK(cgm_mm_read_csr(tp, &A, NULL, &err));
  CHECK(A.nrows == 65536 && A.nnz == 0 && A.rowptr && A.rowptr[65536] == 0);
  cgm_csr_free(&A);
  const char over[] = "%%MatrixMarket matrix coordinate real general\n65537 65537 0\n";
  write_text(tp, over, sizeof over - 1);
  check_failure(tp, false, CGM_EINPUT, 2, "at most 65536 (or one per byte of the file)");
  /* a file with as many bytes as rows reads (here: a long comment) */
  {
    size_t pad = 100000;
    char *t = malloc(pad + 200);
    int h = sprintf(t, "%%%%MatrixMarket matrix coordinate real general\n%%");
    memset(t + h, 'x', pad);
    int e = sprintf(t + h + pad, "\n100000 100000 1\n100000 1 2.5\n");
    write_text(tp, t, (size_t)h + pad + (size_t)e);
    CHECK_OK(cgm_mm_read_csr(tp, &A, NULL, &err));
    CHECK(A.nrows == 100000 && A.nnz == 1 && A.colidx[0] == 0 && A.val[0] == 2.5);
    cgm_csr_free(&A);
    pid = serve_fifo(fifo, t, (size_t)h + pad + (size_t)e);
    if (pid > 0) {
      CHECK_OK(cgm_mm_read_csr(fifo, &A, NULL, &err));
      CHECK(A.nrows == 100000 && A.nnz == 1);
      cgm_csr_free(&A);
      waitpid(pid, NULL, 0);
    }
    free(t);
  }
  /* an array vector from a pipe longer than the first allocation */
  {
    const int32_t n = 100000;
    char *t = malloc((size_t)n * 12 + 100);
    size_t len = (size_t)sprintf(t, "%%%%MatrixMarket matrix array real general\n%d 1\n", n);
    for (int32_t i = 0; i < n; i++) len += (size_t)sprintf(t + len, "%d.25\n", i);
    pid = serve_fifo(fifo, t, len);
    if (pid > 0) {
      double *v = NULL;
      int32_t m = 0;
      CHECK_OK(cgm_mm_read_vector(fifo, &v, &m, &err));
      CHECK(m == n && v && v[0] == 0.25 && v[n - 1] == n - 1 + 0.25);
      free(v);
      waitpid(pid, NULL, 0);
    }
    free(t);
  }
  unlink(tp);
  unlink(fifo);
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
    for (int it = 0; it < 1500; it++) {
      char t[4200];
      memcpy(t, orig, len);
      size_t n = len;
      int muts = 1 + (int)(rnd() % 3);
      for (int m = 0; m < muts && n > 0; m++) {
        size_t at = (size_t)(rnd() % n);
        switch (rnd() % 4) {
        case 0:
          t[at] = alphabet[rnd() % (sizeof alphabet - 1)];
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
            t[at] = alphabet[rnd() % (sizeof alphabet - 1)];
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
        st = cgm_mm_read_csr(tp, &A, NULL, &err);
        if (st == CGM_OK) {
          for (int64_t k = 0; k < A.nnz; k++) CHECK(isfinite(A.val[k]));
          for (int32_t i = 0; i < A.nrows; i++)
            for (int64_t k = A.rowptr[i]; k < A.rowptr[i + 1]; k++)
              CHECK(A.colidx[k] >= 0 && A.colidx[k] < A.ncols);
        }
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
