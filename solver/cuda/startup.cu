/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Several GPUs' set-up (gpu_solver.h): peer access and NCCL's communicators. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "common/timer.h"
#include "solver/cuda/gpu_solver.h"

/* Peer access stays enabled for the process's life: remembered so that a
 * second solve does not call into "already enabled" (an API error to
 * compute-sanitizer). One GPU solve at a time: not locked. */
static bool peer_on[CGM_MAX_GPUS][CGM_MAX_GPUS];

cgm_status gs_enable_peers(int G, cgm_error *err) {
  for (int g = 0; g < G; g++) {
    CGM_CUDA_TRY(err, cudaSetDevice(g));
    for (int k = 0; k < G; k++) {
      if (k == g) continue;
      int ok = 0;
      CGM_CUDA_TRY(err, cudaDeviceCanAccessPeer(&ok, g, k));
      if (!ok)
        return cgm_fail(err, CGM_EINPUT,
                        "peer access is unavailable between GPU %d and GPU %d: use exchange=nccl "
                        "or exchange=host",
                        g, k);
      if (peer_on[g][k]) continue;
      cudaError_t e = cudaDeviceEnablePeerAccess(k, 0);
      if (e == cudaErrorPeerAccessAlreadyEnabled) /* by someone else in this process */
        (void)cudaGetLastError();
      else
        CGM_CUDA_TRY(err, e);
      peer_on[g][k] = true;
    }
  }
  return CGM_OK;
}

typedef struct {
  const cgm_nccl_fns *nccl;
  ncclComm_t *comms;
  int G;
  ncclResult_t res;
  volatile int done;
} nccl_init_job;

static void *nccl_init_thread(void *arg) {
  nccl_init_job *j = (nccl_init_job *)arg;
  int devs[CGM_MAX_GPUS];
  for (int g = 0; g < j->G; g++) devs[g] = g;
  j->res = j->nccl->ncclCommInitAll(j->comms, j->G, devs);
  __atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
  return NULL;
}

/* NCCL opened (on the first call: vendor_libs.h), then ncclCommInitAll under the exchange timeout.
 * If it does not return, the thread is left behind (NCCL offers no way to cancel it) and the error
 * says which exchange to use instead. */
cgm_status gs_nccl_init(gpu_solver *S, cgm_error *err) {
  cgm_status st = cgm_nccl_load(&S->nccl, err);
  if (st != CGM_OK) return st;
  nccl_init_job *j = (nccl_init_job *)calloc(1, sizeof *j);
  if (!j) return cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  j->nccl = S->nccl;
  j->comms = S->comm;
  j->G = S->G;
  pthread_t th;
  if (pthread_create(&th, NULL, nccl_init_thread, j) != 0) {
    free(j);
    return cgm_fail(err, CGM_ERUNTIME, "cannot start a thread for NCCL's set-up");
  }
  double end = cgm_now() + S->pol.timeout_s;
  while (!__atomic_load_n(&j->done, __ATOMIC_ACQUIRE) && cgm_now() < end) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  if (!__atomic_load_n(&j->done, __ATOMIC_ACQUIRE)) {
    /* j, S->comm and the device buffers stay (freeing them would wait for
     * what NCCL left running): the caller ends the process instead. */
    pthread_detach(th);
    S->nccl_stuck = 1;
    return cgm_fail(
        err, CGM_ERUNTIME,
        "NCCL did not set up its communicators for %d GPUs in %.0f s; use exchange=halo "
        "(or exchange=p2p) instead of nccl",
        S->G, S->pol.timeout_s);
  }
  pthread_join(th, NULL);
  ncclResult_t r = j->res;
  free(j);
  if (r != ncclSuccess)
    return cgm_fail(err, CGM_ERUNTIME, "NCCL error %s setting up %d GPUs",
                    S->nccl->ncclGetErrorString(r), S->G);
  S->have_comm = 1;
  return CGM_OK;
}
