/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One measured throughput point of a kernel: what the microbenchmarks
 * produce, the database stores and the fitter reads. */
#pragma once

#include <stdbool.h>

#include "cgmodel/export.h"

CGM_BEGIN_DECLS

typedef struct cgm_sample {
  char kernel[32];  /* "load", "cg4", "cg5", "red", "spmv", "cusparse", "xfer", "sync" */
  char variant[32]; /* "fixed", "variable", "dense", "real", "halo", ... ("" if none) */
  int precision;    /* cgm_precision */
  int block;        /* N for spmv, vectors for load, GPUs for xfer and sync, else 0 */
  double m;         /* transactions: elements of the precision moved (bytes / width) */
  double bytes;     /* bytes moved */
  double seconds;   /* the low quantile of its timings (microbench/settle.c) */
  char source[64];  /* matrix or generator it came from ("" if none) */
  double spread;    /* the timings' median over `seconds`, less 1 (NaN: not known) */
  bool unsettled;   /* other work held its timings up: they did not settle, or over 3x a
                       larger sample's (kept; fits leave it out where 4 of its group settled) */
} cgm_sample;

/* A growing array of samples (free v when done). */
typedef struct cgm_sample_vec {
  cgm_sample *v;
  int n, cap;
} cgm_sample_vec;

/* Appends a copy of s to the cgm_sample_vec `vec`: 0, or 1 when out of
 * memory (a microbenchmark sink's convention: non-zero stops the run). */
CGM_API int cgm_sample_vec_push(void *vec, const cgm_sample *s);

/* Throughput of a sample in GB/s (what Eq. 3 models). */
static inline double cgm_sample_gbps(const cgm_sample *s) {
  return s->seconds > 0 ? s->bytes / s->seconds * 1e-9 : 0.0;
}

CGM_END_DECLS
