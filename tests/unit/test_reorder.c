/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Orderings: reverse Cuthill-McKee is a permutation and narrows the band of
 * randomly numbered meshes; a symmetric permutation moves every entry where
 * it should; the shuffles of the locality sweep stay in their windows; and
 * a solve in the RCM numbering returns the solution of the original system
 * (residual recomputed on it). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/solver.h"
#include "cgmodel/sparse.h"
#include "test_linalg.h"
#include "test_util.h"

static int64_t bandwidth(const cgm_csr *A) {
  int64_t bw;
  cgm_csr_spread(A, NULL, &bw, NULL);
  return bw;
}

static int is_perm(const int32_t *p, int32_t n) {
  char *seen = calloc((size_t)n + 1, 1);
  int ok = seen != NULL;
  for (int32_t i = 0; i < n && ok; i++) {
    if (p[i] < 0 || p[i] >= n || seen[p[i]]) ok = 0;
    if (ok) seen[p[i]] = 1;
  }
  free(seen);
  return ok;
}

static double entry(const cgm_csr *A, int32_t i, int32_t j) {
  for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
    if (A->colidx[k] == j) return A->val[k];
  return 0.0;
}

static void test_permute(void) {
  cgm_error e = {0};
  cgm_csr A, B;
  CHECK_OK(cgm_gen_poisson2d(7, &A, &e));
  int32_t perm[49];
  cgm_perm_shuffle(49, 49, 3, perm);
  CHECK(is_perm(perm, 49));
  CHECK_OK(cgm_csr_permute(&A, perm, &B, &e));
  CHECK(B.nnz == A.nnz && cgm_csr_is_symmetric(&B));
  for (int32_t i = 0; i < 49; i++) {
    for (int32_t j = 0; j < 49; j++) CHECK(entry(&B, i, j) == entry(&A, perm[i], perm[j]));
    for (int64_t k = B.rowptr[i] + 1; k < B.rowptr[i + 1]; k++)
      CHECK(B.colidx[k - 1] < B.colidx[k]); /* sorted */
  }
  cgm_csr_free(&B);
  perm[3] = perm[4]; /* not a permutation */
  CHECK(cgm_csr_permute(&A, perm, &B, &e) == CGM_EINPUT);
  cgm_csr_free(&A);

  /* shuffles: the identity, windows kept, deterministic, the seed matters */
  int32_t p1[1000], p2[1000];
  cgm_perm_shuffle(1000, 1, 9, p1);
  for (int i = 0; i < 1000; i++) CHECK(p1[i] == i);
  cgm_perm_shuffle(1000, 64, 9, p1);
  cgm_perm_shuffle(1000, 64, 9, p2);
  CHECK(is_perm(p1, 1000) && memcmp(p1, p2, sizeof p1) == 0);
  int moved = 0;
  for (int i = 0; i < 1000; i++) {
    CHECK(p1[i] / 64 == i / 64);
    moved += p1[i] != i;
  }
  CHECK(moved > 900);
  cgm_perm_shuffle(1000, 64, 10, p2);
  CHECK(memcmp(p1, p2, sizeof p1) != 0);
}

static void check_rcm(const cgm_csr *A, const char *what, double shrink) {
  cgm_error e = {0};
  int32_t *p = malloc(sizeof *p * (size_t)A->nrows);
  CHECK_OK(cgm_rcm(A, p, &e));
  CHECK_MSG(is_perm(p, A->nrows), "%s: not a permutation", what);
  cgm_csr B;
  CHECK_OK(cgm_csr_permute(A, p, &B, &e));
  const int64_t b0 = bandwidth(A), b1 = bandwidth(&B);
  CHECK_MSG(b1 * shrink <= b0, "%s: bandwidth %lld -> %lld", what, (long long)b0, (long long)b1);
  cgm_csr_free(&B);
  free(p);
}

/* The bandwidth max |i - j| over the entries, against a direct count:
 * Poisson 2D on an n x n grid is n wide, and a permutation that swaps the
 * first and last rows widens it to the whole matrix. */
static void test_bandwidth(void) {
  cgm_error e = {0};
  cgm_csr A, B;
  CHECK_OK(cgm_gen_poisson2d(30, &A, &e));
  CHECK_MSG(bandwidth(&A) == 30, "%lld", (long long)bandwidth(&A));
  int32_t perm[900];
  for (int32_t i = 0; i < 900; i++) perm[i] = i;
  perm[0] = 899;
  perm[899] = 0;
  CHECK_OK(cgm_csr_permute(&A, perm, &B, &e));
  int64_t want = 0;
  for (int32_t i = 0; i < B.nrows; i++)
    for (int64_t k = B.rowptr[i]; k < B.rowptr[i + 1]; k++)
      want = llabs((long long)B.colidx[k] - i) > want ? llabs((long long)B.colidx[k] - i) : want;
  CHECK_MSG(want >= 869 && bandwidth(&B) == want, "%lld, counted %lld", (long long)bandwidth(&B),
            (long long)want);
  /* the spread of A under the numbering to[old] = new is B's as numbered: its widest and mean
   * |i - j| counted on B; A's own mean (4 n (n - 1) entries 1 apart and as many n apart) */
  int32_t to[900];
  for (int32_t i = 0; i < 900; i++) to[perm[i]] = i;
  double sum = 0.0, mean_a, mean_b;
  int64_t max_b;
  for (int32_t i = 0; i < B.nrows; i++)
    for (int64_t k = B.rowptr[i]; k < B.rowptr[i + 1]; k++)
      sum += llabs((long long)B.colidx[k] - i);
  cgm_csr_spread(&A, to, &max_b, &mean_b);
  cgm_csr_spread(&A, NULL, NULL, &mean_a);
  CHECK_MSG(max_b == want && fabs(mean_b - sum / (double)B.nnz) < 1e-9 * mean_b &&
                fabs(mean_a - 2.0 * 30 * 29 * 31 / (double)A.nnz) < 1e-9 * mean_a,
            "spread %lld %g %g", (long long)max_b, mean_b, mean_a);
  cgm_csr_free(&A);
  cgm_csr_free(&B);
}

