/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reading a matrix through the cache: the lookup (key and checksum), the
 * parse on a miss and the entry's write (temporary file, fsync, rename). */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#include "cache/entry.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache/hash.h"
#include "cgmodel/cache.h"
#include "common/timer.h"

const char *cgm_cache_outcome_name(cgm_cache_outcome o) {
  switch (o) {
  case CGM_CACHE_OFF:
    return "off";
  case CGM_CACHE_HIT:
    return "hit";
  case CGM_CACHE_MISS:
    return "miss";
  case CGM_CACHE_REJECTED:
    return "rejected";
  }
  return "?";
}

cgm_cache_layout cgm_cache_layout_of(uint32_t header_bytes, int32_t nrows, int64_t nnz) {
  cgm_cache_layout l;
  l.rowptr = header_bytes;
  l.colidx = l.rowptr + ((uint64_t)nrows + 1) * 8;
  l.val = l.colidx + (uint64_t)nnz * 4;
  l.end = l.val + (uint64_t)nnz * 8;
  return l;
}

void cgm_cache_entry_name(const char *real, char *out, size_t n) {
  snprintf(out, n, "%016llx" CGM_CACHE_SUFFIX,
           (unsigned long long)cgm_xxh64(real, strlen(real), 0));
}

bool cgm_cache_is_entry_name(const char *name) {
  for (int i = 0; i < 16; i++)
    if (!strchr("0123456789abcdef", name[i]) || !name[i]) return false;
  return !strcmp(name + 16, CGM_CACHE_SUFFIX);
}

bool cgm_cache_is_extra_name(const char *name) {
  for (int i = 0; i < 16; i++)
    if (!strchr("0123456789abcdef", name[i]) || !name[i]) return false;
  const size_t k = strlen(CGM_CACHE_SUFFIX "-");
  return !strncmp(name + 16, CGM_CACHE_SUFFIX "-", k) && name[16 + k] != '\0';
}

bool cgm_cache_is_tmp_name(const char *name) {
  if (strlen(name) < 16) return false;
  for (int i = 0; i < 16; i++)
    if (!strchr("0123456789abcdef", name[i]) || !name[i]) return false;
  return !strncmp(name + 16, CGM_CACHE_TMP, strlen(CGM_CACHE_TMP));
}

