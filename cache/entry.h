/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One cache entry: its format (docs/cache.md), name, header, load, write. */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "cgmodel/cache.h"
#include "cgmodel/sparse.h"

#define CGM_CACHE_MAGIC "CGMCSR\r\n"      /* 8 bytes: the CR-LF catches a text-mode copy */
#define CGM_CACHE_EXTRA_MAGIC "CGMXTRA\n" /* an extra's (extra.c) */
#define CGM_CACHE_VERSION 1u
#define CGM_CACHE_ENDIAN 0x0102030405060708ULL
#define CGM_CACHE_SUFFIX ".csr"
#define CGM_CACHE_TMP ".csr.tmp." /* name.csr.tmp.XXXXXX while it is written */
/* The source of a matrix in memory's entry, then its content's hash: its header alone
 * (payload_bytes 0), under the name of that source, so that the extras of its analysis attach to it
 * by content. */
#define CGM_CACHE_MEMORY "memory:"

/* The header at offset 0, followed by the source's absolute path (path_len bytes, no NUL), then the
 * payload at header_bytes: rowptr (nrows + 1 int64), colidx (nnz int32), val (nnz double), back to
 * back. Native byte order. No padding anywhere: every byte is under the header's or the payload's
 * checksum (the arrays are read with pread into their own allocations, so their alignment in the
 * file does not matter). */
typedef struct cgm_cache_header {
  char magic[8];
  uint32_t version, hash_algo;
  uint32_t header_bytes, path_len;
  uint64_t endian;
  /* the key: the source file as it was read */
  int64_t src_size, src_mtime_ns, src_ctime_ns;
  uint64_t src_dev, src_ino;
  /* the matrix and what the reader saw */
  int32_t nrows, ncols;
  int64_t nnz;
  int32_t mm_field, mm_symmetry;
  int64_t mm_entries, mm_duplicates, mm_file_bytes;
  uint64_t payload_bytes, payload_hash;
  uint64_t header_hash; /* of this header (with header_hash 0) and the path */
} cgm_cache_header;

/* Offsets of the payload's arrays from the entry's start. */
typedef struct {
  uint64_t rowptr, colidx, val, end;
} cgm_cache_layout;

cgm_cache_layout cgm_cache_layout_of(uint32_t header_bytes, int32_t nrows, int64_t nnz);

/* The entry's file name of an absolute source path: 16 hex digits of its
 * XXH64, then ".csr" (out: at least 24 bytes). */
void cgm_cache_entry_name(const char *real, char *out, size_t n);
/* name is an entry's (hex + .csr) or a leftover temporary's. */
bool cgm_cache_is_entry_name(const char *name);
bool cgm_cache_is_tmp_name(const char *name);
/* An extra of an entry: hex + ".csr-" + its kind (cgm_cache_extra_put). */
bool cgm_cache_is_extra_name(const char *name);

/* The hash of A's arrays as an entry's payload holds them (0: out of memory). */
uint64_t cgm_cache_content_of(const cgm_csr *A);

/* An entry written on a thread of its own (cgm_cache_opts.background, read.c): the parse's CSR goes
 * to the caller at once, the write (600 MB and an fsync at Poisson 192^3) beside what it does next.
 * An extra put meanwhile (a first read's analysis) waits in `extras` (extra.c) for its id. */
struct cgm_cache_store {
  pthread_t thread;
  char dir[4096], name[32];
  char *real;
  struct stat s;
  const cgm_csr *A;
  cgm_mm_info mm;
  int64_t max_bytes;
  int rc, evicted;
  uint64_t id, content;
  double time_s;
  char why[1024];
  struct cgm_cache_deferred *extras; /* in the order put */
};
/* The extras put while an entry was written: put beside it where it was (put), all freed. */
void cgm_cache_deferred_put(struct cgm_cache_deferred *d, const cgm_cache_report *rep, bool put);

/* Reads and checks the header of an open entry; path receives the source
 * (n >= 4096). 0: valid; else why says what is wrong. */
int cgm_cache_header_read(int fd, cgm_cache_header *h, char *path, size_t n, char *why, size_t wn);

/* The source's stat matches the key of the header. */
bool cgm_cache_key_matches(const cgm_cache_header *h, const struct stat *s);
int64_t cgm_cache_ns(struct timespec t); /* the key's resolution */

/* A valid entry (open as fd) of the source (absolute path real, stat s):
 * 0 with the CSR, the reader's info (NULL: not wanted), the entry's id
 * (its header checksum) and content (its payload's); else why says what is wrong. */
int cgm_cache_entry_load(int fd, const char *real, const struct stat *s, cgm_csr *A,
                         cgm_mm_info *info, uint64_t *id, uint64_t *content, char *why, size_t wn);
/* Writes the entry of A (source real, stat s) as dir/name through a temporary file, fsync'ed and
 * renamed over it: a reader never sees half an entry; *content nonzero: its header alone, *content
 * its payload's hash (a matrix in memory's). 0 with *id and *content; else why. */
int cgm_cache_entry_store(const char *dir, const char *name, const char *real, const struct stat *s,
                          const cgm_csr *A, const cgm_mm_info *mm, uint64_t *id, uint64_t *content,
                          char *why, size_t wn);
