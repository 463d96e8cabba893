/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Synthetic generators: 3D elasticity (structure, exact symmetry, rigid-body
 * null space, an independent assembly, SPD) and random SPD (validation,
 * symmetry, diagonal dominance, determinism, row-length statistics). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/plan.h"
#include "cgmodel/sparse.h"
#include "test_util.h"

/* --------------------------------------------------------------- helpers */

static double *to_dense(const cgm_csr *A) {
  int32_t n = A->nrows;
  double *M = calloc((size_t)n * n, sizeof *M);
  if (!M) return NULL;
  for (int32_t i = 0; i < n; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      M[(size_t)i * n + A->colidx[k]] += A->val[k];
  return M;
}

/* In-place dense Cholesky (lower); false when a pivot is not positive. */
static int cholesky_ok(const cgm_csr *A) {
  int32_t n = A->nrows;
  double *M = to_dense(A);
  if (!M) return 0;
  int ok = 1;
  for (int32_t j = 0; j < n && ok; j++) {
    double d = M[(size_t)j * n + j];
    for (int32_t k = 0; k < j; k++) d -= M[(size_t)j * n + k] * M[(size_t)j * n + k];
    if (!(d > 0.0)) {
      ok = 0;
      break;
    }
    d = sqrt(d);
    M[(size_t)j * n + j] = d;
    for (int32_t i = j + 1; i < n; i++) {
      double s = M[(size_t)i * n + j];
      for (int32_t k = 0; k < j; k++) s -= M[(size_t)i * n + k] * M[(size_t)j * n + k];
      M[(size_t)i * n + j] = s / d;
    }
  }
  free(M);
  return ok;
}

/* Columns in range and strictly increasing within every row. */
static int rows_sorted(const cgm_csr *A) {
  if (A->rowptr[0] != 0 || A->rowptr[A->nrows] != A->nnz) return 0;
  for (int32_t i = 0; i < A->nrows; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      if (A->colidx[k] < 0 || A->colidx[k] >= A->ncols) return 0;
      if (k > A->rowptr[i] && A->colidx[k] <= A->colidx[k - 1]) return 0;
    }
  return 1;
}

static double entry(const cgm_csr *A, int32_t i, int32_t j) {
  for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
    if (A->colidx[k] == j) return A->val[k];
  return 0.0;
}

typedef struct {
  double mean, cv;
  int64_t min, max;
} rowstats;

static rowstats row_stats(const cgm_csr *A) {
  rowstats r = {0, 0, INT64_MAX, 0};
  double s = 0, s2 = 0;
  for (int32_t i = 0; i < A->nrows; i++) {
    int64_t l = A->rowptr[i + 1] - A->rowptr[i];
    s += (double)l;
    s2 += (double)l * (double)l;
    if (l < r.min) r.min = l;
    if (l > r.max) r.max = l;
  }
  r.mean = s / A->nrows;
  r.cv = sqrt(fmax(0.0, s2 / A->nrows - r.mean * r.mean)) / r.mean;
  return r;
}

/* ------------------------------------------------------------ elasticity */

/* Free-node number of node (x, y, z), -1 when clamped (x == 0). */
static int64_t free_node(int n, int x, int y, int z) {
  return x == 0 ? -1 : (int64_t)(x - 1) + (int64_t)n * (y + (int64_t)(n + 1) * z);
}

/* Independent element matrix: explicit B (6 x 24, Voigt) and D (6 x 6),
 * Ke = sum_gp B^T D B detJ. */
static void ref_element(double Ke[24][24]) {
  const double E = 1.0, nu = 0.3;
  const double c = E / ((1 + nu) * (1 - 2 * nu));
  double D[6][6] = {{0}};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) D[i][j] = c * (i == j ? 1 - nu : nu);
  for (int i = 3; i < 6; i++) D[i][i] = c * (1 - 2 * nu) / 2;
  memset(Ke, 0, sizeof(double) * 24 * 24);
  const double g = 1 / sqrt(3.0);
  for (int gp = 0; gp < 8; gp++) {
    double p[3] = {(gp & 1 ? 1 : -1) * g, (gp & 2 ? 1 : -1) * g, (gp & 4 ? 1 : -1) * g};
    double B[6][24] = {{0}};
    for (int a = 0; a < 8; a++) {
      double s[3] = {a & 1 ? 1 : -1, a & 2 ? 1 : -1, a & 4 ? 1 : -1};
      /* dN/dx = 2 dN/dxi for a unit cube */
      double dx = 2 * s[0] * (1 + s[1] * p[1]) * (1 + s[2] * p[2]) / 8;
      double dy = 2 * s[1] * (1 + s[0] * p[0]) * (1 + s[2] * p[2]) / 8;
      double dz = 2 * s[2] * (1 + s[0] * p[0]) * (1 + s[1] * p[1]) / 8;
      B[0][3 * a] = dx;
      B[1][3 * a + 1] = dy;
      B[2][3 * a + 2] = dz;
      B[3][3 * a + 1] = dz, B[3][3 * a + 2] = dy;
      B[4][3 * a] = dz, B[4][3 * a + 2] = dx;
      B[5][3 * a] = dy, B[5][3 * a + 1] = dx;
    }
    for (int r = 0; r < 24; r++)
      for (int q = 0; q < 24; q++) {
        double s = 0;
        for (int k = 0; k < 6; k++)
          for (int l = 0; l < 6; l++) s += B[k][r] * D[k][l] * B[l][q];
        Ke[r][q] += s / 8; /* detJ = 1/8, weights 1 */
      }
  }
}

