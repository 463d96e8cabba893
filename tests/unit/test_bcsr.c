/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The BCSR MBR layout: every nonzero lands exactly once where the layout
 * says, padding is empty, rows are sorted per slice, and the CPU SpMV over
 * the layout equals a straightforward CSR SpMV for every N, B_x and B_y. */
#include <stdint.h>

#include "cgmodel/sparse.h"
#include "solver/cpu/cg_cpu.h"
#include "sparse/bcsr_internal.h"
#include "test_linalg.h"
#include "test_util.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void) {
  return splitmix64(&rng_state);
}
static double urand(void) {
  return unif01(&rng_state);
}

/* A random square matrix with a dense diagonal, empty rows (apart from the
 * diagonal being dropped for some), and one very long row. */
static void random_matrix(int32_t n, int avg, cgm_csr *A) {
  int64_t cap = (int64_t)n * (2 * avg + 2) + n + 8;
  int32_t *ri = malloc(cap * sizeof *ri), *ci = malloc(cap * sizeof *ci);
  double *v = malloc(cap * sizeof *v);
  int64_t k = 0;
  for (int32_t i = 0; i < n; i++) {
    if (i % 17 == 5) continue; /* empty row */
    ri[k] = i, ci[k] = i, v[k] = 4.0 + urand(), k++;
    int len = (int)(rng() % (2 * avg + 1));
    for (int m = 0; m < len; m++)
      ri[k] = i, ci[k] = (int32_t)(rng() % n), v[k] = urand() - 0.5, k++;
  }
  int32_t longrow = n / 3; /* one row touching up to n columns */
  for (int32_t j = 0; j < n && k < cap; j += 1 + (int32_t)(rng() % 3))
    ri[k] = longrow, ci[k] = j, v[k] = urand(), k++;
  cgm_error err;
  cgm_status st = cgm_csr_from_coo(n, n, k, ri, ci, v, A, NULL, &err);
  CHECK(st == CGM_OK);
  free(ri), free(ci), free(v);
}

/* Finds the layout slot of (row, col); checks each nonzero appears once. */
static void check_layout(const cgm_csr *A, const cgm_bcsr *B, int32_t b0) {
  const int n = B->p.n, bx = B->p.bx, by = B->p.by;
  /* brow is a permutation of the local block rows, padding slots at the end. */
  int32_t *seen = calloc(B->nbrows + 1, sizeof *seen);
  for (int64_t s = 0; s < (int64_t)B->nslices * by; s++) {
    int32_t b = B->brow[s];
    if (b < 0) {
      CHECK(s >= B->nbrows);
      continue;
    }
    CHECK(b < B->nbrows);
    seen[b]++;
  }
  for (int32_t b = 0; b < B->nbrows; b++) CHECK(seen[b] == 1);
  free(seen);
  /* Lengths non-increasing along the sorted slots; slices sized by their first row. */
  for (int64_t s = 1; s < B->nbrows; s++)
    CHECK(B->brow_len[B->brow[s - 1]] >= B->brow_len[B->brow[s]]);
  int64_t nb = 0;
  for (int32_t k = 0; k < B->nslices; k++) {
    int64_t steps = (B->slice_ptr[k + 1] - B->slice_ptr[k]) / ((int64_t)by * bx);
    CHECK((B->slice_ptr[k + 1] - B->slice_ptr[k]) % ((int64_t)by * bx) == 0);
    int32_t first = B->brow[(int64_t)k * by];
    CHECK(steps == (B->brow_len[first] + bx - 1) / bx);
    for (int j = 0; j < by; j++) {
      int32_t b = B->brow[(int64_t)k * by + j];
      for (int64_t t = 0; t < steps * bx; t++) {
        int64_t q = B->slice_ptr[k] + (t / bx) * by * bx + (int64_t)j * bx + t % bx;
        CHECK(B->bcol[q] >= 0 && B->bcol[q] < B->nbcols);
        int32_t len = b >= 0 ? B->brow_len[b] : 0;
        if (t >= len) { /* padding: all zero */
          for (int e = 0; e < n * n; e++) CHECK(B->val[q * n * n + e] == 0.0);
          continue;
        }
        nb++;
        if (t > 0) { /* block columns strictly increasing within a row */
          int64_t qp = B->slice_ptr[k] + ((t - 1) / bx) * by * bx + (int64_t)j * bx + (t - 1) % bx;
          CHECK(B->bcol[qp] < B->bcol[q]);
        }
        /* Every value equals A's entry at its (row, col), 0 where absent. */
        for (int r = 0; r < n; r++) {
          int64_t i = ((int64_t)b0 + b) * n + r;
          for (int c = 0; c < n; c++) {
            int64_t jcol = (int64_t)B->bcol[q] * n + c;
            double want = 0.0;
            if (i < A->nrows) {
              for (int64_t m = A->rowptr[i]; m < A->rowptr[i + 1]; m++)
                if (A->colidx[m] == jcol) want = A->val[m];
            } else if (i == jcol) {
              want = 1.0; /* identity on padded rows */
            }
            CHECK(B->val[q * n * n + r * n + c] == want);
          }
        }
      }
    }
  }
  CHECK(nb == B->nblocks);
  /* Every nonzero of the covered rows is inside some stored block. */
  int64_t nnz_rows = 0, nnz_layout = 0;
  for (int64_t i = (int64_t)b0 * n; i < (int64_t)(b0 + B->nbrows) * n && i < A->nrows; i++)
    nnz_rows += A->rowptr[i + 1] - A->rowptr[i];
  for (int64_t q = 0; q < B->nblocks_padded * n * n; q++) nnz_layout += B->val[q] != 0.0;
  int64_t identity = 0;
  if ((int64_t)(b0 + B->nbrows) * n > A->nrows) identity = (int64_t)(b0 + B->nbrows) * n - A->nrows;
  CHECK(nnz_layout == nnz_rows + identity);
}

