/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Where does NCCL's set-up stop on a node? Runs ncclCommInitAll over the
 * first G GPUs in one of four situations and one all-gather, printing the
 * time of every step (stderr, unbuffered), so a hang shows its place:
 *   fresh   : at the start of the process (as NCCL's own tests do)
 *   alloc   : after a buffer and a stream on every GPU (as the solver does)
 *   thread  : alloc, and ncclCommInitAll on another thread (the solver's
 *             watchdog)
 *   peers   : alloc after enabling peer access between every pair
 *   graph   : alloc, and the all-gather captured in one CUDA graph over
 *             every GPU's stream (as the solver runs it), launched twice;
 *             the graph is destroyed before the communicators (with
 *             keep-graph it is not, and ncclCommDestroy hangs)
 * Usage: nccl_probe fresh|alloc|thread|peers|graph|keep-graph [G] */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime.h>
#include <nccl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double t0;
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
#define STEP(...)                                                                                  \
  (fprintf(stderr, "[%7.3f s] ", now() - t0), fprintf(stderr, __VA_ARGS__), fputc('\n', stderr))
#define CU(x)                                                                                      \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      STEP("%s: %s", #x, cudaGetErrorString(e_));                                                  \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)
#define NC(x)                                                                                      \
  do {                                                                                             \
    ncclResult_t r_ = (x);                                                                         \
    if (r_ != ncclSuccess) {                                                                       \
      STEP("%s: %s", #x, ncclGetErrorString(r_));                                                  \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

enum { MAXG = 8, COUNT = 1 << 20 };
static ncclComm_t comm[MAXG];
static int G, devs[MAXG];
static ncclResult_t init_res;

static void *init_thread(void *arg) {
  (void)arg;
  init_res = ncclCommInitAll(comm, G, devs);
  return NULL;
}

int main(int argc, char **argv) {
  t0 = now();
  const char *mode = argc > 1 ? argv[1] : "fresh";
  int have = 0;
  CU(cudaGetDeviceCount(&have));
  G = argc > 2 ? atoi(argv[2]) : have;
  if (G < 1 || G > MAXG || G > have) {
    STEP("need 1 <= G <= %d GPUs (have %d)", MAXG, have);
    return 2;
  }
  int ver = 0;
  NC(ncclGetVersion(&ver));
  STEP("mode %s, %d GPUs, NCCL %d", mode, G, ver);
  for (int g = 0; g < G; g++) devs[g] = g;
  float *buf[MAXG] = {0};
  cudaStream_t s[MAXG];
  int fresh = !strcmp(mode, "fresh");
  if (fresh) {
    STEP("ncclCommInitAll ...");
    NC(ncclCommInitAll(comm, G, devs));
    STEP("ncclCommInitAll returned");
  }
  if (!strcmp(mode, "peers"))
    for (int a = 0; a < G; a++) {
      CU(cudaSetDevice(a));
      for (int b = 0; b < G; b++)
        if (a != b) CU(cudaDeviceEnablePeerAccess(b, 0));
    }
  for (int g = 0; g < G; g++) {
    CU(cudaSetDevice(g));
    CU(cudaMalloc((void **)&buf[g], sizeof(float) * COUNT * G));
    CU(cudaMemset(buf[g], 0, sizeof(float) * COUNT * G));
    CU(cudaStreamCreateWithFlags(&s[g], cudaStreamNonBlocking));
  }
  STEP("buffers and streams ready");
  if (!fresh) {
    if (!strcmp(mode, "thread")) {
      pthread_t th;
      STEP("ncclCommInitAll on a thread ...");
      if (pthread_create(&th, NULL, init_thread, NULL)) return 1;
      pthread_join(th, NULL);
      NC(init_res);
    } else {
      STEP("ncclCommInitAll ...");
      NC(ncclCommInitAll(comm, G, devs));
    }
    STEP("ncclCommInitAll returned");
  }
  cudaGraphExec_t ge = NULL;
  cudaGraph_t graph = NULL;
  if (!strcmp(mode, "graph") ||
      !strcmp(mode, "keep-graph")) { /* stream 0 forks to the others and joins them */
    cudaEvent_t fork, join[MAXG];
    CU(cudaSetDevice(0));
    CU(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    for (int g = 0; g < G; g++) {
      CU(cudaSetDevice(g));
      CU(cudaEventCreateWithFlags(&join[g], cudaEventDisableTiming));
    }
    CU(cudaSetDevice(0));
    CU(cudaStreamBeginCapture(s[0], cudaStreamCaptureModeThreadLocal));
    CU(cudaEventRecord(fork, s[0]));
    for (int g = 1; g < G; g++) CU(cudaStreamWaitEvent(s[g], fork, 0));
    NC(ncclGroupStart());
    for (int g = 0; g < G; g++)
      NC(ncclAllGather(buf[g] + (size_t)g * COUNT, buf[g], COUNT, ncclFloat32, comm[g], s[g]));
    NC(ncclGroupEnd());
    for (int g = 1; g < G; g++) {
      CU(cudaSetDevice(g));
      CU(cudaEventRecord(join[g], s[g]));
      CU(cudaSetDevice(0));
      CU(cudaStreamWaitEvent(s[0], join[g], 0));
    }
    CU(cudaStreamEndCapture(s[0], &graph));
    STEP("all-gather captured");
    CU(cudaGraphInstantiate(&ge, graph, 0));
    STEP("graph instantiated");
    for (int rep = 0; rep < 2; rep++) CU(cudaGraphLaunch(ge, s[0]));
    STEP("graph launched twice");
  } else {
    NC(ncclGroupStart());
    for (int g = 0; g < G; g++)
      NC(ncclAllGather(buf[g] + (size_t)g * COUNT, buf[g], COUNT, ncclFloat32, comm[g], s[g]));
    NC(ncclGroupEnd());
    STEP("all-gather queued");
  }
  for (int g = 0; g < G; g++) {
    CU(cudaSetDevice(g));
    CU(cudaStreamSynchronize(s[g]));
  }
  STEP("all-gather done");
  /* A graph that captured NCCL work holds the communicator:
   * ncclCommDestroy waits for it, so the graph goes first (without this
   * line "graph" hangs here). */
  if (ge && strcmp(mode, "keep-graph") != 0) {
    CU(cudaGraphExecDestroy(ge)); /* the template and its instance both hold NCCL's work */
    CU(cudaGraphDestroy(graph));
  }
  STEP("graph destroyed (or none)");
  for (int g = 0; g < G; g++) NC(ncclCommDestroy(comm[g]));
  for (int g = 0; g < G; g++) cudaFree(buf[g]);
  STEP("done");
  return 0;
}
