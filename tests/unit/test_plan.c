/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The plan says what the solver builds: for bundled and generated matrices,
 * every block size, 1..8 GPUs and every exchange (halo with and without the
 * balanced cut), the segments the CUDA solver's host-side set-up builds
 * (solver/cuda/segments.c) have exactly the plan's block rows, layout
 * counts, longest rows and walks, halos, gathered vectors, send lists and
 * exchange volume, and the tuner's plans (from a shared pattern) equal the
 * solver's. Also the B_x rule, the model's view of a segment, the uniform
 * plans of the speed-up maps, and refused configurations. */
#include <stdlib.h>
#include <string.h>

#include "cgmodel/model.h"
#include "cgmodel/plan.h"
#include "solver/cuda/segments.h"
#include "sparse/bcsr_internal.h"
#include "test_util.h"

/* A built layout against the plan's counts of it. */
static void check_layout(const char *what, const cgm_bcsr *B, const cgm_plan_layout *L) {
  int32_t longest = 0;
  int64_t walk = 0;
  /* long rows (one GPU): a block row a slice, unpadded, counted in the
   * steps of the threads that read it */
  const int bx = B->p.bx, n = B->p.n;
  CHECK_MSG(!L->long_rows || (B->p.bx == 1 && B->p.by == 1),
            "%s: long rows laid out with N = %d, B_x = %d, B_y = %d", what, B->p.n, B->p.bx,
            B->p.by);
  for (int32_t i = 0; B->brow_len && i < B->brow_span; i++) {
    const int32_t steps =
        L->long_rows ? cgm_long_row_steps(B->brow_len[i], n) : (B->brow_len[i] + bx - 1) / bx;
    if (L->long_rows) CHECK_MSG(B->brow_len[i] == 0 || B->brow_len[i] > CGM_LONG_ROW, "%s", what);
    if ((L->long_rows ? steps : B->brow_len[i]) > longest)
      longest = L->long_rows ? steps : B->brow_len[i];
    walk += steps;
  }
  CHECK_MSG(B->nbrows == L->brows && B->nblocks == L->blocks &&
                B->nblocks_padded == L->blocks_padded && B->nslices == L->nslices &&
                longest == L->max_row && walk == L->walk,
            "%s: built %d block rows, %lld blocks, %lld padded, %d slices, longest %d, walk %lld; "
            "planned %d, %lld, %lld, %d, %d, %lld",
            what, B->nbrows, (long long)B->nblocks, (long long)B->nblocks_padded, B->nslices,
            longest, (long long)walk, L->brows, (long long)L->blocks, (long long)L->blocks_padded,
            L->nslices, L->max_row, (long long)L->walk);
}

/* The built layout of the plan's part k of segment ps: the long rows' C,
 * the interior (or whole) A, the boundary B. */
static const cgm_bcsr *built_part(const cgm_plan_segment *ps, const cgm_seg_host *s, int k) {
  return ps->part[k].long_rows ? &s->C : k == 0 ? &s->A : &s->B;
}

/* What the CUDA solver allocates on a device for a built segment
 * (kernels/cuda_dev.cu and the halo send list), recounted here: five own
 * vectors and the gathered one in the iteration's precision, b (double
 * unless all single), mixed precision's solution and A x in double and its
 * double values, the layouts, the send list, the scratch. */
static int64_t built_bytes(const cgm_plan *p, int g, const cgm_seg_host *s, int64_t rows,
                           int64_t sends) {
  const cgm_precision prec = p->o.precision;
  const int64_t w = prec == CGM_PREC_DOUBLE ? 8 : 4, n = p->o.layout.n;
  int64_t v = s->v_len > rows ? s->v_len : rows, own = cgm_vec_len(rows);
  int64_t b = 5 * own * w + cgm_vec_len(v) * w + own * (prec == CGM_PREC_SINGLE ? 4 : 8) +
              CGM_DEVICE_SCRATCH_BYTES;
  for (int k = 0; k < p->seg[g].nparts; k++) {
    const cgm_bcsr *L = built_part(&p->seg[g], s, k);
    b += L->nblocks_padded * (n * n * w + 4) + (int64_t)L->nslices * L->p.by * 4 +
         ((int64_t)L->nslices + 1) * 8;
  }
  if (prec == CGM_PREC_MIXED) /* the values in double: of the long rows' layout too */
    b += 2 * own * 8 + (s->A.nblocks_padded + s->C.nblocks_padded) * n * n * 8;
  return b + sends * 4;
}

static int nplans;

