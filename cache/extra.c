/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Extras of a cache entry: small data derived from the cached matrix (the features of its layouts)
 * in ENTRY-KIND beside it, tied to the entry by its header checksum, so that a warm solve skips
 * what it would recompute from the same matrix. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/dir.h"
#include "cache/entry.h"
#include "cache/hash.h"
#include "cgmodel/cache.h"

#define EXTRA_MAX_BYTES ((size_t)1 << 20) /* extras are small */

typedef struct {
  char magic[8];
  uint32_t format, version; /* of this header; of the caller's data */
  uint64_t entry_id;        /* the entry's header checksum */
  uint64_t bytes, hash;     /* of the data that follows */
} extra_header;

/* A kind is a plain word of lower-case letters and digits, shorter than KIND_MAX (what a put held
 * until its entry is written keeps: the same kinds either way). */
enum { KIND_MAX = 32 };
static bool kind_ok(const char *kind) {
  return kind && kind[0] && strlen(kind) < KIND_MAX &&
         strspn(kind, "abcdefghijklmnopqrstuvwxyz0123456789") == strlen(kind);
}

/* An extra put before its entry was written. */
struct cgm_cache_deferred {
  struct cgm_cache_deferred *next;
  char kind[KIND_MAX];
  uint32_t version;
  size_t bytes;
  unsigned char data[];
};

/* Held for the entry's write j (none where out of memory: an extra is only a shortcut). */
static void defer(struct cgm_cache_store *j, const char *kind, uint32_t version, const void *data,
                  size_t bytes) {
  struct cgm_cache_deferred **at = &j->extras, *d = malloc(sizeof *d + bytes + 1);
  if (!d) return;
  while (*at) at = &(*at)->next; /* in order: a later put of a kind is put over an earlier one */
  *d = (struct cgm_cache_deferred){NULL, "", version, bytes};
  snprintf(d->kind, sizeof d->kind, "%s", kind);
  if (bytes) memcpy(d->data, data, bytes);
  *at = d;
}

void cgm_cache_deferred_put(struct cgm_cache_deferred *d, const cgm_cache_report *rep, bool put) {
  for (struct cgm_cache_deferred *next; d; d = next) {
    if (put) cgm_cache_extra_put(rep, d->kind, d->version, d->data, d->bytes);
    next = d->next, free(d);
  }
}

/* ENTRY-KIND; false when the kind is not a plain word or the path too long. */
static bool extra_path(const cgm_cache_report *rep, const char *kind, char *out, size_t n) {
  if (!rep || rep->entry_id == 0 || !rep->entry[0] || !kind_ok(kind)) return false;
  int k = snprintf(out, n, "%s-%s", rep->entry, kind);
  return k > 0 && (size_t)k < n;
}

/* The other entries evicted until the entry with its extras, this one (`need` bytes, replacing the
 * one at path) included, fits in the limit; false when it cannot. */
static bool make_room(const cgm_cache_report *rep, const char *path, int64_t need) {
  /* An extra of at most 1/1024 of the limit reads the directory's total at one put in 32 (by its
   * path): at every put, a Python loop whose matrix changes at each step (an entry and its extras a
   * step) grew quadratic, 117 ms a solve after 2,000 steps on 2 cores. Between reads such extras
   * may pass the limit by about 3%. */
  if (need <= rep->max_bytes / 1024 && cgm_xxh64(path, strlen(path), 0) % 32) return true;
  char dir[4096];
  const char *slash = strrchr(rep->entry, '/');
  if (!slash || slash - rep->entry >= (ptrdiff_t)sizeof dir) return false;
  snprintf(dir, sizeof dir, "%.*s", (int)(slash - rep->entry), rep->entry);
  struct stat s;
  const int64_t old = !stat(path, &s) && S_ISREG(s.st_mode) ? (int64_t)s.st_size : 0;
  int64_t left = 0;
  cgm_cache_evict(dir, rep->max_bytes - need + old, slash + 1, &left);
  return left - old + need <= rep->max_bytes;
}

void cgm_cache_extra_put(const cgm_cache_report *rep, const char *kind, uint32_t version,
                         const void *data, size_t bytes) {
  char path[4200], tmp[4300];
  if (rep && rep->pending) { /* put once the entry is written */
    if (bytes <= EXTRA_MAX_BYTES && kind_ok(kind)) defer(rep->pending, kind, version, data, bytes);
    return;
  }
  if (bytes > EXTRA_MAX_BYTES || !extra_path(rep, kind, path, sizeof path)) return;
  if (rep->outcome != CGM_CACHE_HIT && !rep->stored) return;
  if (rep->max_bytes > 0 && !make_room(rep, path, (int64_t)(sizeof(extra_header) + bytes))) return;
  snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) return;
  extra_header h = {"", 1, version, rep->entry_id, bytes, cgm_xxh64(data, bytes, 0)};
  memcpy(h.magic, CGM_CACHE_EXTRA_MAGIC, 8);
  bool ok =
      write(fd, &h, sizeof h) == (ssize_t)sizeof h && write(fd, data, bytes) == (ssize_t)bytes;
  if (close(fd)) ok = false;
  if (!ok || rename(tmp, path)) unlink(tmp);
}

void *cgm_cache_extra_load(const cgm_cache_report *rep, const char *kind, uint32_t version,
                           size_t *bytes) {
  char path[4200];
  *bytes = 0;
  if (!extra_path(rep, kind, path, sizeof path)) return NULL;
  if (rep->outcome != CGM_CACHE_HIT && !rep->stored) return NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return NULL;
  struct stat sb;
  extra_header h;
  unsigned char *buf = NULL;
  /* a FIFO or device there is not ours */
  bool ok = !fstat(fd, &sb) && S_ISREG(sb.st_mode) && read(fd, &h, sizeof h) == (ssize_t)sizeof h &&
            !memcmp(h.magic, CGM_CACHE_EXTRA_MAGIC, 8) && h.format == 1 && h.version == version &&
            h.entry_id == rep->entry_id && h.bytes <= EXTRA_MAX_BYTES &&
            (buf = malloc(h.bytes + 1)) != NULL && read(fd, buf, h.bytes + 1) == (ssize_t)h.bytes &&
            cgm_xxh64(buf, h.bytes, 0) == h.hash;
  close(fd);
  if (!ok) {
    free(buf);
    return NULL;
  }
  *bytes = h.bytes;
  return buf;
}

bool cgm_cache_extra_get(const cgm_cache_report *rep, const char *kind, uint32_t version,
                         void *data, size_t bytes) {
  size_t n;
  void *got = cgm_cache_extra_load(rep, kind, version, &n);
  const bool ok = got && n == bytes;
  if (ok) memcpy(data, got, bytes);
  free(got);
  return ok;
}
