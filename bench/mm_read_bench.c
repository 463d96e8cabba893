/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Matrix Market reader/writer throughput (docs/matrix-market.md).
 *
 *   mm_read_bench [--threads T] [--chunk-bytes B] FILE [REPS]
 *       reads FILE REPS times (default 5) with cgm_mm_read_csr_opts (T
 *       threads, default OpenMP's; chunks of B bytes, default the reader's
 *       choice) and prints the matrix size and MB/s = file bytes / median
 *       seconds (MB = 1e6 B; a gzip file's compressed bytes).
 *   mm_read_bench --write FILE OUT [REPS]
 *       reads FILE once, writes it REPS times to OUT with cgm_mm_write_csr
 *       (general), prints MB/s of output; OUT is removed afterwards.
 *
 * Output lines are `key=value` pairs for bench/mm_read.sh; the files it
 * reads come from `cgmodel gen`. */
#define _POSIX_C_SOURCE 200809L

#include "cgmodel/sparse.h"
#include "common/timer.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(void) {
  fprintf(stderr, "usage: mm_read_bench [--threads T] [--chunk-bytes B] [--general] FILE [REPS]\n"
                  "       mm_read_bench --write FILE OUT [REPS]\n");
}

static int bench_read(const char *path, int reps, const cgm_mm_read_opts *o) {
  double *t = malloc((size_t)reps * sizeof *t);
  if (!t) return 1;
  cgm_csr A = {0};
  cgm_mm_info info = {0};
  for (int r = 0; r < reps; r++) {
    cgm_error err = {0};
    cgm_csr_free(&A);
    double t0 = cgm_now();
    cgm_status st = cgm_mm_read_csr_opts(path, o, &A, &info, &err);
    t[r] = cgm_now() - t0;
    if (st) {
      fprintf(stderr, "mm_read_bench: %s\n", err.msg);
      free(t);
      return 1;
    }
  }
  double best = t[0];
  for (int r = 1; r < reps; r++)
    if (t[r] < best) best = t[r];
  double med = cgm_median(t, reps);
  printf("file=%s bytes=%lld rows=%d cols=%d nnz=%lld entries=%lld threads=%d reps=%d "
         "median_s=%.4f min_s=%.4f mb_s=%.1f path=%s\n",
         path, (long long)info.file_bytes, A.nrows, A.ncols, (long long)A.nnz,
         (long long)info.entries_in_file, o->threads, reps, med, best,
         (double)info.file_bytes / med / 1e6, info.sorted ? "sorted" : "general");
  cgm_csr_free(&A);
  free(t);
  return 0;
}

static int bench_write(const char *path, const char *out, int reps) {
  cgm_csr A;
  cgm_error err = {0};
  if (cgm_mm_read_csr(path, &A, NULL, &err)) {
    fprintf(stderr, "mm_read_bench: %s\n", err.msg);
    return 1;
  }
  double *t = malloc((size_t)reps * sizeof *t);
  if (!t) return 1;
  long long bytes = 0;
  for (int r = 0; r < reps; r++) {
    double t0 = cgm_now();
    cgm_status st = cgm_mm_write_csr(out, &A, false, &err);
    t[r] = cgm_now() - t0;
    if (st) {
      fprintf(stderr, "mm_read_bench: %s\n", err.msg);
      free(t);
      cgm_csr_free(&A);
      return 1;
    }
    struct stat sb;
    bytes = stat(out, &sb) == 0 ? (long long)sb.st_size : -1;
  }
  unlink(out);
  double med = cgm_median(t, reps);
  printf("wrote=%s bytes=%lld nnz=%lld reps=%d median_s=%.4f mb_s=%.1f\n", out, bytes,
         (long long)A.nnz, reps, med, bytes / med / 1e6);
  free(t);
  cgm_csr_free(&A);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 4 && strcmp(argv[1], "--write") == 0) {
    int reps = argc >= 5 ? atoi(argv[4]) : 3;
    return bench_write(argv[2], argv[3], reps > 0 ? reps : 1);
  }
  cgm_mm_read_opts o = cgm_mm_read_opts_default();
  int a = 1;
  for (; a + 1 < argc && argv[a][0] == '-'; a += 2) {
    if (strcmp(argv[a], "--general") == 0) { /* a flag: no value follows */
      o.general_only = true;
      a--;
    } else if (strcmp(argv[a], "--threads") == 0)
      o.threads = atoi(argv[a + 1]);
    else if (strcmp(argv[a], "--chunk-bytes") == 0)
      o.chunk_bytes = atoll(argv[a + 1]);
    else
      break;
  }
  if (argc - a < 1 || argc - a > 2 || argv[a][0] == '-') {
    usage();
    return 2;
  }
  if (o.threads <= 0) o.threads = omp_get_max_threads(); /* printed: what the reader uses */
  int reps = argc - a == 2 ? atoi(argv[a + 1]) : 5;
  return bench_read(argv[a], reps > 0 ? reps : 1, &o);
}