static void check_matrix(const char *name, const cgm_csr *A) {
  cgm_error err = {0};
  for (int bi = 0; bi < CGM_NBLOCKSIZES; bi++) {
    const int n = cgm_block_sizes[bi];
    cgm_plan_pattern *pt;
    CHECK_OK(cgm_plan_pattern_make(A, n, &pt, &err));
    for (int G = 1; G <= CGM_MAX_GPUS; G++)
      for (int ex = 0; ex < CGM_NEXCHANGES; ex++)
        for (int bal = 0; bal < 2; bal++) {
          if (bal && (G == 1 || ex != CGM_EXCHANGE_HALO)) continue;
          cgm_plan_opts o = cgm_plan_opts_default();
          o.backend = CGM_BACKEND_CUDA;
          o.layout.n = n;
          o.gpus = G;
          o.exchange = (cgm_exchange)ex;
          o.balance = bal;
          cgm_plan p, q;
          char what[160];
          snprintf(what, sizeof what, "%s N=%d G=%d %s%s", name, n, G,
                   cgm_exchange_name((cgm_exchange)ex), bal ? " balanced" : "");
          cgm_status sp = cgm_plan_make(A, &o, &p, &err),
                     sq = cgm_plan_from_pattern(pt, &o, &q, &err);
          CHECK_MSG(sp == sq, "%s: the solver's plan %d, the tuner's %d", what, sp, sq);
          if (sp) {
            CHECK_MSG(sp == CGM_EINPUT && strstr(err.msg, "too few"), "%s: %s", what, err.msg);
            continue;
          }
          nplans++;
          /* The tuner's plan (a shared pattern) is the solver's. */
          CHECK_MSG(!memcmp(&p, &q, sizeof p), "%s: the tuner's plan differs", what);
          CHECK(p.bounds[0] == 0 && p.bounds[G] == p.nb);
          cgm_seg_host seg[CGM_MAX_GPUS];
          memset(seg, 0, sizeof seg);
          for (int g = 0; g < G; g++) {
            const cgm_plan_segment *s = &p.seg[g];
            char w2[200];
            snprintf(w2, sizeof w2, "%s seg %d", what, g);
            CHECK_OK(cgm_seg_build(A, &p, g, &seg[g], &err));
            CHECK(s->rows == (int64_t)(s->b1 - s->b0) * n && s->b0 == p.bounds[g]);
            CHECK_MSG(seg[g].v_len == s->v_len, "%s: v_len %lld, planned %lld", w2,
                      (long long)seg[g].v_len, (long long)s->v_len);
            for (int k = 0; k < s->nparts; k++)
              check_layout(w2, built_part(s, &seg[g], k), &s->part[k]);
            CHECK_MSG(seg[g].h.nhalo == s->nhalo, "%s: halo %d, planned %d", w2, seg[g].h.nhalo,
                      s->nhalo);
            /* long rows apart on our kernels' one GPU and with the halo alone */
            const bool split = G == 1 || ex == CGM_EXCHANGE_HALO;
            CHECK_MSG(split || seg[g].C.nbrows == 0, "%s: long rows apart", w2);
            for (int k = 0; k < s->nparts && !split; k++) CHECK(!s->part[k].long_rows);
            if (!(G > 1 && ex == CGM_EXCHANGE_HALO)) CHECK(seg[g].B.nbrows == 0 && s->nhalo == 0);
            if (!cgm_plan_long_part(s)) CHECK(seg[g].C.nbrows == 0);
          }
          int64_t sent = 0;
          for (int j = 0; j < G; j++) {
            int64_t e = 0;
            if (G > 1 && ex == CGM_EXCHANGE_HALO) {
              cgm_seg_sends sl;
              CHECK_OK(cgm_seg_sends_build(&p, seg, j, &sl, &err));
              e = sl.off[sl.ndst];
              cgm_seg_sends_free(&sl);
            }
            CHECK_MSG(e == p.seg[j].sends, "%s seg %d: sends %lld, planned %lld", what, j,
                      (long long)e, (long long)p.seg[j].sends);
            sent += e;
            int64_t want = built_bytes(&p, j, &seg[j], p.seg[j].rows, e);
            CHECK_MSG(p.seg[j].device_bytes == want, "%s seg %d: %lld bytes, planned %lld", what, j,
                      (long long)want, (long long)p.seg[j].device_bytes);
          }
          if (G == 1) /* one GPU in every precision (mixed runs on one alone) */
            for (int pr = 0; pr < CGM_NPRECISIONS; pr++) {
              cgm_plan q1 = p;
              cgm_plan_set_precision(&q1, (cgm_precision)pr);
              CHECK(q1.seg[0].device_bytes == built_bytes(&q1, 0, &seg[0], q1.seg[0].rows, 0));
            }
          if (G == 1) /* one GPU in every precision (mixed runs on one alone) */
            for (int pr = 0; pr < CGM_NPRECISIONS; pr++) {
              cgm_plan q1 = p;
              cgm_plan_set_precision(&q1, (cgm_precision)pr);
              CHECK(q1.seg[0].device_bytes == built_bytes(&q1, 0, &seg[0], q1.seg[0].rows, 0));
            }
          if (G > 1 && ex == CGM_EXCHANGE_HALO) CHECK(p.exchange_elems == sent);
          if (G > 1 && ex == CGM_EXCHANGE_P2P)
            CHECK(p.exchange_elems == (int64_t)(G - 1) * p.bounds[G] * n);
          if (G == 1) CHECK(p.exchange_elems == 0);
          for (int g = 0; g < G; g++) cgm_seg_free(&seg[g]);
        }
    cgm_plan_pattern_free(pt);
  }
}

