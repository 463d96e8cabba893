/* SPDX-License-Identifier: GPL-3.0-or-later */
/* api_trace: where a process's host time goes in the CUDA runtime and driver. A CUPTI injection
 * library: every runtime and driver API call is timed on the host (enter to exit), and at the
 * process's end a table of the calls by total time goes to stderr (calls, total ms, ms a call).
 * Runtime calls include the driver calls they make; both are listed, marked rt and drv.
 *
 * usage: CUDA_INJECTION64_PATH=build/bench/libapi_trace.so PROGRAM ...
 *   API_TRACE_TOP=N  rows listed (default 40) */
#define _POSIX_C_SOURCE 199309L
#include <cupti.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLOTS 4096
#define DEPTH 64

typedef struct {
  const char *name; /* CUPTI's static string: its pointer is the key */
  int domain;
  long calls;
  double total;
} slot;

static slot table[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local double started[DEPTH];
static _Thread_local int depth;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static slot *find(const char *name, int domain) {
  size_t h = ((uintptr_t)name >> 3) * 2654435761u + (size_t)domain;
  for (size_t i = 0; i < SLOTS; i++) {
    slot *s = &table[(h + i) % SLOTS];
    if (s->name == name && s->domain == domain) return s;
    if (!s->name) {
      s->name = name, s->domain = domain;
      return s;
    }
  }
  return NULL;
}

static void CUPTIAPI on_call(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                             const void *data) {
  (void)user, (void)id;
  const CUpti_CallbackData *cb = data;
  if (cb->callbackSite == CUPTI_API_ENTER) {
    if (depth >= 0 && depth < DEPTH) started[depth] = now();
    depth++;
    return;
  }
  if (depth <= 0) return; /* an exit whose entry came before the subscription */
  if (--depth >= DEPTH) return;
  const double t = now() - started[depth];
  pthread_mutex_lock(&lock); /* the warm-up thread calls CUDA too */
  slot *s = find(cb->functionName, domain == CUPTI_CB_DOMAIN_RUNTIME_API);
  if (s) s->calls++, s->total += t;
  pthread_mutex_unlock(&lock);
}

static int by_total(const void *a, const void *b) {
  const double x = ((const slot *)a)->total, y = ((const slot *)b)->total;
  return (x < y) - (x > y);
}

static void report(void) {
  qsort(table, SLOTS, sizeof *table, by_total);
  const char *top = getenv("API_TRACE_TOP");
  const int n = top ? atoi(top) : 40;
  fprintf(stderr, "# api_trace: host time in CUDA calls, by total\n%-4s %-44s %8s %10s %10s\n",
          "api", "call", "calls", "total_ms", "ms_call");
  for (int i = 0; i < n && i < SLOTS && table[i].name; i++)
    fprintf(stderr, "%-4s %-44s %8ld %10.3f %10.4f\n", table[i].domain ? "rt" : "drv",
            table[i].name, table[i].calls, 1e3 * table[i].total,
            1e3 * table[i].total / (double)table[i].calls);
}

int InitializeInjection(void) {
  CUpti_SubscriberHandle sub;
  if (cuptiSubscribe(&sub, (CUpti_CallbackFunc)on_call, NULL) != CUPTI_SUCCESS) return 0;
  cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API);
  cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API);
  atexit(report);
  return 1;
}
