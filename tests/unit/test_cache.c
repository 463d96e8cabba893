/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The matrix cache: its hash against the reference values (and against
 * libxxhash where present), a hit giving back exactly the parsed CSR, and
 * every way an entry must not be trusted: the source touched or rewritten,
 * a byte of the entry flipped, the entry cut short, another file's entry;
 * the eviction, --cache-max (extras counted) and a cache that is off; a
 * FIFO or a device at an entry's name never blocks a read or a listing; a matrix in memory's
 * entry by its content. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#include <fcntl.h>
#include <omp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache/entry.h"
#include "cache/hash.h"
#include "cgmodel/cache.h"
#include "cgmodel/sparse.h"
#include "test_util.h"

#ifdef CGM_HAVE_XXHASH
#define XXH_INLINE_ALL
#include <xxhash.h>
#endif

static char tmpdir[256], cdir[300];

static bool csr_same(const cgm_csr *a, const cgm_csr *b) {
  return a->nrows == b->nrows && a->ncols == b->ncols && a->nnz == b->nnz &&
         !memcmp(a->rowptr, b->rowptr, ((size_t)a->nrows + 1) * 8) &&
         !memcmp(a->colidx, b->colidx, (size_t)a->nnz * 4) &&
         !memcmp(a->val, b->val, (size_t)a->nnz * 8);
}

/* The source's modification time set back a minute: older than the window
 * in which a read file is not cached. */
static void age(const char *path, int seconds_ago) {
  struct timespec ts[2];
  clock_gettime(CLOCK_REALTIME, &ts[0]);
  ts[0].tv_sec -= seconds_ago;
  ts[1] = ts[0];
  CHECK(utimensat(AT_FDCWD, path, ts, 0) == 0);
}

static void write_matrix(const char *path, const cgm_csr *A) {
  cgm_error e = {0};
  CHECK_OK(cgm_mm_write_csr(path, A, false, &e));
  age(path, 60);
}

/* Reads path through the cache (max bytes) and checks it equals ref. */
static cgm_cache_report read_check(const char *path, int64_t max, const cgm_csr *ref) {
  cgm_cache_opts o = {.dir = cdir, .max_bytes = max};
  cgm_cache_report r;
  cgm_csr A;
  cgm_mm_info mm;
  cgm_error e = {0};
  cgm_status st = cgm_cache_read_csr(&o, path, &A, &mm, &r, &e);
  CHECK_MSG(st == CGM_OK, "%s", e.msg);
  if (st) return r;
  CHECK(csr_same(&A, ref));
  CHECK(mm.file_bytes > 0);
  cgm_csr_free(&A);
  return r;
}

static void flip_byte(const char *path, off_t off) {
  int fd = open(path, O_RDWR);
  CHECK(fd >= 0);
  unsigned char c;
  CHECK(pread(fd, &c, 1, off) == 1);
  c ^= 0x10;
  CHECK(pwrite(fd, &c, 1, off) == 1);
  close(fd);
}

static off_t file_size(const char *path) {
  struct stat s;
  return stat(path, &s) ? -1 : s.st_size;
}

static void test_hash(void) {
  CHECK(cgm_xxh64("", 0, 0) == 0xEF46DB3751D8E999ULL);
  CHECK(cgm_xxh64("abc", 3, 0) == 0x44BC2CF5AD770999ULL);
  unsigned char buf[1000];
  for (int i = 0; i < 1000; i++) buf[i] = (unsigned char)(i * 131 + 7);
#ifdef CGM_HAVE_XXHASH
  for (size_t n = 0; n < 1000; n += (n < 70 ? 1 : 37))
    CHECK_MSG(cgm_xxh64(buf, n, n) == XXH64(buf, n, n), "length %zu", n);
#endif
  /* chunked checksums do not depend on the thread count; any byte counts */
  size_t n = 3 * CGM_HASH_CHUNK + 12345;
  unsigned char *big = malloc(n);
  CHECK(big != NULL);
  if (!big) return;
  for (size_t i = 0; i < n; i++) big[i] = (unsigned char)(i ^ (i >> 9));
  void *p[2] = {big, big + 100};
  size_t len[2] = {100, n - 100};
  uint64_t h1, h2, h3;
  omp_set_num_threads(1);
  CHECK(cgm_hash_ranges(p, len, 2, NULL, NULL, &h1) == 0);
  omp_set_num_threads(3);
  CHECK(cgm_hash_ranges(p, len, 2, NULL, NULL, &h2) == 0);
  CHECK(h1 == h2);
  big[n - 1] ^= 1;
  CHECK(cgm_hash_ranges(p, len, 2, NULL, NULL, &h3) == 0);
  CHECK(h3 != h1);
  free(big);
}