static void check_spmv(const cgm_csr *A, const cgm_bcsr *B) {
  const int n = B->p.n;
  int64_t np = (int64_t)B->nbcols * n, nr = (int64_t)B->nbrows * n;
  double *x = malloc(np * sizeof *x), *y = malloc(nr * sizeof *y),
         *yref = malloc(A->nrows * sizeof *yref);
  float *xf = malloc(np * sizeof *xf), *yf = malloc(nr * sizeof *yf);
  float *vf = malloc(B->nblocks_padded * n * n * sizeof *vf + 4);
  for (int64_t i = 0; i < np; i++) x[i] = i < A->ncols ? urand() - 0.3 : 0.0, xf[i] = (float)x[i];
  for (int64_t q = 0; q < B->nblocks_padded * n * n; q++) vf[q] = (float)B->val[q];
  cgm_csr_spmv(A, x, yref);
  double dot = cgm_cpu_spmv_f64(B, B->val, x, y, x);
  cgm_cpu_spmv_f32(B, vf, xf, yf, NULL);
  double dref = 0.0, maxdiff = 0.0, maxdiff32 = 0.0, scale = 0.0;
  for (int32_t i = 0; i < A->nrows; i++) {
    dref += x[i] * yref[i];
    double d = fabs(y[i] - yref[i]), d32 = fabs((double)yf[i] - yref[i]);
    if (d > maxdiff) maxdiff = d;
    if (d32 > maxdiff32) maxdiff32 = d32;
    if (fabs(yref[i]) > scale) scale = fabs(yref[i]);
  }
  CHECK_MSG(maxdiff <= 1e-13 * (scale + 1), "N=%d bx=%d by=%d: max |y - yref| = %g", n, B->p.bx,
            B->p.by, maxdiff);
  CHECK_MSG(maxdiff32 <= 1e-4 * (scale + 1), "fp32 N=%d: max diff %g", n, maxdiff32);
  CHECK_NEAR(dot, dref, 1e-12);
  for (int64_t i = A->nrows; i < nr; i++) CHECK(y[i] == x[i]); /* identity padding */
  free(x), free(y), free(yref), free(xf), free(yf), free(vf);
}

/* The teams of the CPU kernels: one thread below CGM_CPU_TEAM_ROWS rows,
 * one more a CGM_CPU_TEAM_ROWS, never more than the solve's threads. */
