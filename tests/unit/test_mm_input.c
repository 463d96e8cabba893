/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The Matrix Market reader against input that changes under it or never
 * ends (docs/matrix-market.md, "Resource bounds"; docs/reliability.md):
 *   - a mapped file truncated or rewritten while it is read gives "PATH: the
 *     file changed while it was read" on every path (sorted, general,
 *     symmetric, vector; one thread or several), never SIGBUS; the SIGBUS
 *     handler is the guard's only while a file is mapped and forwards any
 *     other SIGBUS;
 *   - a stream is parsed as it flows: an endless one stops at its first
 *     entry too many, and 64 MiB of comments through a pipe (plain or gzip)
 *     raise the peak RSS by a few pieces, not by the text;
 *   - a FIFO or a device where a file is expected is refused at once;
 *   - a size line declaring more rows than its entries can fill, or a
 *     non-square matrix for a caller that needs a square one, is refused at
 *     the size line, before the text after it is read. */
#define _POSIX_C_SOURCE 200809L

#include "cgmodel/sparse.h"
#include "gzip_stored.h"
#include "sparse/mm_internal.h"
#include "sparse/mm_source.h"
#include "test_util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmpdir[256];

static void tmp_path(char *buf, size_t n, const char *name) {
  snprintf(buf, n, "%s/%s", tmpdir, name);
}

static bool write_text(const char *path, const char *text, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(text, 1, len, f) == len;
  return fclose(f) == 0 && ok;
}

/* A growing text buffer. */
typedef struct {
  char *b;
  size_t n, cap;
} text;

static void tx_addf(text *t, const char *fmt, ...) {
  if (t->cap - t->n < 256) {
    t->cap = t->cap ? 2 * t->cap : 1 << 16;
    t->b = realloc(t->b, t->cap);
  }
  va_list ap;
  va_start(ap, fmt);
  t->n += (size_t)vsnprintf(t->b + t->n, t->cap - t->n, fmt, ap);
  va_end(ap);
}

/* The tridiagonal n x n matrix (4 on the diagonal, -1 beside it): general,
 * row by row (the sorted path reads it), or its lower triangle. */
static text tridiagonal(int n, bool sym) {
  text t = {0};
  tx_addf(&t, "%%%%MatrixMarket matrix coordinate real %s\n", sym ? "symmetric" : "general");
  tx_addf(&t, "%d %d %d\n", n, n, sym ? 2 * n - 1 : 3 * n - 2);
  for (int i = 1; i <= n; i++) {
    if (i > 1) tx_addf(&t, "%d %d -1\n", i, i - 1);
    tx_addf(&t, "%d %d 4\n", i, i);
    if (!sym && i < n) tx_addf(&t, "%d %d -1\n", i, i + 1);
  }
  return t;
}

/* --------------------------------------------------- a file that changes --- */

static enum { CUT_HALF, CUT_TO_HEADER, REWRITE } change;
static text other; /* REWRITE: the same size, another value */

/* mm_test_after_header: the change, once the header is read. */
static void change_file(const char *path) {
  struct stat sb;
  CHECK(stat(path, &sb) == 0);
  if (change == REWRITE)
    CHECK(write_text(path, other.b, other.n));
  else
    CHECK(truncate(path, change == CUT_HALF ? sb.st_size / 2 : 100) == 0);
}

/* path holds t, dated 2001: a rewrite now changes its time even where
 * timestamps are coarse. */
static void put_file(const char *path, const text *t) {
  CHECK(write_text(path, t->b, t->n));
  const struct timespec old[2] = {{1000000000, 0}, {1000000000, 0}};
  CHECK(utimensat(AT_FDCWD, path, old, 0) == 0);
}

static void check_changed(const char *path, cgm_status st, const cgm_error *err, const char *what) {
  char want[600];
  snprintf(want, sizeof want, "%s: the file changed while it was read", path);
  CHECK_MSG(st == CGM_EINPUT && strcmp(err->msg, want) == 0, "%s: status %d, '%s'", what, st,
            err->msg);
}