static void bundled(void) {
  const char *names[] = {"bcsstk16", "1138_bus", "bcsstk13", "nos4", "msc00726", "bcsstm25"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.mtx", CGM_DATA_DIR, names[i]);
    cgm_csr A;
    cgm_error err = {0};
    if (cgm_mm_read_csr(path, &A, NULL, &err)) {
      CHECK_MSG(0, "%s", err.msg);
      continue;
    }
    check_matrix(names[i], &A);
    cgm_csr_free(&A);
  }
}

static void generated(void) {
  cgm_csr A;
  cgm_error err = {0};
  CHECK_OK(cgm_gen_poisson3d(14, &A, &err));
  check_matrix("poisson3d:14", &A);
  cgm_csr_free(&A);
  CHECK_OK(cgm_gen_elasticity3d(5, &A, &err));
  check_matrix("elasticity3d:5", &A);
  cgm_csr_free(&A);
  /* Long rows: B_x = 8 at N = 1. */
  CHECK_OK(cgm_gen_band(3000, 40, &A, &err));
  check_matrix("band:3000,40", &A);
  cgm_csr_free(&A);
  CHECK_OK(cgm_gen_random_spd(5000, 6.0, CGM_ROWDIST_POWERLAW, 2.0, 400, 7, &A, &err));
  check_matrix("random powerlaw", &A);
  cgm_csr_free(&A);
  /* hubs past CGM_LONG_ROW blocks at every N: long rows at N >= 2 too */
  CHECK_OK(cgm_gen_random_spd(6000, 6.0, CGM_ROWDIST_POWERLAW, 2.0, 5000, 11, &A, &err));
  check_matrix("random powerlaw, hubs", &A);
  cgm_features f;
  CHECK_OK(cgm_plan_features(&A, &f, &err));
  int from_features = 0;
  for (int bi = 0; bi < CGM_NBLOCKSIZES; bi++) {
    const int n = cgm_block_sizes[bi];
    cgm_plan_opts o = cgm_plan_opts_default();
    o.backend = CGM_BACKEND_CUDA;
    o.layout.n = n;
    cgm_plan p, q;
    CHECK_OK(cgm_plan_make(&A, &o, &p, &err));
    CHECK_MSG(p.seg[0].nparts == 2 && p.seg[0].part[1].long_rows && p.seg[0].part[1].brows > 0 &&
                  p.seg[0].part[0].max_row <= CGM_LONG_ROW,
              "hubs N=%d: %d parts, longest kept %d blocks", n, p.seg[0].nparts,
              p.seg[0].part[0].max_row);
    /* the long rows' sectors, recounted entry by entry: every sector an
     * entry of each long block row touches, once a row */
    int64_t want[CGM_NSECTOR_WIDTHS] = {0, 0};
    const int32_t nb = (A.nrows + n - 1) / n;
    int32_t *cols = malloc(sizeof *cols * (size_t)A.ncols);
    int64_t *sec = malloc(sizeof *sec * (size_t)A.ncols * n);
    for (int32_t b = 0; b < nb; b++) {
      const int32_t len = cgm_block_row_columns(&A, b, n, cols);
      if (len <= CGM_LONG_ROW) continue;
      for (int w = 0; w < CGM_NSECTOR_WIDTHS; w++) {
        int64_t k = 0;
        for (int32_t i = 0; i < len; i++)
          for (int j = 0; j < n; j++) sec[k++] = ((int64_t)cols[i] * n + j) * (w ? 4 : 8) / 32;
        int64_t distinct = 0;
        for (int64_t i = 0; i < k; i++) distinct += i == 0 || sec[i] != sec[i - 1];
        want[w] += distinct;
      }
    }
    free(cols);
    free(sec);
    for (int w = 0; w < CGM_NSECTOR_WIDTHS; w++)
      CHECK_MSG(p.seg[0].long_x_sectors[w] == want[w] && want[w] > 0,
                "hubs N=%d width %d: %lld long-row sectors, recounted %lld", n, w,
                (long long)p.seg[0].long_x_sectors[w], (long long)want[w]);
    /* the same from a plan whose other sectors come from the features
     * (marked, so that the branch that takes them shows) */
    cgm_features ff = f;
    ff.block[bi].x_sectors[0] += 1000;
    o.features = &ff;
    CHECK_OK(cgm_plan_make(&A, &o, &q, &err));
    CHECK(
        !memcmp(q.seg[0].long_x_sectors, p.seg[0].long_x_sectors, sizeof p.seg[0].long_x_sectors));
    if (q.o.layout.bx == ff.block[bi].bx && q.o.layout.by == ff.block[bi].by) {
      CHECK(q.seg[0].x_sectors[0] == ff.block[bi].x_sectors[0]);
      from_features++;
    }
    /* On several GPUs with the halo every segment puts its hubs apart too
     * (interior and boundary rows alike): the segments' long rows are the
     * one GPU's, block for block and sector for sector. On the others
     * (the whole vector, whose kernels wait on flags) they stay. */
    for (int G = 2; G <= 4; G += 2)
      for (int ex = 0; ex < CGM_NEXCHANGES; ex++) {
        cgm_plan_opts om = o;
        om.features = NULL;
        om.gpus = G;
        om.exchange = (cgm_exchange)ex;
        cgm_plan m;
        CHECK_OK(cgm_plan_make(&A, &om, &m, &err));
        int64_t blocks = 0, sectors[CGM_NSECTOR_WIDTHS] = {0, 0};
        for (int g = 0; g < G; g++) {
          const cgm_plan_layout *L = cgm_plan_long_part(&m.seg[g]);
          for (int k = 0; k < m.seg[g].nparts; k++)
            CHECK(m.seg[g].part[k].long_rows || m.seg[g].part[k].max_row <= CGM_LONG_ROW ||
                  ex != CGM_EXCHANGE_HALO);
          blocks += L ? L->blocks : 0;
          for (int w = 0; w < CGM_NSECTOR_WIDTHS; w++) sectors[w] += m.seg[g].long_x_sectors[w];
        }
        const bool halo = ex == CGM_EXCHANGE_HALO;
        CHECK_MSG(blocks == (halo ? p.seg[0].part[1].blocks : 0),
                  "hubs N=%d G=%d %s: %lld blocks in long rows, one GPU %lld", n, G,
                  cgm_exchange_name((cgm_exchange)ex), (long long)blocks,
                  (long long)p.seg[0].part[1].blocks);
        for (int w = 0; w < CGM_NSECTOR_WIDTHS; w++)
          CHECK(sectors[w] == (halo ? p.seg[0].long_x_sectors[w] : 0));
      }
  }
  CHECK_MSG(from_features > 0, "no plan took its sectors from the features");
  cgm_csr_free(&A);
}

