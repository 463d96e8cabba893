/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Whole iterations of our solver, timed through cgm_solve itself, for the refined model's
 * iteration, row and band curves of a GPU (docs/model.md): the sum of three separately timed
 * kernels misses what an iteration of the solver really costs at small sizes (one launch floor for
 * the whole graph, not three), and a bandwidth curve misses the thread that walks the longest row,
 * alone (arrows) or among as long ones (bands). A CPU has neither (its kernels' sum is its
 * iteration, and its threads share the rows): its model keeps the kernel curves. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/model.h"
#include "cgmodel/plan.h"
#include "cgmodel/solver.h"
#include "common/grow.h"
#include "common/timer.h"
#include "microbench/sweep_plan.h"

void mb_iter_tick(void *ctx, int iteration, double relres) {
  mb_iter_clock *c = ctx;
  const double now = cgm_now();
  if (iteration > c->skip && c->n < c->cap) c->t[c->n++] = now - c->last;
  c->last = now;
}

cgm_status mb_solve_timed(const cgm_csr *A, const cgm_solve_opts *base, int maxiter,
                          cgm_solve_result *res, mb_timing *t, cgm_error *err) {
  double *b = malloc(sizeof(double) * ((size_t)A->nrows + 1)),
         *x = malloc(sizeof(double) * ((size_t)A->nrows + 1));
  double ticks[256]; /* the first iteration is the warm-up, as the solver's */
  mb_iter_clock clk = {.t = ticks, .cap = 256, .skip = 1};
  if (!b || !x) {
    free(b), free(x);
    return cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  }
  for (int32_t i = 0; i < A->nrows; i++) x[i] = mb_value(i);
  cgm_csr_spmv(A, x, b);
  memset(x, 0, sizeof(double) * A->nrows);
  cgm_solve_opts o = *base;
  /* A GPU's iterations run in graphs of 32, each timed by events from its start less another
   * process's turns on the GPU inside it: their low decile serves (a host held up does not count)
   */
  const bool gpu = base->backend == CGM_BACKEND_CUDA;
  o.share_watch = gpu && base->gpus <= 1;
  o.maxiter = maxiter;
  o.tol = 1e-300; /* a fixed number of iterations */
  o.fixed_count = true;
  /* The sweeps' matrices are made SPD here (Poisson grids, diagonally dominant arrows, bands and
   * their renumberings): the matrix's checks (every entry's mirror searched, 117M entries at 256^3)
   * would time the host, not the solve, in a calibration that has 30 s. */
  o.matrix_checked = true;
  /* On the CPU each iteration is timed: other work held a team of 2 up at
   * most barriers, and the median with it (a GPU's graphs a monitor breaks) */
  const bool clocked = t && o.backend == CGM_BACKEND_CPU && !o.monitor;
  if (clocked) o.monitor = mb_iter_tick, o.monitor_ctx = &clk, o.monitor_every = 1;
  cgm_status st = cgm_solve(A, b, x, &o, res, err);
  if (st == CGM_ENOCONV) st = CGM_OK;
  if (!st && t) {
    *t = (mb_timing){res->time_per_iter_s, NAN, 0, true};
    if (clocked && clk.n > 0) mb_timing_of(clk.t, clk.n, t), res->time_per_iter_s = t->q;
  }
  if (!st && gpu && res->time_per_iter_low_s > 0) {
    if (t)
      t->spread = res->time_per_iter_s / res->time_per_iter_low_s - 1.0,
      t->q = res->time_per_iter_low_s;
    res->time_per_iter_s = res->time_per_iter_low_s;
  }
  free(b), free(x);
  return st;
}

cgm_status mb_solve_steady(const cgm_csr *A, const cgm_solve_opts *base, int maxiter,
                           cgm_solve_result *res, mb_timing *t, bool *steady, cgm_error *err) {
  cgm_status st = mb_solve_timed(A, base, maxiter, res, t, err);
  *steady = !st && res->iterations >= maxiter;
  if (st || *steady) return st;
  /* A single-precision solve may stop early, its residual gone to zero (an arrow of 4096 entries a
   * row at N = 8 lost so 1 of a quick row curve's 4 samples, and with it the curve; the gather
   * sweep's random matrix its single-precision sample): timed again over the graphs of 32
   * iterations it did run, the warm-up and at least one more. */
  const int ran = res->iterations / 32 * 32;
  if (ran >= 64) {
    st = mb_solve_timed(A, base, ran, res, t, err);
    *steady = !st && res->iterations >= ran;
  }
  return st;
}

