/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The distributed solve's partitions on the root, without MPI: row blocks
 * that are contiguous, non-empty and balanced in work; METIS parts (when
 * built) that renumber the rows by a permutation; and P A P^T, checked
 * through the SpMV: (P A P^T)(P x) = P (A x). */
#include <stdint.h>
#include <stdlib.h>

#include "cgmodel/dist.h"
#include "cgmodel/sparse.h"
#include "dist/split.h"
#include "test_util.h"

static void check_rows(const cgm_csr *A, int parts) {
  int32_t bounds[9];
  cgm_error err = {0};
  CHECK_OK(cgm_dist_split_rows(A, parts, bounds, &err));
  CHECK(bounds[0] == 0 && bounds[parts] == A->nrows);
  int32_t longest = 0;
  for (int32_t i = 0; i < A->nrows; i++) {
    const int32_t l = (int32_t)(A->rowptr[i + 1] - A->rowptr[i]) + 1;
    if (l > longest) longest = l;
  }
  const int64_t total = A->nnz + A->nrows;
  for (int k = 0; k < parts; k++) {
    CHECK(bounds[k] < bounds[k + 1]);
    const int64_t work =
        A->rowptr[bounds[k + 1]] - A->rowptr[bounds[k]] + bounds[k + 1] - bounds[k];
    CHECK_MSG(work <= total / parts + longest, "part %d of %d: %lld of %lld", k, parts,
              (long long)work, (long long)total);
  }
}

/* P A P^T by the SpMV. */
static void check_permuted(const cgm_csr *A, const int32_t *perm) {
  cgm_csr B;
  cgm_error err = {0};
  CHECK_OK(cgm_csr_permute(A, perm, &B, &err)); /* as the MPI solve renumbers */
  const int32_t n = A->nrows;
  double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *px = malloc(n * sizeof *px),
         *py = malloc(n * sizeof *py);
  for (int32_t i = 0; i < n; i++) x[i] = 1.0 + 0.01 * (i % 13);
  for (int32_t i = 0; i < n; i++) px[i] = x[perm[i]];
  cgm_csr_spmv(A, x, y);
  cgm_csr_spmv(&B, px, py);
  for (int32_t i = 0; i < n; i++) CHECK_NEAR(py[i], y[perm[i]], 1e-12);
  CHECK(cgm_csr_is_symmetric(&B));
  free(x), free(y), free(px), free(py);
  cgm_csr_free(&B);
}

int main(void) {
  cgm_csr A;
  cgm_error err = {0};
  CHECK_OK(cgm_gen_poisson2d(20, &A, &err)); /* 400 rows */
  for (int p = 1; p <= 8; p++) check_rows(&A, p);
  int32_t bounds[9];
  CHECK(cgm_dist_split_rows(&A, 401, bounds, &err) == CGM_EINPUT);
  CHECK(strstr(err.msg, "too few for 401 MPI ranks") != NULL);

  int32_t *perm = malloc(A.nrows * sizeof *perm);
  for (int32_t i = 0; i < A.nrows; i++) perm[i] = (i * 7 + 3) % A.nrows; /* 7 is prime to 400 */
  check_permuted(&A, perm);
  if (cgm_have_metis_build()) {
    for (int p = 1; p <= 4; p++) {
      CHECK_OK(cgm_dist_split_metis(&A, p, bounds, perm, &err));
      CHECK(bounds[0] == 0 && bounds[p] == A.nrows);
      char *seen = calloc(A.nrows, 1);
      for (int32_t i = 0; i < A.nrows; i++) {
        CHECK(perm[i] >= 0 && perm[i] < A.nrows && !seen[perm[i]]);
        if (perm[i] >= 0 && perm[i] < A.nrows) seen[perm[i]] = 1;
      }
      free(seen);
      for (int k = 0; k < p; k++) CHECK(bounds[k] <= bounds[k + 1]);
      check_permuted(&A, perm);
    }
  } else {
    CHECK(cgm_dist_split_metis(&A, 2, bounds, perm, &err) == CGM_EINPUT);
  }
  free(perm);
  cgm_csr_free(&A);
  TEST_MAIN_END();
}
