/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Multi-GPU decomposition on the CPU: balanced segments, halos that hold
 * exactly the foreign columns read, and an emulated distributed SpMV
 * (interior + boundary layouts over [own | halo] vectors) that equals the
 * global CSR SpMV. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/sparse.h"
#include "plan/partition.h"
#include "tests/partition_util.h"
#include "sparse/bcsr_internal.h"
#include "solver/cpu/cg_cpu.h"
#include "test_util.h"

static void check(const char *what, const cgm_csr *A, int n, int parts) {
  int32_t bounds[CGM_MAX_GPUS + 1];
  cgm_error err = {0};
  int align = n >= 4 ? 1 : 4 / n;
  if (cgm_partition(A, n, parts, align, bounds, &err)) {
    CHECK_MSG(0, "%s N=%d parts=%d: %s", what, n, parts, err.msg);
    return;
  }
  int32_t nb = (A->nrows + n - 1) / n;
  int32_t *len = malloc(nb * sizeof *len);
  CHECK_OK(cgm_bcsr_row_blocks(A, n, len, &err));
  int64_t total = 0, maxlen = 0;
  for (int32_t b = 0; b < nb; b++) total += len[b], maxlen = len[b] > maxlen ? len[b] : maxlen;
  CHECK(bounds[0] == 0 && bounds[parts] == nb);
  for (int k = 0; k < parts; k++) {
    CHECK(bounds[k] < bounds[k + 1]);
    if (k > 0) CHECK(bounds[k] % align == 0);
    int64_t seg = 0;
    for (int32_t b = bounds[k]; b < bounds[k + 1]; b++) seg += len[b];
    /* Balanced to within the granularity of the cuts. */
    CHECK_MSG(seg <= total / parts + (int64_t)(align + 1) * maxlen, "%s N=%d seg %d: %lld of %lld",
              what, n, k, (long long)seg, (long long)total);
  }
  double *x = malloc(((size_t)nb * n + 8) * sizeof *x), *yref = malloc(A->nrows * sizeof *yref);
  for (int64_t i = 0; i < (int64_t)nb * n; i++) x[i] = i < A->ncols ? 1.0 + 0.001 * (i % 97) : 0.0;
  cgm_csr_spmv(A, x, yref);
  for (int k = 0; k < parts; k++) {
    cgm_halo h;
    CHECK_OK(cgm_halo_build(A, n, bounds, parts, k, &h, &err));
    int32_t b0 = bounds[k], b1 = bounds[k + 1], nown = b1 - b0;
    CHECK(h.ninterior + h.nboundary == nown);
    for (int32_t i = 1; i < h.nhalo; i++) CHECK(h.cols[i - 1] < h.cols[i]);
    for (int j = 0; j < parts; j++)
      for (int32_t i = h.owner[j]; i < h.owner[j + 1]; i++)
        CHECK(h.cols[i] >= bounds[j] && h.cols[i] < bounds[j + 1] && j != k);
    CHECK(h.owner[0] == 0 && h.owner[parts] == h.nhalo);
    /* Local vector [own | gap of 3 blocks | halo] and the two layouts. */
    const int32_t hs = nown + 3;
    int64_t lx = (int64_t)(hs + h.nhalo) * n;
    double *xl = malloc((lx + 1) * sizeof *xl), *yl = malloc(((int64_t)nown * n + 1) * sizeof *yl);
    for (int64_t i = 0; i < (int64_t)nown * n; i++) xl[i] = x[(int64_t)b0 * n + i];
    for (int32_t i = 0; i < h.nhalo; i++)
      for (int e = 0; e < n; e++) xl[((int64_t)hs + i) * n + e] = x[(int64_t)h.cols[i] * n + e];
    for (int64_t i = (int64_t)nown * n; i < (int64_t)hs * n; i++) xl[i] = NAN; /* never read */
    for (int64_t i = 0; i < (int64_t)nown * n; i++) yl[i] = NAN;
    const int32_t *lists[2] = {h.interior, h.boundary};
    const int32_t counts[2] = {h.ninterior, h.nboundary};
    for (int part = 0; part < 2; part++) {
      if (!counts[part]) continue;
      cgm_bcsr B;
      CHECK_OK(cgm_bcsr_build_rows(A, lists[part], counts[part], b0, cgm_bcsr_default_params(n), &B,
                                   &err));
      /* Interior rows read only own columns. */
      if (part == 0)
        for (int64_t q = 0; q < B.nblocks_padded; q++) CHECK(B.bcol[q] >= b0 && B.bcol[q] < b1);
      cgm_halo_remap(&h, hs, &B);
      for (int64_t q = 0; q < B.nblocks_padded; q++)
        CHECK(B.bcol[q] >= 0 &&
              (B.bcol[q] < nown || (B.bcol[q] >= hs && B.bcol[q] < hs + h.nhalo)));
      double *ytmp = malloc(((int64_t)B.brow_span * n + 1) * sizeof *ytmp);
      cgm_cpu_spmv_f64(&B, B.val, xl, ytmp, NULL);
      for (int32_t i = 0; i < counts[part]; i++)
        for (int e = 0; e < n; e++) {
          int64_t li = (int64_t)(lists[part][i] - b0) * n + e;
          yl[li] = ytmp[li];
        }
      free(ytmp);
      cgm_bcsr_free(&B);
    }
    double maxerr = 0;
    for (int64_t i = 0; i < (int64_t)nown * n; i++) {
      int64_t gi = (int64_t)b0 * n + i;
      if (gi >= A->nrows) continue;
      double e = fabs(yl[i] - yref[gi]);
      if (!(e <= maxerr)) maxerr = e; /* NaN (row never written) propagates */
    }
    CHECK_MSG(maxerr < 1e-12, "%s N=%d parts=%d seg %d: distributed SpMV off by %g", what, n, parts,
              k, maxerr);
    free(xl), free(yl);
    cgm_halo_free(&h);
  }
  free(len), free(x), free(yref);
}

