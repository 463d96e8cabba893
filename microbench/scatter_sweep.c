/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The row-scatter sweep (docs/model.md, "The walk of a scattered row"): arrows whose long row reads
 * x at random places, a line of x a step, timed as whole iterations like the row curve's in-order
 * arrows, at every block size and precision. The difference from the row curve's pace is the
 * row-scatter coefficient (cgm_fit_scatter_coef). GPU only: a CPU's model has no walk. */
#include <stdio.h>
#include <stdlib.h>

#include "cgmodel/model.h"
#include "cgmodel/plan.h"
#include "microbench/microbench.h"
#include "microbench/sweep_plan.h"

/* 65536 rows: 128 blocks of 8 at random among 8192 block columns rarely share a line, and the
 * tridiagonal under them is a few microseconds of bytes, under the walk of 64 blocks and more. */
enum { SCATTER_ROWS = 65536 };

/* The arrows' long rows, in blocks: at most CGM_LONG_ROW (a longer block
 * row leaves the MBR layout for one read by a warp, whose step is 32
 * lanes' lines: no sample of one thread's scattered step). */
static const int full_lengths[] = {64, CGM_LONG_ROW}, quick_lengths[] = {CGM_LONG_ROW};
/* The scattered bands' block rows, in blocks (the in-order bands': 2 ..
 * 128; a walk of 8 blocks is near the floor). */
static const int full_bands[] = {8, 32, 128}, quick_bands[] = {32};

/* The band of CGM_BAND_ROWS rows whose block rows (of n) are about L blocks long, renumbered at
 * random a block row at a time: the same blocks, their columns scattered. */
static cgm_status scattered_band(int n, int L, uint64_t seed, cgm_csr *B, cgm_error *err) {
  const int32_t h = mb_band_half(n, L), nb = CGM_BAND_ROWS / n;
  cgm_csr A;
  cgm_status st = cgm_gen_band(CGM_BAND_ROWS, h, &A, err);
  if (st) return st;
  int32_t *pb = malloc(sizeof *pb * ((size_t)nb + 1)),
          *perm = malloc(sizeof *perm * ((size_t)CGM_BAND_ROWS + 1));
  if (!pb || !perm) st = cgm_fail(err, CGM_ERUNTIME, "out of memory for the row-scatter sweep");
  if (!st) {
    cgm_perm_shuffle(nb, nb, seed, pb);
    for (int32_t i = 0; i < CGM_BAND_ROWS; i++) perm[i] = pb[i / n] * n + i % n;
    st = cgm_csr_permute(&A, perm, B, err);
  }
  free(pb);
  free(perm);
  cgm_csr_free(&A);
  return st;
}

cgm_status cgm_mb_scatter_sweep(const cgm_solve_opts *base, unsigned precisions, bool quick,
                                cgm_locality_sample **out, int *count, cgm_error *err) {
  const int nl = quick ? 1 : (int)(sizeof full_lengths / sizeof *full_lengths);
  const int nbands = quick ? 1 : (int)(sizeof full_bands / sizeof *full_bands);
  const int maxiter = quick ? 96 : 160;
  const int *lens = quick ? quick_lengths : full_lengths, *bands = quick ? quick_bands : full_bands;
  mb_shapes v = {0};
  cgm_status st = CGM_OK;
  for (int i = 0; i < nl + nbands && !st; i++)
    for (int b = 0; b < CGM_NBLOCKSIZES && !st; b++) {
      const int n = cgm_block_sizes[b], band = i >= nl;
      const int L = band ? bands[i - nl] : lens[i];
      cgm_csr A = {0};
      char src[48];
      if (band) {
        snprintf(src, sizeof src, "band-scattered:%d,%d", CGM_BAND_ROWS, L);
        st = scattered_band(n, L, 0xba9d + (uint64_t)L, &A, err);
      } else {
        snprintf(src, sizeof src, "arrow-scattered:%d,%d", SCATTER_ROWS, L);
        st = cgm_gen_arrow_scattered(SCATTER_ROWS, L, n, 0x5ca7 + (uint64_t)L, &A, err);
      }
      for (int p = 0; p < 2 && !st; p++)
        if (precisions & (1u << p)) st = mb_shape_push(&A, base, n, p, band, maxiter, src, &v, err);
      cgm_csr_free(&A);
    }
  return mb_shapes_end(&v, st, out, count);
}