static int64_t ns_of(struct timespec t) {
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

bool cgm_cache_key_matches(const cgm_cache_header *h, const struct stat *s) {
  return h->src_size == (int64_t)s->st_size && h->src_mtime_ns == ns_of(s->st_mtim) &&
         h->src_ctime_ns == ns_of(s->st_ctim) && h->src_dev == (uint64_t)s->st_dev &&
         h->src_ino == (uint64_t)s->st_ino;
}

static bool same_file_state(const struct stat *a, const struct stat *b) {
  return a->st_size == b->st_size && ns_of(a->st_mtim) == ns_of(b->st_mtim) &&
         ns_of(a->st_ctim) == ns_of(b->st_ctim) && a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static uint64_t header_hash(const cgm_cache_header *h, const char *path) {
  cgm_cache_header c = *h;
  c.header_hash = 0;
  return cgm_xxh64(path, h->path_len, cgm_xxh64(&c, sizeof c, 0));
}

/* pread/pwrite of a whole range (they may move fewer bytes). */
static int pread_all(int fd, void *buf, size_t n, uint64_t off) {
  char *p = buf;
  while (n > 0) {
    ssize_t k = pread(fd, p, n > ((size_t)1 << 30) ? (size_t)1 << 30 : n, (off_t)off);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    p += k, n -= (size_t)k, off += (uint64_t)k;
  }
  return 0;
}

static int pwrite_all(int fd, const void *buf, size_t n, uint64_t off) {
  const char *p = buf;
  while (n > 0) {
    ssize_t k = pwrite(fd, p, n > ((size_t)1 << 30) ? (size_t)1 << 30 : n, (off_t)off);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    p += k, n -= (size_t)k, off += (uint64_t)k;
  }
  return 0;
}

int cgm_cache_header_read(int fd, cgm_cache_header *h, char *path, size_t n, char *why, size_t wn) {
  struct stat s;
  if (fstat(fd, &s)) return snprintf(why, wn, "cannot stat: %s", strerror(errno)), -1;
  if ((uint64_t)s.st_size < sizeof *h || pread_all(fd, h, sizeof *h, 0))
    return snprintf(why, wn, "truncated header"), -1;
  if (memcmp(h->magic, CGM_CACHE_MAGIC, 8)) return snprintf(why, wn, "not a cache entry"), -1;
  if (h->version != CGM_CACHE_VERSION || h->endian != CGM_CACHE_ENDIAN)
    return snprintf(why, wn, "entry of another format version or byte order"), -1;
  if (h->path_len == 0 || h->path_len >= n || h->header_bytes != sizeof *h + h->path_len)
    return snprintf(why, wn, "damaged header"), -1;
  if (pread_all(fd, path, h->path_len, sizeof *h)) return snprintf(why, wn, "truncated header"), -1;
  path[h->path_len] = '\0';
  if (header_hash(h, path) != h->header_hash)
    return snprintf(why, wn, "header checksum mismatch"), -1;
  if (h->nrows < 0 || h->ncols < 0 || h->nnz < 0 || h->nnz > ((int64_t)1 << 40))
    return snprintf(why, wn, "damaged header"), -1;
  cgm_cache_layout l = cgm_cache_layout_of(h->header_bytes, h->nrows, h->nnz);
  if (h->payload_bytes != l.end - h->header_bytes) return snprintf(why, wn, "damaged header"), -1;
  if ((uint64_t)s.st_size != l.end)
    return snprintf(why, wn, "%s entry (%lld bytes, %llu expected)",
                    (uint64_t)s.st_size < l.end ? "truncated" : "oversized", (long long)s.st_size,
                    (unsigned long long)l.end),
           -1;
  return 0;
}

/* The arrays of a CSR as the payload's three ranges, and their offsets. */
typedef struct {
  int fd;
  void *p[3];
  size_t n[3];
  uint64_t off[3];
} payload_io;

static void payload_ranges(const cgm_csr *A, cgm_cache_layout l, payload_io *io) {
  io->p[0] = A->rowptr, io->n[0] = ((size_t)A->nrows + 1) * 8, io->off[0] = l.rowptr;
  io->p[1] = A->colidx, io->n[1] = (size_t)A->nnz * 4, io->off[1] = l.colidx;
  io->p[2] = A->val, io->n[2] = (size_t)A->nnz * 8, io->off[2] = l.val;
}

static int read_chunk(void *ctx, int r, size_t off, size_t len) {
  const payload_io *io = ctx;
  return pread_all(io->fd, (char *)io->p[r] + off, len, io->off[r] + off);
}

static int write_chunk(void *ctx, int r, size_t off, size_t len) {
  const payload_io *io = ctx;
  return pwrite_all(io->fd, (const char *)io->p[r] + off, len, io->off[r] + off);
}

/* The CSR's structure: what the solver and the layout rely on, checked
 * again so that an entry is never trusted on its checksum alone. */
static bool csr_sane(const cgm_csr *A) {
  if (A->rowptr[0] != 0 || A->rowptr[A->nrows] != A->nnz) return false;
  int bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad)
  for (int32_t i = 0; i < A->nrows; i++) {
    if (A->rowptr[i + 1] < A->rowptr[i] || A->rowptr[i + 1] > A->nnz) {
      bad = 1;
      continue;
    }
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (A->colidx[k] < 0 || A->colidx[k] >= A->ncols ||
          (k > A->rowptr[i] && A->colidx[k] <= A->colidx[k - 1]))
        bad = 1;
  }
  return !bad;
}

/* A valid entry of the source (real, stat s) -> 0 and the CSR; else why. */
static int entry_load(int fd, const char *real, const struct stat *s, cgm_csr *A, cgm_mm_info *info,
                      uint64_t *id, char *why, size_t wn) {
  cgm_cache_header h;
  char *src = malloc(4097);
  if (!src) return snprintf(why, wn, "out of memory"), -1;
  int rc = cgm_cache_header_read(fd, &h, src, 4097, why, wn);
  if (!rc && strcmp(src, real)) {
    snprintf(why, wn, "entry of another file (%s)", src);
    rc = -1;
  }
  free(src);
  if (rc) return -1;
  if (h.hash_algo != (uint32_t)cgm_hash_algorithm())
    return snprintf(why, wn, "entry checksummed with another hash"), -1;
  if (!cgm_cache_key_matches(&h, s))
    return snprintf(why, wn, "stale: the file changed since the entry was written"), -1;
  cgm_error e = {0};
  if (cgm_csr_alloc(A, h.nrows, h.ncols, h.nnz, &e)) return snprintf(why, wn, "%s", e.msg), -1;
  payload_io io;
  io.fd = fd;
  payload_ranges(A, cgm_cache_layout_of(h.header_bytes, h.nrows, h.nnz), &io);
  uint64_t sum = 0;
  int hr = cgm_hash_ranges(io.p, io.n, 3, read_chunk, &io, &sum);
  if (hr || sum != h.payload_hash || !csr_sane(A)) {
    cgm_csr_free(A);
    return snprintf(why, wn, "%s",
                    hr == -1 ? "out of memory"
                    : hr     ? "read error"
                             : "damaged payload (checksum mismatch)"),
           -1;
  }
  if (info) {
    info->field = (cgm_mm_field)h.mm_field;
    info->symmetry = (cgm_mm_symmetry)h.mm_symmetry;
    info->entries_in_file = h.mm_entries;
    info->duplicates_summed = h.mm_duplicates;
    info->file_bytes = h.mm_file_bytes;
  }
  *id = h.header_hash;
  return 0;
}

/* mkdir -p */
static int make_dirs(const char *dir) {
  char p[4096];
  if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p) return -1;
  for (char *c = p + 1; *c; c++) {
    if (*c != '/') continue;
    *c = '\0';
    if (mkdir(p, 0755) && errno != EEXIST) return -1;
    *c = '/';
  }
  return mkdir(p, 0755) && errno != EEXIST ? -1 : 0;
}

