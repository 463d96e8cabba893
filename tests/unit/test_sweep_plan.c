/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The SpMV sweep's walk of matrices (microbench/sweep_plan.c): made ahead
 * on a thread of their own (the GPU sweeps') it visits the same matrices,
 * entry for entry, in the same order as made in place (the CPU's); a
 * callback that fails stops the walk with its error. */
#include <stdio.h>
#include <string.h>

#include "microbench/sweep_plan.h"
#include "test_util.h"

typedef struct {
  char src[64][64];
  int n[64];
  int64_t nnz[64];
  double sum[64];
  int count, stop_at;
} walk;

static cgm_status take(void *ctx, const cgm_csr *A, int n, const char *variant, const char *source,
                       cgm_error *err) {
  walk *w = ctx;
  (void)variant;
  if (w->count == w->stop_at) return cgm_fail(err, CGM_ERUNTIME, "stopped at %d", w->count);
  if (w->count < 64) {
    snprintf(w->src[w->count], sizeof w->src[0], "%s", source);
    w->n[w->count] = n;
    w->nnz[w->count] = A ? A->nnz : -1;
    double s = 0;
    for (int64_t i = 0; A && i < A->nnz; i++) s += A->val[i] * (1 + A->colidx[i] % 7);
    w->sum[w->count] = s;
  }
  w->count++;
  return CGM_OK;
}

int main(void) {
  static walk inplace, ahead, stop;
  const mb_range r = {10, 14, 2};
  cgm_error err = {0};
  inplace.stop_at = ahead.stop_at = -1;
  CHECK_OK(mb_walk_matrices(cgm_block_sizes, CGM_NBLOCKSIZES, r, false, take, &inplace, &err));
  CHECK_OK(mb_walk_matrices(cgm_block_sizes, CGM_NBLOCKSIZES, r, true, take, &ahead, &err));
  /* 3 sizes x (3 dense kinds at each of 4 block sizes + 3 real kinds at each) */
  CHECK_MSG(inplace.count == 3 * 6 * 4 && ahead.count == inplace.count, "%d and %d visits",
            inplace.count, ahead.count);
  for (int i = 0; i < inplace.count && i < 64; i++)
    CHECK_MSG(!strcmp(inplace.src[i], ahead.src[i]) && inplace.n[i] == ahead.n[i] &&
                  inplace.nnz[i] == ahead.nnz[i] && inplace.sum[i] == ahead.sum[i],
              "visit %d: %s N=%d against %s N=%d", i, inplace.src[i], inplace.n[i], ahead.src[i],
              ahead.n[i]);
  stop.stop_at = 5;
  CHECK(mb_walk_matrices(cgm_block_sizes, CGM_NBLOCKSIZES, r, true, take, &stop, &err) ==
            CGM_ERUNTIME &&
        strstr(err.msg, "stopped at 5") && stop.count == 5);
  TEST_MAIN_END();
}
