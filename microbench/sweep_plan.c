/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The sizes and matrices every device is calibrated on. The dense-block matrices are Kronecker
 * products P (x) (J + I) of a 3D Poisson pattern (the locality of a structured mesh) and of random
 * SPD patterns with uniform and power-law row lengths (the spreads of Sec. 5.3); the "real" ones
 * are the generators' Poisson, elasticity and random matrices blocked at N. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cgmodel/plan.h"
#include "microbench/sweep_plan.h"

mb_range mb_vector_range(bool cuda, bool quick) {
  if (cuda) return quick ? (mb_range){10, 26, 2} : (mb_range){10, 27, 1};
  /* A CPU's curve bends twice (fork/join, then caches): every size, from vectors of 512 (quick) or
   * 256 entries, one or two threads' work (cgm_cpu_team), as small matrices' solves run them.
   * Smaller ones (64, 128) pulled a quick curve without a cache split 40% off its samples on a
   * 2-core machine, 2 calibrations in 6. */
  return quick ? (mb_range){9, 22, 1} : (mb_range){8, 25, 1};
}

/* log2 of the matrix element counts of the SpMV sweeps. */
static mb_range mb_matrix_range(bool cuda, bool quick) {
  /* 2^26 elements (512 MiB in fp64) is 10x a Hopper L2: the curve is flat
   * there, and larger matrices only cost host-side blocking time. */
  if (cuda) return quick ? (mb_range){12, 24, 2} : (mb_range){12, 26, 1};
  /* from 1024 elements: the SpMV of a matrix of a few hundred rows */
  return quick ? (mb_range){10, 20, 2} : (mb_range){10, 23, 1};
}

void mb_sample(cgm_sample *s, const char *kernel, const char *variant, int precision, int block,
               double bytes, int width, double seconds, const char *source) {
  memset(s, 0, sizeof *s);
  snprintf(s->kernel, sizeof s->kernel, "%s", kernel);
  snprintf(s->variant, sizeof s->variant, "%s", variant ? variant : "");
  snprintf(s->source, sizeof s->source, "%s", source ? source : "");
  s->precision = precision;
  s->block = block;
  s->bytes = bytes;
  s->m = bytes / width;
  s->seconds = seconds;
  s->spread = NAN;
}

void mb_sample_timed(cgm_sample *s, const char *kernel, const char *variant, int precision,
                     int block, double bytes, int width, const mb_timing *t, const char *source) {
  mb_sample(s, kernel, variant, precision, block, bytes, width, t->q, source);
  s->spread = t->spread;
  s->unsettled = !t->settled;
}

void mb_report(mb_run *R, const char *stage) {
  if (R->progress) R->progress(R->ctx, stage, R->total > 0 ? R->done / R->total : 0);
}

cgm_status mb_emit(void *run, const cgm_sample *s, const char *stage, cgm_error *err) {
  mb_run *R = run;
  if (s && R->sink && R->sink(R->ctx, s)) return cgm_fail(err, CGM_ERUNTIME, "calibration stopped");
  R->done += 1;
  mb_report(R, stage);
  return CGM_OK;
}

int mb_band_half(int n, int L) {
  if (L > CGM_LONG_ROW - 1) L = CGM_LONG_ROW - 1; /* L + 1 blocks at most CGM_LONG_ROW */
  return n == 1 ? L / 2 : (L - 1) * n / 2;
}

double mb_value(int64_t i) {
  double f = (double)i * 0.6180339887498949;
  return 1.0 + 0.25 * (f - floor(f));
}

/* Grid sizes whose 7-point stencil pattern has about `elems` / (n^2) entries. */
static int poisson_k(double elems, int n) {
  int k = (int)lround(cbrt(elems / (7.0 * n * n)));
  return k < 2 ? 2 : k;
}

/* The walk: 3 dense kinds and 3 real kinds per size. */
enum {
  KIND_DENSE_POISSON,
  KIND_DENSE_UNIFORM,
  KIND_DENSE_POWERLAW,
  KIND_REAL_POISSON,
  KIND_REAL_ELASTICITY,
  KIND_REAL_RANDOM,
  KINDS
};