/* B_x per matrix: short rows keep 1; elasticity's 72-entry rows get 8 at
 * N = 1 (average row over 16), 1 at N >= 2; one warp per slice; rows that
 * fill a GPU keep one lane per row. */
static void layout_rule(void) {
  cgm_error err = {0};
  cgm_csr P, E;
  CHECK_OK(cgm_gen_poisson3d(10, &P, &err));
  CHECK_OK(cgm_gen_elasticity3d(16, &E, &err)); /* rows avg 71.7 entries */
  const int want_e[] = {8, 1, 1, 1};
  for (int bi = 0; bi < CGM_NBLOCKSIZES; bi++) {
    int n = cgm_block_sizes[bi];
    cgm_bcsr_params pp = cgm_plan_layout_params(&P, n, 1), pe = cgm_plan_layout_params(&E, n, 1);
    CHECK_MSG(pp.n == n && pp.bx == 1 && pp.by == 32 / n, "poisson N=%d: bx %d by %d", n, pp.bx,
              pp.by);
    CHECK_MSG(pe.bx == want_e[bi] && pe.by * pe.bx * n == 32, "elasticity N=%d: bx %d by %d", n,
              pe.bx, pe.by);
    cgm_bcsr B;
    CHECK_OK(cgm_bcsr_build(&E, 0, (E.nrows + n - 1) / n, pe, &B, &err));
    CHECK(B.p.bx == pe.bx && B.nblocks_padded % pe.bx == 0);
    cgm_bcsr_free(&B);
  }
  cgm_csr_free(&P);
  cgm_csr_free(&E);
  /* 81-entry rows at N = 1: B_x = 8 on 100K rows per GPU, 2 on 300K (4
   * would pass 2^20 threads), 1 on 1M; N >= 2 keeps 1. */
  CHECK(cgm_plan_layout_choose(1, 81.0, 100000).bx == 8);
  CHECK(cgm_plan_layout_choose(1, 81.0, 300000).bx == 2);
  CHECK(cgm_plan_layout_choose(1, 81.0, 1000000).bx == 1);
  CHECK(cgm_plan_layout_choose(2, 81.0, 10000).bx == 1);
  CHECK(cgm_plan_layout_choose(8, 400.0, 1000).bx == 1);
}

