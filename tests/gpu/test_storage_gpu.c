/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The values' storage formats on the CUDA backend: our SpMV over F32 and
 * DICT values against the CPU's SpMV over the same format (every block
 * size, the fused dot too), on a 3D Poisson matrix (DICT at N = 1, F32
 * exact) and on bcsstk15 (F32 not exact); solves with storage compact on
 * one GPU: DICT takes full's iterations exactly, F32 with reliable updates
 * reaches the tolerance in the true residual within 10% of full's, both
 * with the layout built on the host and on the GPU, with long rows apart
 * too (an arrow, a power law), a value the GPU's sample of them misses, integers past a
 * dictionary; and the format each solve stores is the
 * one the model priced, on 2 GPUs too where there are 2. Skipped (77)
 * without a GPU. */
#include <math.h>
#include <stdint.h>

#include "cgmodel/solver.h"
#include "spmv_host.h"
#include "solver/cpu/cg_cpu.h"
#include "test_linalg.h"
#include "test_util.h"

static void read_matrix(const char *name, cgm_csr *A) {
  char path[1024];
  cgm_error err;
  snprintf(path, sizeof path, "%s/%s.mtx", CGM_DATA_DIR, name);
  CHECK_OK(cgm_mm_read_csr(path, A, NULL, &err));
}

/* GPU against CPU over the same stored values: the same products, summed
 * in another order (1e-14 of the row's terms). */
static void spmv_agrees(const char *what, const cgm_csr *A, int n, cgm_values fmt) {
  cgm_bcsr B;
  cgm_error err = {0};
  CHECK_OK(cgm_bcsr_build(A, 0, (A->nrows + n - 1) / n, cgm_bcsr_default_params(n), &B, &err));
  const cgm_value_set s =
      cgm_values_choose(A->val, A->nnz, n, B.nbcols, CGM_STORAGE_COMPACT, CGM_PREC_DOUBLE);
  CHECK_MSG(s.fmt == fmt, "%s N=%d: %s", what, n, cgm_values_name(s.fmt));
  const int64_t nx = (int64_t)B.nbcols * n, ny = (int64_t)B.nbrows * n;
  const int64_t ne = B.nblocks_padded * n * n;
  double *x = malloc(nx * sizeof *x), *y = malloc(ny * sizeof *y), *yg = malloc(ny * sizeof *yg);
  float *f = malloc((ne + 1) * sizeof *f);
  int32_t *cc = malloc((B.nblocks_padded + 1) * sizeof *cc);
  uint64_t st = 11;
  for (int64_t i = 0; i < nx; i++) x[i] = i < A->ncols ? unif01(&st) - 0.3 : 0.0;
  for (int64_t q = 0; q < ne; q++) f[q] = (float)B.val[q];
  cgm_cpu_vals V = {&s, f, NULL};
  if (fmt == CGM_VALUES_DICT) cgm_values_encode(&B, &s, cc), V.val = NULL, V.ccol = cc;
  const double dot = cgm_cpu_spmv_vals(&B, &V, x, y, x);
  double dotg = 0.0, dotf = 0.0;
  CHECK_OK(spmv_host(0, &B, CGM_PREC_DOUBLE, &s, x, yg, &dotg, &err));
  for (int32_t i = 0; i < A->nrows; i++) {
    double bound = 0.0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      bound += fabs(A->val[k] * x[A->colidx[k]]);
    CHECK_MSG(fabs(yg[i] - y[i]) <= 1e-14 * bound, "%s N=%d %s row %d: GPU %.17g, CPU %.17g", what,
              n, cgm_values_name(fmt), i, yg[i], y[i]);
  }
  CHECK_MSG(fabs(dotg - dot) <= 1e-12 * fabs(dot), "%s N=%d: dot %.17g, CPU %.17g", what, n, dotg,
            dot);
  /* full values on the GPU differ from F32's where those round */
  CHECK_OK(spmv_host(0, &B, CGM_PREC_DOUBLE, NULL, x, yg, &dotf, &err));
  if (fmt == CGM_VALUES_F32 && !s.exact) CHECK(dotf != dotg);
  free(x), free(y), free(yg), free(f), free(cc);
  cgm_bcsr_free(&B);
}

static cgm_solve_result solve(const cgm_csr *A, cgm_storage storage, bool device_layout) {
  cgm_solve_opts o = cgm_solve_opts_default();
  o.backend = CGM_BACKEND_CUDA;
  o.storage = storage;
  o.gpu.device_layout = device_layout;
  cgm_solve_result r;
  cgm_error err = {0};
  double res;
  CHECK_MSG(test_solve_known(A, &o, &r, &err, &res) == CGM_OK, "storage %s: %s",
            cgm_storage_name(storage), err.msg);
  CHECK_MSG(res <= cgm_solve_tol(&o), "storage %s: residual %.3g", cgm_storage_name(storage), res);
  return r;
}