cgm_status mb_shape_push(const cgm_csr *A, const cgm_solve_opts *base, int n, int p, int group,
                         int maxiter, const char *src, mb_shapes *v, cgm_error *err) {
  cgm_solve_opts o = *base;
  o.gpus = 1;
  o.reorder = CGM_REORDER_NONE;
  o.precision = (cgm_precision)p;
  if (n > 0) o.layout = cgm_bcsr_default_params(n); /* one lane a row, as the arrows and bands */
  cgm_plan plan;
  cgm_solve_result r;
  cgm_status st = cgm_solve_plan(A, &o, &plan, err);
  bool steady = false;
  mb_timing t;
  if (!st) st = mb_solve_steady(A, &o, maxiter, &r, &t, &steady, err);
  if (st || !steady || !(r.time_per_iter_s > 0)) return st;
  cgm_locality_sample s = {.block = o.layout.n,
                           .precision = p,
                           .group = group,
                           .shape = cgm_refined_shape(&plan, 0),
                           .seconds = r.time_per_iter_s};
  snprintf(s.source, sizeof s.source, "%s", src);
  if (!cgm_push(&v->v, &v->n, &v->cap, &s, sizeof s, 16))
    return cgm_fail(err, CGM_ERUNTIME, "out of memory for a coefficient's sweep");
  return CGM_OK;
}

cgm_status mb_shapes_end(mb_shapes *v, cgm_status st, cgm_locality_sample **out, int *count) {
  if (st) free(v->v);
  *out = st ? NULL : v->v;
  *count = st ? 0 : v->n;
  return st;
}

/* The meshes: the 2D floor grid (mb_grid), then 3D Poisson from 512 rows to past the caches. With
 * programmatic dependent launch a tiny matrix's iteration is 0.5-1.5 us under that of Poisson 8^3
 * at N >= 2, hence the floor grid. The rows are short (5-7 entries), so the curve is the
 * bandwidth's and the floor's alone; long rows are the row curve's (elasticity's 81 entries a row
 * make its small grids slower than their bytes say). Quick: the floor grid replaces 8^3. */
static int mesh_list(bool quick, int max_grid, mb_grid *k) {
  static const int full[] = {8, 12, 16, 24, 32, 48, 64, 96, 128, 160}, fast[] = {16, 32, 64, 128};
  const int *p = quick ? fast : full;
  int c = 0;
  k[c++] = (mb_grid){MB_FLOOR_GRID_DIM, MB_FLOOR_GRID_N};
  for (int i = 0; i < (quick ? 4 : 10); i++)
    if (p[i] <= max_grid) k[c++] = (mb_grid){3, p[i]};
  return c;
}

/* The arrows' longest block rows and the bands' block rows, in blocks: 2, 4, .. 128; quick 2, 8,
 * 32, 128 (a fit needs four samples; a solve costs ~0.25 s of a GPU's set-up); the curves are near
 * a line in L (sigma ~ 1 / ln 2). At most CGM_LONG_ROW: a longer block row is read by threads of
 * its own (cgm_plan_layout.long_rows; mb_band_half makes the band's 128 127). The arrows' base has
 * 4096 rows; the bands' CGM_BAND_ROWS = 8192 rows, every one long, are 32 SpMV blocks of 256
 * threads (a quarter of a 132-SM GPU): the small FEM matrices (bcsstk16: 4884 rows; elasticity
 * 16^3: 13872) where the walk, not the bandwidth, sets the time. */
static int walk_list(bool quick, int *L) {
  int c = 0;
  for (int l = 2; l <= CGM_LONG_ROW; l *= quick ? 4 : 2) L[c++] = l;
  return c;
}

enum { ARROW_ROWS = 4096 };

/* Whether block size index b's meshes are solved in f32 values too ("meshc"; dict, at N = 1,
 * was within 6% priced by its bytes on the full values' curve). */
static bool meshc(cgm_backend be, cgm_precision p, int b) {
  return p == CGM_PREC_DOUBLE && be == CGM_BACKEND_CUDA && b > 0;
}

int mb_iteration_count(cgm_backend be, cgm_precision p, bool quick, int max_grid) {
  mb_grid k[32];
  int L[16], c = 0;
  for (int b = 0; b < CGM_NBLOCKSIZES; b++) /* a solve: its setup, its iteration */
    c += 2 * ((1 + meshc(be, p, b)) * mesh_list(quick, max_grid, k) + 2 * walk_list(quick, L));
  return c;
}

/* One solve -> two samples: its setup, and its iteration (none when the
 * solver stopped before maxiter: a few iterations are no steady state). */