static void test_entry(void) {
  cgm_error e = {0};
  cgm_csr A, B;
  CHECK_OK(cgm_gen_poisson3d(12, &A, &e));
  CHECK_OK(cgm_gen_elasticity3d(4, &B, &e));
  char src[512], entry[600], name[32];
  snprintf(src, sizeof src, "%s/a.mtx", tmpdir);
  write_matrix(src, &A);
  struct stat s0;
  CHECK(stat(src, &s0) == 0);

  /* miss and store, then a hit with the identical CSR */
  cgm_cache_report r = read_check(src, 0, &A);
  CHECK(r.outcome == CGM_CACHE_MISS && r.stored);
  r = read_check(src, 0, &A);
  CHECK_MSG(r.outcome == CGM_CACHE_HIT && !r.stored, "%s %s", cgm_cache_outcome_name(r.outcome),
            r.note);
  char *real = realpath(src, NULL);
  cgm_cache_entry_name(real, name, sizeof name);
  free(real);
  snprintf(entry, sizeof entry, "%s/%s", cdir, name);
  CHECK(!strcmp(r.entry, entry));
  /* the source is only read */
  struct stat s1;
  CHECK(stat(src, &s1) == 0);
  CHECK(s1.st_mtim.tv_sec == s0.st_mtim.tv_sec && s1.st_mtim.tv_nsec == s0.st_mtim.tv_nsec &&
        s1.st_size == s0.st_size);

  /* a flipped byte in the values, in the column indices, in the header, in the
   * source's path */
  const off_t size = file_size(entry);
  const off_t payload = size - ((off_t)A.nrows + 1) * 8 - (off_t)A.nnz * 12;
  const off_t offs[4] = {size - 5, payload + ((off_t)A.nrows + 1) * 8 + 17, 40, payload - 3};
  for (int k = 0; k < 4; k++) {
    flip_byte(entry, offs[k]);
    r = read_check(src, 0, &A);
    CHECK_MSG(r.outcome == CGM_CACHE_REJECTED && r.stored, "flip %d: %s", k, r.note);
    r = read_check(src, 0, &A);
    CHECK_MSG(r.outcome == CGM_CACHE_HIT, "after flip %d: %s", k, r.note);
  }
  /* cut short, and grown */
  CHECK(truncate(entry, size - 100) == 0);
  r = read_check(src, 0, &A);
  CHECK_MSG(r.outcome == CGM_CACHE_REJECTED && strstr(r.note, "truncated"), "%s", r.note);
  CHECK(file_size(entry) == size);
  CHECK(truncate(entry, 100) == 0);
  r = read_check(src, 0, &A);
  CHECK(r.outcome == CGM_CACHE_REJECTED && r.stored);
  CHECK(truncate(entry, size + 8) == 0);
  r = read_check(src, 0, &A);
  CHECK(r.outcome == CGM_CACHE_REJECTED && r.stored);

  /* touched: same bytes, another time -> stale */
  age(src, 30);
  r = read_check(src, 0, &A);
  CHECK_MSG(r.outcome == CGM_CACHE_REJECTED && strstr(r.note, "stale"), "%s", r.note);
  r = read_check(src, 0, &A);
  CHECK(r.outcome == CGM_CACHE_HIT);
  /* rewritten with another matrix, its time set back to the entry's:
   * the change time and size still tell */
  struct stat sa;
  CHECK(stat(src, &sa) == 0);
  write_matrix(src, &B);
  struct timespec ts[2] = {sa.st_atim, sa.st_mtim};
  CHECK(utimensat(AT_FDCWD, src, ts, 0) == 0);
  r = read_check(src, 0, &B);
  CHECK_MSG(r.outcome == CGM_CACHE_REJECTED && strstr(r.note, "stale"), "%s", r.note);
  r = read_check(src, 0, &B);
  CHECK(r.outcome == CGM_CACHE_HIT);

  /* another file's entry under this one's name is not used */
  char src2[512], entry2[600];
  snprintf(src2, sizeof src2, "%s/b.mtx", tmpdir);
  write_matrix(src2, &A);
  r = read_check(src2, 0, &A);
  snprintf(entry2, sizeof entry2, "%s", r.entry);
  CHECK(rename(entry2, entry) == 0);
  r = read_check(src, 0, &B);
  CHECK_MSG(r.outcome == CGM_CACHE_REJECTED && strstr(r.note, "another file"), "%s", r.note);

  /* a file written just now is read but not stored */
  char fresh[512];
  snprintf(fresh, sizeof fresh, "%s/fresh.mtx", tmpdir);
  CHECK_OK(cgm_mm_write_csr(fresh, &A, false, &e));
  r = read_check(fresh, 0, &A);
  CHECK(r.outcome == CGM_CACHE_MISS && !r.stored && strstr(r.note, "less than a second"));

  /* an entry over the limit is not written */
  r = read_check(src2, 1000, &A);
  CHECK(r.outcome == CGM_CACHE_MISS || r.outcome == CGM_CACHE_REJECTED);
  CHECK(!r.stored && strstr(r.note, "exceeds"));

  /* no directory: parsed, nothing written anywhere */
  cgm_cache_report off;
  cgm_csr C;
  CHECK_OK(cgm_cache_read_csr(NULL, src, &C, NULL, &off, &e));
  CHECK(off.outcome == CGM_CACHE_OFF && !off.stored && !off.entry[0] && csr_same(&C, &B));
  cgm_csr_free(&C);

  /* list, then clear: only the cache's files go */
  char other[600];
  snprintf(other, sizeof other, "%s/notes.txt", cdir);
  FILE *f = fopen(other, "w");
  CHECK(f != NULL);
  if (f) fclose(f);
  cgm_cache_entry *list;
  int n, removed;
  CHECK_OK(cgm_cache_list(cdir, &list, &n, &e));
  CHECK(n >= 1);
  for (int i = 0; i < n; i++) CHECK(list[i].valid_header && list[i].nnz > 0);
  free(list);
  CHECK_OK(cgm_cache_clear(cdir, &removed, &e));
  CHECK(removed == n);
  CHECK(file_size(other) == 0);
  CHECK_OK(cgm_cache_list(cdir, &list, &n, &e));
  CHECK(n == 0);
  free(list);
  cgm_csr_free(&A);
  cgm_csr_free(&B);
}

