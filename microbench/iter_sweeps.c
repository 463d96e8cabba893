/* Whole iterations of our solver, timed through cgm_solve itself, for the
 * refined model's iteration and row curves (docs/model.md): the sum of
 * three separately timed kernels misses what an iteration of the solver
 * really costs at small sizes (one launch floor for the whole graph, not
 * three), and a bandwidth curve misses the thread that walks the longest
 * row alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/model.h"
#include "cgmodel/tuner.h"
#include "microbench/sweep_plan.h"

cgm_status mb_solve_timed(const cgm_csr *A, const cgm_solve_opts *base, int maxiter,
                          cgm_solve_result *res, cgm_error *err) {
  double *b = malloc(sizeof(double) * ((size_t)A->nrows + 1)),
         *x = malloc(sizeof(double) * ((size_t)A->nrows + 1));
  if (!b || !x) {
    free(b), free(x);
    return cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  }
  for (int32_t i = 0; i < A->nrows; i++) x[i] = mb_value(i);
  cgm_csr_spmv(A, x, b);
  memset(x, 0, sizeof(double) * A->nrows);
  cgm_solve_opts o = *base;
  o.maxiter = maxiter;
  o.tol = 1e-300; /* a fixed number of iterations */
  cgm_status st = cgm_solve(A, b, x, &o, res, err);
  free(b), free(x);
  return st == CGM_ENOCONV ? CGM_OK : st;
}

/* The meshes: 3D Poisson (7 entries a row) and elasticity (81), from a few
 * rows (the launch floor) to past the caches. A CPU stops earlier: its
 * iterations are 100x slower. */
static int mesh_list(bool cuda, bool quick, int *kind, int *k) {
  static const int pc[] = {4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128}, pq[] = {4, 8, 16, 32, 64, 128};
  static const int ec[] = {2, 4, 6, 8, 12, 16, 24, 32}, eq[] = {3, 8, 16, 24};
  static const int cpc[] = {4, 8, 12, 16, 24, 32, 48, 64, 96}, cpq[] = {4, 8, 16, 32, 64};
  static const int cec[] = {2, 4, 8, 12, 16, 24}, ceq[] = {3, 8, 16};
  const int *p = cuda ? (quick ? pq : pc) : (quick ? cpq : cpc);
  const int *e = cuda ? (quick ? eq : ec) : (quick ? ceq : cec);
  int np = cuda ? (quick ? 6 : 11) : (quick ? 5 : 9), ne = cuda ? (quick ? 4 : 8) : (quick ? 3 : 6);
  int c = 0;
  for (int i = 0; i < np; i++) kind[c] = 0, k[c++] = p[i];
  for (int i = 0; i < ne; i++) kind[c] = 1, k[c++] = e[i];
  return c;
}

/* The arrows' longest block rows, in blocks (the base has 4096 rows). */
static int row_list(bool quick, int *L) {
  int c = 0;
  for (int l = 2; l <= 512; l *= quick ? 4 : 2) L[c++] = l;
  return c;
}

enum { ARROW_ROWS = 4096 };

int mb_iteration_count(bool cuda, bool quick) {
  int kind[32], k[32], L[16];
  return CGM_NBLOCKSIZES * (mesh_list(cuda, quick, kind, k) + (cuda ? row_list(quick, L) : 0));
}

/* One solve -> one sample (none when the solver stopped before maxiter: a
 * few iterations are no steady state). */
static cgm_status one(const cgm_csr *A, const cgm_solve_opts *o, int maxiter, const char *variant,
                      const char *source, mb_emit_fn emit, void *run, cgm_error *err) {
  const int n = o->layout.n, w = o->precision == CGM_PREC_SINGLE ? 4 : 8;
  cgm_tuner_segment sg;
  int64_t xe;
  cgm_status st = cgm_tuner_shapes(A, n, 1, CGM_EXCHANGE_HALO, &sg, &xe, err);
  if (st) return st;
  cgm_solve_result res;
  if ((st = mb_solve_timed(A, o, maxiter, &res, err))) return st;
  if (res.iterations < maxiter || !(res.time_per_iter_s > 0)) return emit(run, NULL, "iter", err);
  cgm_segment_shape s = cgm_tuner_segment_shape(&sg, n, w);
  double bytes = !strcmp(variant, "row") ? cgm_row_elements(sg.max_row, n) * w
                                         : cgm_iter_bytes(s.spmv_bytes, s.rows, w);
  cgm_sample smp;
  mb_sample(&smp, "iter", variant, o->precision, n, bytes, w, res.time_per_iter_s, source);
  return emit(run, &smp, "iter", err);
}

cgm_status mb_iteration_sweeps(const cgm_solve_opts *base, bool quick, mb_emit_fn emit, void *run,
                               cgm_error *err) {
  const bool cuda = base->backend != CGM_BACKEND_CPU;
  const int maxiter = cuda ? (quick ? 64 : 160) : (quick ? 16 : 40);
  int kind[32], k[32], L[16];
  /* The row curve is a GPU's: there one thread walks a row while the
   * others idle at the floor. A CPU thread takes a share of the rows, and
   * its time is its share, which the mesh curve already counts. */
  const int nm = mesh_list(cuda, quick, kind, k), nl = cuda ? row_list(quick, L) : 0;
  cgm_status st = CGM_OK;
  for (int i = 0; i < nm && !st; i++) {
    cgm_csr A;
    char src[64];
    snprintf(src, sizeof src, "%s:%d", kind[i] ? "elasticity3d" : "poisson3d", k[i]);
    st = kind[i] ? cgm_gen_elasticity3d(k[i], &A, err) : cgm_gen_poisson3d(k[i], &A, err);
    if (st) break;
    for (int b = 0; b < CGM_NBLOCKSIZES && !st; b++) {
      cgm_solve_opts o = *base;
      o.layout = cgm_bcsr_default_params(cgm_block_sizes[b]);
      st = one(&A, &o, maxiter, "mesh", src, emit, run, err);
    }
    cgm_csr_free(&A);
  }
  for (int i = 0; i < nl && !st; i++)
    for (int b = 0; b < CGM_NBLOCKSIZES && !st; b++) {
      const int n = cgm_block_sizes[b];
      int32_t len = L[i] * n > ARROW_ROWS ? ARROW_ROWS : L[i] * n;
      cgm_csr A;
      char src[64];
      snprintf(src, sizeof src, "arrow:%d,%d", ARROW_ROWS, len);
      if ((st = cgm_gen_arrow(ARROW_ROWS, len, &A, err))) break;
      cgm_solve_opts o = *base;
      o.layout = cgm_bcsr_default_params(n);
      st = one(&A, &o, maxiter, "row", src, emit, run, err);
      cgm_csr_free(&A);
    }
  return st;
}