static void test_changed_file(void) {
  char path[512];
  tmp_path(path, sizeof path, "changing.mtx");
  text gen = tridiagonal(200000, false), sym = tridiagonal(200000, true), vec = {0};
  tx_addf(&vec, "%%%%MatrixMarket matrix array real general\n200000 1\n");
  for (int i = 0; i < 200000; i++) tx_addf(&vec, "%d.5\n", i % 1000);
  const struct {
    const char *what;
    const text *t;
    cgm_mm_read_opts o;
    bool vector;
  } reads[] = {
      {"sorted, 1 thread", &gen, {1, 0, 0, false, false}, false},
      {"sorted, 3 threads", &gen, {3, 0, 0, false, false}, false},
      {"general, 3 threads", &gen, {3, 0, 0, true, false}, false},
      {"general, 2 threads, 4 KiB chunks", &gen, {2, 4096, 0, true, false}, false},
      {"symmetric, 2 threads", &sym, {2, 0, 0, false, false}, false},
      {"vector, 2 threads", &vec, {2, 0, 0, false, false}, true},
  };
  const char *changes[] = {"cut in half", "cut to 100 bytes", "rewritten"};
  for (size_t k = 0; k < sizeof reads / sizeof *reads; k++)
    for (int c = CUT_HALF; c <= REWRITE; c++) {
      char what[200];
      snprintf(what, sizeof what, "%s, %s", reads[k].what, changes[c]);
      change = c;
      free(other.b);
      other = (text){malloc(reads[k].t->n), reads[k].t->n, reads[k].t->n};
      memcpy(other.b, reads[k].t->b, other.n);
      other.b[other.n - 2] = other.b[other.n - 2] == '1' ? '2' : '1'; /* the last value */
      put_file(path, reads[k].t);
      mm_test_after_header = change_file;
      cgm_error err = {0};
      cgm_status st;
      if (reads[k].vector) {
        double *v = (double *)&err;
        int32_t n = 7;
        st = cgm_mm_read_vector_opts(path, &reads[k].o, &v, &n, &err);
        CHECK_MSG(v == NULL && n == 0, "%s: outputs not reset", what);
      } else {
        cgm_csr A;
        st = cgm_mm_read_csr_opts(path, &reads[k].o, &A, NULL, &err);
        CHECK_MSG(A.rowptr == NULL && A.colidx == NULL && A.val == NULL, "%s: A not empty", what);
        cgm_csr_free(&A);
      }
      mm_test_after_header = NULL;
      check_changed(path, st, &err, what);
    }
  /* unchanged, the same files read */
  put_file(path, &gen);
  cgm_csr A;
  cgm_error err = {0};
  CHECK_OK(cgm_mm_read_csr(path, &A, NULL, &err));
  CHECK(A.nrows == 200000 && A.nnz == 3 * 200000 - 2);
  cgm_csr_free(&A);
  free(gen.b);
  free(sym.b);
  free(vec.b);
  free(other.b);
  unlink(path);
}

static void touch_end(void *s, void *sum) {
  const mm_source *m = s;
  *(volatile char *)sum += m->map[m->map_len - 1];
}

static void raised(int sig) {
  (void)sig;
  _exit(42);
}

/* In a child process with a SIGBUS handler of its own (raised: exit 42;
 * how 4: none): opens the file at path, truncates it, and reads the map's
 * last byte under the guard (how 0), on 8 threads under it (1), outside it
 * (2, 4), or raises SIGBUS outside it (3). Every guarded read must fail
 * cleanly and the source say that it changed (else exit 1); then, the file
 * closed, a raise goes to the child's own handler. */