/* Three entries under a limit that holds two: the least recently used
 * goes, and only it. */
static void test_evict(void) {
  cgm_error e = {0};
  cgm_csr M[3];
  char src[3][512];
  const int size[3] = {10, 11, 9}; /* the second the largest */
  for (int k = 0; k < 3; k++) {
    CHECK_OK(cgm_gen_poisson3d(size[k], &M[k], &e));
    snprintf(src[k], sizeof src[k], "%s/m%d.mtx", tmpdir, k);
    write_matrix(src[k], &M[k]);
  }
  cgm_cache_report r0 = read_check(src[0], 0, &M[0]);
  cgm_cache_report r1 = read_check(src[1], 0, &M[1]);
  const int64_t max = (int64_t)file_size(r1.entry) * 2 + 1000;
  /* m0 used after m1: m1 is the least recently used */
  struct timespec older[2] = {{time(NULL) - 100, 0}, {time(NULL) - 100, 0}};
  CHECK(utimensat(AT_FDCWD, r1.entry, older, 0) == 0);
  CHECK(read_check(src[0], max, &M[0]).outcome == CGM_CACHE_HIT);
  cgm_cache_report r2 = read_check(src[2], max, &M[2]);
  CHECK(r2.stored && r2.evicted == 1);
  CHECK(file_size(r1.entry) < 0 && file_size(r0.entry) > 0 && file_size(r2.entry) > 0);
  for (int k = 0; k < 3; k++) cgm_csr_free(&M[k]);
}

