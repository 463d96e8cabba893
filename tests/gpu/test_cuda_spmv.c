/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Our CUDA SpMV against a CSR reference in double, for every N, B_x and
 * precision: random matrices with empty rows and one very long row, odd
 * dimensions, 1 row, 10^7 rows (3D Poisson 216^3), and the bundled real
 * matrices. Also the fused dot (CG3). Skipped (77) without a GPU. */
#include <stdint.h>

#include "cgmodel/solver.h"
#include "spmv_host.h"
#include "test_linalg.h"
#include "test_util.h"

static uint64_t rng_state = 12345;
static uint64_t rng(void) {
  return splitmix64(&rng_state);
}
static double urand(void) {
  return unif01(&rng_state);
}

static void random_matrix(int32_t n, int avg, cgm_csr *A) {
  int64_t cap = (int64_t)n * (2 * avg + 2) + 2 * n + 8;
  int32_t *ri = malloc(cap * sizeof *ri), *ci = malloc(cap * sizeof *ci);
  double *v = malloc(cap * sizeof *v);
  int64_t k = 0;
  for (int32_t i = 0; i < n; i++) {
    if (i % 13 == 4) continue; /* empty row */
    int len = (int)(rng() % (2 * avg + 1));
    for (int m = 0; m < len; m++)
      ri[k] = i, ci[k] = (int32_t)(rng() % n), v[k] = urand() - 0.5, k++;
  }
  for (int32_t j = 0; j < n && k < cap; j += 1 + (int32_t)(rng() % 2)) /* one long row */
    ri[k] = n / 2, ci[k] = j, v[k] = urand(), k++;
  cgm_error err;
  CHECK_OK(cgm_csr_from_coo(n, n, k, ri, ci, v, A, NULL, &err));
  free(ri), free(ci), free(v);
}

/* Compares our device SpMV with the CSR reference; returns max rel diff. */
static void compare(const char *what, const cgm_csr *A, int n, int bx, cgm_precision prec) {
  cgm_bcsr_params p = cgm_bcsr_default_params(n);
  p.bx = bx;
  p.by = 32 / (n * bx);
  if (p.by < 1) return;
  cgm_bcsr B;
  cgm_error err = {0};
  if (cgm_bcsr_build(A, 0, (A->nrows + n - 1) / n, p, &B, &err)) {
    CHECK_MSG(0, "%s: build: %s", what, err.msg);
    return;
  }
  int64_t nx = (int64_t)B.nbcols * n, ny = (int64_t)B.nbrows * n;
  double *x = malloc(nx * sizeof *x), *y = malloc(ny * sizeof *y),
         *yref = malloc((A->nrows + 1) * sizeof *yref);
  for (int64_t i = 0; i < nx; i++) x[i] = i < A->ncols ? urand() - 0.25 : 0.0;
  /* In single precision the reference uses the rounded inputs. */
  cgm_csr R = *A;
  double *vr = NULL;
  if (prec == CGM_PREC_SINGLE) {
    vr = malloc((A->nnz + 1) * sizeof *vr);
    for (int64_t k = 0; k < A->nnz; k++) vr[k] = (float)A->val[k];
    for (int64_t i = 0; i < nx; i++) x[i] = (float)x[i];
    R.val = vr;
  }
  cgm_csr_spmv(&R, x, yref);
  double dot = 0, dref = 0;
  cgm_status st = spmv_host(0, &B, prec, NULL, x, y, A->nrows == A->ncols ? &dot : NULL, &err);
  CHECK_MSG(st == CGM_OK, "%s: %s", what, err.msg);
  double num = 0, den = 0, maxrow = 0;
  for (int32_t i = 0; i < A->nrows; i++) {
    num += (y[i] - yref[i]) * (y[i] - yref[i]);
    den += yref[i] * yref[i];
    dref += x[i] * yref[i];
    double s = 0; /* per-row bound: sum |a_ij x_j| */
    for (int64_t k = R.rowptr[i]; k < R.rowptr[i + 1]; k++) s += fabs(R.val[k] * x[R.colidx[k]]);
    double e = fabs(y[i] - yref[i]) / (s > 0 ? s : 1.0);
    if (e > maxrow) maxrow = e;
  }
  double rel = den > 0 ? sqrt(num / den) : sqrt(num);
  double tol = prec == CGM_PREC_SINGLE ? 2e-6 : 1e-14;
  CHECK_MSG(rel <= tol * 10 && maxrow <= tol * 64, "%s N=%d bx=%d %s: rel %.3g, worst row %.3g",
            what, n, bx, cgm_precision_name(prec), rel, maxrow);
  for (int64_t i = A->nrows; i < ny; i++) CHECK(y[i] == x[i]); /* identity padding rows */
  if (A->nrows == A->ncols) CHECK_NEAR(dot, dref, prec == CGM_PREC_SINGLE ? 1e-4 : 1e-11);
  free(x), free(y), free(yref), free(vr);
  cgm_bcsr_free(&B);
}

static void all_configs(const char *what, const cgm_csr *A) {
  for (int bi = 0; bi < CGM_NBLOCKSIZES; bi++)
    for (int bx = 1; bx <= 4; bx *= 2)
      for (int pr = 0; pr < 2; pr++) compare(what, A, cgm_block_sizes[bi], bx, (cgm_precision)pr);
}

int main(void) {
  if (cgm_cuda_device_count() < 1) {
    fprintf(stderr, "no GPU: skipped\n");
    return CGM_TEST_SKIP;
  }
  const int32_t sizes[] = {1, 7, 33, 1003, 100003};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    cgm_csr A;
    random_matrix(sizes[i], 8, &A);
    char what[64];
    snprintf(what, sizeof what, "random %d", sizes[i]);
    all_configs(what, &A);
    cgm_csr_free(&A);
  }
  const char *real[] = {"bcsstk16", "bcsstk13", "msc00726", "bcsstm25", "nos4", "bayer10"};
  for (size_t i = 0; i < sizeof real / sizeof *real; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.mtx", CGM_DATA_DIR, real[i]);
    cgm_csr A;
    cgm_error err = {0};
    if (cgm_mm_read_csr(path, &A, NULL, &err)) {
      CHECK_MSG(0, "%s", err.msg);
      continue;
    }
    all_configs(real[i], &A);
    cgm_csr_free(&A);
  }
  /* 10^7 rows: every block size, both precisions, B_x = 1. Skipped under
   * compute-sanitizer (CGM_GPU_TEST_SMALL=1), where it would take hours. */
  if (!getenv("CGM_GPU_TEST_SMALL")) {
    cgm_csr A;
    cgm_error err;
    CHECK_OK(cgm_gen_poisson3d(216, &A, &err));
    CHECK(A.nrows > 10000000);
    for (int bi = 0; bi < CGM_NBLOCKSIZES; bi++)
      for (int pr = 0; pr < 2; pr++)
        compare("poisson3d 216", &A, cgm_block_sizes[bi], 1, (cgm_precision)pr);
    cgm_csr_free(&A);
  }
  TEST_MAIN_END();
}