/* Writes the entry of A (source real, stat s) as dir/name: a temporary
 * file beside it, fsync'ed, renamed over it, the directory fsync'ed; a
 * reader sees the old entry or the new one, never half of one. */
static int entry_store(const char *dir, const char *name, const char *real, const struct stat *s,
                       const cgm_csr *A, const cgm_mm_info *mm, uint64_t *id, char *why,
                       size_t wn) {
  cgm_cache_header h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, CGM_CACHE_MAGIC, 8);
  h.version = CGM_CACHE_VERSION;
  h.hash_algo = (uint32_t)cgm_hash_algorithm();
  h.path_len = (uint32_t)strlen(real);
  h.header_bytes = (uint32_t)(sizeof h + h.path_len);
  h.endian = CGM_CACHE_ENDIAN;
  h.src_size = (int64_t)s->st_size;
  h.src_mtime_ns = ns_of(s->st_mtim);
  h.src_ctime_ns = ns_of(s->st_ctim);
  h.src_dev = (uint64_t)s->st_dev;
  h.src_ino = (uint64_t)s->st_ino;
  h.nrows = A->nrows, h.ncols = A->ncols, h.nnz = A->nnz;
  h.mm_field = (int32_t)mm->field, h.mm_symmetry = (int32_t)mm->symmetry;
  h.mm_entries = mm->entries_in_file, h.mm_duplicates = mm->duplicates_summed;
  h.mm_file_bytes = mm->file_bytes;
  cgm_cache_layout l = cgm_cache_layout_of(h.header_bytes, A->nrows, A->nnz);
  h.payload_bytes = l.end - h.header_bytes;

  char tmp[4200], final[4200];
  snprintf(final, sizeof final, "%s/%s", dir, name);
  snprintf(tmp, sizeof tmp, "%s/%.16s" CGM_CACHE_TMP "XXXXXX", dir, name);
  int fd = mkstemp(tmp);
  if (fd < 0) return snprintf(why, wn, "cannot create a file in %s: %s", dir, strerror(errno)), -1;
  payload_io io;
  io.fd = fd;
  payload_ranges(A, l, &io);
  char *head = calloc(h.header_bytes, 1);
  int rc = head ? 0 : -1;
  /* the size first: the chunks are written in parallel, in any order */
  if (!rc && ftruncate(fd, (off_t)l.end)) rc = -1;
  if (!rc) {
    int hr = cgm_hash_ranges(io.p, io.n, 3, write_chunk, &io, &h.payload_hash);
    rc = hr ? -1 : 0;
  }
  if (!rc) {
    memcpy(head + sizeof h, real, h.path_len);
    h.header_hash = header_hash(&h, real);
    *id = h.header_hash;
    memcpy(head, &h, sizeof h);
    rc = pwrite_all(fd, head, h.header_bytes, 0);
  }
  if (!rc) rc = fsync(fd);
  int e = errno;
  free(head);
  if (close(fd) && !rc) rc = -1, e = errno;
  if (!rc && rename(tmp, final)) rc = -1, e = errno;
  if (rc) {
    unlink(tmp);
    return snprintf(why, wn, "could not write the entry in %s: %s", dir, strerror(e)), -1;
  }
  int dfd = open(dir, O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) { /* the rename itself durable */
    (void)fsync(dfd);
    close(dfd);
  }
  return 0;
}

