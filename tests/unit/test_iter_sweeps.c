/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The iteration sweeps (microbench/iter_sweeps.c), run on the CPU backend
 * with small grids: each solve's setup (its device bytes), then one sample
 * per solve that ran all its iterations, its bytes the layout's own (recounted here from the BCSR
 * the solver builds), the row and band samples' m the longest block row's elements (recounted from
 * the features), a CPU solve timed an iteration at a time, and a sink that refuses stops the
 * sweep. */
#include <stdio.h>
#include <string.h>

#include "cgmodel/model.h"
#include "cgmodel/plan.h"
#include "microbench/sweep_plan.h"
#include "test_util.h"

typedef struct {
  cgm_sample v[256];
  int n, emits, stop_at;
} sink;

static cgm_status take(void *run, const cgm_sample *s, const char *stage, cgm_error *err) {
  sink *k = run;
  CHECK(!strcmp(stage, "iter"));
  if (++k->emits == k->stop_at) return cgm_fail(err, CGM_ERUNTIME, "stopped");
  if (s && k->n < 256) k->v[k->n++] = *s;
  return CGM_OK;
}

int main(void) {
  cgm_error err = {0};
  static sink k;
  cgm_solve_opts o = cgm_solve_opts_default();
  o.backend = CGM_BACKEND_CPU;
  o.precision = CGM_PREC_DOUBLE;
  CHECK_OK(mb_iteration_sweeps(&o, true, 16, take, &k, &err));
  CHECK_MSG(k.emits == mb_iteration_count(o.backend, o.precision, true, 16), "%d emits, %d counted",
            k.emits, mb_iteration_count(o.backend, o.precision, true, 16));
  int mesh = 0, rows = 0, bands = 0, setups = 0;
  double last_row_m[9] = {0}, last_band_m[9] = {0};
  for (int i = 0; i < k.n; i++) {
    const cgm_sample *s = &k.v[i];
    const int n = s->block, w = 8;
    if (!strcmp(s->kernel, "setup")) {
      /* each solve's setup, before its iteration, with the device bytes it built */
      CHECK(i + 1 < k.n && !strcmp(k.v[i + 1].kernel, "iter") &&
            !strcmp(k.v[i + 1].source, s->source) && k.v[i + 1].block == n);
      CHECK(s->seconds > 0 && s->bytes > k.v[i + 1].bytes / 2);
      setups++;
      continue;
    }
    CHECK(!strcmp(s->kernel, "iter") && s->precision == CGM_PREC_DOUBLE && s->seconds > 0 &&
          s->m == s->bytes / w);
    CHECK(i > 0 && !strcmp(k.v[i - 1].kernel, "setup"));
    cgm_csr A;
    int g = 0, len = 0, nr = 0;
    if (!strcmp(s->variant, "mesh")) {
      mesh++;
      int dim = 0;
      CHECK(sscanf(s->source, "poisson%dd:%d", &dim, &g) == 2 && g == 16 && (dim == 2 || dim == 3));
      CHECK_OK(dim == 2 ? cgm_gen_poisson2d(g, &A, &err) : cgm_gen_poisson3d(g, &A, &err));
      cgm_bcsr B;
      CHECK_OK(cgm_bcsr_build(&A, 0, (A.nrows + n - 1) / n, cgm_bcsr_default_params(n), &B, &err));
      int64_t r = (int64_t)B.nbrows * n;
      double want =
          cgm_spmv_bytes(B.nblocks_padded, (int64_t)B.nslices * B.p.by, B.nslices, n, r, w) +
          11.0 * r * w; /* CG4 7 passes, CG5 4 */
      CHECK_MSG(s->bytes == want, "%s N=%d: %.0f bytes, want %.0f", s->source, n, s->bytes, want);
      cgm_bcsr_free(&B);
    } else {
      const bool band = !strcmp(s->variant, "band");
      CHECK(band || !strcmp(s->variant, "row"));
      if (band) {
        bands++;
        CHECK(sscanf(s->source, "band:%d,%d", &nr, &len) == 2 && nr == 8192);
        CHECK_OK(cgm_gen_band(nr, len, &A, &err));
      } else {
        rows++;
        CHECK(sscanf(s->source, "arrow:%d,%d", &nr, &len) == 2 && nr == 4096);
        CHECK_OK(cgm_gen_arrow(nr, len, &A, &err));
      }
      /* one lane a row (B_x = 1): the walk is the longest block row */
      cgm_features f;
      CHECK_OK(cgm_plan_features(&A, &f, &err));
      int bi = cgm_block_index(n);
      /* no block row the long-row layout would take (its threads' steps are
       * not the walk this curve prices) */
      CHECK_MSG(f.block[bi].max_blocks_per_row <= CGM_LONG_ROW, "N=%d: an arrow of %d blocks", n,
                f.block[bi].max_blocks_per_row);
      CHECK_MSG(s->m == (double)f.block[bi].max_blocks_per_row * n * n, "%s N=%d: m %.0f",
                s->source, n, s->m);
      double *last = band ? last_band_m : last_row_m;
      CHECK_MSG(s->m > last[n], "%s N=%d: the rows grow", s->source, n);
      last[n] = s->m;
    }
    cgm_csr_free(&A);
  }
  /* Poisson 16^2 and 16^3 at 4 block sizes; arrows of 2, 8, 32, 128 blocks;
   * bands of 2, 8, 32, 128 (walks of about 3, 9, 33, 127) */
  CHECK_MSG(mesh == 8 && rows == 16 && bands == 16 && setups == 40,
            "%d mesh, %d row, %d band and %d setup samples", mesh, rows, bands, setups);
  /* The full lists: as many emits as counted, and no solve twice. */
  static sink full;
  full.stop_at = -1;
  CHECK_OK(mb_iteration_sweeps(&o, false, 8, take, &full, &err));
  CHECK_MSG(full.emits == mb_iteration_count(o.backend, o.precision, false, 8),
            "%d emits, %d counted", full.emits,
            mb_iteration_count(o.backend, o.precision, false, 8));
  for (int i = 0; i < full.n; i++)
    for (int j = i + 1; j < full.n; j++)
      CHECK_MSG(strcmp(full.v[i].kernel, full.v[j].kernel) || full.v[i].block != full.v[j].block ||
                    strcmp(full.v[i].source, full.v[j].source),
                "%s %s N=%d solved twice", full.v[i].kernel, full.v[i].source, full.v[i].block);
  /* A solve that stops early (single precision's true residual stalled on
   * a small grid: after 200 iterations at least, the stall window) is timed
   * again over the 32-iteration graphs it ran; one that ran fewer than 64
   * (a 1-row matrix converges at once) gives no sample. */
  cgm_csr P;
  cgm_solve_opts so = o;
  so.precision = CGM_PREC_SINGLE;
  cgm_solve_result r;
  bool steady = true;
  CHECK_OK(cgm_gen_poisson2d(24, &P, &err));
  CHECK_OK(mb_solve_timed(&P, &so, 800, &r, NULL, &err));
  const int ran = r.iterations;
  CHECK_MSG(r.stalled && ran >= 200 && ran < 800, "Poisson 24^2 stopped at %d", ran);
  CHECK_OK(mb_solve_steady(&P, &so, 800, &r, NULL, &steady, &err));
  CHECK_MSG(steady && r.iterations == ran / 32 * 32 && r.time_per_iter_s > 0,
            "%d iterations (stalled at %d), steady %d", r.iterations, ran, steady);
  cgm_csr_free(&P);
  /* Timed an iteration at a time on the CPU (the clock): every iteration
   * but the first, their tenth percentile as the solve's time, at most the
   * mean of what the solver's own clock saw (0.9 of them are as slow or
   * slower), their median over it the spread. */
  mb_timing t = {0};
  CHECK_OK(cgm_gen_poisson3d(12, &P, &err));
  CHECK_OK(mb_solve_steady(&P, &o, 40, &r, &t, &steady, &err));
  CHECK_MSG(steady && t.n == 39 && t.settled && t.q > 0 && t.spread >= 0 && t.spread < 1e3 &&
                r.time_per_iter_s == t.q && 0.9 * 39 * t.q <= r.time_solve_s,
            "%d timed, q %g s, spread %g, solve %g s", t.n, t.q, t.spread, r.time_solve_s);
  cgm_csr_free(&P);
  CHECK_OK(cgm_gen_poisson2d(1, &P, &err));
  CHECK_OK(mb_solve_steady(&P, &so, 160, &r, NULL, &steady, &err));
  CHECK_MSG(!steady && r.iterations < 64, "1 row: %d iterations, steady %d", r.iterations, steady);
  cgm_csr_free(&P);
  /* A sink that refuses stops the sweep with its error. */
  static sink k2;
  k2.stop_at = 3;
  CHECK(mb_iteration_sweeps(&o, true, 16, take, &k2, &err) == CGM_ERUNTIME &&
        strstr(err.msg, "stopped") && k2.emits == 3);
  TEST_MAIN_END();
}
