/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Output files: the alias test, the write-beside-then-rename, mkdir -p (outfile.h). */
#define _XOPEN_SOURCE 700
#include "common/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/grow.h"

/* "dir" and "base" of a path ("a" -> ".", "a"; "/a" -> "/", "a"); malloc'd. */
static bool split(const char *path, char **dir, char **base) {
  const char *slash = strrchr(path, '/');
  *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
  *base = strdup(slash ? slash + 1 : path);
  if (*dir && *base) return true;
  CGM_FREE(*dir, *base);
  return false;
}

int cgm_mkdirs(const char *dir, unsigned mode, char *at, size_t at_size) {
  char *p = strdup(dir);
  if (!p && at) snprintf(at, at_size, "%s", dir); /* named out of memory too */
  if (!p) return ENOMEM;
  int e = 0;
  for (char *c = p + (*p == '/'); !e; c++) {
    if (*c && *c != '/') continue;
    const char end = *c;
    *c = '\0';
    struct stat sb;
    if (mkdir(p, (mode_t)mode) && errno != EEXIST)
      e = errno;
    else if (stat(p, &sb) == 0 && !S_ISDIR(sb.st_mode))
      e = ENOTDIR;
    if (e && at) snprintf(at, at_size, "%s", p);
    if (!end) break;
    *c = end;
  }
  free(p);
  return e;
}

/* The path with every symbolic link resolved; for a file not yet there its
 * directory's resolved path and its name. NULL when out of memory. */
static char *canonical(const char *path) {
  char *r = realpath(path, NULL);
  if (r) return r;
  char *dir, *base;
  if (!split(path, &dir, &base)) return NULL;
  char *rd = realpath(dir, NULL);
  const char *d = rd ? rd : dir;
  size_t n = strlen(d) + strlen(base) + 2;
  char *out = malloc(n);
  if (out) snprintf(out, n, "%s/%s", strcmp(d, "/") ? d : "", base);
  CGM_FREE(rd, dir, base);
  return out;
}

bool cgm_path_aliases(const char *out, const char *in) {
  if (!out || !in || !*out || !*in) return false;
  struct stat so, si;
  bool have_o = stat(out, &so) == 0, have_i = stat(in, &si) == 0;
  if (have_o && have_i) return so.st_dev == si.st_dev && so.st_ino == si.st_ino;
  if (have_o != have_i) return false; /* one exists, the other not: different names */
  char *a = canonical(out), *b = canonical(in);
  /* Out of memory: say they alias (the caller refuses) rather than risk it. */
  bool same = !a || !b || strcmp(a, b) == 0;
  CGM_FREE(a, b);
  return same;
}

static bool errno_is_input(int e) {
  return e == ENOENT || e == ENOTDIR || e == EISDIR || e == EACCES || e == EPERM || e == EROFS ||
         e == ENAMETOOLONG || e == ELOOP || e == EEXIST;
}

static void release(cgm_outfile *o) {
  CGM_FREE(o->path, o->final, o->tmp);
  *o = (cgm_outfile){.fd = -1};
}

/* e: an errno, or 0 for out of memory. */
static cgm_status open_fail(cgm_outfile *o, const char *path, int e, cgm_error *err) {
  release(o);
  if (!e) return cgm_fail(err, CGM_ERUNTIME, "%s: out of memory", path);
  return cgm_fail(err, errno_is_input(e) ? CGM_EINPUT : CGM_ERUNTIME, "%s: cannot create: %s", path,
                  strerror(e));
}

static cgm_status open_at(cgm_outfile *o, const char *path, bool follow, cgm_error *err) {
  *o = (cgm_outfile){.fd = -1};
  if (!path || !*path) return cgm_fail(err, CGM_EINPUT, "no output file name given");
  o->path = strdup(path);
  if (!strcmp(path, "-")) { /* standard output, in place (appended to where the shell said >>) */
    o->fd = o->path ? dup(STDOUT_FILENO) : -1;
    return o->fd < 0 ? open_fail(o, "standard output", o->path ? errno : 0, err) : CGM_OK;
  }
  /* following: a symbolic link's file is replaced, the link kept */
  o->final = follow ? realpath(path, NULL) : NULL;
  if (!o->final) o->final = strdup(path);
  if (!o->path || !o->final) return open_fail(o, path, 0, err);
  struct stat st;
  bool exists = (follow ? stat(o->final, &st) : lstat(o->final, &st)) == 0;
  if (exists && S_ISDIR(st.st_mode)) return open_fail(o, path, EISDIR, err);
  if (follow && exists && !S_ISREG(st.st_mode)) { /* a device or a pipe: in place */
    o->fd = open(o->final, O_WRONLY | O_TRUNC);
    return o->fd < 0 ? open_fail(o, path, errno, err) : CGM_OK;
  }
  exists = exists && S_ISREG(st.st_mode); /* whose mode the new file keeps */
  char *dir, *base;
  if (!split(o->final, &dir, &base)) return open_fail(o, path, 0, err);
  size_t n = strlen(dir) + strlen(base) + 32;
  o->tmp = malloc(n);
  if (o->tmp) /* the name cut so that the temporary one stays within NAME_MAX */
    snprintf(o->tmp, n, "%s/.%.200s.XXXXXX", dir, base);
  CGM_FREE(dir, base);
  if (!o->tmp) return open_fail(o, path, 0, err);
  o->fd = mkstemp(o->tmp);
  if (o->fd < 0) return open_fail(o, path, errno, err);
  /* mkstemp makes it 0600: give it the old file's mode, or what a new file gets (the umask read and
   * restored). A failure is harmless: the file stays its owner's. */
  const mode_t mask = exists ? 0 : umask(0);
  if (!exists) umask(mask);
  (void)fchmod(o->fd, exists ? st.st_mode & 07777 : 0666 & ~mask);
  return CGM_OK;
}

cgm_status cgm_outfile_open(cgm_outfile *o, const char *path, cgm_error *err) {
  return open_at(o, path, true, err);
}

cgm_status cgm_outfile_open_derived(cgm_outfile *o, const char *path, cgm_error *err) {
  return open_at(o, path, false, err);
}

FILE *cgm_outfile_stream(cgm_outfile *o) {
  if (!o->stream && o->fd >= 0) o->stream = fdopen(o->fd, "w");
  return o->stream;
}

cgm_status cgm_outfile_commit(cgm_outfile *o, bool ok, cgm_error *err) {
  int e = 0;
  if (o->stream) {
    if (ferror(o->stream) || fflush(o->stream) != 0) e = errno ? errno : EIO;
    if (fclose(o->stream) != 0 && !e) e = errno ? errno : EIO;
  } else if (o->fd >= 0 && close(o->fd) != 0) {
    e = errno;
  }
  if (ok && !e && o->tmp && rename(o->tmp, o->final) != 0) e = errno;
  cgm_status st = CGM_OK;
  if (!ok || e) {
    if (o->tmp) unlink(o->tmp);
    st = CGM_ERUNTIME;
    if (ok)
      cgm_fail(err, CGM_ERUNTIME, "%s: write failed: %s%s", o->path, strerror(e),
               o->tmp ? " (the old file, if any, is left as it was)" : "");
  }
  release(o);
  return st;
}

void cgm_outfile_abort(cgm_outfile *o) {
  (void)cgm_outfile_commit(o, false, NULL); /* closed, the temporary file removed */
}