/* An entry written on a thread of its own (cgm_cache_opts.background):
 * the parse's CSR goes to the caller at once, and the write (600 MB and an
 * fsync at Poisson 192^3) overlaps what the caller does next. */
struct cgm_cache_store {
  pthread_t thread;
  char dir[4096], name[32];
  char *real;
  struct stat s;
  const cgm_csr *A;
  cgm_mm_info mm;
  int64_t max_bytes;
  int rc, evicted;
  uint64_t id;
  double time_s;
  char why[1024];
};

static void *store_main(void *arg) {
  struct cgm_cache_store *j = arg;
  /* one core: the caller's solve, timed and recorded, runs beside it */
  omp_set_num_threads(1);
  const double t0 = cgm_now();
  j->rc = entry_store(j->dir, j->name, j->real, &j->s, j->A, &j->mm, &j->id, j->why, sizeof j->why);
  if (!j->rc && j->max_bytes > 0) j->evicted = cgm_cache_evict(j->dir, j->max_bytes, j->name);
  j->time_s = cgm_now() - t0;
  return NULL;
}

/* Starts the write of A's entry in the background; false when no thread
 * could be had (the caller writes it then). */
static bool store_start(const cgm_cache_opts *o, const char *name, const char *real,
                        const struct stat *s, const cgm_csr *A, const cgm_mm_info *mm,
                        cgm_cache_report *rep) {
  struct cgm_cache_store *j = calloc(1, sizeof *j);
  if (!j) return false;
  snprintf(j->dir, sizeof j->dir, "%s", o->dir);
  snprintf(j->name, sizeof j->name, "%s", name);
  j->real = strdup(real);
  j->s = *s;
  j->A = A;
  j->mm = *mm;
  j->max_bytes = o->max_bytes;
  if (!j->real || pthread_create(&j->thread, NULL, store_main, j)) {
    free(j->real);
    free(j);
    return false;
  }
  rep->pending = j;
  return true;
}

static void note_append(cgm_cache_report *rep, const char *why) {
  if (!why[0]) return;
  if (rep->note[0]) { /* the rejection and the write's failure */
    size_t k = strlen(rep->note);
    snprintf(rep->note + k, sizeof rep->note - k, "; %s", why);
  } else {
    snprintf(rep->note, sizeof rep->note, "%s", why);
  }
}

void cgm_cache_wait(cgm_cache_report *rep) {
  if (!rep || !rep->pending) return;
  struct cgm_cache_store *j = rep->pending;
  pthread_join(j->thread, NULL);
  rep->pending = NULL;
  rep->time_store_s = j->time_s;
  if (!j->rc) {
    rep->stored = true;
    rep->entry_id = j->id;
    rep->evicted = j->evicted;
  }
  note_append(rep, j->why);
  free(j->real);
  free(j);
}

