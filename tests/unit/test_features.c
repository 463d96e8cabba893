/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Matrix features: the block densities d_N of the paper's Table 5 for the
 * four bundled matrices that appear there, and hand-computed features of a
 * small matrix (row statistics, blocks, e_N, padded counts, checks). */
#include <stdlib.h>
#include <string.h>

#include "cgmodel/plan.h"
#include "cgmodel/sparse.h"
#include "sparse/bcsr_internal.h"
#include "sparse/mm_internal.h"
#include "test_util.h"

/* Table 5 prints d_N truncated to two decimals (0.6583 appears as 0.65). */
static void table5(const char *name, int32_t dim, int64_t nz, int32_t max, double d2, double d4,
                   double d8) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s.mtx", CGM_DATA_DIR, name);
  cgm_csr A;
  cgm_error err = {0};
  if (cgm_mm_read_csr(path, &A, NULL, &err)) {
    CHECK_MSG(0, "%s", err.msg);
    return;
  }
  cgm_features f;
  CHECK_OK(cgm_plan_features(&A, &f, &err));
  CHECK(f.x == dim && f.nnz == nz && f.row_max == max);
  const double want[3] = {d2, d4, d8};
  CHECK(f.block[0].density == 1.0);
  for (int b = 1; b < 4; b++) {
    double truncated = floor(f.block[b].density * 100.0 + 1e-9) / 100.0;
    CHECK_MSG(fabs(truncated - want[b - 1]) < 1e-9, "%s d_%d = %.4f, Table 5 says %.2f", name,
              f.block[b].n, f.block[b].density, want[b - 1]);
  }
  cgm_csr_free(&A);
}

/* The 5 x 5 matrix (x = entry):
 *   x x . . .
 *   x x . . x
 *   . . x . .
 *   . . . x .
 *   . x . . x
 * rows 2,3,1,1,2 -> min 1, max 3, avg 9/5. */
static void small(void) {
  int32_t ri[] = {0, 0, 1, 1, 1, 2, 3, 4, 4};
  int32_t ci[] = {0, 1, 0, 1, 4, 2, 3, 1, 4};
  double v[] = {4, -1, -1, 4, -1, 2, 3, -1, 4};
  cgm_csr A;
  cgm_error err = {0};
  CHECK_OK(cgm_csr_from_coo(5, 5, 9, ri, ci, v, &A, NULL, &err));
  cgm_features f;
  CHECK_OK(cgm_plan_features(&A, &f, &err));
  CHECK(f.x == 5 && f.nnz == 9 && f.row_min == 1 && f.row_max == 3);
  CHECK_NEAR(f.row_avg, 1.8, 1e-15);
  /* lengths 2,3,1,1,2: variance = (0.04+1.44+0.64+0.64+0.04)/5 = 0.56 */
  CHECK_NEAR(f.row_cv, sqrt(0.56) / 1.8, 1e-12);
  CHECK(f.symmetric && f.positive_diagonal && f.first_bad_diagonal == -1 && f.empty_rows == 0);
  /* N = 2: block rows {0,1} {2,3} {4,pad}.
   *   block row 0: columns 0..1 -> block 0; column 4 -> block 2   => 2 blocks
   *   block row 1: (2,2) (3,3) -> block 1                          => 1 block
   *   block row 2: (4,1) -> block 0, (4,4) -> block 2              => 2 blocks
   * 5 blocks, e_2 = 20, d_2 = 9/20. Default slices hold 16 block rows: one
   * slice of length 2 -> 16 * 2 = 32 padded blocks. */
  CHECK(f.block[1].blocks == 5 && f.block[1].elements == 20);
  CHECK_NEAR(f.block[1].density, 9.0 / 20.0, 1e-15);
  CHECK(f.block[1].padded_blocks == 32 && f.block[1].padded_elements == 128);
  CHECK(f.block[1].max_blocks_per_row == 2);
  /* N = 4: block row 0 (rows 0-3): blocks 0 and 1 (column 4); block row 1
   * (row 4 + identity pad): blocks 0 and 1 => 4 blocks, e_4 = 64. */
  CHECK(f.block[2].blocks == 4 && f.block[2].elements == 64);
  /* N = 1: blocks are the nonzeros; 32 rows per slice, longest row 3. */
  CHECK(f.block[0].blocks == 9 && f.block[0].padded_blocks == 32 * 3);
  /* A non-positive diagonal entry is reported with its row. */
  A.val[5] = -2; /* (2,2) */
  CHECK_OK(cgm_plan_features(&A, &f, &err));
  CHECK(!f.positive_diagonal && f.first_bad_diagonal == 2);
  A.val[1] = -0.5; /* (0,1) no longer equals (1,0) */
  CHECK_OK(cgm_plan_features(&A, &f, &err));
  CHECK(!f.symmetric);
  cgm_csr_free(&A);
  /* Not square: refused. */
  int32_t r2[] = {0}, c2[] = {2};
  double v2[] = {1};
  CHECK_OK(cgm_csr_from_coo(2, 3, 1, r2, c2, v2, &A, NULL, &err));
  CHECK(cgm_plan_features(&A, &f, &err) == CGM_EINPUT && strstr(err.msg, "not square"));
  cgm_csr_free(&A);
}

