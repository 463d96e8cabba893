/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The cache directory as a whole: its entries (cgmodel cache list), their removal (cache clear) and
 * the eviction of the least recently used, each entry with its extras. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache/dir.h"
#include "cache/entry.h"
#include "cgmodel/cache.h"
#include "common/grow.h"

/* A temporary file older than this was left by a writer that was killed. */
static const time_t TMP_STALE_S = 3600;

typedef struct {
  char name[64];
  int64_t bytes;
  double atime;
} file_info;

static int by_atime(const void *a, const void *b) {
  const file_info *x = a, *y = b;
  return (x->atime > y->atime) - (x->atime < y->atime);
}

static double secs(struct timespec t) {
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Removes an orphaned extra or a killed writer's temporary from the directory dfd: true. */
static bool sweep_extra(int dfd, const char *name, const struct stat *s, time_t now) {
  char entry[32];
  snprintf(entry, sizeof entry, "%.20s", name); /* 16 hex digits and ".csr" */
  struct stat e;
  const bool orphan = fstatat(dfd, entry, &e, 0) != 0 && errno == ENOENT;
  return (orphan || (strstr(name, ".tmp.") && now - s->st_mtime > TMP_STALE_S)) &&
         !unlinkat(dfd, name, 0);
}

static int by_name(const void *a, const void *b) {
  return strcmp(((const file_info *)a)->name, ((const file_info *)b)->name);
}

/* The entries of dir (name, size with their extras', last use); leftover temporaries and orphaned
 * extras removed when `sweep`. Regular files only (a FIFO or a device at an entry's name is not
 * one). -1: the directory cannot be read (errno). */
static int scan(const char *dir, bool sweep, file_info **out, int *count) {
  *out = NULL;
  *count = 0;
  DIR *d = opendir(dir);
  if (!d) return -1;
  int cap = 0, n = 0;
  file_info *v = NULL;
  struct dirent *de;
  time_t now = time(NULL);
  while ((de = readdir(d))) {
    const bool entry = cgm_cache_is_entry_name(de->d_name),
               extra = cgm_cache_is_extra_name(de->d_name);
    if (!entry && !extra && !(sweep && cgm_cache_is_tmp_name(de->d_name))) continue;
    struct stat s; /* by the open directory: no walk of its path for every file */
    if (fstatat(dirfd(d), de->d_name, &s, 0) || !S_ISREG(s.st_mode)) continue;
    if (!entry && !extra) {
      if (now - s.st_mtime > TMP_STALE_S) unlinkat(dirfd(d), de->d_name, 0);
      continue;
    }
    if (extra && sweep && sweep_extra(dirfd(d), de->d_name, &s, now)) continue;
    file_info fi = {.bytes = (int64_t)s.st_size, .atime = secs(s.st_atim)};
    snprintf(fi.name, sizeof fi.name, "%.63s", de->d_name);
    if (!cgm_push(&v, &n, &cap, &fi, sizeof fi, 32)) break;
  }
  closedir(d);
  /* By name an entry comes right before its extras (NAME.csr-KIND): their
   * bytes are added to it, and only the entries kept. */
  if (v) qsort(v, (size_t)n, sizeof *v, by_name);
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (cgm_cache_is_entry_name(v[i].name))
      v[k++] = v[i];
    else if (k > 0 && !strncmp(v[i].name, v[k - 1].name, 20))
      v[k - 1].bytes += v[i].bytes;
  }
  *out = v;
  *count = k;
  return 0;
}

int cgm_cache_evict(const char *dir, int64_t max_bytes, const char *keep, int64_t *left) {
  file_info *f;
  int n, removed = 0;
  if (left) *left = 0;
  if (scan(dir, true, &f, &n)) return 0;
  int64_t total = 0;
  for (int i = 0; i < n; i++) total += f[i].bytes;
  qsort(f, (size_t)n, sizeof *f, by_atime);
  char p[4200];
  for (int i = 0; i < n && (total > max_bytes || n - removed > CGM_CACHE_MAX_ENTRIES); i++) {
    if (keep && !strcmp(f[i].name, keep)) continue;
    snprintf(p, sizeof p, "%s/%s", dir, f[i].name);
    if (!unlink(p) || errno == ENOENT) { /* ENOENT: another process evicted it */
      total -= f[i].bytes;
      removed++;
    }
  }
  free(f);
  if (removed) { /* their extras */
    file_info *g;
    int m;
    if (!scan(dir, true, &g, &m)) free(g);
  }
  if (left) *left = total;
  return removed;
}

