/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The row-scatter sweep (docs/model.md, "The walk of a scattered row"):
 * arrows whose long row reads x at random places, a line of x a step,
 * timed as whole iterations like the row curve's in-order arrows, at every
 * block size and precision. The difference from the row curve's pace is the
 * row-scatter coefficient (cgm_fit_scatter_coef). GPU only: a CPU's model
 * has no walk. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/model.h"
#include "microbench/microbench.h"
#include "microbench/sweep_plan.h"

/* 65536 rows: 512 blocks of 8 at random among 8192 block columns rarely
 * share a line, and the tridiagonal under them is a few microseconds of
 * bytes, under the walk of 64 blocks and more. */
enum { SCATTER_ROWS = 65536 };

static const int full_lengths[] = {64, 128, 256, 512}, quick_lengths[] = {256};

cgm_status cgm_mb_scatter_sweep(const cgm_solve_opts *base, unsigned precisions, bool quick,
                                cgm_locality_sample **out, int *count, cgm_error *err) {
  *out = NULL;
  *count = 0;
  const int nl = quick ? 1 : 4, maxiter = quick ? 96 : 160;
  const int *lens = quick ? quick_lengths : full_lengths;
  cgm_locality_sample *v = malloc(sizeof *v * (size_t)(nl * CGM_NBLOCKSIZES * 2));
  if (!v) return cgm_fail(err, CGM_ERUNTIME, "out of memory for the row-scatter sweep");
  cgm_status st = CGM_OK;
  int k = 0;
  for (int i = 0; i < nl && !st; i++)
    for (int b = 0; b < CGM_NBLOCKSIZES && !st; b++) {
      const int n = cgm_block_sizes[b];
      cgm_csr A;
      if ((st = cgm_gen_arrow_scattered(SCATTER_ROWS, lens[i], n, 0x5ca7 + (uint64_t)lens[i], &A,
                                        err)))
        break;
      for (int p = 0; p < 2 && !st; p++) {
        if (!(precisions & (1u << p))) continue;
        cgm_solve_opts o = *base;
        o.precision = (cgm_precision)p;
        o.layout = cgm_bcsr_default_params(n); /* one lane a row, as the in-order arrows */
        o.gpus = 1;
        o.reorder = CGM_REORDER_NONE;
        cgm_plan plan;
        cgm_solve_result r;
        if ((st = cgm_solve_plan(&A, &o, &plan, err))) break;
        if ((st = mb_solve_timed(&A, &o, maxiter, &r, err))) break;
        if (r.iterations < maxiter || !(r.time_per_iter_s > 0)) continue; /* stopped early */
        cgm_locality_sample *s = &v[k++];
        memset(s, 0, sizeof *s);
        s->block = n;
        s->precision = p;
        s->shape = cgm_refined_shape(&plan, 0);
        s->seconds = r.time_per_iter_s;
        snprintf(s->source, sizeof s->source, "arrow-scattered:%d,%d", SCATTER_ROWS, lens[i]);
      }
      cgm_csr_free(&A);
    }
  if (st) {
    free(v);
    return st;
  }
  *out = v;
  *count = k;
  return CGM_OK;
}