/* Each block size's counts come from one block pattern (built in one merge
 * a block row): they must be cgm_bcsr_count's, and the pattern the block
 * rows' own column lists, on matrices whose row count is no multiple of N
 * (padded diagonal blocks), with irregular rows, and with B_x > 1. */
static void counts_from_pattern(void) {
  cgm_error e = {0};
  for (int m = 0; m < 3; m++) {
    cgm_csr A;
    const int32_t nr = m == 0 ? 1001 : m == 1 ? 4099 : 37;
    CHECK_OK(cgm_gen_random_spd(nr, 3 + 4 * m, m == 1 ? CGM_ROWDIST_POWERLAW : CGM_ROWDIST_UNIFORM,
                                2.0, 0, 5 + m, &A, &e));
    for (int bx = 1; bx <= 2; bx++) {
      cgm_bcsr_params lay[CGM_NBLOCKSIZES];
      for (int b = 0; b < CGM_NBLOCKSIZES; b++) {
        lay[b] = cgm_bcsr_default_params(cgm_block_sizes[b]);
        lay[b].bx = bx;
        lay[b].by = 0;
        CHECK_OK(cgm_bcsr_params_check(&lay[b], &e));
      }
      cgm_features f;
      CHECK_OK(cgm_features_compute(&A, lay, &f, &e));
      for (int b = 0; b < CGM_NBLOCKSIZES; b++) {
        const int n = cgm_block_sizes[b];
        const int32_t nb = (A.nrows + n - 1) / n;
        int64_t blocks = 0, padded = 0;
        int32_t longest = 0;
        CHECK_OK(cgm_bcsr_count(&A, 0, nb, lay[b], &blocks, &padded, &longest, &e));
        CHECK_MSG(f.block[b].blocks == blocks && f.block[b].padded_blocks == padded &&
                      f.block[b].max_blocks_per_row == longest && f.block[b].n == n,
                  "matrix %d N = %d B_x = %d: features %lld/%lld/%d, count %lld/%lld/%d", m, n, bx,
                  (long long)f.block[b].blocks, (long long)f.block[b].padded_blocks,
                  f.block[b].max_blocks_per_row, (long long)blocks, (long long)padded, longest);
        int64_t *bptr = NULL;
        int32_t *bcol = NULL, *row = malloc(((size_t)A.ncols + 1) * sizeof *row);
        CHECK_OK(cgm_block_pattern(&A, n, &bptr, &bcol, &e));
        for (int32_t r = 0; bptr && row && r < nb; r++) {
          int32_t k = cgm_block_row_columns(&A, r, n, row);
          CHECK(bptr[r + 1] - bptr[r] == k &&
                !memcmp(bcol + bptr[r], row, (size_t)k * sizeof *row));
        }
        free(row);
        free(bptr);
        free(bcol);
      }
    }
    cgm_csr_free(&A);
  }
}

/* Symmetry: every entry above the diagonal mirrored, equal, below it, and
 * nothing below without its mirror above (one entry alone on either side,
 * or two unequal mirrors, make it unsymmetric). By value a missing entry is
 * 0: a stored zero alone on either side is symmetric (as SciPy's A != A.T
 * sees it), not entry for entry (mm_csr_symmetric_pattern, the writer's). */