/* Element-by-element assembly through COO, then entry-wise comparison. */
static void check_elasticity_values(int n, const cgm_csr *A) {
  static double Ke[24][24];
  ref_element(Ke);
  int64_t cap = (int64_t)n * n * n * 576;
  int32_t *ri = malloc((size_t)cap * sizeof *ri), *ci = malloc((size_t)cap * sizeof *ci);
  double *v = malloc((size_t)cap * sizeof *v);
  CHECK(ri && ci && v);
  if (!ri || !ci || !v) goto out;
  int64_t m = 0;
  for (int ez = 0; ez < n; ez++)
    for (int ey = 0; ey < n; ey++)
      for (int ex = 0; ex < n; ex++)
        for (int a = 0; a < 8; a++) {
          int64_t fa = free_node(n, ex + (a & 1), ey + (a >> 1 & 1), ez + (a >> 2 & 1));
          if (fa < 0) continue;
          for (int b = 0; b < 8; b++) {
            int64_t fb = free_node(n, ex + (b & 1), ey + (b >> 1 & 1), ez + (b >> 2 & 1));
            if (fb < 0) continue;
            for (int i = 0; i < 3; i++)
              for (int j = 0; j < 3; j++) {
                ri[m] = (int32_t)(3 * fa + i), ci[m] = (int32_t)(3 * fb + j);
                v[m++] = Ke[3 * a + i][3 * b + j];
              }
          }
        }
  cgm_csr R;
  cgm_error e = {0};
  CHECK_OK(cgm_csr_from_coo(A->nrows, A->ncols, m, ri, ci, v, &R, NULL, &e));
  CHECK(R.nnz == A->nnz);
  double dmax = 0, amax = 0;
  for (int32_t i = 0; i < R.nrows; i++)
    for (int64_t k = R.rowptr[i]; k < R.rowptr[i + 1]; k++) {
      dmax = fmax(dmax, fabs(R.val[k] - entry(A, i, R.colidx[k])));
      amax = fmax(amax, fabs(R.val[k]));
    }
  CHECK_MSG(dmax <= 1e-13 * amax, "n = %d: max |A - reference| = %g (max |A| %g)", n, dmax, amax);
  cgm_csr_free(&R);
out:
  free(ri);
  free(ci);
  free(v);
}

