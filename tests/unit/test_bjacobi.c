/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Block-Jacobi preconditioning on the CPU backend: the diagonal blocks'
 * inverses (M_blk inv = I on random SPD blocks), N = 1 against Jacobi,
 * iteration counts against a reference PCG written here (its own
 * Gauss-Jordan inverses, plain CSR products), the recomputed residual, fewer
 * iterations than Jacobi where the blocks hold the coupling of a node's
 * unknowns, and the refusal of a diagonal block that is not SPD. */
#include <stdint.h>

#include "cgmodel/solver.h"
#include "solver/backend.h"
#include "test_linalg.h"
#include "test_util.h"

/* The dense block of A at rows and columns [r0, r0 + n), padding (rows past
 * A) as the identity, read independently of the library. */
static void dense_block(const cgm_csr *A, int32_t r0, int n, double *a) {
  for (int i = 0; i < n * n; i++) a[i] = 0.0;
  for (int i = 0; i < n; i++) {
    if (r0 + i >= A->nrows) {
      a[i * n + i] = 1.0;
      continue;
    }
    for (int64_t q = A->rowptr[r0 + i]; q < A->rowptr[r0 + i + 1]; q++) {
      const int32_t c = A->colidx[q] - r0;
      if (c >= 0 && c < n) a[i * n + c] += A->val[q];
    }
  }
}

/* Gauss-Jordan with partial pivoting (not the library's Cholesky): inv =
 * a^-1; false when singular. */
static bool gauss_jordan(int n, const double *a, double *inv) {
  double m[8 * 16];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < 2 * n; j++) m[i * 2 * n + j] = j < n ? a[i * n + j] : (j - n == i);
  for (int c = 0; c < n; c++) {
    int p = c;
    for (int i = c + 1; i < n; i++)
      if (fabs(m[i * 2 * n + c]) > fabs(m[p * 2 * n + c])) p = i;
    if (m[p * 2 * n + c] == 0.0) return false;
    for (int j = 0; j < 2 * n; j++) {
      double t = m[c * 2 * n + j];
      m[c * 2 * n + j] = m[p * 2 * n + j];
      m[p * 2 * n + j] = t;
    }
    const double d = m[c * 2 * n + c];
    for (int j = 0; j < 2 * n; j++) m[c * 2 * n + j] /= d;
    for (int i = 0; i < n; i++)
      if (i != c) {
        const double f = m[i * 2 * n + c];
        for (int j = 0; j < 2 * n; j++) m[i * 2 * n + j] -= f * m[c * 2 * n + j];
      }
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) inv[i * n + j] = m[i * 2 * n + n + j];
  return true;
}

/* A symmetric matrix of `rows` rows whose n x n diagonal blocks are random
 * SPD (G G^T + n I, G uniform in [-1, 1]), with weak symmetric coupling
 * between neighbouring blocks. */
static void random_blocks(int32_t rows, int n, uint64_t seed, cgm_csr *A) {
  const int64_t cap = (int64_t)rows * (n + 2) * 2 + 16;
  int32_t *ri = malloc(cap * sizeof *ri), *ci = malloc(cap * sizeof *ci);
  double *v = malloc(cap * sizeof *v);
  int64_t e = 0;
  for (int32_t r0 = 0; r0 < rows; r0 += n) {
    double g[64], a[64];
    for (int i = 0; i < n * n; i++) g[i] = 2.0 * unif01(&seed) - 1.0;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        double s = i == j ? n : 0.0;
        for (int k = 0; k < n; k++) s += g[i * n + k] * g[j * n + k];
        a[i * n + j] = s;
      }
    for (int i = 0; i < n && r0 + i < rows; i++)
      for (int j = 0; j < n && r0 + j < rows; j++) {
        ri[e] = r0 + i, ci[e] = r0 + j, v[e++] = a[i * n + j];
      }
    if (r0 + n < rows) { /* coupling to the next block: outside every diagonal block */
      const double c = 0.1 * unif01(&seed);
      ri[e] = r0, ci[e] = r0 + n, v[e++] = -c;
      ri[e] = r0 + n, ci[e] = r0, v[e++] = -c;
    }
  }
  cgm_error err;
  CHECK_OK(cgm_csr_from_coo(rows, rows, e, ri, ci, v, A, NULL, &err));
  free(ri), free(ci), free(v);
}