/* The model's view of a segment: bytes, rows, the longest walk (interior
 * then boundary, two launches) and the mean walk over all block rows. */
static void model_shape(void) {
  cgm_csr A;
  cgm_error err = {0};
  CHECK_OK(cgm_gen_poisson3d(20, &A, &err));
  for (int bi = 0; bi < CGM_NBLOCKSIZES; bi++) {
    const int n = cgm_block_sizes[bi];
    cgm_plan_opts o = cgm_plan_opts_default();
    o.backend = CGM_BACKEND_CUDA;
    o.layout.n = n;
    cgm_plan p;
    CHECK_OK(cgm_plan_make(&A, &o, &p, &err));
    cgm_bcsr B;
    CHECK_OK(cgm_bcsr_build(&A, 0, (A.nrows + n - 1) / n, p.o.layout, &B, &err));
    cgm_segment_shape s = cgm_refined_shape(&p, 0);
    CHECK(s.rows == (int64_t)B.nbrows * n);
    CHECK_NEAR(
        s.spmv_bytes,
        cgm_spmv_bytes(B.nblocks_padded, (int64_t)B.nslices * B.p.by, B.nslices, n, s.rows, 8),
        1e-12);
    cgm_features f;
    CHECK_OK(cgm_plan_features(&A, &f, &err));
    CHECK(s.max_row == f.block[bi].max_blocks_per_row);
    /* one lane a row (B_x = 1): the mean walk is the mean block row */
    CHECK_NEAR(s.mean_row, (double)f.block[bi].blocks / B.nbrows, 1e-12);
    cgm_bcsr_free(&B);
    o.gpus = 3;
    o.balance = false;
    CHECK_OK(cgm_plan_make(&A, &o, &p, &err));
    for (int g = 0; g < 3; g++) {
      const cgm_plan_segment *sg = &p.seg[g];
      s = cgm_refined_shape(&p, g);
      CHECK(s.max_row == sg->part[0].max_row + sg->part[1].max_row);
      CHECK_NEAR(s.mean_row, (double)(sg->part[0].walk + sg->part[1].walk) / (sg->b1 - sg->b0),
                 1e-12);
      CHECK(sg->halo_rows == (int64_t)sg->nhalo * n);
    }
  }
  cgm_csr_free(&A);
  /* Long rows at N = 1 are spread over B_x lanes (81 entries a row: 8):
   * the walks are ceil(len / 8), the longest and the mean. */
  CHECK_OK(cgm_gen_band(4096, 40, &A, &err));
  cgm_plan_opts o = cgm_plan_opts_default();
  o.backend = CGM_BACKEND_CUDA;
  cgm_plan p;
  CHECK_OK(cgm_plan_make(&A, &o, &p, &err));
  CHECK(p.o.layout.bx == 8);
  double wsum = 0;
  int64_t wmax = 0;
  for (int32_t i = 0; i < A.nrows; i++) {
    int64_t w = (A.rowptr[i + 1] - A.rowptr[i] + 7) / 8;
    wsum += (double)w;
    if (w > wmax) wmax = w;
  }
  cgm_segment_shape s = cgm_refined_shape(&p, 0);
  CHECK(s.max_row == wmax && wmax == 11);
  CHECK_NEAR(s.mean_row, wsum / A.nrows, 1e-12);
  cgm_csr_free(&A);
}

/* The scatter of the longest row: by hand on column lists; in order (the
 * arrow) 0 and a line a step (the scattered arrow) 1 at every block size,
 * the same whether the plan reads it from the pattern's columns or from the
 * matrix (a plan given features counts no columns). */