static void test_elasticity(void) {
  for (int n = 1; n <= 5; n++) {
    cgm_csr A;
    cgm_error e = {0};
    cgm_status st = cgm_gen_elasticity3d(n, &A, &e);
    CHECK_MSG(st == CGM_OK, "n = %d: %s", n, e.msg);
    if (st) continue;
    int64_t nodes = (int64_t)n * (n + 1) * (n + 1);
    CHECK(A.nrows == 3 * nodes && A.ncols == A.nrows);
    CHECK(rows_sorted(&A));
    CHECK_MSG(cgm_csr_is_symmetric(&A), "n = %d: not exactly symmetric", n);

    /* nnz by brute force: 9 per ordered pair of free nodes sharing an element. */
    int64_t pairs = 0;
    for (int z = 0; z <= n; z++)
      for (int y = 0; y <= n; y++)
        for (int x = 1; x <= n; x++)
          for (int z2 = 0; z2 <= n; z2++)
            for (int y2 = 0; y2 <= n; y2++)
              for (int x2 = 1; x2 <= n; x2++)
                pairs += abs(x - x2) <= 1 && abs(y - y2) <= 1 && abs(z - z2) <= 1;
    CHECK_MSG(A.nnz == 9 * pairs, "n = %d: nnz %lld, expected %lld", n, (long long)A.nnz,
              (long long)(9 * pairs));

    double *d = malloc((size_t)A.nrows * sizeof *d);
    cgm_csr_diagonal(&A, d);
    int32_t badd = -1;
    for (int32_t i = 0; i < A.nrows; i++)
      if (!(d[i] > 0) && badd < 0) badd = i;
    CHECK_MSG(badd < 0, "n = %d: diagonal of row %d is not positive", n, badd);

    /* Rigid translations and rotations, and a uniform stretch (patch test).
     * Rows of nodes with no clamped neighbour (x >= 2) see the full
     * unconstrained stiffness, whose null space holds rigid motions; nodes
     * away from every face are in equilibrium under a homogeneous strain. */
    double *u = malloc((size_t)A.nrows * sizeof *u), *r = malloc((size_t)A.nrows * sizeof *r);
    for (int mode = 0; mode < 7; mode++) {
      for (int z = 0; z <= n; z++)
        for (int y = 0; y <= n; y++)
          for (int x = 1; x <= n; x++) {
            int64_t f = free_node(n, x, y, z);
            double *w = u + 3 * f;
            w[0] = w[1] = w[2] = 0;
            if (mode < 3)
              w[mode] = 1; /* translation */
            else if (mode == 3)
              w[0] = -y, w[1] = x; /* rotation about z */
            else if (mode == 4)
              w[1] = -z, w[2] = y; /* about x */
            else if (mode == 5)
              w[2] = -x, w[0] = z; /* about y */
            else
              w[0] = x; /* uniaxial strain */
          }
      cgm_csr_spmv(&A, u, r);
      double worst = 0;
      for (int z = 0; z <= n; z++)
        for (int y = 0; y <= n; y++)
          for (int x = 2; x <= n; x++) {
            if (mode == 6 && (x == n || y == 0 || y == n || z == 0 || z == n)) continue;
            int64_t f = free_node(n, x, y, z);
            for (int c = 0; c < 3; c++) worst = fmax(worst, fabs(r[3 * f + c]) / d[3 * f + c]);
          }
      CHECK_MSG(worst < 1e-12 * (mode < 3 ? 1 : n), "n = %d, mode %d: |A u| / diag = %g", n, mode,
                worst);
    }
    free(u);
    free(r);
    free(d);

    if (n <= 3) {
      CHECK_MSG(cholesky_ok(&A), "n = %d: dense Cholesky failed", n);
      check_elasticity_values(n, &A);
    }
    if (n == 2) { /* one row by hand: a corner node far from the clamp */
      int64_t f = free_node(n, 2, 2, 2);
      CHECK(A.rowptr[3 * f + 1] - A.rowptr[3 * f] == 3 * 8);
    }
    cgm_csr_free(&A);
  }
  /* Interior rows have exactly 81 entries. */
  {
    cgm_csr A;
    cgm_error e = {0};
    CHECK_OK(cgm_gen_elasticity3d(4, &A, &e));
    int64_t f = free_node(4, 2, 2, 2);
    CHECK(A.rowptr[3 * f + 1] - A.rowptr[3 * f] == 81);
    cgm_csr_free(&A);
  }
  cgm_csr A;
  cgm_error e = {0};
  CHECK(cgm_gen_elasticity3d(0, &A, &e) == CGM_EINPUT && e.msg[0]);
  e.msg[0] = 0;
  CHECK(cgm_gen_elasticity3d(-3, &A, &e) == CGM_EINPUT && e.msg[0]);
  e.msg[0] = 0;
  CHECK(cgm_gen_elasticity3d(1000, &A, &e) == CGM_EINPUT && strstr(e.msg, "2^31"));
  e.msg[0] = 0;
  CHECK(cgm_gen_elasticity3d(INT32_MAX, &A, &e) == CGM_EINPUT && e.msg[0]);
}

/* ---------------------------------------------------------------- random */

