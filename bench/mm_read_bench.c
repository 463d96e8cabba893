/* Matrix Market reader/writer throughput (docs/matrix-market.md).
 *
 *   mm_read_bench FILE [REPS]
 *       reads FILE REPS times (default 5) with cgm_mm_read_csr and prints
 *       the matrix size and MB/s = file bytes / median seconds (MB = 1e6 B).
 *   mm_read_bench --write FILE OUT [REPS]
 *       reads FILE once, writes it REPS times to OUT with cgm_mm_write_csr
 *       (general), prints MB/s of output; OUT is removed afterwards.
 *   mm_read_bench --make-poisson3d N FILE [--symmetric]
 *       writes the 3D Poisson matrix of an N^3 grid (cgm_gen_poisson3d) with
 *       every value scaled by (1 + 1e-3 u), u uniform in [0, 1) from a hash of
 *       (min(i,j), max(i,j)): the values need 16-17 digits, like real data,
 *       and the matrix stays symmetric. General by default, or the lower
 *       triangle as `symmetric`.
 *
 * Output lines are `key=value` pairs for bench/mm_read.sh. */
#define _POSIX_C_SOURCE 200809L

#include "cgmodel/sparse.h"
#include "common/timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(void) {
  fprintf(stderr, "usage: mm_read_bench FILE [REPS]\n"
                  "       mm_read_bench --write FILE OUT [REPS]\n"
                  "       mm_read_bench --make-poisson3d N FILE [--symmetric]\n");
}

static uint64_t mix(uint64_t z) { /* splitmix64 finaliser */
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static int make_poisson(int32_t n, const char *path, bool symmetric) {
  cgm_csr A;
  cgm_error err = {0};
  if (cgm_gen_poisson3d(n, &A, &err)) {
    fprintf(stderr, "mm_read_bench: %s\n", err.msg);
    return 1;
  }
  for (int32_t i = 0; i < A.nrows; i++)
    for (int64_t k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) {
      int32_t j = A.colidx[k];
      uint64_t lo = (uint64_t)(i < j ? i : j), hi = (uint64_t)(i < j ? j : i);
      double u = (double)(mix(lo * 0x100000001b3ull ^ mix(hi)) >> 11) * 0x1p-53;
      A.val[k] *= 1.0 + 1e-3 * u;
    }
  double t0 = cgm_now();
  cgm_status st = cgm_mm_write_csr(path, &A, symmetric, &err);
  double t = cgm_now() - t0;
  cgm_csr_free(&A);
  if (st) {
    fprintf(stderr, "mm_read_bench: %s\n", err.msg);
    return 1;
  }
  struct stat sb;
  long long bytes = stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
  printf("made=%s grid=%d symmetric=%d bytes=%lld write_s=%.3f write_mb_s=%.1f\n", path, n,
         symmetric ? 1 : 0, bytes, t, bytes / t / 1e6);
  return 0;
}

static int bench_read(const char *path, int reps) {
  double *t = malloc((size_t)reps * sizeof *t);
  if (!t) return 1;
  cgm_csr A = {0};
  cgm_mm_info info = {0};
  for (int r = 0; r < reps; r++) {
    cgm_error err = {0};
    cgm_csr_free(&A);
    double t0 = cgm_now();
    cgm_status st = cgm_mm_read_csr(path, &A, &info, &err);
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
  printf("file=%s bytes=%lld rows=%d cols=%d nnz=%lld entries=%lld reps=%d median_s=%.4f "
         "min_s=%.4f mb_s=%.1f\n",
         path, (long long)info.file_bytes, A.nrows, A.ncols, (long long)A.nnz,
         (long long)info.entries_in_file, reps, med, best, (double)info.file_bytes / med / 1e6);
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
  if (argc >= 4 && strcmp(argv[1], "--make-poisson3d") == 0) {
    int32_t n = (int32_t)atoi(argv[2]);
    bool sym = argc >= 5 && strcmp(argv[4], "--symmetric") == 0;
    return make_poisson(n, argv[3], sym);
  }
  if (argc >= 4 && strcmp(argv[1], "--write") == 0) {
    int reps = argc >= 5 ? atoi(argv[4]) : 3;
    return bench_write(argv[2], argv[3], reps > 0 ? reps : 1);
  }
  if (argc < 2 || argc > 3 || argv[1][0] == '-') {
    usage();
    return 2;
  }
  int reps = argc == 3 ? atoi(argv[2]) : 5;
  return bench_read(argv[1], reps > 0 ? reps : 1);
}