static pid_t guard_child(const char *path, int how) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  signal(SIGBUS, how == 4 ? SIG_DFL : raised);
  mm_source s;
  cgm_error err = {0};
  char sum = 0;
  if (mm_source_open(&s, path, 0, &err) || s.kind != MM_SRC_MAP || truncate(path, 0) != 0) _exit(3);
  bool ok = true;
  if (how == 0) ok = !mm_source_guard(&s, touch_end, &s, &sum);
  if (how == 1) {
    int faults = 0;
#pragma omp parallel for num_threads(8) reduction(+ : faults)
    for (int k = 0; k < 64; k++) faults += !mm_source_guard(&s, touch_end, &s, &sum);
    ok = faults == 64;
  }
  if (how == 2 || how == 4) touch_end(&s, &sum);
  if (how == 3) raise(SIGBUS);
  ok = ok && mm_source_changed(&s);
  mm_source_close(&s);
  /* closed: the handler before is back */
  if (how <= 1 && ok) raise(SIGBUS);
  _exit(ok ? 0 : 1);
}

/* Run first: the children use OpenMP, which a fork after its first use in
 * the parent would leave without its threads. */
static void test_guard(void) {
  char path[512];
  tmp_path(path, sizeof path, "guard.mtx");
  for (int how = 0; how < 5; how++) {
    char buf[1 << 16];
    memset(buf, '%', sizeof buf);
    CHECK(write_text(path, buf, sizeof buf));
    int status = 0;
    pid_t pid = guard_child(path, how);
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    const char *what[] = {"a guarded read", "guarded reads on 8 threads",
                          "a read outside the guard", "a SIGBUS sent outside the guard",
                          "a read outside the guard, no handler before"};
    /* guarded faults fail cleanly, any other SIGBUS goes where it went
     * without the reader: the handler before, or the default (death) */
    if (how < 4)
      CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 42, "%s: status 0x%x", what[how],
                status);
    else
      CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS, "%s: status 0x%x", what[how],
                status);
  }
  unlink(path);
}

/* ------------------------------------------------------------- streams --- */

/* A child writing the text head, then what more() appends (until it
 * returns 0 or the reader closes the pipe), into a pipe; path gets the name
 * of its read end. */
static int served_fd = -1;

static pid_t serve(char *path, const char *head, size_t (*more)(char *buf, size_t room, size_t k)) {
  int p[2];
  if (pipe(p) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    signal(SIGPIPE, SIG_DFL);
    close(p[0]);
    static char buf[1 << 16];
    size_t n = strlen(head);
    if (write(p[1], head, n) != (ssize_t)n) _exit(0);
    for (size_t k = 0; (n = more(buf, sizeof buf, k)) > 0; k++)
      for (size_t off = 0; off < n;) {
        ssize_t w = write(p[1], buf + off, n - off);
        if (w <= 0) _exit(0);
        off += (size_t)w;
      }
    _exit(0);
  }
  close(p[1]);
  served_fd = p[0];
  snprintf(path, 64, "/proc/self/fd/%d", p[0]);
  return pid;
}

static void serve_end(pid_t pid) {
  close(served_fd);
  if (pid > 0) waitpid(pid, NULL, 0);
}

/* "1 1 1" lines without end. */
static size_t endless_entries(char *buf, size_t room, size_t k) {
  (void)k;
  for (size_t o = 0; o + 6 <= room; o += 6) memcpy(buf + o, "1 1 1\n", 6);
  return room / 6 * 6;
}

/* 64 MiB of comment lines around the size line (32 before it, 32 after:
 * the header's lines and the body's), then two entries; room: a multiple
 * of 64. */
static size_t comments(char *buf, size_t room, size_t k) {
  const size_t half = ((size_t)32 << 20) / room;
  if (k == half) return (size_t)sprintf(buf, "2 2 2\n");
  if (k == 2 * half + 1) return (size_t)sprintf(buf, "1 1 2\n2 2 3\n");
  if (k > 2 * half + 1) return 0;
  for (size_t o = 0; o < room; o += 64) {
    memset(buf + o, 'x', 64);
    buf[o] = '%';
    buf[o + 63] = '\n';
  }
  return room;
}

/* The same text in one stored gzip member, written as it is made: stored
 * blocks of the text's pieces, then the CRC and the length. */