/* Symmetric, sorted, strictly diagonally dominant with positive diagonal. */
static void check_random_spd(const cgm_csr *A, const char *what) {
  CHECK_MSG(rows_sorted(A), "%s: rows not sorted", what);
  CHECK_MSG(cgm_csr_is_symmetric(A), "%s: not exactly symmetric", what);
  int32_t bad = -1;
  for (int32_t i = 0; i < A->nrows && bad < 0; i++) {
    double diag = 0, off = 0;
    int seen = 0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      if (A->colidx[k] == i)
        diag = A->val[k], seen = 1;
      else if (A->val[k] == 0 || fabs(A->val[k]) > 1)
        bad = i;
      else
        off += fabs(A->val[k]);
    }
    if (!seen || !(diag > 0) || !(diag > off)) bad = i;
  }
  CHECK_MSG(bad < 0, "%s: row %d is not strictly diagonally dominant with a positive diagonal",
            what, bad);
}

static int same_matrix(const cgm_csr *A, const cgm_csr *B) {
  return A->nrows == B->nrows && A->nnz == B->nnz &&
         !memcmp(A->rowptr, B->rowptr, ((size_t)A->nrows + 1) * sizeof *A->rowptr) &&
         !memcmp(A->colidx, B->colidx, (size_t)A->nnz * sizeof *A->colidx) &&
         !memcmp(A->val, B->val, (size_t)A->nnz * sizeof *A->val);
}