static void symmetry(void) {
  cgm_error e = {0};
  /* 3 x 3: diagonal 4, (1,2) = (2,1) = -1, plus the case's extra entries */
  const int32_t r0[] = {0, 1, 2, 0, 1}, c0[] = {0, 1, 2, 1, 0};
  const double v0[] = {4, 4, 4, -1, -1};
  struct {
    int32_t r, c;
    double v;
    int32_t r2, c2;
    double v2;
    int n;
    bool sym, pattern;
  } cases[] = {
      {0, 0, 0, 0, 0, 0, 0, true, true},        /* as it is */
      {2, 0, 1, 0, 0, 0, 1, false, false},      /* one entry below alone */
      {0, 2, 1, 0, 0, 0, 1, false, false},      /* one entry above alone */
      {0, 2, 1, 2, 0, 2, 2, false, false},      /* mirrors unequal */
      {0, 2, 0.5, 2, 0, 0.5, 2, true, true},    /* mirrors equal */
      {0, 2, 0, 0, 0, 0, 1, true, false},       /* a zero above alone */
      {2, 1, -0.0, 0, 0, 0, 1, true, false},    /* a zero below alone */
      {0, 2, 0, 2, 0, -0.0, 2, true, true},     /* zero mirrors */
      {0, 2, 0, 2, 0, 1e-300, 2, false, false}, /* a zero above, its mirror not */
      {2, 0, NAN, 0, 0, 0, 1, false, false},    /* NaN below alone */
  };
  for (int t = 0; t < (int)(sizeof cases / sizeof *cases); t++) {
    int32_t r[7], c[7];
    double v[7];
    for (int k = 0; k < 5; k++) r[k] = r0[k], c[k] = c0[k], v[k] = v0[k];
    int m = 5;
    if (cases[t].n >= 1) r[m] = cases[t].r, c[m] = cases[t].c, v[m++] = cases[t].v;
    if (cases[t].n >= 2) r[m] = cases[t].r2, c[m] = cases[t].c2, v[m++] = cases[t].v2;
    cgm_csr A;
    CHECK_OK(cgm_csr_from_coo(3, 3, m, r, c, v, &A, NULL, &e));
    CHECK_MSG(cgm_csr_is_symmetric(&A) == cases[t].sym, "case %d", t);
    CHECK_MSG(mm_csr_symmetric_pattern(&A) == cases[t].pattern, "case %d, entry for entry", t);
    cgm_csr_free(&A);
  }
  /* A repeated entry (a CSR given through the C API, not from the reader)
   * would balance a lone one below: rows {(0,1), (0,1)}, {(1,0)}, {(2,0)}. */
  cgm_csr D;
  CHECK_OK(cgm_csr_alloc(&D, 3, 3, 4, &e));
  const int64_t rp[] = {0, 2, 3, 4};
  const int32_t ci[] = {1, 1, 0, 0};
  for (int k = 0; k < 4; k++) D.rowptr[k] = rp[k], D.colidx[k] = ci[k], D.val[k] = 1.0;
  CHECK_MSG(!cgm_csr_is_symmetric(&D), "a repeated entry passed as symmetric");
  CHECK_MSG(!mm_csr_symmetric_pattern(&D), "a repeated entry passed as symmetric");
  cgm_csr_free(&D);
}

/* Some block sizes' features alone (what a prediction of the running
 * configuration reads): each one asked for is what the whole computation
 * gives, byte for byte, the others are left zero, the row statistics are
 * the same. */
static void some_blocks(void) {
  cgm_error e = {0};
  cgm_csr A;
  CHECK_OK(cgm_gen_random_spd(3001, 9, CGM_ROWDIST_POWERLAW, 2.2, 0, 11, &A, &e));
  cgm_features all, part;
  CHECK_OK(cgm_plan_features(&A, &all, &e));
  const unsigned masks[] = {1u, 2u, 8u, 5u};
  for (int k = 0; k < 4; k++) {
    CHECK_OK(cgm_plan_features_blocks(&A, masks[k], &part, &e));
    CHECK(part.x == all.x && part.nnz == all.nnz && part.row_max == all.row_max &&
          part.symmetric == all.symmetric && part.positive_diagonal == all.positive_diagonal);
    for (int b = 0; b < CGM_NBLOCKSIZES; b++) {
      if (masks[k] & (1u << b))
        CHECK_MSG(!memcmp(&part.block[b], &all.block[b], sizeof all.block[b]),
                  "mask %u: block size %d differs from the whole computation's", masks[k],
                  cgm_block_sizes[b]);
      else
        CHECK_MSG(part.block[b].n == 0 && part.block[b].blocks == 0,
                  "mask %u: block size %d computed, not asked for", masks[k], cgm_block_sizes[b]);
    }
  }
  cgm_csr_free(&A);
}

int main(void) {
  symmetry();
  some_blocks();
  counts_from_pattern();
  /* Table 5 rows: Id 1, 2, 6, 7. */
  table5("Trefethen_20", 20, 158, 9, 0.65, 0.47, 0.27);
  table5("mesh1e1", 48, 306, 8, 0.36, 0.20, 0.17);
  table5("msc00726", 726, 34518, 88, 0.55, 0.38, 0.26);
  table5("msc01050", 1050, 29156, 128, 0.60, 0.41, 0.23);
  small();
  TEST_MAIN_END();
}
