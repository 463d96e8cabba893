/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Device discovery: how many GPUs, and what they are (stored beside every calibration). */
#include <stdio.h>
#include <string.h>

#include <atomic>

#include "common/timer.h"
#include "solver/backend.h"
#include "kernels/cuda_dev.h"
#include "kernels/cuda_util.h"

extern "C" bool cgm_have_cuda_build(void) {
  return true;
}

extern "C" int cgm_cuda_runtime_version(void) {
  int v = 0;
  if (cudaRuntimeGetVersion(&v) == cudaSuccess) return v;
  (void)cudaGetLastError();
  return 0;
}

extern "C" void cgm_cuda_release_kept(void) {
  cgm_cuda_dev_release_kept();
}

extern "C" void cgm_cuda_warm_up(int count) {
  const int n = cgm_cuda_device_count();
  for (int d = 0; d < count && d < n; d++) cgm_cuda_context_ready(d);
}

/* The kernels' modules loaded too (cgm_kernels_preload): on the warm-up thread beside the read, and
 * again, at no cost once loaded, on the solve's before its first launch, so that no lazy load
 * (which may synchronise the context) comes between kernels that wait for each other. */
extern "C" void cgm_cuda_context_ready(int dev) {
  if (cudaSetDevice(dev) != cudaSuccess || cudaFree(0) != cudaSuccess) {
    (void)cudaGetLastError(); /* the solve's own call reports it */
    return;
  }
  cgm_kernels_preload();
}

/* The driver's start, which the process's first count pays (0.23-0.33 s on a node with 2 H200s,
 * 2026-11-29; a second thread's count waits for it), kept for the calibration. */
static std::atomic<long long> driver_start_ns{0};

extern "C" double cgm_cuda_driver_start_s(void) {
  return 1e-9 * (double)driver_start_ns.load();
}

extern "C" int cgm_cuda_device_count(void) {
  int n = 0;
  const double t0 = cgm_now();
  const cudaError_t e = cudaGetDeviceCount(&n);
  const long long ns = (long long)(1e9 * (cgm_now() - t0));
  long long none = 0; /* the first count's: it started the driver */
  driver_start_ns.compare_exchange_strong(none, ns > 0 ? ns : 1);
  if (e == cudaSuccess) return n;
  (void)cudaGetLastError(); /* no driver or no device: a CPU machine */
  return 0;
}

extern "C" cgm_status cgm_cuda_device_info(int dev, cgm_device_info *info, cgm_error *err) {
  memset(info, 0, sizeof *info);
  int n = cgm_cuda_device_count();
  if (dev < 0 || dev >= n)
    return cgm_fail(err, CGM_EINPUT, "CUDA device %d does not exist (%d present)", dev, n);
  cudaDeviceProp p;
  CGM_CUDA_TRY(err, cudaGetDeviceProperties(&p, dev));
  snprintf(info->name, sizeof info->name, "%s", p.name);
  info->cc_major = p.major;
  info->cc_minor = p.minor;
  info->sms = p.multiProcessorCount;
  info->l2_bytes = p.l2CacheSize;
  info->bus_width_bits = p.memoryBusWidth;
  CGM_CUDA_TRY(err, cudaDeviceGetAttribute(&info->clock_khz, cudaDevAttrClockRate, dev));
  CGM_CUDA_TRY(err, cudaDeviceGetAttribute(&info->mem_clock_khz, cudaDevAttrMemoryClockRate, dev));
  CGM_CUDA_TRY(err, cudaDriverGetVersion(&info->driver_version));
  CGM_CUDA_TRY(err, cudaRuntimeGetVersion(&info->runtime_version));
  cgm_status st = cgm_cuda_free_bytes(dev, &info->mem_free, &info->mem_total, err);
  if (!st) info->mem_free += 256 << 20; /* all of it: the solver's reserve given back */
  return st;
}

extern "C" cgm_status cgm_cuda_can_access_peer(int a, int b, bool *ok, cgm_error *err) {
  *ok = false;
  int n = cgm_cuda_device_count();
  if (a < 0 || a >= n || b < 0 || b >= n)
    return cgm_fail(err, CGM_EINPUT, "CUDA device %d or %d does not exist (%d present)", a, b, n);
  int v = 1; /* a GPU reaches its own memory */
  if (a != b) CGM_CUDA_TRY(err, cudaDeviceCanAccessPeer(&v, a, b));
  *ok = v != 0;
  return CGM_OK;
}
