/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The CPU SpMV's y and p . y are the same, bit for bit, on any team. Where
 * its slices are heavy (over 2048 values) its chunks are sized by the team
 * (16 slices, or ns / (4 team) down to 1), and p . y is summed by slice,
 * then the slices in order; elsewhere by chunk of 16 slices: checked against
 * that order recomputed here from y and the layout, on 1, 2, 3 and 8
 * threads, in double and single precision, for layouts whose chunks are 16
 * slices on every team, 2-15, and one slice, and an empty one. On the larger
 * layouts the other order differs in its last bits, so the comparison can
 * fail. */
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "cgmodel/sparse.h"
#include "solver/cpu/cg_cpu.h"
#include "test_linalg.h"
#include "test_util.h"

/* p . y by slice, then the slices in order (len 0), or by chunks of len
 * slices, then the chunks in order. */
static bool heavy(const cgm_bcsr *B) {
  return (double)B->nblocks_padded * B->p.n * B->p.n > 2048.0 * B->nslices;
}

static double by_slice(const cgm_bcsr *B, const double *p, const double *y, int32_t len) {
  double all = 0.0, chunk = 0.0;
  for (int32_t k = 0; k < B->nslices; k++) {
    double d = 0.0;
    for (int j = 0; j < B->p.by; j++) {
      const int32_t b = B->brow[(int64_t)k * B->p.by + j];
      for (int r = 0; b >= 0 && r < B->p.n; r++) {
        const int64_t i = (int64_t)b * B->p.n + r;
        d += p[i] * y[i];
      }
    }
    if (!len) {
      all += d;
      continue;
    }
    chunk += d;
    if ((k + 1) % len == 0 || k + 1 == B->nslices) all += chunk, chunk = 0.0;
  }
  return all;
}

/* The same over single-precision vectors (each product in double, as the
 * SpMV takes it: a float's double is exact). */
static double by_slice_f(const cgm_bcsr *B, const float *p, const float *y, int64_t ny) {
  double *pd = malloc(ny * sizeof *pd), *yd = malloc(ny * sizeof *yd);
  for (int64_t i = 0; i < ny; i++) pd[i] = p[i], yd[i] = y[i];
  const double d = by_slice(B, pd, yd, heavy(B) ? 0 : 16);
  free(pd), free(yd);
  return d;
}

static const int threads[] = {1, 2, 3, 8};

/* A's layout with params p: y and p . y on every team of `threads`. */
static void compare(const char *what, const cgm_csr *A, cgm_bcsr_params p, int32_t b0, int32_t b1,
                    bool differs) {
  cgm_bcsr B;
  cgm_error e = {0};
  CHECK_MSG(cgm_bcsr_build(A, b0, b1, p, &B, &e) == CGM_OK, "%s: %s", what, e.msg);
  const int64_t nx = (int64_t)B.nbcols * p.n, ny = (int64_t)B.nbrows * p.n + 1;
  double *x = malloc(nx * sizeof *x), *q = malloc(ny * sizeof *q), *y = malloc(ny * sizeof *y),
         *y1 = malloc(ny * sizeof *y1);
  float *xf = malloc(nx * sizeof *xf), *qf = malloc(ny * sizeof *qf), *yf = malloc(ny * sizeof *yf),
        *yf1 = malloc(ny * sizeof *yf1),
        *vf = malloc((size_t)B.nblocks_padded * p.n * p.n * sizeof *vf + 4);
  uint64_t s = 5;
  for (int64_t i = 0; i < nx; i++) x[i] = unif01(&s) - 0.5, xf[i] = (float)x[i];
  for (int64_t i = 0; i < ny; i++) q[i] = unif01(&s) - 0.5, qf[i] = (float)q[i];
  for (int64_t i = 0; i < B.nblocks_padded * p.n * p.n; i++) vf[i] = (float)B.val[i];
  double d1 = 0, f1 = 0;
  for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
    omp_set_num_threads(threads[t]);
    memset(y, 0, ny * sizeof *y), memset(yf, 0, ny * sizeof *yf);
    const double d = cgm_cpu_spmv_f64(&B, B.val, x, y, q), f = cgm_cpu_spmv_f32(&B, vf, xf, yf, qf);
    const double want = by_slice(&B, q, y, heavy(&B) ? 0 : 16), wantf = by_slice_f(&B, qf, yf, ny);
    CHECK_MSG(d == want && f == wantf,
              "%s, %d threads: p . y %.17g (f32 %.17g), by slice %.17g (%.17g)", what, threads[t],
              d, f, want, wantf);
    if (t == 0) {
      d1 = d, f1 = f;
      memcpy(y1, y, ny * sizeof *y), memcpy(yf1, yf, ny * sizeof *yf);
      if (differs) /* the order is what is checked, not a sum the other shares */
        CHECK_MSG(by_slice(&B, q, y, heavy(&B) ? 16 : 0) != want, "%s: the other order the same",
                  what);
    }
    CHECK_MSG(d == d1 && f == f1 && !memcmp(y, y1, ny * sizeof *y) &&
                  !memcmp(yf, yf1, ny * sizeof *yf),
              "%s: %d threads differ from 1: %.17g, %.17g", what, threads[t], d, d1);
    CHECK(cgm_cpu_spmv_f64(&B, B.val, x, y, NULL) == 0.0 && !memcmp(y, y1, ny * sizeof *y));
  }
  omp_set_num_threads(omp_get_num_procs());
  free(x), free(q), free(y), free(y1), free(xf), free(qf), free(yf), free(yf1), free(vf);
  cgm_bcsr_free(&B);
}

int main(void) {
  cgm_error e = {0};
  cgm_csr E, R, S;
  CHECK_OK(cgm_gen_elasticity3d(8, &E, &e)); /* 1944 rows: 61 slices, teams of up to 7 */
  CHECK_OK(cgm_gen_random_spd(20000, 8, CGM_ROWDIST_UNIFORM, 2.0, 0, 3, &R, &e));
  CHECK_OK(cgm_gen_random_spd(2048, 8, CGM_ROWDIST_POWERLAW, 2.0, 300, 9, &S, &e));
  /* chunks of 15, 7, 5 and 2 slices at N = 1, 2 and 4 */
  for (int n = 1; n <= 4; n *= 2)
    compare("elasticity 8^3", &E, cgm_bcsr_default_params(n), 0, (E.nrows + n - 1) / n, false);
  /* 625 slices: 16 on every team */
  compare("random 20000", &R, cgm_bcsr_default_params(1), 0, R.nrows, true);
  /* 64-row slices: 32 of them, chunks of 8, 4, 2 and 1 slices */
  compare("power law 2048, B_y 64", &S, (cgm_bcsr_params){1, 1, 64}, 0, S.nrows, false);
  /* one row a slice: 2048 slices, chunks of 16 */
  compare("power law 2048, B_y 1", &S, (cgm_bcsr_params){1, 1, 1}, 0, S.nrows, true);
  /* no block rows: no slices, p . y 0 */
  compare("empty", &S, cgm_bcsr_default_params(1), 7, 7, false);
  cgm_csr_free(&E), cgm_csr_free(&R), cgm_csr_free(&S);
  TEST_MAIN_END();
}