/* Extras beside an entry: read back exactly, refused for another version,
 * size, kind or entry (a rewritten entry makes them stale), or when damaged;
 * removed by cache clear and when their entry is evicted. */
static void test_extra(void) {
  cgm_error e = {0};
  cgm_csr A;
  CHECK_OK(cgm_gen_poisson3d(9, &A, &e));
  char src[512], xp[5000];
  snprintf(src, sizeof src, "%s/x.mtx", tmpdir);
  write_matrix(src, &A);
  cgm_cache_report off = {0}; /* no entry: nothing written or read */
  double v[5] = {1, 2, 3, 4, 5}, w[5] = {0};
  cgm_cache_extra_put(&off, "features", 1, v, sizeof v);
  CHECK(!cgm_cache_extra_get(&off, "features", 1, w, sizeof w));
  cgm_cache_report r = read_check(src, 0, &A);
  CHECK(r.stored && r.entry_id != 0);
  CHECK(!cgm_cache_extra_get(&r, "features", 1, w, sizeof w)); /* none yet */
  cgm_cache_extra_put(&r, "features", 1, v, sizeof v);
  snprintf(xp, sizeof xp, "%s-features", r.entry);
  CHECK(file_size(xp) > 0);
  cgm_cache_report h = read_check(src, 0, &A);
  CHECK(h.outcome == CGM_CACHE_HIT && h.entry_id == r.entry_id);
  CHECK(cgm_cache_extra_get(&h, "features", 1, w, sizeof w) && !memcmp(v, w, sizeof v));
  CHECK(!cgm_cache_extra_get(&h, "features", 2, w, sizeof w));     /* another version */
  CHECK(!cgm_cache_extra_get(&h, "features", 1, w, sizeof w - 8)); /* another size */
  CHECK(!cgm_cache_extra_get(&h, "other", 1, w, sizeof w));        /* another kind */
  CHECK(!cgm_cache_extra_get(&h, "../x", 1, w, sizeof w));         /* not a plain word */
  const char *longk = "abcdefghijklmnopqrstuvwxyz0123456";         /* 33 characters: no kind */
  cgm_cache_extra_put(&h, longk, 1, v, sizeof v);
  CHECK(!cgm_cache_extra_get(&h, longk, 1, w, sizeof w));
  cgm_cache_report other = h;
  other.entry_id ^= 1; /* another entry of the same name */
  CHECK(!cgm_cache_extra_get(&other, "features", 1, w, sizeof w));
  flip_byte(xp, file_size(xp) - 3);
  CHECK(!cgm_cache_extra_get(&h, "features", 1, w, sizeof w)); /* damaged */
  cgm_cache_extra_put(&h, "features", 1, v, sizeof v);
  CHECK(cgm_cache_extra_get(&h, "features", 1, w, sizeof w));
  /* the entry evicted (room for one entry, another matrix read): its extra goes */
  char src2[512];
  snprintf(src2, sizeof src2, "%s/y.mtx", tmpdir);
  write_matrix(src2, &A);
  struct timespec older[2] = {{time(NULL) - 100, 0}, {time(NULL) - 100, 0}};
  CHECK(utimensat(AT_FDCWD, h.entry, older, 0) == 0);
  cgm_cache_report r2 = read_check(src2, (int64_t)file_size(h.entry) + 1000, &A);
  CHECK(r2.stored && r2.evicted >= 1 && file_size(h.entry) < 0);
  CHECK_MSG(file_size(xp) < 0, "%s left after its entry was evicted", xp);
  /* cache clear removes extras */
  cgm_cache_extra_put(&r2, "features", 1, v, sizeof v);
  snprintf(xp, sizeof xp, "%s-features", r2.entry);
  CHECK(file_size(xp) > 0);
  int removed = 0;
  CHECK_OK(cgm_cache_clear(cdir, &removed, &e));
  CHECK(file_size(xp) < 0 && removed >= 2);
  cgm_csr_free(&A);
}