static uint32_t gz_crc;
static size_t gz_len;
static size_t gz_comments(char *buf, size_t room, size_t k) {
  static char piece[65535];
  if (k == 0) {
    static const unsigned char head[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
    const char *h = "%%MatrixMarket matrix coordinate real general\n";
    size_t n = strlen(h);
    memcpy(buf, head, 10);
    buf[10] = 0, buf[11] = (char)(n & 0xff), buf[12] = (char)(n >> 8);
    buf[13] = (char)(~n & 0xff), buf[14] = (char)((~n >> 8) & 0xff);
    memcpy(buf + 15, h, n);
    gz_crc = gzip_stored_crc32((const unsigned char *)h, n), gz_len = n;
    return 15 + n;
  }
  size_t n = comments(piece, 1023 * 64, k - 1); /* a stored block holds 65535 bytes at most */
  if (n == 0) {
    if (gz_len == SIZE_MAX) return 0;
    const unsigned char last[5] = {1, 0, 0, 0xff, 0xff}; /* an empty final block */
    memcpy(buf, last, 5);
    for (int b = 0; b < 4; b++) buf[5 + b] = (char)(gz_crc >> (8 * b));
    for (int b = 0; b < 4; b++) buf[9 + b] = (char)(gz_len >> (8 * b));
    gz_len = SIZE_MAX;
    return 13;
  }
  (void)room;
  buf[0] = 0, buf[1] = (char)(n & 0xff), buf[2] = (char)(n >> 8);
  buf[3] = (char)(~n & 0xff), buf[4] = (char)((~n >> 8) & 0xff);
  memcpy(buf + 5, piece, n);
  /* the CRC of the whole text, continued */
  uint32_t c = ~gz_crc;
  for (size_t i = 0; i < n; i++) {
    c ^= (unsigned char)piece[i];
    for (int b = 0; b < 8; b++) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
  }
  gz_crc = ~c, gz_len += n;
  return 5 + n;
}

/* AddressSanitizer keeps freed memory aside (its quarantine): the pieces a
 * stream frees are not reused, and the peak says nothing there. */
#if defined(__SANITIZE_ADDRESS__)
#define PEAK_MEANINGFUL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PEAK_MEANINGFUL 0
#endif
#endif
#ifndef PEAK_MEANINGFUL
#define PEAK_MEANINGFUL 1
#endif

/* The peak resident memory since the last call, in KiB (-1 where Linux
 * cannot reset it, or under AddressSanitizer). */
static long peak_kib(bool reset) {
  if (!PEAK_MEANINGFUL) return -1;
  if (reset) {
    FILE *f = fopen("/proc/self/clear_refs", "w");
    bool ok = f && fputs("5", f) >= 0;
    if (f) ok = fclose(f) == 0 && ok;
    return ok ? 0 : -1;
  }
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kib = -1;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "VmHWM:", 6)) kib = atol(line + 6);
  if (f) fclose(f);
  return kib;
}

