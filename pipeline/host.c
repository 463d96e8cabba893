/* SPDX-License-Identifier: GPL-3.0-or-later */
/* This machine: its CPU and GPUs as device records (what calibrate stores and what a calibrated
 * device must be called to be one of them), and the calibrated devices that are this machine's, for
 * the steps that run (solve's prediction and --auto, validate). */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgmodel/pipeline.h"

cgm_status cgm_describe_cpu(cgm_db_device *d, int threads, cgm_error *err) {
  memset(d, 0, sizeof *d);
  snprintf(d->name, sizeof d->name, "cpu");
  snprintf(d->kind, sizeof d->kind, "cpu");
  d->threads = threads > 0 ? threads : omp_get_max_threads();
  char model[200] = "unknown CPU";
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f) {
    char line[512];
    while (fgets(line, sizeof line, f)) /* "model name\t: NAME" */
      if (sscanf(line, "model name : %199[^\n]", model) == 1) break;
    fclose(f);
  }
  /* The thread count is part of the device: its curves depend on it. */
  snprintf(d->model, sizeof d->model, "%s (%d thread%s)", model, d->threads,
           d->threads == 1 ? "" : "s");
  long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && psize > 0) d->mem_total = (int64_t)pages * psize;
  if (gethostname(d->host, sizeof d->host) != 0) snprintf(d->host, sizeof d->host, "unknown");
  d->host[sizeof d->host - 1] = 0;
  return CGM_OK;
}

cgm_status cgm_describe_cuda(int dev, cgm_db_device *d, cgm_error *err) {
  memset(d, 0, sizeof *d);
  cgm_device_info info;
  cgm_status st = cgm_cuda_device_info(dev, &info, err);
  if (st) return st;
  snprintf(d->name, sizeof d->name, "cuda:%d", dev);
  snprintf(d->kind, sizeof d->kind, "cuda");
  snprintf(d->model, sizeof d->model, "%s", info.name);
  d->cc_major = info.cc_major, d->cc_minor = info.cc_minor, d->sms = info.sms;
  d->mem_total = info.mem_total, d->bus_width_bits = info.bus_width_bits;
  d->clock_khz = info.clock_khz, d->mem_clock_khz = info.mem_clock_khz;
  d->driver_version = info.driver_version, d->runtime_version = info.runtime_version;
  if (gethostname(d->host, sizeof d->host) != 0) snprintf(d->host, sizeof d->host, "unknown");
  d->host[sizeof d->host - 1] = 0;
  return CGM_OK;
}

/* The GPUs, asked once a process: a warm Python loop of solves asked the CUDA runtime for GPU 0's
 * properties at every call. GPU 0 stands for the GPUs: a solve on G GPUs uses 0 .. G-1. */
static struct {
  pthread_once_t once;
  int gpus;
  char gpu[sizeof((cgm_host *)0)->gpu];
} gpus0 = {PTHREAD_ONCE_INIT, 0, ""};
static void ask_gpus(void) {
  cgm_db_device d;
  cgm_error e = {0};
  gpus0.gpus = cgm_cuda_device_count();
  if (gpus0.gpus > 0 && !cgm_describe_cuda(0, &d, &e))
    snprintf(gpus0.gpu, sizeof gpus0.gpu, "%s", d.model);
}

void cgm_host_describe_cpu(cgm_host *h) {
  memset(h, 0, sizeof *h);
  cgm_db_device d;
  cgm_error e = {0};
  /* The CPU at OpenMP's default thread count: a solve without --threads runs with it. */
  if (!cgm_describe_cpu(&d, 0, &e)) snprintf(h->cpu, sizeof h->cpu, "%s", d.model);
  h->threads = d.threads;
}

int cgm_host_describe_gpus(cgm_host *h) {
  pthread_once(&gpus0.once, ask_gpus); /* another thread asking: waits for its answer */
  h->gpus = gpus0.gpus;
  snprintf(h->gpu, sizeof h->gpu, "%s", gpus0.gpu);
  return h->gpus;
}

void cgm_host_describe(cgm_host *h) {
  cgm_host_describe_cpu(h);
  cgm_host_describe_gpus(h);
}

bool cgm_same_cpu(const char *a, const char *b) {
  /* the names up to the " (T threads)" that ends them */
  const char *pa = strrchr(a, '('), *pb = strrchr(b, '(');
  const size_t la = pa && pa > a ? (size_t)(pa - a) : strlen(a);
  return la == (pb && pb > b ? (size_t)(pb - b) : strlen(b)) && !strncmp(a, b, la);
}

cgm_host_devices cgm_host_match(const cgm_host *h, const cgm_tuner_device *devs, int count,
                                int threads) {
  cgm_host_devices m = {-1, -1};
  const int want = threads > 0 ? threads : h->threads;
  /* this CPU at the threads the solve runs; else, threads not fixed, the
   * newest calibration of it at another count (devs: newest first) */
  for (int pass = 0; pass < (threads > 0 ? 1 : 2) && m.cpu < 0 && h->cpu[0]; pass++)
    for (int i = 0; i < count && m.cpu < 0; i++)
      if (devs[i].is_cpu && cgm_same_cpu(devs[i].name, h->cpu) && (pass || devs[i].threads == want))
        m.cpu = i;
  for (int i = 0; i < count && m.gpu < 0 && h->gpus > 0 && h->gpu[0]; i++)
    if (!devs[i].is_cpu && !strcmp(devs[i].name, h->gpu)) m.gpu = i;
  return m;
}

void pipeline_cpu_advice(const cgm_host *h, const cgm_tuner_device *devs, int count, int threads,
                         char *out, size_t n) {
  out[0] = '\0';
  for (int i = 0; i < count; i++)
    if (devs[i].is_cpu && cgm_same_cpu(devs[i].name, h->cpu) && devs[i].threads != threads) {
      snprintf(out, n, "; calibration %lld of this CPU ran %d thread%s: it serves threads=%d",
               (long long)devs[i].calibration_id, devs[i].threads, devs[i].threads == 1 ? "" : "s",
               devs[i].threads);
      return;
    }
}

int pipeline_local_devices(const cgm_tuner_device *devs, cgm_host_devices m, bool gpu, int gpus,
                           bool cpu, cgm_tuner_device out[2], int index[2]) {
  int n = 0;
  if (gpu && m.gpu >= 0) {
    out[n] = devs[m.gpu];
    /* A calibration of more GPUs than run here predicts only as many. */
    if (out[n].gpus > gpus) out[n].gpus = gpus;
    index[n++] = m.gpu;
  }
  if (cpu && m.cpu >= 0) {
    out[n] = devs[m.cpu];
    index[n++] = m.cpu;
  }
  return n;
}