static void check_teams(void) {
  const int most = omp_get_max_threads();
  CHECK(cgm_cpu_team(0) == 1 && cgm_cpu_team(14) == 1 && cgm_cpu_team(CGM_CPU_TEAM_ROWS - 1) == 1);
  CHECK(cgm_cpu_team(3 * CGM_CPU_TEAM_ROWS + 5) == (most < 3 ? most : 3));
  CHECK(cgm_cpu_team(INT64_MAX / 2) == most);
  /* --threads (omp_set_num_threads before the solve) caps every team */
  omp_set_num_threads(1);
  CHECK(cgm_cpu_team(INT64_MAX / 2) == 1);
  omp_set_num_threads(most);
}

static int by_length_down(const void *a, const void *b) {
  const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x < y) - (x > y);
}

/* The padded count of the block rows of at most `limit` blocks against those rows copied apart,
 * sorted longest first and padded a slice of B_y at a time to the slice's longest, on lengths
 * whose longest is short (a histogram a thread), long and very long (one). */
static void check_padded_limit(void) {
  enum { NB = 100003 };
  int32_t *len = malloc(NB * sizeof *len), *sub = malloc(NB * sizeof *sub);
  CHECK(len && sub);
  /* 2M blocks: a copy of the histogram a thread would not fit a thread's stack */
  const int32_t longest[] = {150, 9000, 2000000};
  for (int li = 0; li < 3; li++) {
    unsigned seed = 7u + (unsigned)li;
    for (int32_t b = 0; b < NB; b++) { /* mostly short, a few long ones */
      seed = seed * 1103515245u + 12345u;
      const int32_t r = (int32_t)((seed >> 8) % 1000);
      len[b] = r < 990 ? r % 20 : 100 + r * (longest[li] - 100) / 1000;
    }
    const int32_t limits[] = {INT32_MAX, 128, 10, 0};
    for (int k = 0; k < 4; k++) {
      int32_t m = 0;
      for (int32_t b = 0; b < NB; b++)
        if (len[b] <= limits[k]) sub[m++] = len[b];
      qsort(sub, (size_t)m, sizeof *sub, by_length_down);
      for (int n = 1; n <= 4; n *= 2) {
        const cgm_bcsr_params p = {n, 2, 8 / n};
        const int64_t a = cgm_bcsr_padded_count(len, NB, p, limits[k]);
        int64_t want = 0;
        for (int32_t i = 0; i < m; i += p.by) /* the slice's first row is its longest */
          want += (int64_t)((sub[i] + p.bx - 1) / p.bx) * p.bx * p.by;
        CHECK_MSG(a == want && a >= 0, "longest %d, limit %d, N=%d: %lld, %lld apart", longest[li],
                  limits[k], n, (long long)a, (long long)want);
      }
    }
  }
  free(len);
  free(sub);
}