/* M_blk inv = I to 1e-12 on random SPD blocks, the last block cut short
 * (rows not a multiple of n: the padding is the identity), and blk the
 * blocks themselves. */
static void test_inverses(void) {
  const int sizes[] = {1, 2, 4, 8};
  for (int t = 0; t < 4; t++) {
    const int n = sizes[t];
    const int32_t rows = 40 * n + (n > 1 ? n - 1 : 0);
    cgm_csr A;
    random_blocks(rows, n, 1234 + n, &A);
    const int32_t nb = cgm_bjacobi_blocks(rows, n);
    CHECK(nb == (rows + n - 1) / n);
    double *inv = malloc((size_t)nb * n * n * sizeof *inv),
           *blk = malloc((size_t)nb * n * n * sizeof *blk);
    cgm_error err = {0};
    CHECK_OK(cgm_bjacobi_build(&A, n, inv, blk, &err));
    double worst = 0.0, blk_diff = 0.0;
    for (int32_t k = 0; k < nb; k++) {
      double a[64];
      dense_block(&A, k * n, n, a);
      const double *x = inv + (int64_t)k * n * n;
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
          double s = 0.0;
          for (int c = 0; c < n; c++) s += a[i * n + c] * x[c * n + j];
          const double d = fabs(s - (i == j ? 1.0 : 0.0));
          if (d > worst) worst = d;
          const double b = fabs(blk[(int64_t)k * n * n + i * n + j] - a[i * n + j]);
          if (b > blk_diff) blk_diff = b;
        }
    }
    CHECK_MSG(worst <= 1e-12, "N=%d: max |M_blk inv - I| = %.3g", n, worst);
    CHECK_MSG(blk_diff == 0.0, "N=%d: the blocks differ from A's by %.3g", n, blk_diff);
    /* inv = NULL-free variant: blk is optional */
    CHECK_OK(cgm_bjacobi_build(&A, n, inv, NULL, &err));
    free(inv), free(blk);
    cgm_csr_free(&A);
  }
}

static double *rhs_ones(const cgm_csr *A) {
  double *one = malloc(A->ncols * sizeof *one), *b = malloc(A->nrows * sizeof *b);
  for (int32_t i = 0; i < A->ncols; i++) one[i] = 1.0;
  cgm_csr_spmv(A, one, b);
  free(one);
  return b;
}

/* A solve at layout block size n with block-Jacobi's block pblock (0: the
 * matrix's point block, else n; cgm_precond_block_size). */
static cgm_solve_result solve_pb(const cgm_csr *A, const double *b, int n, int pblock,
                                 cgm_precond pc, cgm_precision p, cgm_reorder reorder,
                                 cgm_status want, char *msg) {
  cgm_solve_opts o = cgm_solve_opts_default();
  o.layout = cgm_bcsr_default_params(n);
  o.precond = pc;
  o.precond_block = pc == CGM_PRECOND_BLOCK ? pblock : 0; /* alone it would be refused */
  o.precision = p;
  o.reorder = reorder;
  cgm_solve_result r;
  cgm_error err = {0};
  double *x = calloc((size_t)A->nrows, sizeof *x);
  cgm_status st = cgm_solve(A, b, x, &o, &r, &err);
  CHECK_MSG(st == want, "N=%d %s %s: status %d, want %d: %s", n, cgm_precond_name(pc),
            cgm_precision_name(p), st, want, err.msg);
  if (msg) snprintf(msg, 1024, "%s", err.msg);
  if (st == CGM_OK) {
    const double rel = test_residual(A, b, x);
    CHECK_MSG(rel <= cgm_solve_tol(&o), "N=%d %s %s: recomputed residual %.3g above %.3g", n,
              cgm_precond_name(pc), cgm_precision_name(p), rel, cgm_solve_tol(&o));
    CHECK_NEAR(rel, r.relative_residual, 1e-6);
  }
  free(x);
  return r;
}

