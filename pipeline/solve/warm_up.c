/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The CUDA context made on a thread of its own while the matrix is read
 * and analysed (warm_up in solve_steps.h). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>

#include "common/timer.h"
#include "pipeline/solve/solve_steps.h"

static void *warm_up_main(void *arg) {
  warm_up *w = arg;
  const double t0 = cgm_now();
  /* GPU 0's model, this machine's name for the calibrations: asked here (once a process), once
   * the driver is up and before the context, which would hold the runtime for 0.1-0.2 s against an
   * analysis asking for it */
  cgm_host h;
  const int n = cgm_host_describe_gpus(&h);
  if (n > 0) cgm_cuda_warm_up(w->gpus);
  w->start_s = n > 0 ? cgm_now() - t0 : 0; /* read after the join */
  return NULL;
}

void warm_up_start(const cgm_run_solve_opts *o, warm_up *w) {
  w->started = false;
  const bool gpu = o->solve.backend != CGM_BACKEND_CPU || o->autotune || o->backend_default;
  if (!gpu || !cgm_have_cuda_build()) return;
  w->gpus = o->solve.gpus > 1 && !o->autotune ? o->solve.gpus : 1;
  w->started = pthread_create(&w->thread, NULL, warm_up_main, w) == 0;
}

void warm_up_host(warm_up *w, cgm_host *h) {
  if (w->cpu_only) { /* no GPU asked */
    cgm_host_describe_cpu(h);
    return;
  }
  /* GPU 0 is described once a process: while the thread asks, this waits for it; after, no wait
   * (a wait for the thread's count took 0.05-6 ms of every warm Python call on one H200's host) */
  cgm_host_describe(h);
}

void warm_up_end(warm_up *w) {
  if (!w->started) return;
  pthread_join(w->thread, NULL);
  w->started = false;
}

cgm_backend solve_default_backend(int gpus_present) {
  return gpus_present > 0 ? CGM_BACKEND_CUDA : CGM_BACKEND_CPU;
}