int main(void) {
  check_teams();
  check_padded_limit();
  /* up to 250 rows one OpenMP thread's work (cgm_cpu_team), 1003 several */
  const int32_t sizes[] = {1, 7, 33, 250, 1003};
  for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
    cgm_csr A;
    random_matrix(sizes[si], 6, &A);
    for (int bi = 0; bi < CGM_NBLOCKSIZES; bi++) {
      int n = cgm_block_sizes[bi];
      const int bxs[] = {1, 2, 3};
      for (int xi = 0; xi < 3; xi++) {
        cgm_bcsr_params def = cgm_bcsr_default_params(n);
        const int bys[] = {1, 3, def.by};
        for (int yi = 0; yi < 3; yi++) {
          cgm_bcsr_params p = {n, bxs[xi], bys[yi]};
          cgm_bcsr B;
          cgm_error err;
          int32_t nbr = (A.nrows + n - 1) / n;
          CHECK_OK(cgm_bcsr_build(&A, 0, nbr, p, &B, &err));
          check_layout(&A, &B, 0);
          check_spmv(&A, &B);
          int64_t nb, nbp;
          int32_t maxrow;
          CHECK_OK(cgm_bcsr_count(&A, 0, nbr, p, &nb, &nbp, &maxrow, &err));
          CHECK(nb == B.nblocks && nbp == B.nblocks_padded);
          cgm_bcsr_free(&B);
          /* A segment of the block rows (multi-GPU): local rows, global columns. */
          if (nbr >= 3) {
            int32_t b0 = nbr / 3, b1 = nbr - nbr / 4;
            CHECK_OK(cgm_bcsr_build(&A, b0, b1, p, &B, &err));
            CHECK(B.nbrows == b1 - b0);
            check_layout(&A, &B, b0);
            cgm_bcsr_free(&B);
          }
        }
      }
    }
    cgm_csr_free(&A);
  }
  /* A layout of a list of block rows (multi-GPU interior/boundary rows):
   * results land in row - base, other rows untouched. */
  {
    cgm_csr A;
    random_matrix(301, 5, &A);
    for (int bi = 0; bi < CGM_NBLOCKSIZES; bi++) {
      int n = cgm_block_sizes[bi];
      int32_t nbr = (A.nrows + n - 1) / n, base = nbr / 5, cnt = 0;
      int32_t *rows = malloc(nbr * sizeof *rows);
      for (int32_t b = base; b < nbr; b += 1 + b % 3) rows[cnt++] = b;
      cgm_bcsr B;
      cgm_error err = {0};
      CHECK_OK(cgm_bcsr_build_rows(&A, rows, cnt, base, cgm_bcsr_default_params(n), &B, &err));
      CHECK(B.nbrows == cnt && B.brow_span == rows[cnt - 1] - base + 1);
      int64_t nx = (int64_t)B.nbcols * n, ny = (int64_t)B.brow_span * n;
      double *x = malloc(nx * sizeof *x), *y = malloc(ny * sizeof *y),
             *yref = malloc(A.nrows * sizeof *yref);
      for (int64_t i = 0; i < nx; i++) x[i] = i < A.ncols ? urand() : 0.0;
      for (int64_t i = 0; i < ny; i++) y[i] = -77.0;
      cgm_csr_spmv(&A, x, yref);
      cgm_cpu_spmv_f64(&B, B.val, x, y, NULL);
      int32_t c = 0;
      for (int32_t b = base; b <= rows[cnt - 1]; b++) {
        int selected = c < cnt && rows[c] == b;
        for (int r = 0; r < n; r++) {
          int64_t i = (int64_t)b * n + r, yi = (int64_t)(b - base) * n + r;
          if (!selected)
            CHECK(y[yi] == -77.0);
          else if (i < A.nrows)
            CHECK_NEAR(y[yi], yref[i], 1e-13);
        }
        c += selected;
      }
      cgm_bcsr_free(&B);
      int32_t bad[] = {base + 2, base + 1};
      CHECK(cgm_bcsr_build_rows(&A, bad, 2, base, cgm_bcsr_default_params(n), &B, &err) ==
            CGM_EINPUT);
      free(x), free(y), free(yref), free(rows);
    }
    cgm_csr_free(&A);
  }
  /* Bad parameters are refused with a message, not a crash. */
  {
    cgm_csr A;
    random_matrix(10, 2, &A);
    cgm_bcsr B;
    cgm_error err = {0};
    cgm_bcsr_params bad = {3, 1, 1};
    CHECK(cgm_bcsr_build(&A, 0, 4, bad, &B, &err) == CGM_EINPUT);
    CHECK(strstr(err.msg, "1, 2, 4 or 8") != NULL);
    cgm_bcsr_params p = {2, 1, 4};
    CHECK(cgm_bcsr_build(&A, 0, 99, p, &B, &err) == CGM_EINPUT);
    cgm_csr_free(&A);
  }
  /* Poisson 3D: known padded counts. Interior rows all have 7 entries and
   * sorting puts them first, so with N = 1 padding only appears in slices
   * that mix lengths. */
  {
    cgm_csr A;
    cgm_error err;
    CHECK_OK(cgm_gen_poisson3d(10, &A, &err));
    CHECK(A.nnz == 1000 * 7 - 6 * 100);
    int64_t nb, nbp;
    cgm_bcsr_params p = cgm_bcsr_default_params(1);
    CHECK_OK(cgm_bcsr_count(&A, 0, A.nrows, p, &nb, &nbp, NULL, &err));
    CHECK(nb == A.nnz);
    CHECK(nbp >= nb && nbp <= nb + 32 * 7 * 4); /* at most a few mixed slices per length */
    cgm_csr_free(&A);
  }
  TEST_MAIN_END();
}