/* A source modified within this window of its read is not stored: a
 * later change inside the same timestamp tick would keep its key. */
static const int64_t RACY_NS = 1000000000;

cgm_status cgm_cache_read_csr(const cgm_cache_opts *o, const char *path, cgm_csr *A,
                              cgm_mm_info *info, cgm_cache_report *rep, cgm_error *err) {
  cgm_cache_report mine;
  if (!rep) rep = &mine;
  memset(rep, 0, sizeof *rep);
  const double t0 = cgm_now();
  /* standard input ("-", /dev/stdin) is read as a stream, never cached */
  const bool stream = !strcmp(path, "-") || !strncmp(path, "/dev/", 5);
  if (!o || !o->dir || !o->dir[0] || stream) {
    rep->outcome = CGM_CACHE_OFF;
    cgm_status st = cgm_mm_read_csr(path, A, info, err);
    rep->time_read_s = cgm_now() - t0;
    return st;
  }
  rep->outcome = CGM_CACHE_MISS;
  char *real = realpath(path, NULL);
  struct stat s0;
  char name[32];
  if (real && !stat(real, &s0) && S_ISREG(s0.st_mode)) {
    cgm_cache_entry_name(real, name, sizeof name);
    snprintf(rep->entry, sizeof rep->entry, "%s/%s", o->dir, name);
    int fd = open(rep->entry, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      if (!entry_load(fd, real, &s0, A, info, &rep->entry_id, rep->note, sizeof rep->note)) {
        /* the use, for the eviction (noatime mounts do not record reads) */
        const struct timespec ts[2] = {{0, UTIME_NOW}, {0, UTIME_OMIT}};
        (void)futimens(fd, ts);
        close(fd);
        free(real);
        rep->outcome = CGM_CACHE_HIT;
        rep->time_read_s = cgm_now() - t0;
        return CGM_OK;
      }
      close(fd);
      rep->outcome = CGM_CACHE_REJECTED;
    }
  } else {
    free(real);
    real = NULL; /* the parse names what is wrong with the file */
  }
  cgm_mm_info mm;
  cgm_status st = cgm_mm_read_csr(path, A, &mm, err);
  if (info && !st) *info = mm;
  struct stat s1;
  char why[1024] = "";
  if (st || !real) {
  } else if (stat(real, &s1) || !same_file_state(&s0, &s1)) {
    snprintf(why, sizeof why, "not cached: %s changed while it was read", path);
  } else {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    cgm_cache_layout l =
        cgm_cache_layout_of((uint32_t)(sizeof(cgm_cache_header) + strlen(real)), A->nrows, A->nnz);
    if (ns_of(s1.st_mtim) > ns_of(now) - RACY_NS)
      snprintf(why, sizeof why,
               "not cached: %s was modified less than a second ago (a change within the same "
               "timestamp would go unseen)",
               path);
    else if (o->max_bytes > 0 && (int64_t)l.end > o->max_bytes)
      snprintf(why, sizeof why, "not cached: the entry (%.1f MB) exceeds the cache limit (%.1f MB)",
               l.end / 1e6, o->max_bytes / 1e6);
    else if (make_dirs(o->dir))
      snprintf(why, sizeof why, "not cached: cannot create %s: %s", o->dir, strerror(errno));
    else if (o->background && rep != &mine && store_start(o, name, real, &s1, A, &mm, rep)) {
      /* (only with a report to wait on: without one nobody would join it) */
    } else {
      const double ts = cgm_now();
      if (!entry_store(o->dir, name, real, &s1, A, &mm, &rep->entry_id, why, sizeof why)) {
        rep->stored = true;
        if (o->max_bytes > 0) rep->evicted = cgm_cache_evict(o->dir, o->max_bytes, name);
      }
      rep->time_store_s = cgm_now() - ts;
    }
  }
  note_append(rep, why);
  free(real);
  rep->time_read_s = cgm_now() - t0;
  return st;
}
