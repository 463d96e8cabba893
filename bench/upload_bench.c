/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Host-to-device upload of a large pageable array, the ways a solve's setup could
 * do it: one pageable cudaMemcpy, staging through pinned buffers of several sizes
 * and counts (filled on every core, in pieces of a size, while the copy engine
 * drains the others; pinned within the time, or kept from an earlier upload as the
 * solver keeps them; the solver's own way is 3 buffers of 8 MB, 256 KB pieces), and the array
 * pinned in place (cudaHostRegister, its cost counted). Rounds interleave the ways; it prints
 * each way's best and median seconds and GB/s. Plain CUDA runtime + OpenMP.
 * Usage: upload_bench [MB=600] [ROUNDS=5] */
#include <cuda_runtime.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CK(x)                                                                                      \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));           \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void fill(void *dst, const void *src, size_t n, size_t piece) {
  const size_t pieces = (n + piece - 1) / piece;
#pragma omp parallel for schedule(static)
  for (long k = 0; k < (long)pieces; k++) {
    size_t off = (size_t)k * piece, len = n - off < piece ? n - off : piece;
    memcpy((char *)dst + off, (const char *)src + off, len);
  }
}

/* Staged through nbuf pinned buffers of buf_mb MB, filled in pieces of piece_kb KB; kept: the
 * buffers given (their pinning not timed), else pinned and freed inside the time. */
static double staged(void *dst, const char *src, size_t bytes, size_t buf_mb, int nbuf,
                     size_t piece_kb, void **kept, cudaStream_t s) {
  const size_t per = buf_mb << 20;
  void *buf[4];
  cudaEvent_t done[4];
  const double t0 = now();
  for (int i = 0; i < nbuf; i++) {
    if (kept)
      buf[i] = kept[i];
    else
      CK(cudaMallocHost(&buf[i], per));
    CK(cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming));
  }
  int k = 0;
  for (size_t off = 0; off < bytes; off += per) {
    const size_t c = bytes - off < per ? bytes - off : per;
    CK(cudaEventSynchronize(done[k]));
    fill(buf[k], src + off, c, piece_kb << 10);
    CK(cudaMemcpyAsync((char *)dst + off, buf[k], c, cudaMemcpyHostToDevice, s));
    CK(cudaEventRecord(done[k], s));
    k = (k + 1) % nbuf;
  }
  CK(cudaStreamSynchronize(s));
  for (int i = 0; i < nbuf; i++) {
    if (!kept) CK(cudaFreeHost(buf[i]));
    CK(cudaEventDestroy(done[i]));
  }
  return now() - t0;
}

static int cmp(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  const size_t mb = argc > 1 ? (size_t)atol(argv[1]) : 600;
  const int rounds = argc > 2 ? atoi(argv[2]) : 5;
  const size_t bytes = mb << 20;
  char *src = malloc(bytes);
  if (!src) return 1;
#pragma omp parallel for schedule(static)
  for (long i = 0; i < (long)bytes; i++) src[i] = (char)i; /* every page, as a read matrix */
  void *dst;
  cudaStream_t s;
  CK(cudaSetDevice(0));
  CK(cudaMalloc(&dst, bytes));
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  enum { WAYS = 8 };
  const char *name[WAYS] = {"pageable cudaMemcpy",
                            "staged 2 x 8 MB, 1 MB pieces, pinned each",
                            "staged 2 x 8 MB, 1 MB pieces, kept",
                            "staged 2 x 8 MB, 256 KB pieces, kept",
                            "staged 3 x 8 MB, 256 KB pieces, kept",
                            "staged 2 x 16 MB, 256 KB pieces, kept",
                            "staged 2 x 32 MB, 512 KB pieces, kept",
                            "registered in place"};
  /* ways 1-6: MB a buffer, buffers, KB a piece, kept */
  static const int stage_mb[] = {8, 8, 8, 8, 16, 32}, stage_k[] = {2, 2, 2, 3, 2, 2},
                   piece_kb[] = {1024, 1024, 256, 256, 256, 512}, keep[] = {0, 1, 1, 1, 1, 1};
  void *kept[4];
  for (int i = 0; i < 4; i++) CK(cudaMallocHost(&kept[i], (size_t)32 << 20));
  double t[WAYS][64];
  for (int r = 0; r < rounds && r < 64; r++) {
    for (int w = 0; w < WAYS; w++) {
      double t0 = now();
      if (w == 0) {
        CK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
      } else if (w <= 6) {
        staged(dst, src, bytes, stage_mb[w - 1], stage_k[w - 1], piece_kb[w - 1],
               keep[w - 1] ? kept : NULL, s);
      } else {
        CK(cudaHostRegister(src, bytes, cudaHostRegisterDefault));
        CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s));
        CK(cudaStreamSynchronize(s));
        CK(cudaHostUnregister(src));
      }
      CK(cudaDeviceSynchronize());
      t[w][r] = now() - t0;
    }
  }
  printf("# %zu MB, %d rounds, %d OpenMP threads\n%-42s %9s %9s %8s\n", mb, rounds,
         omp_get_max_threads(), "way", "best_s", "median_s", "GB/s");
  for (int w = 0; w < WAYS; w++) {
    qsort(t[w], (size_t)rounds, sizeof(double), cmp);
    printf("%-42s %9.4f %9.4f %8.1f\n", name[w], t[w][0], t[w][rounds / 2], bytes / t[w][0] / 1e9);
  }
  for (int i = 0; i < 4; i++) CK(cudaFreeHost(kept[i]));
  CK(cudaFree(dst));
  free(src);
  return 0;
}