/* The limit counts every file of an entry: an extra that would take the
 * entry with its extras over it is not written, and a put evicts the
 * least recently used other entry (with its extras) to make room; cache
 * list gives each entry's bytes with its extras'. */
static void test_extra_limit(void) {
  cgm_error e = {0};
  cgm_csr A;
  CHECK_OK(cgm_gen_poisson3d(6, &A, &e));
  char src[2][512];
  cgm_cache_report r[2];
  int removed = 0;
  CHECK_OK(cgm_cache_clear(cdir, &removed, &e));
  for (int k = 0; k < 2; k++) {
    snprintf(src[k], sizeof src[k], "%s/lim%d.mtx", tmpdir, k);
    write_matrix(src[k], &A);
  }
  r[0] = read_check(src[0], 0, &A);
  const int64_t entry = file_size(r[0].entry), max = 2 * entry + 3000;
  r[0] = read_check(src[0], max, &A); /* a hit that knows the limit */
  CHECK(r[0].outcome == CGM_CACHE_HIT && r[0].max_bytes == max);
  static char big[200000];
  char xp[5000];
  snprintf(xp, sizeof xp, "%s-features", r[0].entry);
  cgm_cache_extra_put(&r[0], "features", 1, big, sizeof big); /* alone over the limit */
  CHECK_MSG(file_size(xp) < 0, "an extra over the limit was written (limit %lld)", (long long)max);
  cgm_cache_extra_put(&r[0], "features", 1, big, 2000);
  CHECK(file_size(xp) > 2000);
  cgm_cache_entry *list = NULL;
  int n = 0;
  CHECK_OK(cgm_cache_list(cdir, &list, &n, &e));
  CHECK(n == 1 && list[0].bytes == entry + file_size(xp));
  free(list);
  /* the second entry fits beside the first with its extra; its own extra
   * of 2000 bytes does not: the first entry goes, with its extra */
  struct timespec older[2] = {{time(NULL) - 100, 0}, {time(NULL) - 100, 0}};
  CHECK(utimensat(AT_FDCWD, r[0].entry, older, 0) == 0);
  r[1] = read_check(src[1], max, &A);
  CHECK(r[1].stored && r[1].evicted == 0 && file_size(r[0].entry) > 0);
  cgm_cache_extra_put(&r[1], "features", 1, big, 2000);
  CHECK(file_size(r[0].entry) < 0 && file_size(xp) < 0);
  snprintf(xp, sizeof xp, "%s-features", r[1].entry);
  CHECK(file_size(xp) > 2000 && file_size(r[1].entry) > 0);
  cgm_csr_free(&A);
}

static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "test_cache: a FIFO at an entry's name blocked\n";
  (void)!write(2, msg, sizeof msg - 1);
  _exit(1);
}

/* A FIFO at an entry's name (nobody writing it): the read rejects it
 * without blocking and replaces it with the entry; cache list skips one;
 * a FIFO at an extra's name is not read. alarm() turns a hang into a
 * failure. */
static void test_fifo(void) {
  cgm_error e = {0};
  cgm_csr A;
  CHECK_OK(cgm_gen_poisson3d(5, &A, &e));
  char src[512], entry[4200], name[32];
  snprintf(src, sizeof src, "%s/fifo.mtx", tmpdir);
  write_matrix(src, &A);
  char *real = realpath(src, NULL);
  CHECK(real != NULL);
  if (!real) return;
  cgm_cache_entry_name(real, name, sizeof name);
  free(real);
  snprintf(entry, sizeof entry, "%s/%s", cdir, name);
  unlink(entry);
  CHECK(mkfifo(entry, 0600) == 0);
  signal(SIGALRM, on_alarm);
  alarm(20);
  cgm_cache_entry *list = NULL;
  int n = -1;
  CHECK_OK(cgm_cache_list(cdir, &list, &n, &e));
  for (int i = 0; i < n; i++) CHECK(strcmp(list[i].file, name) != 0);
  free(list);
  cgm_cache_report r = read_check(src, 0, &A);
  CHECK_MSG(r.outcome == CGM_CACHE_REJECTED && strstr(r.note, "not a regular file"), "%s", r.note);
  struct stat sb;
  CHECK(r.stored && stat(entry, &sb) == 0 && S_ISREG(sb.st_mode));
  char xp[5000];
  snprintf(xp, sizeof xp, "%s-features", entry);
  unlink(xp);
  CHECK(mkfifo(xp, 0600) == 0);
  double w[2];
  CHECK(!cgm_cache_extra_get(&r, "features", 1, w, sizeof w));
  alarm(0);
  cgm_csr_free(&A);
}

