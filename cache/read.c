/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reading a matrix through the cache: the lookup, the parse on a miss, the
 * entry's write (now or on a thread of its own) and the eviction after it. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#include <fcntl.h>
#include <omp.h>
#include <pthread.h>
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
#include "common/outfile.h"
#include "common/timer.h"

const char *cgm_cache_outcome_name(cgm_cache_outcome o) {
  static const char *const names[] = {"off", "hit", "miss", "rejected"};
  return (unsigned)o < 4 ? names[o] : "?";
}

static bool same_file_state(const struct stat *a, const struct stat *b) {
  return a->st_size == b->st_size && cgm_cache_ns(a->st_mtim) == cgm_cache_ns(b->st_mtim) &&
         cgm_cache_ns(a->st_ctim) == cgm_cache_ns(b->st_ctim) && a->st_dev == b->st_dev &&
         a->st_ino == b->st_ino;
}

static void *store_main(void *arg) {
  struct cgm_cache_store *j = arg;
  /* one core: the caller's solve, timed and recorded, runs beside it */
  omp_set_num_threads(1);
  const double t0 = cgm_now();
  j->rc = cgm_cache_entry_store(j->dir, j->name, j->real, &j->s, j->A, &j->mm, &j->id, &j->content,
                                j->why, sizeof j->why);
  if (!j->rc && j->max_bytes > 0) j->evicted = cgm_cache_evict(j->dir, j->max_bytes, j->name, NULL);
  j->time_s = cgm_now() - t0;
  return NULL;
}

/* Starts the background write of A's entry; false without a thread. */
static bool store_start(const cgm_cache_opts *o, const char *name, const char *real,
                        const struct stat *s, const cgm_csr *A, const cgm_mm_info *mm,
                        cgm_cache_report *rep) {
  struct cgm_cache_store *j = malloc(sizeof *j);
  if (!j) return false;
  *j = (struct cgm_cache_store){
      .real = strdup(real), .s = *s, .A = A, .mm = *mm, .max_bytes = o->max_bytes};
  snprintf(j->dir, sizeof j->dir, "%s", o->dir);
  snprintf(j->name, sizeof j->name, "%s", name);
  if (!j->real || pthread_create(&j->thread, NULL, store_main, j)) {
    CGM_FREE(j->real, j);
    return false;
  }
  rep->pending = j;
  return true;
}

static void note_append(cgm_cache_report *rep, const char *why) {
  const size_t k = strlen(rep->note); /* the rejection, then the write's failure */
  if (why[0]) snprintf(rep->note + k, sizeof rep->note - k, "%s%s", k ? "; " : "", why);
}

