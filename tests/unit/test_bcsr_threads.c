/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The MBR layout built on 1, 2 and 3 threads is the same, bit for bit:
 * the parallel counting sort keeps the serial order, the prefix sums give
 * the same offsets, and every array (slices, block columns, values, row
 * order, row lengths) matches. Matrices large enough for the parallel paths
 * (over 4096 block rows), for every block size, a wider B_x, and a row
 * list (a multi-GPU segment's interior). */
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "cgmodel/sparse.h"
#include "sparse/bcsr_internal.h"
#include "test_util.h"

static bool same(const cgm_bcsr *a, const cgm_bcsr *b) {
  const size_t nn = (size_t)a->p.n * a->p.n;
  return !memcmp(&a->p, &b->p, sizeof a->p) && a->nrows == b->nrows && a->ncols == b->ncols &&
         a->nbrows == b->nbrows && a->nbcols == b->nbcols && a->nslices == b->nslices &&
         a->nblocks == b->nblocks && a->nblocks_padded == b->nblocks_padded &&
         a->brow_span == b->brow_span &&
         !memcmp(a->slice_ptr, b->slice_ptr, ((size_t)a->nslices + 1) * 8) &&
         !memcmp(a->bcol, b->bcol, (size_t)a->nblocks_padded * 4) &&
         !memcmp(a->val, b->val, (size_t)a->nblocks_padded * nn * 8) &&
         !memcmp(a->brow, b->brow, (size_t)a->nslices * a->p.by * 4) &&
         !memcmp(a->brow_len, b->brow_len, (size_t)a->brow_span * 4);
}

/* Builds A's layout (whole, or the rows of `rows`) on 1, 2 and 3 threads. */
static void compare(const char *what, const cgm_csr *A, cgm_bcsr_params p, const int32_t *rows,
                    int32_t nrows_sel) {
  cgm_bcsr ref, B;
  cgm_error e = {0};
  const int32_t nb = (int32_t)(((int64_t)A->nrows + p.n - 1) / p.n);
  for (int t = 1; t <= 3; t++) {
    omp_set_num_threads(t);
    cgm_bcsr *out = t == 1 ? &ref : &B;
    cgm_status st = rows ? cgm_bcsr_build_rows(A, rows, nrows_sel, 0, p, out, &e)
                         : cgm_bcsr_build(A, 0, nb, p, out, &e);
    CHECK_MSG(st == CGM_OK, "%s: %s", what, e.msg);
    if (st) return;
    if (t > 1) {
      CHECK_MSG(same(&ref, &B), "%s, N = %d, B_x = %d: %d threads differ from 1", what, p.n, p.bx,
                t);
      cgm_bcsr_free(&B);
    }
  }
  /* the bitwise comparison must be able to fail: one value changed */
  if (ref.nblocks_padded > 0) {
    cgm_bcsr C;
    omp_set_num_threads(2);
    CHECK_OK(rows ? cgm_bcsr_build_rows(A, rows, nrows_sel, 0, p, &C, &e)
                  : cgm_bcsr_build(A, 0, nb, p, &C, &e));
    C.val[0] += 1.0;
    CHECK(!same(&ref, &C));
    cgm_bcsr_free(&C);
  }
  cgm_bcsr_free(&ref);
}

/* The sectors of x each slice reads (cgm_x_locality), counted with
 * per-thread stamps over slices in parallel, are the serial count: a
 * matrix of random columns over 4096 slices, at N = 1 and 2. */
static void sectors_same(void) {
  cgm_error e = {0};
  cgm_csr R;
  CHECK_OK(cgm_gen_random_spd(140000, 8, CGM_ROWDIST_UNIFORM, 2.0, 0, 11, &R, &e));
  for (int n = 1; n <= 2; n++) {
    cgm_block_features ref, f;
    memset(&ref, 0, sizeof ref);
    for (int t = 1; t <= 3; t++) {
      omp_set_num_threads(t);
      memset(&f, 0, sizeof f);
      CHECK_OK(cgm_x_locality(&R, cgm_bcsr_default_params(n), &f, &e));
      if (t == 1) {
        ref = f;
        CHECK_MSG(ref.x_sectors[0] > ref.x_sectors_min[0],
                  "N = %d: random columns read more "
                  "sectors than the least",
                  n);
      } else {
        CHECK_MSG(f.x_sectors[0] == ref.x_sectors[0] && f.x_sectors[1] == ref.x_sectors[1],
                  "N = %d: sectors on %d threads %lld, on 1 %lld", n, t, (long long)f.x_sectors[0],
                  (long long)ref.x_sectors[0]);
      }
    }
  }
  cgm_csr_free(&R);
}

int main(void) {
  cgm_error e = {0};
  sectors_same();
  cgm_csr M[3];
  const char *names[3] = {"poisson3d 20", "elasticity3d 12", "random power law"};
  CHECK_OK(cgm_gen_poisson3d(20, &M[0], &e));    /* 8000 rows */
  CHECK_OK(cgm_gen_elasticity3d(12, &M[1], &e)); /* 6084 rows */
  /* 40000 rows of very different lengths: the sort has many classes */
  CHECK_OK(cgm_gen_random_spd(40000, 8, CGM_ROWDIST_POWERLAW, 2.0, 300, 7, &M[2], &e));
  for (int m = 0; m < 3; m++) {
    for (int k = 0; k < CGM_NBLOCKSIZES; k++) {
      cgm_bcsr_params p = cgm_bcsr_default_params(cgm_block_sizes[k]);
      p.by = 0;
      (void)cgm_bcsr_params_check(&p, &e);
      compare(names[m], &M[m], p, NULL, 0);
    }
    cgm_bcsr_params w = {1, 4, 8};
    compare(names[m], &M[m], w, NULL, 0);
    /* every third block row, as a segment's interior list */
    int32_t nsel = 0, *rows = malloc(((size_t)M[m].nrows / 3 + 1) * sizeof *rows);
    for (int32_t b = 0; b < M[m].nrows; b += 3) rows[nsel++] = b;
    compare(names[m], &M[m], cgm_bcsr_default_params(1), rows, nsel);
    free(rows);
    cgm_csr_free(&M[m]);
  }
  TEST_MAIN_END();
}