static void test_solves(bool dl) {
  cgm_csr P, K;
  cgm_error err;
  CHECK_OK(cgm_gen_poisson3d(40, &P, &err));
  read_matrix("bcsstk15", &K);
  const cgm_solve_result pf = solve(&P, CGM_STORAGE_FULL, dl),
                         pc = solve(&P, CGM_STORAGE_COMPACT, dl);
  CHECK(pf.storage == CGM_VALUES_FULL && pc.storage == CGM_VALUES_DICT && pc.value_bytes == 0);
  CHECK_MSG(pc.iterations == pf.iterations, "device layout %d: dict %d iterations, full %d", dl,
            pc.iterations, pf.iterations);
  const cgm_solve_result kf = solve(&K, CGM_STORAGE_FULL, dl),
                         kc = solve(&K, CGM_STORAGE_COMPACT, dl);
  CHECK(kc.storage == CGM_VALUES_F32 && !kc.storage_exact);
  CHECK_MSG(kc.iterations <= 1.1 * kf.iterations, "device layout %d: f32 %d iterations, full %d",
            dl, kc.iterations, kf.iterations);
  /* long rows apart (their own kernel, full values beside the compact
   * ones): an arrow (dict) and a power law of random values (f32 not exact) */
  cgm_csr W, R;
  CHECK_OK(cgm_gen_arrow(20000, 3000, &W, &err));
  CHECK_OK(cgm_gen_random_spd(20000, 8, CGM_ROWDIST_POWERLAW, 2.0, 2000, 3, &R, &err));
  const cgm_solve_result wf = solve(&W, CGM_STORAGE_FULL, dl),
                         wc = solve(&W, CGM_STORAGE_COMPACT, dl);
  CHECK(wc.storage == CGM_VALUES_DICT && wc.iterations == wf.iterations);
  const cgm_solve_result rf = solve(&R, CGM_STORAGE_FULL, dl),
                         rc = solve(&R, CGM_STORAGE_COMPACT, dl);
  CHECK(rc.storage == CGM_VALUES_F32 && !rc.storage_exact && rc.iterations <= 1.1 * rf.iterations);
  /* the values' format as the GPU's pass reads it (a layout built there) and the host's: a
   * diagonal entry that a sample of the values misses (a dictionary of 4, found by the host's pass
   * after the GPU's), and integers past a dictionary's room (D P D, D = 1..7: 26 values, f32,
   * exact) */
  cgm_csr Q, I;
  CHECK_OK(cgm_gen_poisson3d(40, &Q, &err));
  CHECK_OK(cgm_gen_poisson3d(40, &I, &err));
  const int64_t gap = Q.nnz / 32; /* the sample: runs of 32 at multiples of gap */
  int32_t r = Q.nrows / 3;
  while (Q.rowptr[r] % gap < 64 || Q.rowptr[r] % gap > gap - 64) r++;
  for (int64_t k = Q.rowptr[r]; k < Q.rowptr[r + 1]; k++)
    if (Q.colidx[k] == r) Q.val[k] = 6.5;
  for (int32_t i = 0; i < I.nrows; i++)
    for (int64_t k = I.rowptr[i]; k < I.rowptr[i + 1]; k++)
      I.val[k] *= (double)(1 + i % 7) * (1 + I.colidx[k] % 7);
  const cgm_solve_result qf = solve(&Q, CGM_STORAGE_FULL, dl),
                         qc = solve(&Q, CGM_STORAGE_COMPACT, dl),
                         ic = solve(&I, CGM_STORAGE_COMPACT, dl);
  CHECK_MSG(qc.storage == CGM_VALUES_DICT && qc.iterations == qf.iterations,
            "device layout %d: %s, %d iterations against full's %d", dl,
            cgm_values_name(qc.storage), qc.iterations, qf.iterations);
  CHECK_MSG(ic.storage == CGM_VALUES_F32 && ic.storage_exact, "device layout %d: %s, exact %d", dl,
            cgm_values_name(ic.storage), ic.storage_exact);
  cgm_csr_free(&Q);
  cgm_csr_free(&I);
  cgm_csr_free(&W);
  cgm_csr_free(&R);
  cgm_csr_free(&P);
  cgm_csr_free(&K);
}

/* The format a solve stores its values in is the one the model priced
 * (the plan's values, cgm_plan_set_precision): compact on 1 GPU and, where
 * there are 2, on 2 (there values f32 does not hold exactly run full), at
 * N = 1 and 2, on exact and inexact values. */
static void test_priced(void) {
  cgm_csr P, K;
  cgm_error err;
  CHECK_OK(cgm_gen_poisson3d(24, &P, &err));
  read_matrix("bcsstk15", &K);
  const cgm_csr *m[2] = {&P, &K};
  const int maxg = cgm_cuda_device_count() >= 2 ? 2 : 1;
  for (int g = 1; g <= maxg; g++)
    for (int i = 0; i < 2; i++)
      for (int n = 1; n <= 2; n++) {
        cgm_solve_opts o = cgm_solve_opts_default();
        o.backend = CGM_BACKEND_CUDA;
        o.storage = CGM_STORAGE_COMPACT;
        o.gpus = g;
        o.layout = cgm_bcsr_default_params(n);
        cgm_plan plan;
        cgm_solve_result r;
        double res;
        CHECK_OK(cgm_solve_plan(m[i], &o, &plan, &err));
        CHECK_MSG(test_solve_known(m[i], &o, &r, &err, &res) == CGM_OK, "%s", err.msg);
        CHECK_MSG(r.storage == plan.o.values, "matrix %d, %d GPUs, N=%d: stored %s, priced %s", i,
                  g, n, cgm_values_name(r.storage), cgm_values_name(plan.o.values));
      }
  cgm_csr_free(&P);
  cgm_csr_free(&K);
}

int main(void) {
  if (cgm_cuda_device_count() < 1) {
    fprintf(stderr, "no GPU: skipped\n");
    return CGM_TEST_SKIP;
  }
  cgm_csr P, K;
  cgm_error err;
  CHECK_OK(cgm_gen_poisson3d(11, &P, &err));
  read_matrix("bcsstk15", &K);
  for (int bi = 0; bi < CGM_NBLOCKSIZES; bi++) {
    const int n = cgm_block_sizes[bi];
    spmv_agrees("poisson", &P, n, n == 1 ? CGM_VALUES_DICT : CGM_VALUES_F32);
    spmv_agrees("bcsstk15", &K, n, CGM_VALUES_F32);
  }
  cgm_csr_free(&P);
  cgm_csr_free(&K);
  test_solves(false);
  test_solves(true);
  test_priced();
  TEST_MAIN_END();
}