/* Blocks of the layout's size n (block-Jacobi's block given as n). */
static cgm_solve_result solve(const cgm_csr *A, const double *b, int n, cgm_precond pc,
                              cgm_precision p, cgm_reorder reorder, cgm_status want, char *msg) {
  return solve_pb(A, b, n, n, pc, p, reorder, want, msg);
}

/* Plain PCG in double from x = 0 with block-Jacobi of block size n (n = 1:
 * Jacobi), the stop test on the iterated residual as the solver's, the
 * inverses by Gauss-Jordan: the iteration count the solver must reproduce. */
static int reference_pcg(const cgm_csr *A, const double *b, int n, double tol) {
  const int32_t m = A->nrows, nb = (m + n - 1) / n;
  const int32_t mp = nb * n;
  double *inv = malloc((size_t)nb * n * n * sizeof *inv);
  double *x = calloc(mp, sizeof *x), *r = calloc(mp, sizeof *r), *z = calloc(mp, sizeof *z),
         *p = calloc(mp, sizeof *p), *q = calloc(mp, sizeof *q);
  for (int32_t k = 0; k < nb; k++) {
    double a[64];
    dense_block(A, k * n, n, a);
    CHECK(gauss_jordan(n, a, inv + (int64_t)k * n * n));
  }
  double bb = 0.0;
  for (int32_t i = 0; i < m; i++) r[i] = b[i], bb += b[i] * b[i];
  const double thr = tol * sqrt(bb);
#define APPLY()                                                                                    \
  for (int32_t k = 0; k < nb; k++)                                                                 \
    for (int i = 0; i < n; i++) {                                                                  \
      double s = 0.0;                                                                              \
      for (int c = 0; c < n; c++) s += inv[(int64_t)k * n * n + i * n + c] * r[k * n + c];         \
      z[k * n + i] = s;                                                                            \
    }
  APPLY();
  double rz = 0.0;
  for (int32_t i = 0; i < mp; i++) p[i] = z[i], rz += r[i] * z[i];
  int it = 0;
  for (; it < 100000;) {
    cgm_csr_spmv(A, p, q);
    double pq = 0.0;
    for (int32_t i = 0; i < m; i++) pq += p[i] * q[i];
    const double alpha = rz / pq;
    double rr = 0.0;
    for (int32_t i = 0; i < m; i++) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
      rr += r[i] * r[i];
    }
    it++;
    if (sqrt(rr) <= thr) break;
    APPLY();
    double rz_new = 0.0;
    for (int32_t i = 0; i < mp; i++) rz_new += r[i] * z[i];
    for (int32_t i = 0; i < mp; i++) p[i] = z[i] + rz_new / rz * p[i];
    rz = rz_new;
  }
#undef APPLY
  free(inv), free(x), free(r), free(z), free(p), free(q);
  return it;
}

/* 3D elasticity (3 unknowns a node): N = 1 is Jacobi (within an iteration:
 * the two kernels round differently, 3e-5 apart after 55 iterations); every N
 * converges to the tolerance on the recomputed residual in the reference's
 * iteration count (within 2: rounding). Blocks of 2, 4 or 8 rows do not
 * follow the nodes of 3 unknowns, and there block-Jacobi takes more
 * iterations than Jacobi (docs/precond.md): that is measured and printed,
 * not asserted either way. */