static void test_streams(void) {
  char path[64];
  cgm_csr A;
  cgm_error err = {0};
  const cgm_mm_read_opts small = {2, 0, 1 << 20, false, false}; /* 1 MiB pieces */
  /* two entries declared, then "1 1 1" without end: stopped at line 5 */
  pid_t pid =
      serve(path, "%%MatrixMarket matrix coordinate real general\n2 2 2\n", endless_entries);
  cgm_status st = cgm_mm_read_csr_opts(path, &small, &A, NULL, &err);
  serve_end(pid);
  CHECK_MSG(st == CGM_EINPUT && strstr(err.msg, ":5: more entries than the 2 declared on line 2"),
            "endless entries: %s", err.msg);
  /* rows the entries cannot fill: refused at the size line, the text after
   * it never read */
  pid = serve(path, "%%MatrixMarket matrix coordinate real general\n200000000 200000000 2\n",
              endless_entries);
  st = cgm_mm_read_csr_opts(path, &small, &A, NULL, &err);
  serve_end(pid);
  CHECK_MSG(st == CGM_EINPUT && strstr(err.msg, ":2: matrix 200000000 x 200000000 has too many "
                                                "rows for its 2 entries"),
            "rows: %s", err.msg);
  /* 64 MiB of comments, plain and gzip: read, in a few pieces' memory */
  for (int gz = 0; gz < 2; gz++) {
    if (gz && !cgm_mm_have_gzip()) break;
    const long base = peak_kib(true) == 0 ? peak_kib(false) : -1;
    pid = gz ? serve(path, "", gz_comments)
             : serve(path, "%%MatrixMarket matrix coordinate real general\n", comments);
    st = cgm_mm_read_csr_opts(path, &small, &A, NULL, &err);
    serve_end(pid);
    const long kib = peak_kib(false) - base;
    CHECK_MSG(st == CGM_OK && A.nnz == 2 && A.val[0] == 2 && A.val[1] == 3, "%s comments: %s",
              gz ? "gzip" : "plain", err.msg);
    cgm_csr_free(&A);
    if (base >= 0)
      fprintf(stderr, "64 MiB of comments, %s: peak RSS +%ld KiB\n", gz ? "gzip" : "plain", kib);
    if (base >= 0)
      CHECK_MSG(kib < 24 * 1024, "%s comments: the peak RSS rose to %ld KiB", gz ? "gzip" : "plain",
                kib);
    else
      fprintf(stderr, "the peak RSS cannot be measured here: the memory bound is not checked\n");
  }
}

/* ---------------------------------------------------------- not files --- */

static void test_not_files(void) {
  char fifo[512];
  tmp_path(fifo, sizeof fifo, "a.fifo");
  alarm(60); /* a wait on the FIFO would end the test here */
  cgm_csr A;
  cgm_error err = {0};
  char want[600];
  if (mkfifo(fifo, 0600) == 0) {
    CHECK(cgm_mm_read_csr(fifo, &A, NULL, &err) == CGM_EINPUT);
    snprintf(want, sizeof want, "%s: not a regular file (a FIFO)", fifo);
    CHECK_MSG(!strncmp(err.msg, want, strlen(want)), "%s", err.msg);
    double *v = NULL;
    int32_t n = 0;
    CHECK(cgm_mm_read_vector(fifo, &v, &n, &err) == CGM_EINPUT && v == NULL);
    unlink(fifo);
  }
  CHECK(cgm_mm_read_csr("/dev/null", &A, NULL, &err) == CGM_EINPUT);
  CHECK_MSG(strstr(err.msg, "/dev/null: not a regular file (a device or a socket)"), "%s", err.msg);
  alarm(0);
}

/* ------------------------------------------------------------- square --- */

static void test_square(void) {
  char path[512];
  tmp_path(path, sizeof path, "wide.mtx");
  const char wide[] =
      "%%MatrixMarket matrix coordinate real general\n2 2147483647 2\n1 1 1\n2 2147483647 2\n";
  CHECK(write_text(path, wide, sizeof wide - 1));
  cgm_mm_read_opts o = cgm_mm_read_opts_default();
  o.square = true;
  cgm_csr A;
  cgm_error err = {0};
  char want[600];
  snprintf(want, sizeof want, "%s:2: matrix is 2 x 2147483647: CG needs a square matrix", path);
  CHECK(cgm_mm_read_csr_opts(path, &o, &A, NULL, &err) == CGM_EINPUT && !strcmp(err.msg, want));
  CHECK(A.rowptr == NULL);
  /* without the request it reads: nothing is done per column */
  CHECK_OK(cgm_mm_read_csr(path, &A, NULL, &err));
  CHECK(A.nrows == 2 && A.ncols == 2147483647 && A.nnz == 2 && A.colidx[1] == 2147483646);
  cgm_csr_free(&A);
  unlink(path);
}

int main(void) {
  const char *base = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/cgm_test_mm_input_XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(tmpdir)) {
    fprintf(stderr, "mkdtemp(%s): %s\n", tmpdir, strerror(errno));
    return 1;
  }
  test_guard();
  test_changed_file();
  test_streams();
  test_not_files();
  test_square();
  rmdir(tmpdir);
  TEST_MAIN_END();
}