/* A miss written in the background: the CSR at once, the entry once waited
 * for (stored, its id, the time), then a hit; waiting again is harmless. An extra put while the
 * write is under way (the analysis of a first read) is on disk beside the entry once waited for,
 * the later of two puts of a kind: a later hit reads it. */
static void test_background(void) {
  cgm_error e = {0};
  cgm_csr A, M;
  CHECK_OK(cgm_gen_poisson3d(11, &A, &e));
  char src[512];
  snprintf(src, sizeof src, "%s/bg.mtx", tmpdir);
  write_matrix(src, &A);
  cgm_cache_opts o = {.dir = cdir, .background = true};
  cgm_cache_report r;
  CHECK_OK(cgm_cache_read_csr(&o, src, &M, NULL, &r, &e));
  CHECK(r.outcome == CGM_CACHE_MISS && csr_same(&M, &A));
  CHECK(r.pending != NULL && !r.stored);
  const double v1[2] = {1, 2}, v2[2] = {3, 4};
  double w[2] = {0};
  cgm_cache_extra_put(&r, "probe", 1, v1, sizeof v1);
  cgm_cache_extra_put(&r, "probe", 1, v2, sizeof v2);
  cgm_cache_extra_put(&r, "other", 2, v1, sizeof v1);
  cgm_cache_wait(&r);
  CHECK_MSG(r.pending == NULL && r.stored && r.entry_id != 0 && r.time_store_s > 0, "%s", r.note);
  cgm_cache_wait(&r); /* nothing pending: nothing changes */
  CHECK(r.stored);
  cgm_csr_free(&M);
  cgm_cache_report h = read_check(src, 0, &A);
  CHECK(h.outcome == CGM_CACHE_HIT && h.entry_id == r.entry_id && h.pending == NULL);
  memset(w, 0, sizeof w);
  CHECK(cgm_cache_extra_get(&h, "probe", 1, w, sizeof w) && w[0] == 3 && w[1] == 4);
  CHECK(cgm_cache_extra_get(&h, "other", 2, w, sizeof w) && w[0] == 1 && w[1] == 2);
  CHECK(!cgm_cache_extra_get(&h, "probe", 2, w, sizeof w)); /* another version: none */
  cgm_csr_free(&A);
}

/* A matrix in memory's entry: its header alone, found again by content (the same id as the same
 * matrix read from a file), another content another entry, extras kept and found again, listed as
 * current; a damaged header rejected and written again; no directory: off. */