static void test_elasticity(void) {
  cgm_csr A;
  cgm_error err = {0};
  CHECK_OK(cgm_gen_elasticity3d(6, &A, &err));
  double *b = rhs_ones(&A);
  const cgm_solve_result j1 =
      solve(&A, b, 1, CGM_PRECOND_JACOBI, CGM_PREC_DOUBLE, CGM_REORDER_NONE, CGM_OK, NULL);
  const cgm_solve_result b1 =
      solve(&A, b, 1, CGM_PRECOND_BLOCK, CGM_PREC_DOUBLE, CGM_REORDER_NONE, CGM_OK, NULL);
  CHECK_MSG(abs(b1.iterations - j1.iterations) <= 1, "N=1: block-Jacobi %d iterations, Jacobi %d",
            b1.iterations, j1.iterations);
  const cgm_solve_result m1 =
      solve(&A, b, 1, CGM_PRECOND_BLOCK, CGM_PREC_MIXED, CGM_REORDER_NONE, CGM_OK, NULL);
  const cgm_solve_result mj =
      solve(&A, b, 1, CGM_PRECOND_JACOBI, CGM_PREC_MIXED, CGM_REORDER_NONE, CGM_OK, NULL);
  CHECK_MSG(abs(m1.iterations - mj.iterations) <= 1,
            "N=1 mixed: block-Jacobi %d iterations, Jacobi %d", m1.iterations, mj.iterations);
  const int ref1 = reference_pcg(&A, b, 1, 1e-8);
  CHECK_MSG(abs(j1.iterations - ref1) <= 2, "Jacobi: %d iterations, the reference %d",
            j1.iterations, ref1);
  fprintf(stderr, "elasticity3d (%d rows): Jacobi %d iterations (reference %d)\n", A.nrows,
          j1.iterations, ref1);
  const int sizes[] = {2, 4, 8};
  for (int t = 0; t < 3; t++) {
    const int n = sizes[t];
    const cgm_solve_result r =
        solve(&A, b, n, CGM_PRECOND_BLOCK, CGM_PREC_DOUBLE, CGM_REORDER_NONE, CGM_OK, NULL);
    const int ref = reference_pcg(&A, b, n, 1e-8);
    CHECK_MSG(abs(r.iterations - ref) <= 2, "N=%d: block-Jacobi %d iterations, the reference %d", n,
              r.iterations, ref);
    /* Jacobi does not depend on the layout's block size (but for the
     * SpMV's order of summation) */
    const cgm_solve_result j =
        solve(&A, b, n, CGM_PRECOND_JACOBI, CGM_PREC_DOUBLE, CGM_REORDER_NONE, CGM_OK, NULL);
    CHECK_MSG(abs(j.iterations - j1.iterations) <= 2, "Jacobi N=%d: %d iterations, N=1: %d", n,
              j.iterations, j1.iterations);
    fprintf(stderr, "elasticity3d: block-Jacobi N=%d %d iterations (reference %d)\n", n,
            r.iterations, ref);
    /* single precision (reliable updates) and mixed go through the same kernels */
    solve(&A, b, n, CGM_PRECOND_BLOCK, CGM_PREC_MIXED, CGM_REORDER_NONE, CGM_OK, NULL);
  }
  free(b);
  cgm_csr_free(&A);
}

/* A vector problem of 4 unknowns a node whose unknowns are coupled: A =
 * L (x) S, L the 3D Laplacian, S the 4 x 4 Kac-Murdock-Szego matrix
 * s_ij = 0.9^|i - j| (condition 57). Blocks of 4 hold a node's S, of 2 half
 * of it: block-Jacobi must take fewer iterations than Jacobi, as the
 * reference does. */