static cgm_status make(int kind, int n, double elems, cgm_csr *A, char *src, size_t nsrc,
                       cgm_error *err) {
  cgm_csr P;
  cgm_status st;
  int32_t rows;
  switch (kind) {
  case KIND_DENSE_POISSON: {
    int k = poisson_k(elems, n);
    snprintf(src, nsrc, "poisson3d:%d (x) %d", k, n);
    if ((st = cgm_gen_poisson3d(k, &P, err))) return st;
    break;
  }
  case KIND_DENSE_UNIFORM:
  case KIND_DENSE_POWERLAW: {
    /* 16 blocks a row on average */
    rows = (int32_t)(elems / (16.0 * n * n));
    if (rows < 64) rows = 64;
    bool pl = kind == KIND_DENSE_POWERLAW;
    snprintf(src, nsrc, "random:%d %s (x) %d", rows, pl ? "powerlaw" : "uniform", n);
    st = cgm_gen_random_spd(rows, 16, pl ? CGM_ROWDIST_POWERLAW : CGM_ROWDIST_UNIFORM, 2.5, 0,
                            (uint64_t)rows, &P, err);
    if (st) return st;
    break;
  }
  case KIND_REAL_POISSON: {
    int k = poisson_k(elems, 1);
    snprintf(src, nsrc, "poisson3d:%d", k);
    return cgm_gen_poisson3d(k, A, err);
  }
  case KIND_REAL_ELASTICITY: {
    /* 3 n (n+1)^2 rows of up to 81 entries: about 243 n^3 */
    int k = (int)lround(cbrt(elems / 243.0));
    if (k < 2) k = 2;
    snprintf(src, nsrc, "elasticity3d:%d", k);
    return cgm_gen_elasticity3d(k, A, err);
  }
  default: {
    rows = (int32_t)(elems / 8.0);
    if (rows < 64) rows = 64;
    snprintf(src, nsrc, "random:%d powerlaw", rows);
    return cgm_gen_random_spd(rows, 8, CGM_ROWDIST_POWERLAW, 2.5, 0, 7, A, err);
  }
  }
  st = cgm_gen_kron(&P, n, A, err);
  cgm_csr_free(&P);
  return st;
}

int mb_matrix_count(bool cuda, bool quick) {
  mb_range r = mb_matrix_range(cuda, quick);
  return ((r.hi - r.lo) / r.step + 1) * KINDS;
}

/* Scattered rows blocked at N >= 4 store up to 57x their nonzeros (random power-law at N = 8: 15 GB
 * in fp64 for 2^25 nonzeros, and 30 s of blocking): past 4x the sweep's largest size such a sample
 * only costs time and memory a smaller GPU does not have. */
static cgm_status visit(const cgm_csr *A, int n, mb_range r, const char *variant, const char *src,
                        mb_matrix_fn fn, void *ctx, cgm_error *err) {
  /* P (x) dense N x N blocks at their own N: every block full, the layout's
   * padding that of P's sorted rows, far from 4x; not counted (a pass of
   * every block row, seconds of a quick calibration) */
  if (!strcmp(variant, "dense")) return fn(ctx, A, n, variant, src, err);
  int64_t nb, np;
  int32_t longest;
  cgm_status st = cgm_bcsr_count(A, 0, (A->nrows + n - 1) / n, cgm_plan_layout_params(A, n, 1), &nb,
                                 &np, &longest, err);
  if (st) return st;
  return fn(ctx, (double)np * n * n > ldexp(4.0, r.hi) ? NULL : A, n, variant, src, err);
}

cgm_status mb_for_each_matrix(const int *ns, int nn, bool cuda, bool quick, int dense_hi,
                              mb_matrix_fn fn, void *ctx, cgm_error *err) {
  mb_range r = mb_matrix_range(cuda, quick);
  for (int e = r.lo; e <= r.hi; e += r.step)
    for (int kind = 0; kind < KINDS; kind++) {
      const bool dense = kind < KIND_REAL_POISSON;
      /* A real matrix does not depend on n: made once for every n (the
       * random ones take seconds to generate at the larger sizes). */
      cgm_csr A = {0};
      char src[64];
      cgm_status st = CGM_OK;
      for (int i = 0; i < nn && !st; i++) {
        if (dense && e > dense_hi) {
          st = fn(ctx, NULL, ns[i], "dense", "", err);
          continue;
        }
        if (dense || i == 0) {
          cgm_csr_free(&A);
          st = make(kind, ns[i], ldexp(1.0, e), &A, src, sizeof src, err);
        }
        if (!st) st = visit(&A, ns[i], r, dense ? "dense" : "real", src, fn, ctx, err);
      }
      cgm_csr_free(&A);
      if (st) return st;
    }
  return CGM_OK;
}

cgm_status mb_grid_make(mb_grid g, cgm_csr *A, char *src, size_t len, cgm_error *err) {
  snprintf(src, len, "poisson%dd:%d", g.dim, g.n);
  return cgm_gen_poisson(g.dim, g.n, A, err);
}