static void row_scatter(void) {
  double sc[CGM_NSECTOR_WIDTHS];
  int32_t c[64];
  for (int j = 0; j < 64; j++) c[j] = j;
  cgm_row_scatter(c, 64, 1, sc); /* 64 doubles in order: 4 lines, the least */
  CHECK(sc[0] == 0.0 && sc[1] == 0.0);
  for (int j = 0; j < 64; j++) c[j] = 32 * j; /* a line of floats (two of doubles) apart */
  cgm_row_scatter(c, 64, 1, sc);
  CHECK(sc[0] == 1.0 && sc[1] == 1.0);
  for (int j = 0; j < 64; j++) c[j] = 2 * (j / 2) * 16 + j % 2; /* pairs a line apart */
  cgm_row_scatter(c, 64, 1, sc); /* 32 lines of 64 steps, the least 4: 28 / 60 */
  CHECK_NEAR(sc[0], 28.0 / 60.0, 1e-12);
  cgm_row_scatter(c, 1, 8, sc); /* one block: nothing to scatter */
  CHECK(sc[0] == 0.0 && sc[1] == 0.0);
  /* the warp's rows (8 x 8 fp64: two threads a block row) and its share */
  CHECK(cgm_warp_rows(1, 1, 8) == 32 && cgm_warp_rows(2, 1, 8) == 16 &&
        cgm_warp_rows(8, 1, 8) == 2 && cgm_warp_rows(8, 1, 4) == 4 && cgm_warp_rows(1, 8, 8) == 4);
  const int32_t lone[4] = {100, 3, 3, 3}, full[4] = {100, 100, 99, 100}, half[2] = {100, 50};
  CHECK_NEAR(cgm_warp_share(lone, 4, 1), (109.0 / 100 - 1) / 3, 1e-12);
  CHECK(cgm_warp_share(full, 4, 1) > 0.99 && cgm_warp_share(half, 2, 1) == 0.5);
  CHECK(cgm_warp_share(full, 1, 1) == 0.0);
  cgm_error err = {0};
  for (int bi = 0; bi < CGM_NBLOCKSIZES; bi++) {
    const int n = cgm_block_sizes[bi];
    cgm_csr A, S;
    CHECK_OK(cgm_gen_arrow(8192, 256 * n, &A, &err));
    CHECK_OK(cgm_gen_arrow_scattered(65536, 256, n, 3, &S, &err));
    cgm_plan_opts o = cgm_plan_opts_default();
    o.backend = CGM_BACKEND_CUDA;
    o.layout.n = n;
    cgm_plan p, q;
    CHECK_OK(cgm_plan_make(&A, &o, &p, &err));
    CHECK_MSG(p.seg[0].longest == 0 && p.seg[0].row_scatter[0] < 0.02,
              "arrow N = %d: longest %d, scatter %g", n, p.seg[0].longest, p.seg[0].row_scatter[0]);
    /* the arrow's long row walks alone in its warp (N = 1: a warp of its own) */
    CHECK_MSG(p.seg[0].warp_share[0] < 0.05, "arrow N = %d: warp share %g", n,
              p.seg[0].warp_share[0]);
    cgm_csr Bd;
    CHECK_OK(cgm_gen_band(8192, 40, &Bd, &err)); /* every row as long: a full warp */
    CHECK_OK(cgm_plan_make(&Bd, &o, &q, &err));
    CHECK_MSG(q.seg[0].warp_share[0] > 0.9, "band N = %d: warp share %g", n,
              q.seg[0].warp_share[0]);
    cgm_csr_free(&Bd);
    CHECK_OK(cgm_plan_make(&S, &o, &p, &err));
    for (int w = 0; w < CGM_NSECTOR_WIDTHS; w++)
      CHECK_MSG(p.seg[0].row_scatter[w] > 0.9, "scattered arrow N = %d width %d: scatter %g", n, w,
                p.seg[0].row_scatter[w]);
    cgm_features f;
    CHECK_OK(cgm_plan_features(&S, &f, &err));
    o.features = &f;
    CHECK_OK(cgm_plan_make(&S, &o, &q, &err));
    CHECK(q.seg[0].longest == p.seg[0].longest);
    for (int w = 0; w < CGM_NSECTOR_WIDTHS; w++)
      CHECK_NEAR(q.seg[0].row_scatter[w], p.seg[0].row_scatter[w], 1e-12);
    const cgm_segment_shape sh = cgm_refined_shape(&p, 0);
    CHECK(sh.row_scatter == p.seg[0].row_scatter[0]);
    cgm_csr_free(&A);
    cgm_csr_free(&S);
  }
}

/* The speed-up maps' matrices, the cuSPARSE plan, and configurations that
 * cannot exist. */