void cgm_cache_wait(cgm_cache_report *rep) {
  if (!rep || !rep->pending) return;
  struct cgm_cache_store *j = rep->pending;
  pthread_join(j->thread, NULL);
  rep->pending = NULL;
  rep->time_store_s = j->time_s;
  if (!j->rc) {
    rep->stored = true;
    rep->entry_id = j->id, rep->content_id = j->content;
    rep->evicted = j->evicted;
  }
  note_append(rep, j->why);
  cgm_cache_deferred_put(j->extras, rep, !j->rc);
  CGM_FREE(j->real, j);
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
  cgm_mm_read_opts ro = cgm_mm_read_opts_default();
  ro.square = o && o->square;
  /* standard input ("-", /dev/stdin) is read as a stream, never cached */
  const bool stream = !strcmp(path, "-") || !strncmp(path, "/dev/", 5);
  if (!o || !o->dir || !o->dir[0] || stream) {
    rep->outcome = CGM_CACHE_OFF;
    cgm_status st = cgm_mm_read_csr_opts(path, &ro, A, info, err);
    rep->time_read_s = cgm_now() - t0;
    return st;
  }
  rep->outcome = CGM_CACHE_MISS;
  rep->max_bytes = o->max_bytes;
  char *real = realpath(path, NULL);
  struct stat s0;
  char name[32];
  if (real && !stat(real, &s0) && S_ISREG(s0.st_mode)) {
    cgm_cache_entry_name(real, name, sizeof name);
    snprintf(rep->entry, sizeof rep->entry, "%s/%s", o->dir, name);
    int fd = open(rep->entry, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO: rejected */
    if (fd >= 0) {
      if (!cgm_cache_entry_load(fd, real, &s0, A, info, &rep->entry_id, &rep->content_id, rep->note,
                                sizeof rep->note)) {
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
  cgm_status st = cgm_mm_read_csr_opts(path, &ro, A, &mm, err);
  if (info && !st) *info = mm;
  struct stat s1;
  char why[1024] = "";
  if (st || !real) {
  } else if (stat(real, &s1) || !same_file_state(&s0, &s1)) {
    snprintf(why, sizeof why, "not cached: %s changed while it was read", path);
  } else {
    struct timespec now;
    int e;
    clock_gettime(CLOCK_REALTIME, &now);
    cgm_cache_layout l =
        cgm_cache_layout_of((uint32_t)(sizeof(cgm_cache_header) + strlen(real)), A->nrows, A->nnz);
    if (cgm_cache_ns(s1.st_mtim) > cgm_cache_ns(now) - RACY_NS)
      snprintf(why, sizeof why,
               "not cached: %s was modified less than a second ago (a change within the same "
               "timestamp would go unseen)",
               path);
    else if (o->max_bytes > 0 && (int64_t)l.end > o->max_bytes)
      snprintf(why, sizeof why, "not cached: the entry (%.1f MB) exceeds the cache limit (%.1f MB)",
               l.end / 1e6, o->max_bytes / 1e6);
    else if ((e = cgm_mkdirs(o->dir, 0755, NULL, 0)))
      snprintf(why, sizeof why, "not cached: cannot create %s: %s", o->dir, strerror(e));
    else if (o->background && rep != &mine && store_start(o, name, real, &s1, A, &mm, rep)) {
      /* (only with a report to wait on: without one nobody would join it) */
    } else {
      const double ts = cgm_now();
      if (!cgm_cache_entry_store(o->dir, name, real, &s1, A, &mm, &rep->entry_id, &rep->content_id,
                                 why, sizeof why)) {
        rep->stored = true;
        if (o->max_bytes > 0) rep->evicted = cgm_cache_evict(o->dir, o->max_bytes, name, NULL);
      }
      rep->time_store_s = cgm_now() - ts;
    }
  }
  note_append(rep, why);
  free(real);
  rep->time_read_s = cgm_now() - t0;
  return st;
}

void cgm_cache_of_memory(const cgm_cache_opts *o, const cgm_csr *A, cgm_cache_report *rep) {
  memset(rep, 0, sizeof *rep);
  const double t0 = cgm_now();
  const uint64_t content = o && o->dir && o->dir[0] ? cgm_cache_content_of(A) : 0;
  if (!content) return;               /* no cache (or no memory to hash in): off */
  char real[64], name[32], src[4096]; /* the columns too: the arrays do not hold them */
  snprintf(real, sizeof real, CGM_CACHE_MEMORY "%016llx:%d", (unsigned long long)content, A->ncols);
  cgm_cache_entry_name(real, name, sizeof name);
  snprintf(rep->entry, sizeof rep->entry, "%s/%s", o->dir, name);
  rep->max_bytes = o->max_bytes;
  rep->content_id = content;
  cgm_cache_header h;
  int fd = open(rep->entry, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  rep->outcome = fd >= 0 ? CGM_CACHE_REJECTED : CGM_CACHE_MISS;
  if (fd >= 0 && !cgm_cache_header_read(fd, &h, src, sizeof src, rep->note, sizeof rep->note) &&
      !strcmp(src, real)) {
    const struct timespec ts[2] = {{0, UTIME_NOW}, {0, UTIME_OMIT}}; /* the use, for the eviction */
    (void)futimens(fd, ts);
    rep->outcome = CGM_CACHE_HIT;
    rep->entry_id = h.header_hash;
  } else {
    (void)cgm_mkdirs(o->dir, 0755, NULL, 0); /* else the write says why */
    rep->stored =
        !cgm_cache_entry_store(o->dir, name, real, &(struct stat){0}, A, &(cgm_mm_info){0},
                               &rep->entry_id, &rep->content_id, rep->note, sizeof rep->note);
  }
  if (fd >= 0) close(fd);
  rep->time_read_s = cgm_now() - t0;
}
