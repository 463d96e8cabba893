/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One cache entry: its name, header, load and write (entry.h). */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#include "cache/entry.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/hash.h"
#include "common/par.h"

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

/* 16 lower-case hex digits, then `rest`: whole (`prefix` false) or its start. */
static bool hex_then(const char *name, const char *rest, bool prefix) {
  for (int i = 0; i < 16; i++)
    if (!name[i] || !strchr("0123456789abcdef", name[i])) return false;
  return prefix ? !strncmp(name + 16, rest, strlen(rest)) : !strcmp(name + 16, rest);
}

bool cgm_cache_is_entry_name(const char *name) {
  return hex_then(name, CGM_CACHE_SUFFIX, false);
}

bool cgm_cache_is_extra_name(const char *name) {
  return hex_then(name, CGM_CACHE_SUFFIX "-", true) && name[16 + strlen(CGM_CACHE_SUFFIX "-")];
}

bool cgm_cache_is_tmp_name(const char *name) {
  return hex_then(name, CGM_CACHE_TMP, true);
}

int64_t cgm_cache_ns(struct timespec t) {
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

bool cgm_cache_key_matches(const cgm_cache_header *h, const struct stat *s) {
  return h->src_size == (int64_t)s->st_size && h->src_mtime_ns == cgm_cache_ns(s->st_mtim) &&
         h->src_ctime_ns == cgm_cache_ns(s->st_ctim) && h->src_dev == (uint64_t)s->st_dev &&
         h->src_ino == (uint64_t)s->st_ino;
}

static uint64_t header_hash(const cgm_cache_header *h, const char *path) {
  cgm_cache_header c = *h;
  c.header_hash = 0;
  return cgm_xxh64(path, h->path_len, cgm_xxh64(&c, sizeof c, 0));
}

/* pread (or pwrite) of a whole range: they may move fewer bytes. */
static int pio_all(bool write, int fd, void *buf, size_t n, uint64_t off) {
  char *p = buf;
  while (n > 0) {
    const size_t m = n > ((size_t)1 << 30) ? (size_t)1 << 30 : n;
    ssize_t k = write ? pwrite(fd, p, m, (off_t)off) : pread(fd, p, m, (off_t)off);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    p += k, n -= (size_t)k, off += (uint64_t)k;
  }
  return 0;
}

int cgm_cache_header_read(int fd, cgm_cache_header *h, char *path, size_t n, char *why, size_t wn) {
  struct stat s;
  if (fstat(fd, &s)) return snprintf(why, wn, "cannot stat: %s", strerror(errno)), -1;
  if (!S_ISREG(s.st_mode)) return snprintf(why, wn, "not a regular file"), -1;
  if ((uint64_t)s.st_size < sizeof *h || pio_all(false, fd, h, sizeof *h, 0))
    return snprintf(why, wn, "truncated header"), -1;
  if (memcmp(h->magic, CGM_CACHE_MAGIC, 8)) return snprintf(why, wn, "not a cache entry"), -1;
  if (h->version != CGM_CACHE_VERSION || h->endian != CGM_CACHE_ENDIAN)
    return snprintf(why, wn, "entry of another format version or byte order"), -1;
  if (h->path_len == 0 || h->path_len >= n || h->header_bytes != sizeof *h + h->path_len)
    return snprintf(why, wn, "damaged header"), -1;
  if (pio_all(false, fd, path, h->path_len, sizeof *h))
    return snprintf(why, wn, "truncated header"), -1;
  path[h->path_len] = '\0';
  if (header_hash(h, path) != h->header_hash)
    return snprintf(why, wn, "header checksum mismatch"), -1;
  if (h->nrows < 0 || h->ncols < 0 || h->nnz < 0 || h->nnz > ((int64_t)1 << 40))
    return snprintf(why, wn, "damaged header"), -1;
  cgm_cache_layout l = cgm_cache_layout_of(h->header_bytes, h->nrows, h->nnz);
  if (!h->payload_bytes) l.end = h->header_bytes; /* a matrix in memory's: its header alone */
  if (h->payload_bytes != l.end - h->header_bytes) return snprintf(why, wn, "damaged header"), -1;
  if ((uint64_t)s.st_size != l.end)
    return snprintf(why, wn, "%s entry (%lld bytes, %llu expected)",
                    (uint64_t)s.st_size < l.end ? "truncated" : "oversized", (long long)s.st_size,
                    (unsigned long long)l.end),
           -1;
  return 0;
}

/* The arrays of a CSR as the payload's three ranges, their offsets, and whether they are read from
 * fd or written to it. */
typedef struct {
  int fd;
  bool write;
  void *p[3];
  size_t n[3];
  uint64_t off[3];
} payload_io;

static payload_io payload_ranges(const cgm_csr *A, cgm_cache_layout l, int fd, bool write) {
  payload_io io = {.fd = fd, .write = write};
  io.p[0] = A->rowptr, io.n[0] = ((size_t)A->nrows + 1) * 8, io.off[0] = l.rowptr;
  io.p[1] = A->colidx, io.n[1] = (size_t)A->nnz * 4, io.off[1] = l.colidx;
  io.p[2] = A->val, io.n[2] = (size_t)A->nnz * 8, io.off[2] = l.val;
  return io;
}

uint64_t cgm_cache_content_of(const cgm_csr *A) {
  payload_io io = payload_ranges(A, cgm_cache_layout_of(0, A->nrows, A->nnz), -1, false);
  uint64_t sum = 0;
  return cgm_hash_ranges(io.p, io.n, 3, NULL, NULL, &sum) ? 0 : sum;
}

/* The visit of cgm_hash_ranges: the chunk read from the entry, or written to it. */
static int move_chunk(void *ctx, int r, size_t off, size_t len) {
  const payload_io *io = ctx;
  return pio_all(io->write, io->fd, (char *)io->p[r] + off, len, io->off[r] + off);
}

/* The CSR's structure: what the solver and the layout rely on, checked
 * again so that an entry is never trusted on its checksum alone. */
static bool csr_sane(const cgm_csr *A) {
  if (A->rowptr[0] != 0 || A->rowptr[A->nrows] != A->nnz) return false;
  int bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad) if (A->nnz >= CGM_PAR_MIN_NNZ)
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

int cgm_cache_entry_load(int fd, const char *real, const struct stat *s, cgm_csr *A,
                         cgm_mm_info *info, uint64_t *id, uint64_t *content, char *why, size_t wn) {
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
  if (h.hash_algo != CGM_HASH_XXH64)
    return snprintf(why, wn, "entry checksummed with another hash"), -1;
  if (!cgm_cache_key_matches(&h, s))
    return snprintf(why, wn, "stale: the file changed since the entry was written"), -1;
  cgm_error e = {0};
  if (cgm_csr_alloc(A, h.nrows, h.ncols, h.nnz, &e)) return snprintf(why, wn, "%s", e.msg), -1;
  payload_io io = payload_ranges(A, cgm_cache_layout_of(h.header_bytes, h.nrows, h.nnz), fd, false);
  uint64_t sum = 0;
  int hr = cgm_hash_ranges(io.p, io.n, 3, move_chunk, &io, &sum);
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
  *id = h.header_hash, *content = h.payload_hash;
  return 0;
}

int cgm_cache_entry_store(const char *dir, const char *name, const char *real, const struct stat *s,
                          const cgm_csr *A, const cgm_mm_info *mm, uint64_t *id, uint64_t *content,
                          char *why, size_t wn) {
  cgm_cache_header h = {0};
  memcpy(h.magic, CGM_CACHE_MAGIC, 8);
  h.version = CGM_CACHE_VERSION;
  h.hash_algo = CGM_HASH_XXH64;
  h.path_len = (uint32_t)strlen(real);
  h.header_bytes = (uint32_t)(sizeof h + h.path_len);
  h.endian = CGM_CACHE_ENDIAN;
  h.src_size = (int64_t)s->st_size;
  h.src_mtime_ns = cgm_cache_ns(s->st_mtim);
  h.src_ctime_ns = cgm_cache_ns(s->st_ctim);
  h.src_dev = (uint64_t)s->st_dev;
  h.src_ino = (uint64_t)s->st_ino;
  h.nrows = A->nrows, h.ncols = A->ncols, h.nnz = A->nnz;
  h.mm_field = (int32_t)mm->field, h.mm_symmetry = (int32_t)mm->symmetry;
  h.mm_entries = mm->entries_in_file, h.mm_duplicates = mm->duplicates_summed;
  h.mm_file_bytes = mm->file_bytes;
  cgm_cache_layout l = cgm_cache_layout_of(h.header_bytes, A->nrows, A->nnz);
  const bool memory = *content != 0;
  if (memory) l.end = h.header_bytes, h.payload_hash = *content; /* a matrix in memory's */
  h.payload_bytes = l.end - h.header_bytes;

  char tmp[4200], final[4200];
  snprintf(final, sizeof final, "%s/%s", dir, name);
  snprintf(tmp, sizeof tmp, "%s/%.16s" CGM_CACHE_TMP "XXXXXX", dir, name);
  int fd = mkstemp(tmp);
  if (fd < 0) return snprintf(why, wn, "cannot create a file in %s: %s", dir, strerror(errno)), -1;
  payload_io io = payload_ranges(A, l, fd, true);
  char *head = calloc(h.header_bytes, 1);
  int rc = head ? 0 : -1;
  /* the size first: the chunks are written in parallel, in any order */
  if (!rc && ftruncate(fd, (off_t)l.end)) rc = -1;
  if (!rc && !memory && cgm_hash_ranges(io.p, io.n, 3, move_chunk, &io, &h.payload_hash)) rc = -1;
  if (!rc) {
    memcpy(head + sizeof h, real, h.path_len);
    h.header_hash = header_hash(&h, real);
    *id = h.header_hash, *content = h.payload_hash;
    memcpy(head, &h, sizeof h);
    rc = pio_all(true, fd, head, h.header_bytes, 0);
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