static void uniform_and_refusals(void) {
  cgm_error err = {0};
  cgm_plan_opts o = cgm_plan_opts_default();
  o.backend = CGM_BACKEND_CUDA;
  o.layout.n = 2;
  o.gpus = 4;
  o.exchange = CGM_EXCHANGE_P2P;
  cgm_plan p;
  CHECK_OK(cgm_plan_uniform(1e6, 2e7, &o, &p, &err));
  CHECK(p.nseg == 4 && p.exchange_elems == 3 * (int64_t)1e6 && p.seg[0].rows == 250000);
  CHECK(p.seg[0].part[0].blocks_padded == (int64_t)(2e7 / 4 / 4) && p.seg[0].part[0].walk == 0);
  o.exchange = CGM_EXCHANGE_HOST;
  CHECK_OK(cgm_plan_uniform(1e6, 2e7, &o, &p, &err));
  CHECK(p.exchange_elems == 4 * (int64_t)1e6);
  /* The halo of a band of reach (e / x - 1) / 2 = 9.5 rows: 5 blocks of 2
   * from each neighbour, the end segments have one; a diagonal matrix none. */
  o.exchange = CGM_EXCHANGE_HALO;
  CHECK_OK(cgm_plan_uniform(1e6, 2e7, &o, &p, &err));
  CHECK(p.seg[0].nhalo == 5 && p.seg[1].nhalo == 10 && p.seg[3].nhalo == 5);
  CHECK(p.exchange_elems == 2 * (5 + 10 + 10 + 5) && p.seg[1].sends == 20);
  CHECK(p.seg[1].nparts == 2 && p.seg[1].part[1].brows == 10 &&
        p.seg[1].part[0].blocks + p.seg[1].part[1].blocks == (int64_t)(2e7 / 4 / 4));
  CHECK_OK(cgm_plan_uniform(1e6, 1e6, &o, &p, &err));
  CHECK(p.exchange_elems == 0);
  /* e = x^2, a band of reach x / 2: the inner segments read the whole rest
   * of the vector (as p2p moves it), the ends half of it */
  CHECK_OK(cgm_plan_uniform(1e4, 1e8, &o, &p, &err));
  CHECK(p.seg[1].halo_rows == 7500 && p.seg[0].halo_rows == 5000);
  CHECK(p.exchange_elems == 2 * 7500 + 2 * 5000);
  /* against a real band matrix's halo (cgm_plan_make counts its columns) */
  {
    cgm_csr B;
    CHECK_OK(cgm_gen_band(40000, 50, &B, &err));
    cgm_plan real, uni;
    CHECK_OK(cgm_plan_make(&B, &o, &real, &err));
    CHECK_OK(cgm_plan_uniform(B.nrows, (double)B.nnz, &o, &uni, &err));
    CHECK_MSG(fabs((double)uni.exchange_elems / real.exchange_elems - 1) < 0.1,
              "band halo: uniform %lld, real %lld", (long long)uni.exchange_elems,
              (long long)real.exchange_elems);
    cgm_csr_free(&B);
  }
  o.gpus = 1; /* one GPU exchanges nothing: any mode */
  CHECK_OK(cgm_plan_uniform(1e6, 2e7, &o, &p, &err));
  CHECK(p.exchange_elems == 0);

  cgm_csr A;
  CHECK_OK(cgm_gen_poisson3d(10, &A, &err));
  cgm_plan_opts c = cgm_plan_opts_default();
  c.backend = CGM_BACKEND_CUSPARSE;
  CHECK_OK(cgm_plan_make(&A, &c, &p, &err));
  CHECK(p.nseg == 1 && p.device_bytes == A.nnz * 12 + 4 * (A.nrows + 1) + 6 * 8 * (int64_t)A.nrows);
  cgm_plan_set_precision(&p, CGM_PREC_SINGLE);
  CHECK(p.device_bytes == A.nnz * 8 + 4 * (A.nrows + 1) + 6 * 4 * (int64_t)A.nrows);
  cgm_plan_opts bad = cgm_plan_opts_default();
  bad.gpus = 2; /* several GPUs off the CUDA backend */
  CHECK(cgm_plan_make(&A, &bad, &p, &err) == CGM_EINPUT && strstr(err.msg, "need backend=cuda"));
  bad.backend = CGM_BACKEND_CUDA;
  bad.gpus = CGM_MAX_GPUS + 1;
  CHECK(cgm_plan_make(&A, &bad, &p, &err) == CGM_EINPUT && strstr(err.msg, "not in 1..8"));
  bad.gpus = 2;
  bad.layout.n = 3;
  CHECK(cgm_plan_make(&A, &bad, &p, &err) == CGM_EINPUT &&
        strstr(err.msg, "the block size is 1, 2, 4 or 8"));
  cgm_csr_free(&A);
}

/* A matrix in GPU memory (cgm_plan_device_csr): one segment of every row
 * at N = 1, cut as the host's one-GPU plan of the same CSR, its B_x and
 * B_y resolved, its memory the host plan's without the layouts; any other
 * configuration refused. */