/* The cache directory could not be read (errno): when it is not there, nothing is cached yet. */
static cgm_status unreadable(const char *dir, cgm_error *err) {
  if (errno == ENOENT) return CGM_OK;
  return cgm_fail(err, CGM_ERUNTIME, "cannot read the cache directory %s: %s", dir,
                  strerror(errno));
}

static int by_recent(const void *a, const void *b) {
  const cgm_cache_entry *x = a, *y = b;
  return (x->accessed < y->accessed) - (x->accessed > y->accessed);
}

cgm_status cgm_cache_list(const char *dir, cgm_cache_entry **out, int *count, cgm_error *err) {
  *out = NULL;
  *count = 0;
  file_info *f;
  int n;
  if (scan(dir, false, &f, &n)) return unreadable(dir, err);
  cgm_cache_entry *e = calloc((size_t)n + 1, sizeof *e);
  if (!e) {
    free(f);
    return cgm_fail(err, CGM_ERUNTIME, "out of memory listing %s", dir);
  }
  char p[4200], why[256];
  for (int i = 0; i < n; i++) {
    cgm_cache_entry *x = &e[i];
    snprintf(x->file, sizeof x->file, "%s", f[i].name);
    x->bytes = f[i].bytes;
    x->accessed = f[i].atime;
    snprintf(p, sizeof p, "%s/%s", dir, f[i].name);
    int fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO must not block */
    cgm_cache_header h;
    if (fd < 0) continue;
    x->valid_header = !cgm_cache_header_read(fd, &h, x->source, sizeof x->source, why, sizeof why);
    close(fd);
    if (!x->valid_header) {
      x->source[0] = '\0';
      continue;
    }
    x->source_bytes = h.src_size;
    x->nrows = h.nrows, x->ncols = h.ncols, x->nnz = h.nnz;
    struct stat s;
    x->source_current = !h.payload_bytes || (!stat(x->source, &s) && cgm_cache_key_matches(&h, &s));
  }
  free(f);
  qsort(e, (size_t)n, sizeof *e, by_recent);
  *out = e;
  *count = n;
  return CGM_OK;
}

/* Whether the file at p is the cache's own: an entry's or an extra's magic first, or a temporary
 * whose writer stopped before its header. A user's file that only looks like one by its name, and a
 * symbolic link, are left alone. */
static bool ours(const char *p, bool tmp) {
  const int fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
  if (fd < 0) return false;
  struct stat s;
  char m[8];
  const bool regular = !fstat(fd, &s) && S_ISREG(s.st_mode);
  const ssize_t n = regular ? read(fd, m, sizeof m) : -1;
  close(fd);
  if (n == (ssize_t)sizeof m)
    return !memcmp(m, CGM_CACHE_MAGIC, 8) || !memcmp(m, CGM_CACHE_EXTRA_MAGIC, 8);
  return tmp && n >= 0;
}

cgm_status cgm_cache_clear(const char *dir, int *removed, cgm_error *err) {
  *removed = 0;
  DIR *d = opendir(dir);
  if (!d) return unreadable(dir, err);
  struct dirent *de;
  char p[4200];
  cgm_status st = CGM_OK;
  while ((de = readdir(d))) {
    const bool tmp = cgm_cache_is_tmp_name(de->d_name);
    if (!cgm_cache_is_entry_name(de->d_name) && !tmp && !cgm_cache_is_extra_name(de->d_name))
      continue;
    snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
    if (!ours(p, tmp)) continue;
    if (!unlink(p))
      (*removed)++;
    else if (errno != ENOENT && !st)
      st = cgm_fail(err, CGM_ERUNTIME, "cannot remove %s: %s", p, strerror(errno));
  }
  closedir(d);
  return st;
}