static void test_coupled(void) {
  cgm_csr A;
  cgm_error err = {0};
  CHECK_OK(test_coupled_laplacian(7, &A, &err));
  double *b = rhs_ones(&A);
  const cgm_solve_result j =
      solve(&A, b, 1, CGM_PRECOND_JACOBI, CGM_PREC_DOUBLE, CGM_REORDER_NONE, CGM_OK, NULL);
  const int sizes[] = {2, 4};
  for (int t = 0; t < 2; t++) {
    const int n = sizes[t];
    const cgm_solve_result r =
        solve(&A, b, n, CGM_PRECOND_BLOCK, CGM_PREC_DOUBLE, CGM_REORDER_NONE, CGM_OK, NULL);
    const int ref = reference_pcg(&A, b, n, 1e-8);
    CHECK_MSG(r.iterations < j.iterations, "N=%d: block-Jacobi %d iterations, Jacobi %d", n,
              r.iterations, j.iterations);
    CHECK_MSG(abs(r.iterations - ref) <= 2, "N=%d: block-Jacobi %d iterations, the reference %d", n,
              r.iterations, ref);
    fprintf(stderr, "L (x) S (%d rows): Jacobi %d, block-Jacobi N=%d %d iterations\n", A.nrows,
            j.iterations, n, r.iterations);
    /* mixed and single precision with the same inverses */
    const cgm_solve_result m =
        solve(&A, b, n, CGM_PRECOND_BLOCK, CGM_PREC_MIXED, CGM_REORDER_NONE, CGM_OK, NULL);
    CHECK(m.iterations < j.iterations * 2);
  }
  /* RCM renumbers the unknowns first: the blocks are those of the
   * reordered matrix; the solution comes back in the original numbering. */
  const cgm_solve_result rc =
      solve(&A, b, 4, CGM_PRECOND_BLOCK, CGM_PREC_DOUBLE, CGM_REORDER_RCM, CGM_OK, NULL);
  CHECK(rc.reordered);
  free(b);
  cgm_csr_free(&A);
}

/* The point block found from the pattern (cgm_csr_point_block): 3 for
 * elasticity (3 unknowns a node), 4 for L (x) S, none for the scalar
 * Poisson matrix, for a dimension it does not divide, or for a block with
 * an entry missing from its pattern. */
static void test_point_block_found(void) {
  cgm_csr A;
  cgm_error err = {0};
  CHECK_OK(cgm_gen_elasticity3d(3, &A, &err));
  CHECK_MSG(cgm_csr_point_block(&A, 8) == 3, "elasticity: %d", cgm_csr_point_block(&A, 8));
  CHECK(cgm_csr_point_block(&A, 2) == 1); /* 3 not allowed, and 2 does not fit */
  cgm_solve_opts o = cgm_solve_opts_default();
  o.layout = cgm_bcsr_default_params(4);
  CHECK(cgm_precond_block_size(&A, &o) == 3);
  o.precond_block = 2;
  CHECK(cgm_precond_block_size(&A, &o) == 2); /* given wins */
  /* drop one off-diagonal entry of a 3 x 3 node block (and its mirror):
   * the pattern is no longer made of whole blocks */
  cgm_csr B;
  CHECK_OK(cgm_csr_alloc(&B, A.nrows, A.ncols, A.rowptr[A.nrows], &err));
  int64_t q = 0;
  for (int32_t i = 0; i < A.nrows; i++) {
    for (int64_t k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) {
      const int32_t c = A.colidx[k];
      if ((i == 0 && c == 1) || (i == 1 && c == 0)) continue;
      B.colidx[q] = c;
      B.val[q++] = A.val[k];
    }
    B.rowptr[i + 1] = q;
  }
  B.nnz = q;
  CHECK(cgm_csr_point_block(&B, 8) == 1);
  cgm_csr_free(&B);
  cgm_csr_free(&A);
  CHECK_OK(test_coupled_laplacian(3, &A, &err));
  CHECK_MSG(cgm_csr_point_block(&A, 8) == 4, "L (x) S: %d", cgm_csr_point_block(&A, 8));
  cgm_csr_free(&A);
  CHECK_OK(cgm_gen_poisson3d(5, &A, &err));
  CHECK(cgm_csr_point_block(&A, 8) == 1);
  CHECK(cgm_precond_block_size(&A, &o) == 2);
  o.precond_block = 0;
  CHECK(cgm_precond_block_size(&A, &o) == 4); /* none: the layout's N */
  cgm_csr_free(&A);
  /* 7 rows, dense 7 x 7: no b in 2..8 divides 7 but 7 itself */
  CHECK_OK(cgm_csr_alloc(&A, 7, 7, 49, &err));
  for (int32_t i = 0; i < 7; i++) {
    A.rowptr[i + 1] = 7 * (i + 1);
    for (int c = 0; c < 7; c++) {
      A.colidx[7 * i + c] = c;
      A.val[7 * i + c] = i == c ? 8.0 : 1.0;
    }
  }
  CHECK(cgm_csr_point_block(&A, 8) == 7);
  CHECK(cgm_csr_point_block(&A, 6) == 1);
  cgm_csr_free(&A);
}

