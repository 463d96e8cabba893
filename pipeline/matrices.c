/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The matrices a step reads: one file's features, and the files of a
 * directory or a list (validate's input); and the notes steps make. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgmodel/pipeline.h"
#include "common/grow.h"
#include "pipeline/steps.h"

cgm_status cgm_matrix_features(const char *path, cgm_features *f, cgm_mm_info *mm, cgm_error *err) {
  cgm_csr A = {0};
  cgm_status st = cgm_mm_read_csr(path, &A, mm, err);
  if (!st && (st = cgm_plan_features(&A, f, err))) cgm_error_prefix(err, "%s: ", path);
  cgm_csr_free(&A);
  return st;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends path (owned) to v; false, path freed, when memory runs out. */
static bool add_path(char ***v, int *n, int *cap, char *path) {
  if (path && cgm_push(v, n, cap, &path, sizeof path, 64)) return true;
  free(path);
  return false;
}

/* A Matrix Market file (its banner), or gzip's (its magic): a matrix, not a list of them. */
static bool is_matrix_file(const char *path) {
  char head[16] = "";
  FILE *f = fopen(path, "rb");
  const size_t n = f ? fread(head, 1, sizeof head - 1, f) : 0;
  if (f) fclose(f);
  return (n >= 14 && !memcmp(head, "%%MatrixMarket", 14)) ||
         (n >= 2 && (unsigned char)head[0] == 0x1f && (unsigned char)head[1] == 0x8b);
}

void cgm_matrix_paths_free(char **paths, int count) {
  for (int i = 0; i < count; i++) free(paths[i]);
  free(paths);
}

cgm_status cgm_matrix_paths(const char *arg, char ***paths, int *count, cgm_error *err) {
  struct stat sb;
  char **v = NULL;
  int n = 0, cap = 0;
  bool ok = true;
  *paths = NULL;
  *count = 0;
  if (stat(arg, &sb) == 0 && S_ISDIR(sb.st_mode)) {
    DIR *d = opendir(arg);
    struct dirent *e;
    while (ok && d && (e = readdir(d))) {
      size_t l = strlen(e->d_name);
      if (l < 5 || strcmp(e->d_name + l - 4, ".mtx")) continue;
      char *path = malloc(strlen(arg) + l + 2);
      if (path) sprintf(path, "%s/%s", arg, e->d_name);
      struct stat fs; /* a FIFO or a device named *.mtx would block its read: left out */
      if (path && (stat(path, &fs) || !S_ISREG(fs.st_mode))) {
        free(path);
        continue;
      }
      ok = add_path(&v, &n, &cap, path);
    }
    if (d) closedir(d);
    if (ok) qsort(v, (size_t)n, sizeof *v, cmp_str);
  } else if (stat(arg, &sb) == 0 && !S_ISREG(sb.st_mode)) {
    return cgm_fail(err, CGM_EINPUT,
                    "%s: not a regular file (a directory of .mtx files or a list "
                    "file is expected)",
                    arg);
  } else if (stat(arg, &sb) == 0 && is_matrix_file(arg)) {
    ok = add_path(&v, &n, &cap, strdup(arg)); /* one matrix, not a list of them */
  } else if (stat(arg, &sb) == 0) {
    /* A list file: one path a line, as the user wrote it. */
    FILE *f = fopen(arg, "r");
    char line[1024];
    while (ok && f && fgets(line, sizeof line, f)) {
      line[strcspn(line, "\r\n")] = 0;
      if (!line[0] || line[0] == '#') continue;
      ok = add_path(&v, &n, &cap, strdup(line));
    }
    if (f) fclose(f);
  }
  if (!ok) {
    cgm_matrix_paths_free(v, n);
    return cgm_fail(err, CGM_ERUNTIME, "out of memory listing the matrices");
  }
  if (n == 0) {
    free(v);
    return cgm_fail(err, CGM_EINPUT, "%s: no matrices (a directory of .mtx files or a list file)",
                    arg);
  }
  *paths = v;
  *count = n;
  return CGM_OK;
}

const char *pipeline_file_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

void pipeline_note(cgm_note_fn fn, void *ctx, cgm_note_kind kind, const char *fmt, ...) {
  if (!fn) return;
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fn(ctx, kind, msg);
}