static cgm_status one(const cgm_csr *A, const cgm_solve_opts *o, int maxiter, const char *variant,
                      const char *source, mb_emit_fn emit, void *run, cgm_error *err) {
  const int n = o->layout.n, w = o->precision == CGM_PREC_SINGLE ? 4 : 8;
  double bytes;
  cgm_status st;
  /* The plan of what this solve builds: the mesh curve's m is its iteration's bytes, the row and
   * band curves' the walk of its longest block row with its B_x. */
  cgm_plan plan;
  if ((st = cgm_solve_plan(A, o, &plan, err))) return st;
  const cgm_segment_shape s = cgm_refined_shape(&plan, 0);
  if (!strncmp(variant, "mesh", 4)) /* mesh and meshc */
    bytes = cgm_iter_bytes(s.spmv_bytes, s.rows, w);
  else
    bytes = cgm_row_elements(s.max_row, n) * w;
  cgm_solve_result res;
  bool steady;
  if ((st = mb_solve_steady(A, o, maxiter, &res, NULL, &steady, err))) return st;
  /* Its setup (layout, upload, graph) beside the device bytes it built:
   * the tuner's setup model (cgm_setup_fit) of this device. */
  cgm_sample smp;
  const bool timed_setup = res.time_setup_s > 0 && res.device_bytes > 0 && strcmp(variant, "meshc");
  /* variant "device" where the GPU built the layout (the tuner's second
   * setup line, cgm_tuner_device.setup_dev) */
  if (timed_setup)
    mb_sample(&smp, "setup", res.layout_on_device ? "device" : variant, o->precision, n,
              (double)res.device_bytes, w, res.time_setup_s, source);
  if ((st = emit(run, timed_setup ? &smp : NULL, "iter", err))) return st;
  if (!steady || !(res.time_per_iter_s > 0)) return emit(run, NULL, "iter", err);
  mb_sample(&smp, "iter", variant, o->precision, n, bytes, w, res.time_per_iter_s, source);
  return emit(run, &smp, "iter", err);
}

cgm_status mb_iteration_sweeps(const cgm_solve_opts *base, bool quick, int max_grid,
                               mb_emit_fn emit, void *run, cgm_error *err) {
  /* Graphs of 32 iterations: the first is the warm-up, the others timed. */
  const int maxiter = quick ? 96 : 160;
  mb_grid k[32];
  int L[16];
  const int nm = mesh_list(quick, max_grid, k), nl = walk_list(quick, L);
  cgm_status st = CGM_OK;
  for (int i = 0; i < nm && !st; i++) {
    cgm_csr A;
    char src[64];
    if ((st = mb_grid_make(k[i], &A, src, sizeof src, err))) break;
    for (int b = 0; b < CGM_NBLOCKSIZES && !st; b++) {
      cgm_solve_opts o = *base;
      o.layout = cgm_bcsr_default_params(cgm_block_sizes[b]);
      st = one(&A, &o, maxiter, "mesh", src, emit, run, err);
      /* and with f32 values (the grids' are exact): by its bytes on the
       * full values' curve f32 was priced 7-20% fast */
      o.storage = CGM_STORAGE_COMPACT;
      if (!st && meshc(o.backend, o.precision, b))
        st = one(&A, &o, maxiter, "meshc", src, emit, run, err);
    }
    cgm_csr_free(&A);
  }
  /* the arrows, then the bands; one lane a row (walks 3 .. 127 on the bands) */
  for (int band = 0; band < 2; band++)
    for (int i = 0; i < nl && !st; i++)
      for (int b = 0; b < CGM_NBLOCKSIZES && !st; b++) {
        const int n = cgm_block_sizes[b];
        const int32_t len = L[i] * n > ARROW_ROWS ? ARROW_ROWS : L[i] * n,
                      h = mb_band_half(n, L[i]);
        cgm_csr A;
        char src[64];
        snprintf(src, sizeof src, band ? "band:%d,%d" : "arrow:%d,%d",
                 band ? CGM_BAND_ROWS : ARROW_ROWS, band ? h : len);
        st = band ? cgm_gen_band(CGM_BAND_ROWS, h, &A, err)
                  : cgm_gen_arrow(ARROW_ROWS, len, &A, err);
        if (st) break;
        cgm_solve_opts o = *base;
        o.layout = cgm_bcsr_default_params(n);
        st = one(&A, &o, maxiter, band ? "band" : "row", src, emit, run, err);
        cgm_csr_free(&A);
      }
  return st;
}