/* Point-block Jacobi on elasticity: the blocks hold each node's 3 x 3
 * coupling, the same at every layout size N (so the same iterations), and
 * fewer iterations than Jacobi. At N = 4 the layout pads the 882 rows to
 * 884, which 3 does not divide: the last block is cut there. */
static void test_point_block_solve(void) {
  cgm_csr A;
  cgm_error err = {0};
  CHECK_OK(cgm_gen_elasticity3d(6, &A, &err));
  double *b = rhs_ones(&A);
  const cgm_solve_result j =
      solve(&A, b, 1, CGM_PRECOND_JACOBI, CGM_PREC_DOUBLE, CGM_REORDER_NONE, CGM_OK, NULL);
  const int ref = reference_pcg(&A, b, 3, 1e-8);
  CHECK_MSG(ref < j.iterations, "reference: point block %d iterations, Jacobi %d", ref,
            j.iterations);
  const int sizes[] = {1, 2, 4, 8};
  for (int t = 0; t < 4; t++) {
    const cgm_solve_result r = solve_pb(&A, b, sizes[t], 0, CGM_PRECOND_BLOCK, CGM_PREC_DOUBLE,
                                        CGM_REORDER_NONE, CGM_OK, NULL);
    CHECK_MSG(r.precond_block == 3, "N=%d: block %d", sizes[t], r.precond_block);
    CHECK_MSG(abs(r.iterations - ref) <= 2, "N=%d: point block %d iterations, the reference %d",
              sizes[t], r.iterations, ref);
    CHECK_MSG(r.iterations < j.iterations, "N=%d: point block %d iterations, Jacobi %d", sizes[t],
              r.iterations, j.iterations);
    fprintf(stderr, "elasticity3d (%d rows): point block 3 at N=%d %d iterations, Jacobi %d\n",
            A.nrows, sizes[t], r.iterations, j.iterations);
    /* mixed precision with the same blocks */
    solve_pb(&A, b, sizes[t], 0, CGM_PRECOND_BLOCK, CGM_PREC_MIXED, CGM_REORDER_NONE, CGM_OK, NULL);
  }
  /* a block of 6 (two nodes) given: fewer still */
  const cgm_solve_result r6 =
      solve_pb(&A, b, 2, 6, CGM_PRECOND_BLOCK, CGM_PREC_DOUBLE, CGM_REORDER_NONE, CGM_OK, NULL);
  CHECK_MSG(abs(r6.iterations - reference_pcg(&A, b, 6, 1e-8)) <= 2, "block 6: %d iterations",
            r6.iterations);
  CHECK(r6.precond_block == 6);
  free(b);
  cgm_csr_free(&A);
}

/* A positive diagonal whose 2 x 2 block of rows 3 and 4 is [1 2; 2 1]
 * (eigenvalue -1): Jacobi's check lets it through, block-Jacobi with N = 2
 * refuses it before iterating, naming the rows. cuSPARSE refuses
 * block-Jacobi as bad input. */