int main(void) {
  cgm_error err;
  cgm_csr A;
  CHECK_OK(cgm_gen_poisson3d(17, &A, &err));
  for (int bi = 0; bi < CGM_NBLOCKSIZES; bi++)
    for (int parts = 1; parts <= 4; parts++) check("poisson3d 17", &A, cgm_block_sizes[bi], parts);
  /* A Poisson slab split: the halo of a middle segment is two planes. */
  {
    int32_t bounds[3];
    CHECK_OK(cgm_partition(&A, 1, 2, 4, bounds, &err));
    cgm_halo h;
    CHECK_OK(cgm_halo_build(&A, 1, bounds, 2, 0, &h, &err));
    CHECK_MSG(h.nhalo == 17 * 17, "halo of the first half: %d entries (one plane is 289)", h.nhalo);
    cgm_halo_free(&h);
  }
  cgm_csr_free(&A);
  /* Boundary rows weighted (halo): a 32^3 slab split in 4 has two planes of
   * boundary rows in each middle segment and one in each end; with each
   * boundary row counted 1.7 times, the middle segments give up rows to the
   * ends, symmetrically, and the weighted counts stay balanced; with no
   * extra weight the cuts do not move. */
  {
    CHECK_OK(cgm_gen_poisson3d(32, &A, &err));
    int32_t b0[5], b1[5];
    CHECK_OK(cgm_partition(&A, 1, 4, 4, b0, &err));
    memcpy(b1, b0, sizeof b0);
    CHECK_OK(cgm_partition_boundary(&A, 1, 4, 4, 0.0, b1, &err));
    CHECK(!memcmp(b0, b1, sizeof b0));
    CHECK_OK(cgm_partition_boundary(&A, 1, 4, 4, 0.7, b1, &err));
    const int32_t plane = 32 * 32;
    int32_t rows[4];
    for (int k = 0; k < 4; k++) rows[k] = b1[k + 1] - b1[k];
    CHECK_MSG(rows[0] > rows[1] && rows[3] > rows[2] && rows[0] - rows[1] < plane &&
                  abs(rows[0] - rows[3]) <= 8 && abs(rows[1] - rows[2]) <= 8,
              "weighted slabs: %d %d %d %d rows", rows[0], rows[1], rows[2], rows[3]);
    /* Weighted: (rows + 0.7 * boundary rows) * 7 blocks, within a cut's
     * granularity of each other (one plane of boundary rows per neighbour). */
    double w[4];
    for (int k = 0; k < 4; k++) w[k] = rows[k] + 0.7 * plane * (k == 0 || k == 3 ? 1 : 2);
    for (int k = 1; k < 4; k++)
      CHECK_MSG(fabs(w[k] - w[0]) < 0.02 * w[0], "weighted slab %d: %.0f against %.0f", k, w[k],
                w[0]);
    cgm_csr_free(&A);
    CHECK_OK(cgm_gen_poisson3d(17, &A, &err));
  }
  cgm_csr_free(&A);
  CHECK_OK(cgm_gen_random_spd(3000, 8, CGM_ROWDIST_POWERLAW, 2.5, 0, 3, &A, &err));
  for (int bi = 0; bi < CGM_NBLOCKSIZES; bi++)
    for (int parts = 2; parts <= 4; parts++) check("random", &A, cgm_block_sizes[bi], parts);
  cgm_csr_free(&A);
  /* Fewer block rows than 2 * G: still a valid split; fewer than G: refused. */
  CHECK_OK(cgm_gen_poisson2d(3, &A, &err)); /* 9 rows */
  check("9 rows", &A, 1, 2);
  check("9 rows", &A, 2, 2);
  int32_t bounds[CGM_MAX_GPUS + 1];
  CHECK(cgm_partition(&A, 8, 4, 1, bounds, &err) == CGM_EINPUT && strstr(err.msg, "too few"));
  cgm_csr_free(&A);
  /* Cuts stay multiples of align near the end too (found by
   * tests/fuzz/fuzz_pipeline, corpus file partition_align_small.mtx: a 6 x 6
   * matrix split in 2 with align 4 gave bounds [0, 2, 6]). */
  {
    const int32_t ri[] = {0, 2, 5}, ci[] = {0, 2, 5};
    const double v[] = {1.5, 0.4, 1};
    CHECK_OK(cgm_csr_from_coo(6, 6, 3, ri, ci, v, &A, NULL, &err));
    CHECK_OK(cgm_partition(&A, 1, 2, 4, bounds, &err));
    CHECK_MSG(bounds[0] == 0 && bounds[1] == 4 && bounds[2] == 6, "6 rows in 2: [0, %d, %d]",
              bounds[1], bounds[2]);
    CHECK_OK(cgm_partition(&A, 1, 3, 2, bounds, &err));
    CHECK(bounds[1] == 2 && bounds[2] == 4 && bounds[3] == 6);
    cgm_csr_free(&A);
  }
  /* 1001 rows, the weight in the last one: the balanced cut (1000) is past
   * nb - align (997), which used to be taken as is. */
  {
    const int32_t nr = 1001;
    int32_t *ri = malloc(2 * nr * sizeof *ri), *ci = malloc(2 * nr * sizeof *ci);
    double *v = malloc(2 * nr * sizeof *v);
    int64_t k = 0;
    for (int32_t i = 0; i < nr - 1; i++) ri[k] = i, ci[k] = i, v[k++] = 4;
    for (int32_t j = 0; j < nr; j++) ri[k] = nr - 1, ci[k] = j, v[k++] = 1;
    CHECK_OK(cgm_csr_from_coo(nr, nr, k, ri, ci, v, &A, NULL, &err));
    CHECK_OK(cgm_partition(&A, 1, 2, 4, bounds, &err));
    CHECK_MSG(bounds[1] % 4 == 0 && bounds[1] < nr && bounds[2] == nr,
              "1001 rows in 2: [0, %d, %d]", bounds[1], bounds[2]);
    check("1001 rows, heavy last", &A, 1, 2);
    check("1001 rows, heavy last", &A, 2, 3);
    cgm_csr_free(&A);
    free(ri), free(ci), free(v);
  }
  TEST_MAIN_END();
}