static void test_random_errors(void) {
  cgm_csr A;
  cgm_error e;
#define BAD(call, want)                                                                            \
  do {                                                                                             \
    memset(&e, 0, sizeof e);                                                                       \
    CHECK_MSG((call) == (want) && e.code == (want) && e.msg[0], "%s", #call);                      \
  } while (0)
  BAD(cgm_gen_random_spd(0, 4, CGM_ROWDIST_UNIFORM, 2.5, 0, 1, &A, &e), CGM_EINPUT);
  BAD(cgm_gen_random_spd(-5, 4, CGM_ROWDIST_UNIFORM, 2.5, 0, 1, &A, &e), CGM_EINPUT);
  BAD(cgm_gen_random_spd(100, 0.5, CGM_ROWDIST_UNIFORM, 2.5, 0, 1, &A, &e), CGM_EINPUT);
  BAD(cgm_gen_random_spd(100, NAN, CGM_ROWDIST_UNIFORM, 2.5, 0, 1, &A, &e), CGM_EINPUT);
  BAD(cgm_gen_random_spd(100, INFINITY, CGM_ROWDIST_UNIFORM, 2.5, 0, 1, &A, &e), CGM_EINPUT);
  BAD(cgm_gen_random_spd(10, 11, CGM_ROWDIST_UNIFORM, 2.5, 0, 1, &A, &e), CGM_EINPUT);
  BAD(cgm_gen_random_spd(100, 4, CGM_ROWDIST_POWERLAW, 1.0, 0, 1, &A, &e), CGM_EINPUT);
  BAD(cgm_gen_random_spd(100, 4, CGM_ROWDIST_POWERLAW, 0.5, 0, 1, &A, &e), CGM_EINPUT);
  BAD(cgm_gen_random_spd(100, 4, CGM_ROWDIST_POWERLAW, NAN, 0, 1, &A, &e), CGM_EINPUT);
  BAD(cgm_gen_random_spd(100, 4, (cgm_rowdist)7, 2.5, 0, 1, &A, &e), CGM_EINPUT);
  BAD(cgm_gen_random_spd(100, 8, CGM_ROWDIST_UNIFORM, 2.5, 5, 1, &A, &e), CGM_EINPUT);
  /* a decreasing law on [1, 10] cannot average 8 */
  BAD(cgm_gen_random_spd(100, 8, CGM_ROWDIST_POWERLAW, 2.5, 10, 1, &A, &e), CGM_EINPUT);
#undef BAD
  /* the uniform law ignores alpha */
  cgm_error e2 = {0};
  CHECK_OK(cgm_gen_random_spd(50, 3, CGM_ROWDIST_UNIFORM, 0.0, 0, 1, &A, &e2));
  cgm_csr_free(&A);
}

static void test_random_small(void) {
  cgm_csr A;
  cgm_error e = {0};
  /* 1 x 1: just the diagonal 1 */
  CHECK_OK(cgm_gen_random_spd(1, 1, CGM_ROWDIST_UNIFORM, 2.5, 0, 1, &A, &e));
  CHECK(A.nrows == 1 && A.nnz == 1 && A.colidx[0] == 0 && A.val[0] == 1.0);
  cgm_csr_free(&A);
  /* avg 1: every target is 1, the matrix is the identity */
  CHECK_OK(cgm_gen_random_spd(100, 1, CGM_ROWDIST_UNIFORM, 2.5, 0, 1, &A, &e));
  CHECK(A.nnz == 100);
  cgm_csr_free(&A);
  /* dense-ish: avg = n */
  CHECK_OK(cgm_gen_random_spd(20, 20, CGM_ROWDIST_UNIFORM, 2.5, 0, 3, &A, &e));
  check_random_spd(&A, "n 20 avg 20");
  CHECK(row_stats(&A).max <= 20);
  cgm_csr_free(&A);

  for (int d = 0; d < 2; d++) {
    cgm_rowdist dist = d ? CGM_ROWDIST_POWERLAW : CGM_ROWDIST_UNIFORM;
    for (uint64_t seed = 1; seed <= 3; seed++) {
      CHECK_OK(cgm_gen_random_spd(300, 6, dist, 2.2, 0, seed, &A, &e));
      check_random_spd(&A, d ? "n 300 powerlaw" : "n 300 uniform");
      CHECK_MSG(cholesky_ok(&A), "n 300 %s seed %llu: dense Cholesky failed",
                d ? "powerlaw" : "uniform", (unsigned long long)seed);
      cgm_csr_free(&A);
    }
  }
}

static void test_random_stats(void) {
  const int32_t n = 20000;
  const double avg = 8;
  cgm_csr U, P, P2, Q;
  cgm_error e = {0};
  CHECK_OK(cgm_gen_random_spd(n, avg, CGM_ROWDIST_UNIFORM, 2.5, 0, 42, &U, &e));
  CHECK_OK(cgm_gen_random_spd(n, avg, CGM_ROWDIST_POWERLAW, 2.5, 0, 42, &P, &e));
  check_random_spd(&U, "uniform n 20000");
  check_random_spd(&P, "powerlaw n 20000");
  rowstats su = row_stats(&U), sp = row_stats(&P);
  printf("uniform  n %d avg %g: mean %.3f cv %.3f min %lld max %lld\n", n, avg, su.mean, su.cv,
         (long long)su.min, (long long)su.max);
  printf("powerlaw n %d avg %g alpha 2.5: mean %.3f cv %.3f min %lld max %lld\n", n, avg, sp.mean,
         sp.cv, (long long)sp.min, (long long)sp.max);
  CHECK_MSG(fabs(su.mean - avg) <= 0.25 * avg, "uniform mean %g", su.mean);
  CHECK_MSG(fabs(sp.mean - avg) <= 0.25 * avg, "powerlaw mean %g", sp.mean);
  /* Uniform targets on 1..15 have cv 0.54; the Chung-Lu noise adds a bit. */
  CHECK_MSG(su.cv > 0.4 && su.cv < 0.7, "uniform cv %g", su.cv);
  CHECK_MSG(sp.cv > 1.5, "powerlaw cv %g", sp.cv);
  CHECK_MSG(sp.max > 20 * avg, "powerlaw max row %lld: no heavy tail", (long long)sp.max);
  CHECK(su.max <= 2 * avg - 1 + 15); /* targets <= 15, plus Poisson-like noise */

  /* Determinism: same seed, same bits; another seed, another matrix. */
  CHECK_OK(cgm_gen_random_spd(n, avg, CGM_ROWDIST_POWERLAW, 2.5, 0, 42, &P2, &e));
  CHECK(same_matrix(&P, &P2));
  cgm_csr_free(&P2);
  CHECK_OK(cgm_gen_random_spd(n, avg, CGM_ROWDIST_POWERLAW, 2.5, 0, 43, &P2, &e));
  CHECK(!same_matrix(&P, &P2));
  cgm_csr_free(&P2);
  CHECK_OK(cgm_gen_random_spd(n, avg, CGM_ROWDIST_UNIFORM, 2.5, 0, 42, &P2, &e));
  CHECK(same_matrix(&U, &P2));
  cgm_csr_free(&P2);

  /* maxlen is a hard cap, also where many targets exceed it. */
  CHECK_OK(cgm_gen_random_spd(n, avg, CGM_ROWDIST_POWERLAW, 2.5, 100, 7, &Q, &e));
  check_random_spd(&Q, "powerlaw maxlen 100");
  rowstats sq = row_stats(&Q);
  printf("powerlaw n %d avg %g alpha 2.5 maxlen 100: mean %.3f cv %.3f max %lld\n", n, avg, sq.mean,
         sq.cv, (long long)sq.max);
  CHECK_MSG(sq.max <= 100, "max row %lld > maxlen 100", (long long)sq.max);
  CHECK_MSG(fabs(sq.mean - avg) <= 0.25 * avg, "powerlaw maxlen 100 mean %g", sq.mean);
  cgm_csr_free(&Q);
  CHECK_OK(cgm_gen_random_spd(n, avg, CGM_ROWDIST_UNIFORM, 2.5, 12, 7, &Q, &e));
  check_random_spd(&Q, "uniform maxlen 12");
  CHECK_MSG(row_stats(&Q).max <= 12, "max row %lld > maxlen 12", (long long)row_stats(&Q).max);
  cgm_csr_free(&Q);

  /* A heavier tail (alpha 1.5) and a lighter one (alpha 3.5) still average avg. */
  for (int k = 0; k < 2; k++) {
    double alpha = k ? 3.5 : 1.5;
    CHECK_OK(cgm_gen_random_spd(n, avg, CGM_ROWDIST_POWERLAW, alpha, 0, 5, &Q, &e));
    check_random_spd(&Q, "powerlaw alpha");
    rowstats s = row_stats(&Q);
    printf("powerlaw n %d avg %g alpha %g: mean %.3f cv %.3f max %lld\n", n, avg, alpha, s.mean,
           s.cv, (long long)s.max);
    CHECK_MSG(fabs(s.mean - avg) <= 0.25 * avg, "alpha %g mean %g", alpha, s.mean);
    cgm_csr_free(&Q);
  }
  cgm_csr_free(&U);
  cgm_csr_free(&P);
}

/* ----------------------------------------------------------------- arrow */

/* One row of len entries (row 0), the others 2-4: the longest block row of
 * the layout is ceil(len / N) blocks or so; SPD by diagonal dominance. */
static void test_arrow(void) {
  cgm_error e = {0};
  cgm_csr A;
  const int32_t n = 300, lens[] = {1, 2, 3, 40, 300};
  for (int i = 0; i < 5; i++) {
    CHECK_OK(cgm_gen_arrow(n, lens[i], &A, &e));
    char what[32];
    snprintf(what, sizeof what, "arrow len %d", lens[i]);
    check_random_spd(&A, what);
    int32_t row0 = (int32_t)(A.rowptr[1] - A.rowptr[0]), other = 0;
    for (int32_t r = 1; r < n; r++)
      if (A.rowptr[r + 1] - A.rowptr[r] > other) other = (int32_t)(A.rowptr[r + 1] - A.rowptr[r]);
    /* row 0: its diagonal, column 1, and columns 2 .. len - 1 */
    int32_t want = lens[i] > 2 ? lens[i] : 2;
    CHECK_MSG(row0 == want && other <= 4, "%s: row 0 has %d entries (want %d), others up to %d",
              what, row0, want, other);
    cgm_features f;
    CHECK_OK(cgm_plan_features(&A, &f, &e));
    /* 8x8: block row 0 reads block columns 0 .. max(len - 1, 8) / 8 (row 7
     * reads column 8); the tridiagonal's block rows read 3. */
    int32_t wb = (want - 1 > 8 ? want - 1 : 8) / 8 + 1;
    if (wb < 3) wb = 3;
    CHECK_MSG(f.block[3].max_blocks_per_row == wb, "%s: %d blocks, want %d", what,
              f.block[3].max_blocks_per_row, wb);
    cgm_csr_free(&A);
  }
  CHECK(cgm_gen_arrow(10, 11, &A, &e) == CGM_EINPUT && strstr(e.msg, "len"));
  CHECK(cgm_gen_arrow(0, 1, &A, &e) == CGM_EINPUT);
  /* The scattered arrow: row 0 holds its diagonal, column 1 and len - 2
   * distinct multiples of unit from 2 on, drawn anew by the seed; SPD. */
  const int32_t units[] = {1, 2, 8};
  for (int i = 0; i < 3; i++) {
    const int32_t u = units[i], len = 60;
    CHECK_OK(cgm_gen_arrow_scattered(4096, len, u, 7, &A, &e));
    char what[48];
    snprintf(what, sizeof what, "scattered arrow unit %d", u);
    check_random_spd(&A, what);
    int32_t row0 = (int32_t)(A.rowptr[1] - A.rowptr[0]), far = 0, bad = 0;
    for (int64_t k = A.rowptr[0]; k < A.rowptr[1]; k++) {
      const int32_t c = A.colidx[k];
      if (c > 1) far++, bad += c % u != 0;
    }
    CHECK_MSG(row0 == len && far == len - 2 && bad == 0, "%s: row 0 %d entries, %d far, %d bad",
              what, row0, far, bad);
    cgm_csr B;
    CHECK_OK(cgm_gen_arrow_scattered(4096, len, u, 7, &B, &e));
    CHECK(same_matrix(&A, &B));
    cgm_csr_free(&B);
    CHECK_OK(cgm_gen_arrow_scattered(4096, len, u, 8, &B, &e));
    CHECK(!same_matrix(&A, &B));
    cgm_csr_free(&B);
    cgm_csr_free(&A);
  }
  CHECK(cgm_gen_arrow_scattered(64, 60, 8, 1, &A, &e) == CGM_EINPUT && strstr(e.msg, "fit"));
  CHECK(cgm_gen_arrow_scattered(64, 10, 0, 1, &A, &e) == CGM_EINPUT);
}

/* ------------------------------------------------------------------ band */

/* Every row i holds columns i - h .. i + h (clipped): 2h + 1 entries inside,
 * h + 1 at the ends; SPD by diagonal dominance; its block rows are about
 * 2h / N + 1 blocks long, all of them (the walk of every SpMV thread). */
static void test_band(void) {
  cgm_error e = {0};
  cgm_csr A;
  const int32_t n = 200, hs[] = {1, 4, 20, 199};
  for (int i = 0; i < 4; i++) {
    const int32_t h = hs[i];
    CHECK_OK(cgm_gen_band(n, h, &A, &e));
    char what[32];
    snprintf(what, sizeof what, "band h %d", h);
    check_random_spd(&A, what);
    for (int32_t r = 0; r < n; r++) {
      int32_t lo = r - h < 0 ? 0 : r - h, hi = r + h >= n ? n - 1 : r + h;
      int64_t len = A.rowptr[r + 1] - A.rowptr[r];
      CHECK_MSG(len == hi - lo + 1 && A.colidx[A.rowptr[r]] == lo &&
                    A.colidx[A.rowptr[r + 1] - 1] == hi,
                "%s: row %d has %lld entries from %d (want %d from %d)", what, r, (long long)len,
                A.colidx[A.rowptr[r]], hi - lo + 1, lo);
    }
    cgm_features f;
    CHECK_OK(cgm_plan_features(&A, &f, &e));
    for (int b = 0; b < CGM_NBLOCKSIZES; b++) {
      const int bn = cgm_block_sizes[b];
      /* block row k spans rows kN .. kN + N - 1, columns kN - h .. kN + N - 1 + h */
      int32_t want = 0;
      for (int32_t k = 0; k * bn < n; k++) {
        int32_t c0 = k * bn - h < 0 ? 0 : k * bn - h;
        int32_t c1 = k * bn + bn - 1 + h >= n ? n - 1 : k * bn + bn - 1 + h;
        if (c1 / bn - c0 / bn + 1 > want) want = c1 / bn - c0 / bn + 1;
      }
      CHECK_MSG(f.block[b].max_blocks_per_row == want, "%s N=%d: %d blocks, want %d", what, bn,
                f.block[b].max_blocks_per_row, want);
    }
    cgm_csr_free(&A);
  }
  CHECK(cgm_gen_band(10, 10, &A, &e) == CGM_EINPUT && strstr(e.msg, "h"));
  CHECK(cgm_gen_band(10, 0, &A, &e) == CGM_EINPUT);
}

/* cgm_gen_poisson by dimension: the 2D and 3D generators themselves
 * (same rows and entries), and a clear refusal of another dimension. */
static void test_poisson_dim(void) {
  cgm_error err = {0};
  for (int dim = 2; dim <= 3; dim++) {
    cgm_csr A, B;
    CHECK_OK(cgm_gen_poisson(dim, 5, &A, &err));
    CHECK_OK(dim == 2 ? cgm_gen_poisson2d(5, &B, &err) : cgm_gen_poisson3d(5, &B, &err));
    CHECK(A.nrows == (dim == 2 ? 25 : 125) && A.nrows == B.nrows && A.nnz == B.nnz &&
          !memcmp(A.rowptr, B.rowptr, sizeof *A.rowptr * (A.nrows + 1)) &&
          !memcmp(A.colidx, B.colidx, sizeof *A.colidx * A.nnz) &&
          !memcmp(A.val, B.val, sizeof *A.val * A.nnz));
    cgm_csr_free(&A);
    cgm_csr_free(&B);
  }
  cgm_csr C;
  CHECK(cgm_gen_poisson(4, 5, &C, &err) == CGM_EINPUT && strstr(err.msg, "2D or 3D"));
}

/* Random geometric meshes: 3 unknowns a point, symmetric, positive
 * diagonal, positive definite (a dense Cholesky), every point joined to at
 * least its k nearest (rows of >= 3 (k + 1) entries), the same graph under
 * both numberings, deterministic in the seed. */
static void test_mesh3d(void) {
  cgm_error e = {0};
  cgm_csr A, B, C, R;
  CHECK_OK(cgm_gen_mesh3d(70, 5, CGM_NUMBERING_SORTED, 42, &A, &e));
  CHECK(A.nrows == 210 && A.ncols == 210 && rows_sorted(&A));
  CHECK(cgm_csr_is_symmetric(&A));
  for (int32_t i = 0; i < A.nrows; i++) {
    CHECK(entry(&A, i, i) > 0.0);
    CHECK(A.rowptr[i + 1] - A.rowptr[i] >= 3 * 6);
  }
  CHECK(cholesky_ok(&A));
  CHECK_OK(cgm_gen_mesh3d(70, 5, CGM_NUMBERING_SORTED, 42, &B, &e));
  CHECK(B.nnz == A.nnz && !memcmp(B.colidx, A.colidx, sizeof *A.colidx * (size_t)A.nnz) &&
        !memcmp(B.val, A.val, sizeof *A.val * (size_t)A.nnz));
  CHECK_OK(cgm_gen_mesh3d(70, 5, CGM_NUMBERING_SORTED, 43, &C, &e));
  CHECK(C.nnz != A.nnz || memcmp(C.val, A.val, sizeof *A.val * (size_t)A.nnz) != 0);
  CHECK_OK(cgm_gen_mesh3d(70, 5, CGM_NUMBERING_RANDOM, 42, &R, &e));
  CHECK(R.nnz == A.nnz && cgm_csr_is_symmetric(&R) && cholesky_ok(&R));
  /* the same values, renumbered: equal diagonal sums */
  double da = 0, dr = 0;
  for (int32_t i = 0; i < A.nrows; i++) da += entry(&A, i, i), dr += entry(&R, i, i);
  CHECK_NEAR(da, dr, 1e-12);
  cgm_csr_free(&B);
  CHECK(cgm_gen_mesh3d(5, 5, CGM_NUMBERING_SORTED, 1, &B, &e) == CGM_EINPUT);
  cgm_csr_free(&A);
  cgm_csr_free(&B);
  cgm_csr_free(&C);
  cgm_csr_free(&R);
}

/* The Kronecker sum A (+) T_k: k rows a row of A, A's entries in every
 * layer, 2 added to the diagonal and -1 between layers; SPD when A is. */
static void test_kron_sum(void) {
  cgm_error e = {0};
  cgm_csr A, B;
  CHECK_OK(cgm_gen_poisson2d(4, &A, &e));
  const int32_t k = 5;
  CHECK_OK(cgm_gen_kron_sum(&A, k, &B, &e));
  CHECK(B.nrows == 16 * k && B.nnz == A.nnz * k + 2 * 16 * (k - 1) && rows_sorted(&B));
  CHECK(cgm_csr_is_symmetric(&B) && cholesky_ok(&B));
  for (int32_t i = 0; i < 16; i++)
    for (int32_t j = 0; j < 16; j++)
      for (int32_t a = 0; a < k; a++) {
        const double want = entry(&A, i, j) + (i == j ? 2.0 : 0.0);
        CHECK(entry(&B, i * k + a, j * k + a) == want);
        if (i == j && a + 1 < k) CHECK(entry(&B, i * k + a, i * k + a + 1) == -1.0);
        if (j != i && a + 1 < k) CHECK(entry(&B, i * k + a, j * k + a + 1) == 0.0);
      }
  cgm_csr_free(&B);
  CHECK(cgm_gen_kron_sum(&A, 0, &B, &e) == CGM_EINPUT);
  A.val[A.rowptr[0] + 1] += 0.5; /* (0, 1) apart from (1, 0): not symmetric, the sum not SPD */
  CHECK(cgm_gen_kron_sum(&A, k, &B, &e) == CGM_EINPUT && strstr(e.msg, "not symmetric"));
  cgm_csr_free(&A);
}

int main(void) {
  test_mesh3d();
  test_kron_sum();
  test_poisson_dim();
  test_arrow();
  test_band();
  test_elasticity();
  test_random_errors();
  test_random_small();
  test_random_stats();
  TEST_MAIN_END();
}