static void test_refused(void) {
  cgm_csr A;
  cgm_error err = {0};
  CHECK_OK(test_bad_block(&A, &err));
  CHECK(cgm_solve_check_matrix(&A, &err) == CGM_OK); /* the diagonal is positive */
  double *b = rhs_ones(&A);
  char msg[1024];
  const cgm_solve_result r =
      solve(&A, b, 2, CGM_PRECOND_BLOCK, CGM_PREC_DOUBLE, CGM_REORDER_NONE, CGM_ENOCONV, msg);
  CHECK(r.refused);
  CHECK(r.iterations == 0);
  CHECK_MSG(strstr(msg, "not positive definite") && strstr(msg, "rows 3 to 4"), "message: %s", msg);
  CHECK_MSG(strstr(r.stop_reason, "rows 3 to 4"), "stop reason: %s", r.stop_reason);
  /* N = 4: the block of rows 1 to 4 holds it */
  solve(&A, b, 4, CGM_PRECOND_BLOCK, CGM_PREC_DOUBLE, CGM_REORDER_NONE, CGM_ENOCONV, msg);
  CHECK_MSG(strstr(msg, "rows 1 to 4"), "message: %s", msg);
  /* N = 8 covers the 6 rows: the message names the matrix's rows only */
  solve(&A, b, 8, CGM_PRECOND_BLOCK, CGM_PREC_DOUBLE, CGM_REORDER_NONE, CGM_ENOCONV, msg);
  CHECK_MSG(strstr(msg, "rows 1 to 6"), "message: %s", msg);
  /* Jacobi does not refuse it up front (whatever CG then makes of it) */
  cgm_solve_opts o = cgm_solve_opts_default();
  o.layout = cgm_bcsr_default_params(2);
  o.precond_block = 2;
  cgm_solve_result rr;
  double x[6] = {0};
  (void)cgm_solve(&A, b, x, &o, &rr, &err);
  CHECK(!rr.refused);
  /* cuSPARSE has no block-Jacobi */
  o = cgm_solve_opts_default();
  o.backend = CGM_BACKEND_CUSPARSE;
  o.precond = CGM_PRECOND_BLOCK;
  memset(x, 0, sizeof x);
  CHECK(cgm_solve(&A, b, x, &o, &rr, &err) == CGM_EINPUT);
  CHECK_MSG(strstr(err.msg, "block-Jacobi"), "message: %s", err.msg);
  free(b);
  cgm_csr_free(&A);
}

static void test_names(void) {
  cgm_precond p = CGM_PRECOND_BLOCK;
  CHECK(cgm_precond_parse("jacobi", &p) && p == CGM_PRECOND_JACOBI);
  CHECK(cgm_precond_parse("block", &p) && p == CGM_PRECOND_BLOCK);
  CHECK(!cgm_precond_parse("Block", &p) && !cgm_precond_parse("", &p) &&
        !cgm_precond_parse(NULL, &p));
  CHECK(!strcmp(cgm_precond_name(CGM_PRECOND_JACOBI), "jacobi"));
  CHECK(!strcmp(cgm_precond_name(CGM_PRECOND_BLOCK), "block"));
  CHECK(cgm_solve_opts_default().precond == CGM_PRECOND_JACOBI);
}

/* A block size without block-Jacobi would do nothing: refused, naming both. */
static void test_block_alone(void) {
  cgm_csr A;
  cgm_error err = {0};
  CHECK_OK(cgm_gen_poisson2d(6, &A, &err));
  cgm_solve_opts o = cgm_solve_opts_default();
  o.precond_block = 2;
  CHECK(cgm_solve_opts_settle(&o, &A, &err) == CGM_EINPUT && strstr(err.msg, "precond=block only"));
  o.precond = CGM_PRECOND_BLOCK;
  CHECK_OK(cgm_solve_opts_settle(&o, &A, &err));
  cgm_csr_free(&A);
}

int main(void) {
  test_block_alone();
  test_names();
  test_inverses();
  test_elasticity();
  test_coupled();
  test_refused();
  test_point_block_found();
  test_point_block_solve();
  TEST_MAIN_END();
}