static void test_rcm(void) {
  cgm_error e = {0};
  cgm_csr A, P;
  /* a randomly numbered mesh: the band shrinks many times over */
  CHECK_OK(cgm_gen_mesh3d(3000, 8, CGM_NUMBERING_RANDOM, 1, &A, &e));
  check_rcm(&A, "mesh3d random", 4.0);
  cgm_csr_free(&A);
  /* Poisson 12^3 shuffled: back near its natural band (144) */
  CHECK_OK(cgm_gen_poisson3d(12, &A, &e));
  int32_t *perm = malloc(sizeof *perm * (size_t)A.nrows);
  cgm_perm_shuffle(A.nrows, A.nrows, 5, perm);
  CHECK_OK(cgm_csr_permute(&A, perm, &P, &e));
  check_rcm(&P, "poisson shuffled", 4.0);
  int32_t *q = malloc(sizeof *q * (size_t)A.nrows);
  CHECK_OK(cgm_rcm(&P, q, &e));
  cgm_csr R;
  CHECK_OK(cgm_csr_permute(&P, q, &R, &e));
  CHECK_MSG(bandwidth(&R) <= 3 * 144, "%lld", (long long)bandwidth(&R));
  cgm_csr_free(&R);
  free(q);
  free(perm);
  cgm_csr_free(&A);
  cgm_csr_free(&P);
  /* several components and isolated nodes (a diagonal): still a permutation */
  CHECK_OK(cgm_csr_alloc(&A, 10, 10, 10, &e));
  for (int i = 0; i < 10; i++) A.rowptr[i + 1] = i + 1, A.colidx[i] = i, A.val[i] = 1.0;
  check_rcm(&A, "diagonal", 1.0);
  cgm_csr_free(&A);
}

static void test_solve(void) {
  cgm_error e = {0};
  cgm_csr A;
  CHECK_OK(cgm_gen_mesh3d(800, 8, CGM_NUMBERING_RANDOM, 2, &A, &e));
  const int32_t n = A.nrows;
  double *b = malloc(sizeof *b * (size_t)n), *x0 = calloc((size_t)n, sizeof *x0),
         *x1 = calloc((size_t)n, sizeof *x1);
  uint64_t rng = 4;
  for (int32_t i = 0; i < n; i++) b[i] = unif01(&rng) - 0.5;
  cgm_solve_opts o = cgm_solve_opts_default();
  o.tol = 1e-10;
  cgm_solve_result r0, r1;
  CHECK_OK(cgm_solve(&A, b, x0, &o, &r0, &e));
  CHECK(!r0.reordered);
  o.reorder = CGM_REORDER_RCM;
  CHECK_OK(cgm_solve(&A, b, x1, &o, &r1, &e));
  CHECK(r1.reordered && r1.converged && r1.time_reorder_s > 0);
  /* the solution of the original system, in its numbering */
  const double res = test_residual(&A, b, x1);
  CHECK_MSG(res <= 1e-10, "residual %g", res);
  CHECK_NEAR(r1.relative_residual, res, 1e-3 * res + 1e-16);
  double d = 0, s = 0;
  for (int32_t i = 0; i < n; i++) d += (x1[i] - x0[i]) * (x1[i] - x0[i]), s += x0[i] * x0[i];
  CHECK_MSG(sqrt(d / s) < 1e-7, "%g", sqrt(d / s));
  /* bad input is named in the original numbering */
  A.val[A.rowptr[5]] = NAN;
  CHECK(cgm_solve(&A, b, x1, &o, &r1, &e) == CGM_EINPUT);
  CHECK_MSG(strstr(e.msg, "(6, "), "%s", e.msg);
  free(b);
  free(x0);
  free(x1);
  cgm_csr_free(&A);
  CHECK(!strcmp(cgm_reorder_name(CGM_REORDER_RCM), "rcm"));
  cgm_reorder rr;
  CHECK(cgm_reorder_parse("none", &rr) && rr == CGM_REORDER_NONE);
  CHECK(!cgm_reorder_parse("amd", &rr));
}

int main(void) {
  test_permute();
  test_bandwidth();
  test_rcm();
  test_solve();
  TEST_MAIN_END();
}