static void test_memory(void) {
  cgm_error e = {0};
  cgm_csr A;
  CHECK_OK(cgm_gen_poisson3d(7, &A, &e));
  cgm_cache_opts o = {.dir = cdir, .max_bytes = 1 << 30};
  cgm_cache_report off, r, h, f, d;
  cgm_cache_of_memory(&(cgm_cache_opts){0}, &A, &off);
  CHECK(off.outcome == CGM_CACHE_OFF && off.entry_id == 0 && !off.entry[0]);
  cgm_cache_of_memory(&o, &A, &r);
  CHECK_MSG(r.outcome == CGM_CACHE_MISS && r.stored && r.entry_id != 0, "%d %s", r.outcome, r.note);
  CHECK(file_size(r.entry) > 0 && file_size(r.entry) < 300); /* no payload */
  const double v[3] = {1, 2, 3};
  double w[3] = {0};
  cgm_cache_extra_put(&r, "features", 1, v, sizeof v);
  cgm_cache_of_memory(&o, &A, &h);
  CHECK(h.outcome == CGM_CACHE_HIT && h.entry_id == r.entry_id && !strcmp(h.entry, r.entry));
  CHECK(cgm_cache_extra_get(&h, "features", 1, w, sizeof w) && !memcmp(v, w, sizeof v));
  char src[512];
  snprintf(src, sizeof src, "%s/m.mtx", tmpdir);
  write_matrix(src, &A);
  f = read_check(src, 0, &A);
  CHECK(f.content_id != 0 && f.content_id == h.content_id && h.content_id == r.content_id);
  cgm_cache_entry *list;
  int n = 0, mine = 0;
  CHECK_OK(cgm_cache_list(cdir, &list, &n, &e));
  for (int i = 0; i < n; i++)
    if (strstr(h.entry, list[i].file)) {
      mine++;
      CHECK(list[i].valid_header && list[i].source_current && list[i].nnz == A.nnz);
    }
  CHECK(mine == 1);
  free(list);
  A.val[A.nnz / 2] += 1.0; /* another content: another entry, without the extra */
  cgm_cache_of_memory(&o, &A, &d);
  CHECK(d.outcome == CGM_CACHE_MISS && d.stored && strcmp(d.entry, h.entry));
  CHECK(!cgm_cache_extra_get(&d, "features", 1, w, sizeof w));
  A.val[A.nnz / 2] -= 1.0;
  A.ncols++; /* the same arrays of another width: another entry (the arrays do not hold it) */
  cgm_cache_of_memory(&o, &A, &d);
  CHECK(d.outcome == CGM_CACHE_MISS && strcmp(d.entry, h.entry) && d.content_id == h.content_id);
  A.ncols--;
  flip_byte(h.entry, 20); /* the header damaged: rejected, written again */
  cgm_cache_of_memory(&o, &A, &d);
  CHECK_MSG(d.outcome == CGM_CACHE_REJECTED && d.stored && d.note[0], "%d", d.outcome);
  cgm_cache_of_memory(&o, &A, &d);
  CHECK(d.outcome == CGM_CACHE_HIT && d.entry_id == r.entry_id);
  cgm_csr_free(&A);
}

/* A matrix in memory whose values change at every step (a nonlinear or time-dependent solve) makes
 * an entry a step, each far under the byte limit: the entries' count is bounded, kept by the
 * extras' puts, which read the directory at one put in 32 (or so) alone. */
static void test_many_steps(void) {
  cgm_error e = {0};
  cgm_csr A;
  CHECK_OK(cgm_gen_poisson3d(2, &A, &e));
  int removed = 0;
  CHECK_OK(cgm_cache_clear(cdir, &removed, &e));
  const cgm_cache_opts o = {.dir = cdir, .max_bytes = CGM_CACHE_DEFAULT_MAX_BYTES};
  const int steps = CGM_CACHE_MAX_ENTRIES + 300;
  const double v[4] = {1, 2, 3, 4};
  for (int k = 0; k < steps; k++) {
    A.val[0] = 6.0 + k; /* a new content */
    cgm_cache_report r;
    cgm_cache_of_memory(&o, &A, &r);
    CHECK(r.stored);
    cgm_cache_extra_put(&r, "features", 1, v, sizeof v);
    cgm_cache_extra_put(&r, "checked", 1, v, sizeof v);
  }
  cgm_cache_entry *list = NULL;
  int n = 0;
  CHECK_OK(cgm_cache_list(cdir, &list, &n, &e));
  /* at most the cap and the entries made since the last put that read the directory */
  CHECK_MSG(n <= CGM_CACHE_MAX_ENTRIES + 200 && n >= CGM_CACHE_MAX_ENTRIES - 200, "%d entries", n);
  free(list);
  cgm_csr_free(&A);
}

int main(void) {
  snprintf(tmpdir, sizeof tmpdir, "%s/cgm-cache-XXXXXX",
           getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(tmpdir)) return 1;
  snprintf(cdir, sizeof cdir, "%s/cache/sub", tmpdir); /* created on the first write */
  test_hash();
  test_entry();
  test_evict();
  test_extra();
  test_extra_limit();
  test_fifo();
  test_background();
  test_memory();
  test_many_steps();
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd)) fprintf(stderr, "could not remove %s\n", tmpdir);
  TEST_MAIN_END();
}