static void device_csr(void) {
  cgm_error err = {0};
  cgm_csr A;
  CHECK_OK(cgm_gen_poisson3d(12, &A, &err));
  for (int prec = 0; prec < CGM_NPRECISIONS; prec++) {
    cgm_plan_opts o = cgm_plan_opts_default();
    o.backend = CGM_BACKEND_CUDA;
    o.precision = (cgm_precision)prec;
    o.layout = cgm_bcsr_default_params(1);
    cgm_plan host, dev;
    CHECK_OK(cgm_plan_make(&A, &o, &host, &err));
    o.layout.bx = o.layout.by = 0;
    CHECK_OK(cgm_plan_device_csr(A.nrows, A.nnz, &o, &dev, &err));
    CHECK(dev.nseg == 1 && dev.nrows == host.nrows && dev.nnz == host.nnz && dev.nb == host.nb);
    CHECK(dev.bounds[0] == 0 && dev.bounds[1] == host.bounds[1] && dev.exchange_elems == 0);
    CHECK(dev.seg[0].rows == host.seg[0].rows && dev.seg[0].v_len == host.seg[0].v_len);
    CHECK(dev.o.layout.bx == host.o.layout.bx && dev.o.layout.by == host.o.layout.by);
    cgm_plan bare = host; /* the host's plan with its layout uncounted */
    memset(bare.seg[0].part, 0, sizeof bare.seg[0].part);
    cgm_plan_set_precision(&bare, (cgm_precision)prec);
    CHECK_MSG(dev.device_bytes == bare.device_bytes && dev.device_bytes < host.device_bytes,
              "%s: device %lld, host %lld, host without the layout %lld",
              cgm_precision_name((cgm_precision)prec), (long long)dev.device_bytes,
              (long long)host.device_bytes, (long long)bare.device_bytes);
  }
  cgm_plan p;
  cgm_plan_opts o = cgm_plan_opts_default(); /* the CPU backend */
  CHECK(cgm_plan_device_csr(A.nrows, A.nnz, &o, &p, &err) == CGM_EINPUT);
  o.backend = CGM_BACKEND_CUDA;
  o.layout.n = 2;
  CHECK(cgm_plan_device_csr(A.nrows, A.nnz, &o, &p, &err) == CGM_EINPUT);
  o.layout.n = 1;
  o.gpus = 2;
  CHECK(cgm_plan_device_csr(A.nrows, A.nnz, &o, &p, &err) == CGM_EINPUT);
  o.gpus = 1;
  CHECK(cgm_plan_device_csr(-1, A.nnz, &o, &p, &err) == CGM_EINPUT);
  CHECK_OK(cgm_plan_device_csr(A.nrows, A.nnz, &o, &p, &err));
  cgm_csr_free(&A);
}

/* A plan given the matrix's features takes its sectors of x from them: the
 * same counts as a plan that walks the block columns, at every N, on the
 * CPU and on one GPU; a layout the features did not count (B_x = 2 where
 * they used 1, several GPUs) is counted as before. */
static void known_sectors(void) {
  cgm_error e = {0};
  cgm_csr A;
  CHECK_OK(cgm_gen_random_spd(3001, 9, CGM_ROWDIST_POWERLAW, 2.2, 0, 3, &A, &e));
  cgm_features f;
  CHECK_OK(cgm_plan_features(&A, &f, &e));
  for (int b = 0; b < CGM_NBLOCKSIZES; b++)
    for (int v = 0; v < 4; v++) {
      cgm_plan_opts o = cgm_plan_opts_default();
      o.backend = v == 0 ? CGM_BACKEND_CPU : CGM_BACKEND_CUDA;
      o.layout = cgm_bcsr_default_params(cgm_block_sizes[b]);
      o.layout.bx = v == 2 ? 2 : 0;
      o.layout.by = 0;
      o.gpus = v == 3 ? 2 : 1;
      cgm_plan counted, known;
      CHECK_OK(cgm_plan_make(&A, &o, &counted, &e));
      o.features = &f;
      CHECK_OK(cgm_plan_make(&A, &o, &known, &e));
      CHECK(counted.nseg == known.nseg);
      /* marked features: the shortcut is taken exactly where it applies */
      cgm_features marked = f;
      marked.block[b].x_sectors[0] += 7;
      o.features = &marked;
      cgm_plan m;
      CHECK_OK(cgm_plan_make(&A, &o, &m, &e));
      CHECK_MSG(m.seg[0].x_sectors[0] == counted.seg[0].x_sectors[0] + (v < 2 ? 7 : 0),
                "N = %d variant %d: the features' sectors %s", cgm_block_sizes[b], v,
                v < 2 ? "were not taken" : "were taken for another layout");
      for (int g = 0; g < counted.nseg; g++)
        for (int w = 0; w < CGM_NSECTOR_WIDTHS; w++)
          CHECK_MSG(counted.seg[g].x_sectors[w] > 0 &&
                        counted.seg[g].x_sectors[w] == known.seg[g].x_sectors[w],
                    "N = %d variant %d segment %d width %d: counted %lld, from features %lld",
                    cgm_block_sizes[b], v, g, w, (long long)counted.seg[g].x_sectors[w],
                    (long long)known.seg[g].x_sectors[w]);
    }
  cgm_csr_free(&A);
}

int main(void) {
  known_sectors();
  layout_rule();
  model_shape();
  row_scatter();
  uniform_and_refusals();
  device_csr();
  generated();
  bundled();
  fprintf(stderr, "%d plans checked against the built segments\n", nplans);
  CHECK(nplans > 500);
  TEST_MAIN_END();
}
