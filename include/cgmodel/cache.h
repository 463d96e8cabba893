/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The matrix cache: a binary copy of each matrix file's CSR, so that a second read of a large
 * Matrix Market file costs one read of its arrays instead of a parse (docs/cache.md). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "cgmodel/sparse.h"
#include "cgmodel/status.h"

CGM_BEGIN_DECLS

/* The default size limit of the cache directory: 4 GiB. */
#define CGM_CACHE_DEFAULT_MAX_BYTES ((int64_t)4 << 30)
/* Entries kept at most, whatever their bytes: a matrix in memory whose values change at every step
 * makes a header-only entry and its extras (a few KB) a step, and an eviction reads them all. */
#define CGM_CACHE_MAX_ENTRIES 1024

typedef struct cgm_cache_opts {
  const char *dir;   /* the cache directory (created when missing); NULL: no cache */
  int64_t max_bytes; /* the least recently used entries evicted down to it; <= 0: no limit */
  bool square;       /* a parse refuses a matrix that is not square at its size line
                        (cgm_mm_read_opts.square: a solve's, before any work per column) */
  bool background;   /* a miss writes its entry on a thread of its own (one core) while the
                        caller goes on: the CSR must then stay unchanged and the report be
                        passed to cgm_cache_wait before either is reused or freed; only with a
                        report (rep not NULL) */
} cgm_cache_opts;

typedef enum cgm_cache_outcome {
  CGM_CACHE_OFF,      /* no cache directory: the file was parsed */
  CGM_CACHE_HIT,      /* the entry was valid: the CSR came from it */
  CGM_CACHE_MISS,     /* no entry: the file was parsed */
  CGM_CACHE_REJECTED, /* an entry was there but stale or damaged: ignored, the file parsed */
} cgm_cache_outcome;

/* What one cached read did. */
typedef struct cgm_cache_report {
  cgm_cache_outcome outcome;
  bool stored;         /* the entry was (re)written after the parse */
  int evicted;         /* entries removed to keep the directory under max_bytes */
  char entry[4096];    /* the entry's path ("" without a cache) */
  char note[1024];     /* why an entry was rejected, or not written ("" when neither) */
  double time_read_s;  /* the whole read: lookup, parse and write (not a background write) */
  double time_store_s; /* the write of the entry (in the background, or within time_read_s) */
  uint64_t entry_id;   /* the entry read or written (its header's checksum); 0: none */
  uint64_t content_id; /* its matrix by content (the checksum of its CSR arrays, XXH64): the same
                          for the same matrix from any file or in memory; 0: none */
  int64_t max_bytes;   /* the cache's limit (cgm_cache_opts), which the extras keep too */
  struct cgm_cache_store *pending; /* the write still under way (background); cgm_cache_wait */
} cgm_cache_report;

CGM_API const char *cgm_cache_outcome_name(cgm_cache_outcome o);

/* cgm_mm_read_csr through the cache: a valid entry of the file (same absolute path, device, inode,
 * size, times, and payload checksum) gives the CSR and the reader's info; otherwise the file is
 * parsed and its entry written. A failing cache (not writable, disk full) is reported in rep->note,
 * never as an error. rep may be NULL. */
CGM_API cgm_status cgm_cache_read_csr(const cgm_cache_opts *o, const char *path, cgm_csr *A,
                                      cgm_mm_info *info, cgm_cache_report *rep, cgm_error *err);

/* The entry of a matrix in memory, by its content (the hash of its arrays): its header alone,
 * found again (hit) or written (miss, rep->stored), so that the extras of A's analysis are kept and
 * found again as a file's are; outcome off without a cache directory. */
CGM_API void cgm_cache_of_memory(const cgm_cache_opts *o, const cgm_csr *A, cgm_cache_report *rep);

/* Extras: small data derived from a cached matrix (the features of its layouts), kept beside its
 * entry as ENTRY-KIND (KIND 1-31 lower-case letters and digits; no other is kept) and valid for
 * that entry only (rep->entry_id). A put after a read that hit or stored the entry writes it,
 * evicting other entries to keep the limit (failures are ignored: an extra is only a shortcut); a
 * put while the entry's background write is under way is held and written once cgm_cache_wait
 * finds the entry stored (the last of a kind wins). A get is true when
 * the extra of this entry, kind and version holds exactly `bytes` bytes with a matching checksum.
 * Bump `version` whenever what is stored changes meaning. */
CGM_API void cgm_cache_extra_put(const cgm_cache_report *rep, const char *kind, uint32_t version,
                                 const void *data, size_t bytes);
CGM_API bool cgm_cache_extra_get(const cgm_cache_report *rep, const char *kind, uint32_t version,
                                 void *data, size_t bytes);
/* The same for an extra of any size: its data (malloc'ed), or NULL. */
CGM_API void *cgm_cache_extra_load(const cgm_cache_report *rep, const char *kind, uint32_t version,
                                   size_t *bytes);

/* Waits for the background write of rep's entry, if any, and completes the
 * report. Call it before A is changed or freed. */
CGM_API void cgm_cache_wait(cgm_cache_report *rep);

/* One entry of a cache directory, from its header. */
typedef struct cgm_cache_entry {
  char file[64];       /* the entry's file name in the directory */
  char source[4096];   /* the matrix file it holds (absolute path) */
  bool valid_header;   /* magic, version and checksum right (the payload's: when read) */
  bool source_current; /* the source file is there with the size and times of the entry */
  int64_t bytes;       /* of the entry and its extras */
  int64_t source_bytes;
  int32_t nrows, ncols;
  int64_t nnz;
  double accessed; /* last use, seconds since the epoch */
} cgm_cache_entry;

/* The entries of a directory (*out malloc'ed, NULL when none), most recently
 * used first. A missing directory has no entries. */
CGM_API cgm_status cgm_cache_list(const char *dir, cgm_cache_entry **out, int *count,
                                  cgm_error *err);
/* Removes every entry and temporary file of the cache directory (no other). */
CGM_API cgm_status cgm_cache_clear(const char *dir, int *removed, cgm_error *err);

CGM_END_DECLS
