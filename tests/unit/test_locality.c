/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The x locality (docs/model.md): the sectors of x each slice of the MBR
 * layout reads, checked against a count made independently from the layout
 * the solver builds (its slices' block columns, padding included); the
 * locality term of the refined model; and the fit of its coefficient, which
 * must recover a known one from synthetic iterations. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/model.h"
#include "cgmodel/plan.h"
#include "cgmodel/sparse.h"
#include "test_linalg.h"
#include "test_util.h"

static int cmp_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Distinct sectors per slice, from the built layout: every block of a slice
 * (padding too) reads the N entries of x at its block column. */
static int64_t layout_sectors(const cgm_bcsr *B, int width) {
  int64_t total = 0;
  const int n = B->p.n;
  for (int32_t k = 0; k < B->nslices; k++) {
    const int64_t b0 = B->slice_ptr[k], b1 = B->slice_ptr[k + 1];
    int64_t *sec = malloc(sizeof *sec * (size_t)((b1 - b0) * 3 + 1));
    int64_t m = 0;
    for (int64_t q = b0; q < b1; q++) {
      if (B->bcol[q] < 0) continue;
      const int64_t first = (int64_t)B->bcol[q] * n * width;
      for (int64_t s = first / 32; s <= (first + (int64_t)n * width - 1) / 32; s++) sec[m++] = s;
    }
    qsort(sec, (size_t)m, sizeof *sec, cmp_i64);
    for (int64_t i = 0; i < m; i++)
      if (i == 0 || sec[i] != sec[i - 1]) total++;
    free(sec);
  }
  return total;
}

static void check_against_layout(const cgm_csr *A, const char *what) {
  cgm_features f;
  cgm_error e = {0};
  CHECK_OK(cgm_plan_features(A, &f, &e));
  for (int b = 0; b < CGM_NBLOCKSIZES; b++) {
    const int n = cgm_block_sizes[b];
    cgm_bcsr B;
    cgm_bcsr_params p = cgm_plan_layout_params(A, n, 1);
    CHECK_OK(cgm_bcsr_build(A, 0, (int32_t)((A->nrows + n - 1) / n), p, &B, &e));
    const int64_t s8 = layout_sectors(&B, 8), s4 = layout_sectors(&B, 4);
    CHECK_MSG(f.block[b].x_sectors[0] == s8, "%s N=%d fp64: %lld, layout %lld", what, n,
              (long long)f.block[b].x_sectors[0], (long long)s8);
    CHECK_MSG(f.block[b].x_sectors[1] == s4, "%s N=%d fp32: %lld, layout %lld", what, n,
              (long long)f.block[b].x_sectors[1], (long long)s4);
    CHECK(f.block[b].x_locality[0] >= 1.0 && f.block[b].x_locality[1] >= 1.0);
    /* the plan of one device counts the same layout */
    cgm_plan_opts po = cgm_plan_opts_default();
    po.layout.n = n;
    cgm_plan plan;
    CHECK_OK(cgm_plan_make(A, &po, &plan, &e));
    CHECK(plan.seg[0].x_sectors[0] == s8 && plan.seg[0].x_sectors[1] == s4);
    cgm_bcsr_free(&B);
  }
}

static void test_sectors(void) {
  cgm_error e = {0};
  /* a diagonal of 64 rows: each slice of 32 rows reads its own 32 entries
   * once, 8 sectors in double and 4 in single: the minimum, locality 1 */
  cgm_csr D;
  CHECK_OK(cgm_csr_alloc(&D, 64, 64, 64, &e));
  for (int i = 0; i < 64; i++) {
    D.rowptr[i + 1] = i + 1;
    D.colidx[i] = i;
    D.val[i] = 2.0;
  }
  cgm_features f;
  CHECK_OK(cgm_features_compute(&D, NULL, &f, &e));
  CHECK(f.block[0].x_sectors[0] == 16 && f.block[0].x_sectors_min[0] == 16);
  CHECK(f.block[0].x_sectors[1] == 8 && f.block[0].x_sectors_min[1] == 8);
  CHECK_NEAR(f.block[0].x_locality[0], 1.0, 1e-15);
  check_against_layout(&D, "diagonal");
  cgm_csr_free(&D);

  /* meshes: natural, shuffled; uneven rows (padding) and a dimension that
   * is not a multiple of N or of a slice */
  cgm_csr A, P;
  CHECK_OK(cgm_gen_poisson3d(11, &A, &e));
  check_against_layout(&A, "poisson 11^3");
  int32_t *perm = malloc(sizeof *perm * (size_t)A.nrows);
  cgm_perm_shuffle(A.nrows, A.nrows, 7, perm);
  CHECK_OK(cgm_csr_permute(&A, perm, &P, &e));
  check_against_layout(&P, "poisson 11^3 shuffled");
  cgm_features fa, fp;
  CHECK_OK(cgm_plan_features(&A, &fa, &e));
  CHECK_OK(cgm_plan_features(&P, &fp, &e));
  /* the same entries, read from farther apart: more sectors, same minimum */
  CHECK(fp.block[0].x_sectors_min[0] == fa.block[0].x_sectors_min[0]);
  CHECK_MSG(fp.block[0].x_locality[0] > 2.0 * fa.block[0].x_locality[0], "%g vs %g",
            fp.block[0].x_locality[0], fa.block[0].x_locality[0]);
  free(perm);
  cgm_csr_free(&A);
  cgm_csr_free(&P);
  cgm_csr M;
  CHECK_OK(cgm_gen_random_spd(999, 9.0, CGM_ROWDIST_POWERLAW, 2.2, 200, 5, &M, &e));
  check_against_layout(&M, "random power-law");
  cgm_csr_free(&M);
  CHECK_OK(cgm_gen_mesh3d(700, 8, CGM_NUMBERING_RANDOM, 3, &M, &e));
  check_against_layout(&M, "mesh3d random");
  cgm_csr_free(&M);
}

/* A model whose iteration is Eq. 5 over one curve per N (the GPU form). */
static cgm_device_model model(void) {
  cgm_device_model m;
  memset(&m, 0, sizeof m);
  m.width = 8;
  m.iter[0] = (cgm_sigmoid){18.0, 1.5, 900.0};
  m.have_iter[0] = true;
  return m;
}

static void test_term(void) {
  cgm_device_model m = model();
  cgm_segment_shape s = {100000, 8.0 * 1e6, 0, 0.0, 0.0};
  const double t0 = cgm_refined_segment_time(&m, 1, &s);
  s.x_sector_bytes = 5.0 * 100000 * 8;              /* x read 5 times over */
  CHECK(cgm_refined_segment_time(&m, 1, &s) == t0); /* no coefficient: as before */
  CHECK(cgm_x_extra_bytes(0.5, &s, 8) == 0.5 * 4.0 * 100000 * 8);
  CHECK(cgm_x_extra_bytes(0.0, &s, 8) == 0.0);
  m.have_x_coef = true;
  m.x_coef = 0.5;
  const double t1 = cgm_refined_segment_time(&m, 1, &s);
  /* Eq. 5 over the iteration's bytes plus the extra */
  const double bytes = cgm_iter_bytes(8.0 * 1e6 + 0.5 * 4.0 * 100000 * 8, 100000, 8);
  CHECK_NEAR(t1, bytes / (cgm_sigmoid_eval(&m.iter[0], bytes / 8) * 1e9), 1e-12);
  CHECK(t1 > t0);
  s.x_sector_bytes = 0.5 * 100000 * 8; /* fewer than the estimate: never less */
  CHECK(cgm_refined_segment_time(&m, 1, &s) == t0);
}

static void test_fit(void) {
  cgm_device_model m = model();
  enum { K = 24 };
  int blocks[K], group[K];
  cgm_segment_shape s[K];
  double t[K];
  const double truth = 0.37;
  cgm_device_model g = m;
  g.have_x_coef = true;
  g.x_coef = truth;
  uint64_t rng = 11;
  for (int i = 0; i < K; i++) {
    const int64_t rows = i < K / 2 ? 50000 : 400000; /* two meshes */
    blocks[i] = 1;
    group[i] = i < K / 2;
    s[i] = (cgm_segment_shape){rows, 10.0 * rows * 8, 0, 0.0, 0.0};
    s[i].x_sector_bytes = (1.0 + 0.75 * (i % (K / 2))) * rows * 8; /* locality 1 .. 9.25 */
    t[i] = cgm_refined_segment_time(&g, 1, &s[i]);
  }
  double c = -1, rms = -1;
  cgm_error e = {0};
  CHECK_OK(cgm_fit_x_coef(&m, blocks, NULL, s, t, K, &c, &rms, &e));
  CHECK_NEAR(c, truth, 1e-6);
  CHECK(rms < 1e-6);
  /* each mesh's times off by its own factor (the model's error on it, the
   * same under every numbering): the groups' ratios still give the truth */
  double tb[K];
  for (int i = 0; i < K; i++) tb[i] = t[i] * (group[i] ? 1.3 : 0.8);
  CHECK_OK(cgm_fit_x_coef(&m, blocks, group, s, tb, K, &c, &rms, &e));
  CHECK_NEAR(c, truth, 1e-6);
  /* with 2% noise on the times, near it */
  for (int i = 0; i < K; i++) tb[i] = t[i] * (1.0 + 0.04 * (unif01(&rng) - 0.5));
  CHECK_OK(cgm_fit_x_coef(&m, blocks, group, s, tb, K, &c, &rms, &e));
  CHECK_MSG(fabs(c - truth) < 0.05, "c = %g", c);
  /* times the sectors barely move (small meshes, as a GPU's at its launch floor) with 8% noise:
   * no term fitted to the noise (an F test at 5%; without it c > 0 in 19 of 40 draws) */
  cgm_device_model g0 = g;
  g0.x_coef = 0;
  cgm_segment_shape s0[K];
  int false_terms = 0;
  for (int draw = 0; draw < 40; draw++) {
    for (int i = 0; i < K; i++) {
      s0[i] = s[i];
      s0[i].rows = s[i].rows / 100;
      s0[i].spmv_bytes /= 100, s0[i].x_sector_bytes /= 100;
      tb[i] = cgm_refined_segment_time(&g0, 1, &s0[i]) * (1.0 + 0.08 * (unif01(&rng) - 0.5));
    }
    CHECK_OK(cgm_fit_x_coef(&m, blocks, group, s0, tb, K, &c, &rms, &e));
    false_terms += c > 0;
  }
  CHECK_MSG(false_terms <= 4, "a term fitted to noise alone in %d of 40 draws", false_terms);
  /* 8% noise over a real term: the term stays */
  for (int i = 0; i < K; i++) tb[i] = t[i] * (1.0 + 0.08 * (unif01(&rng) - 0.5));
  CHECK_OK(cgm_fit_x_coef(&m, blocks, group, s, tb, K, &c, &rms, &e));
  CHECK_MSG(fabs(c - truth) < 0.1, "c = %g", c);
  /* 3 samples of 2 meshes (2 numberings and 1): the meshes' scales and c leave no degree of
   * freedom, c fits two samples exactly and no test can keep it: none; a third numbering of the
   * first mesh (1 left) and exact times keep the truth */
  const int pick4[4] = {0, K - 1, 6, 11};
  int b4[4], g4[4];
  cgm_segment_shape s4[4];
  double t4[4];
  for (int i = 0; i < 4; i++)
    b4[i] = blocks[pick4[i]], g4[i] = group[pick4[i]], s4[i] = s[pick4[i]], t4[i] = t[pick4[i]];
  CHECK_OK(cgm_fit_x_coef(&m, b4, g4, s4, t4, 3, &c, &rms, &e));
  CHECK_MSG(c == 0.0, "c = %g with no degree of freedom", c);
  CHECK_OK(cgm_fit_x_coef(&m, b4, g4, s4, t4, 4, &c, &rms, &e));
  CHECK_NEAR(c, truth, 1e-6);
  /* degenerate: too few samples, or no sample scattered */
  CHECK(cgm_fit_x_coef(&m, blocks, NULL, s, t, 2, &c, &rms, &e) == CGM_EINPUT);
  cgm_segment_shape flat[3] = {s[0], s[0], s[0]};
  CHECK(cgm_fit_x_coef(&m, blocks, NULL, flat, t, 3, &c, &rms, &e) == CGM_EINPUT);
  /* a block size without a curve */
  int n2[K];
  for (int i = 0; i < K; i++) n2[i] = 2;
  CHECK(cgm_fit_x_coef(&m, n2, NULL, s, t, K, &c, &rms, &e) == CGM_EINPUT);
}

/* The gather term: absent, the model as before; present, the vectors' time
 * plus the stream's and the gathers' in quadrature, never below the bytes'
 * time, falling as the rate rises; its fit recovers a known rate from an
 * iteration it priced, and refuses a sample its bytes already explain. */
static void test_gather(void) {
  cgm_device_model m = model();
  m.have_x_coef = true;
  m.x_coef = 0.25;
  /* 1M rows, 8M nonzeros; the iteration curve streams at 900 GB/s */
  cgm_segment_shape s = {1000000, 12.0 * 8e6 + 16e6, 0, 0.0, 0.0};
  s.x_sector_bytes = 32.0 * 8e6; /* a sector a nonzero */
  const double t0 = cgm_refined_segment_time(&m, 1, &s);
  cgm_device_model g = m;
  g.have_gather_bw = true;
  g.gather_bw = 0.8e12;
  const double t1 = cgm_refined_segment_time(&g, 1, &s);
  cgm_segment_shape v = s; /* the vectors alone */
  v.spmv_bytes = 0;
  v.x_sector_bytes = 0;
  cgm_device_model m0 = m;
  m0.have_x_coef = false;
  const double tv = cgm_refined_segment_time(&m0, 1, &v),
               ts = cgm_refined_segment_time(&m0, 1, &(cgm_segment_shape){s.rows, s.spmv_bytes});
  CHECK_NEAR(t1, fmax(t0, tv + hypot(ts - tv, s.x_sector_bytes / 0.8e12)), 1e-15);
  CHECK(t1 > t0);
  g.gather_bw = 1.6e12;
  CHECK(cgm_refined_segment_time(&g, 1, &s) < t1);
  double bw = 0;
  cgm_error e = {0};
  CHECK_OK(cgm_fit_gather_bw(&m, &s, &t1, 1, &bw, &e));
  CHECK_MSG(fabs(bw / 0.8e12 - 1) < 1e-6, "bw %g", bw);
  CHECK(cgm_fit_gather_bw(&m, &s, &t0, 1, &bw, &e) == CGM_EINPUT);
  /* a mesh's few sectors hide under its stream: within 0.5% */
  cgm_segment_shape mesh = s;
  mesh.x_sector_bytes = 1.2 * s.rows * 8;
  g.gather_bw = 0.8e12;
  const double tm = cgm_refined_segment_time(&m, 1, &mesh);
  CHECK(cgm_refined_segment_time(&g, 1, &mesh) < 1.005 * tm);
  /* the long rows' gathers come after the rest, at the gather rate; a
   * model without the rate leaves them to the stream, as before */
  cgm_segment_shape hub = s;
  hub.long_sector_bytes = 32.0 * 1e6;
  CHECK_NEAR(cgm_refined_segment_time(&g, 1, &hub),
             cgm_refined_segment_time(&g, 1, &s) + hub.long_sector_bytes / g.gather_bw, 1e-15);
  CHECK(cgm_refined_segment_time(&m, 1, &hub) == t0);
  /* A second rate, of the sweep's smaller matrix: taken at and below its
   * rows, the larger one's at and above CGM_GATHER_ROWS, log-log between;
   * a segment of CGM_GATHER_ROWS rows is priced as before. */
  g.have_gather_small = true;
  g.gather_bw_small = 0.4e12;
  CHECK(cgm_gather_rate(&g, 1000) == 0.4e12 &&
        cgm_gather_rate(&g, CGM_GATHER_ROWS_SMALL) == 0.4e12);
  CHECK(cgm_gather_rate(&g, CGM_GATHER_ROWS) == 0.8e12 && cgm_gather_rate(&g, 1 << 30) == 0.8e12);
  const double mid = sqrt((double)CGM_GATHER_ROWS * CGM_GATHER_ROWS_SMALL);
  CHECK_NEAR(cgm_gather_rate(&g, (int64_t)llround(mid)), sqrt(0.4e12 * 0.8e12), 1e6);
  cgm_segment_shape half = s; /* fewer rows gather slower: more time than the rate of 1M says */
  half.rows = CGM_GATHER_ROWS / 4;
  cgm_device_model one = g;
  one.have_gather_small = false;
  CHECK(cgm_refined_segment_time(&g, 1, &half) > cgm_refined_segment_time(&one, 1, &half));
  CHECK(cgm_refined_segment_time(&g, 1, &s) == cgm_refined_segment_time(&one, 1, &s));
  CHECK(cgm_gather_rate(&m, 1000) == 0.0); /* no rate: no term */
}

/* A CPU's gathers (gather_cached): they add to the stream's time, and a
 * random gather from r rows misses a cache of R rows' worth in a share
 * 1 - R / r of its reads, so the rate is B / (1 - R / r) past R and there is
 * no term under it. Iterations priced at the true rates of the sweep's two
 * sizes give their rates back through the fit, and the rates between,
 * under and past them follow the law. */
static double cached_rate(double r) {
  const double B = 50e9, R = 80000;
  return r > R ? B / (1 - R / r) : 0.0;
}

static void test_gather_cached(void) {
  cgm_device_model m = model();
  m.gather_cached = true; /* as the CPU's calibration fits it */
  cgm_device_model c = m;
  c.have_gather_bw = c.have_gather_small = true;
  const int64_t sizes[2] = {CGM_GATHER_ROWS, CGM_GATHER_ROWS_SMALL};
  double fitted[2];
  for (int k = 0; k < 2; k++) {
    const double r = (double)sizes[k];
    cgm_segment_shape s = {sizes[k], 12.0 * 8 * r + 16 * r, 0, 0.0, 0.0};
    s.x_sector_bytes = 32.0 * 8 * r;
    cgm_device_model one = m;
    one.have_gather_bw = true;
    one.gather_bw = cached_rate(r);
    const double t = cgm_refined_segment_time(&one, 1, &s);
    /* the stream's time (no sectors) plus the gathers' */
    const double ts = cgm_refined_segment_time(&m, 1, &(cgm_segment_shape){s.rows, s.spmv_bytes});
    CHECK_NEAR(t, ts + s.x_sector_bytes / cached_rate(r), 1e-12);
    cgm_error e = {0};
    CHECK_OK(cgm_fit_gather_bw(&m, &s, &t, 1, &fitted[k], &e));
    CHECK_MSG(fabs(fitted[k] / cached_rate(r) - 1) < 1e-6, "rate %g at %g rows", fitted[k], r);
  }
  c.gather_bw = fitted[0];
  c.gather_bw_small = fitted[1];
  const double rows[] = {100000, CGM_GATHER_ROWS_SMALL, 300000, 600000, CGM_GATHER_ROWS};
  for (int i = 0; i < 5; i++)
    CHECK_MSG(fabs(cgm_gather_rate(&c, (int64_t)rows[i]) / cached_rate(rows[i]) - 1) < 1e-5,
              "%g rows: %g, the law %g", rows[i], cgm_gather_rate(&c, (int64_t)rows[i]),
              cached_rate(rows[i]));
  /* x in the cache: no term, the model as without a rate; past the larger
   * size the larger's rate */
  CHECK(cgm_gather_rate(&c, 70000) == 0.0 && cgm_gather_rate(&c, 20000) == 0.0);
  cgm_segment_shape small = {20000, 12.0 * 8 * 20000 + 16 * 20000, 0, 0.0, 0.0};
  small.x_sector_bytes = 32.0 * 8 * 20000;
  CHECK(cgm_refined_segment_time(&c, 1, &small) == cgm_refined_segment_time(&m, 1, &small));
  CHECK(cgm_gather_rate(&c, 1 << 30) == c.gather_bw);
  /* a smaller matrix that gathered slower: its rate under it, as a GPU's */
  c.gather_bw_small = 0.5 * c.gather_bw;
  CHECK(cgm_gather_rate(&c, 1000) == c.gather_bw_small);
}

int main(void) {
  test_sectors();
  test_term();
  test_fit();
  test_gather();
  test_gather_cached();
  TEST_MAIN_END();
}
