/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The sweeps of the `cpu` device: the CPU backend's own CG4, CG5 and SpMV
 * (solver/cpu), timed with the monotonic clock, median after warm-up. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/model.h"
#include "cgmodel/plan.h"
#include "cgmodel/solver.h"
#include "common/timer.h"
#include "microbench/sweep_plan.h"
#include "solver/cpu/cg_cpu.h"

typedef struct {
  const cgm_mb_opts *o;
  cgm_mb_sink sink;
  cgm_mb_progress progress;
  void *ctx;
  double done, total; /* progress units */
  int prec;
} cpu_run;

/* Runs fn until at least `reps` runs and `min_s` seconds, after one warm-up;
 * returns the lower quartile. On a CPU the other processes preempt the
 * OpenMP threads, and a barrier then waits a whole time slice (runs of
 * exactly 4 or 8 ms): the quartile keeps those outliers out where a median
 * under load would not. */
typedef void (*kernel_fn)(void *arg);
static double time_kernel(kernel_fn fn, void *arg, int reps, double min_s) {
  enum { MAX_REPS = 2000 };
  double t[MAX_REPS];
  fn(arg);
  int k = 0;
  double start = cgm_now();
  while (k < MAX_REPS && (k < reps || cgm_now() - start < min_s)) {
    double a = cgm_now();
    fn(arg);
    t[k++] = cgm_now() - a;
  }
  cgm_median(t, k); /* sorts */
  return t[k / 4];
}

static cgm_status emit(cpu_run *R, const cgm_sample *s, const char *stage, cgm_error *err) {
  if (s && R->sink && R->sink(R->ctx, s)) return cgm_fail(err, CGM_ERUNTIME, "calibration stopped");
  R->done += 1; /* s NULL: a skipped matrix, progress only */
  if (R->progress) R->progress(R->ctx, stage, R->total > 0 ? R->done / R->total : 0);
  return CGM_OK;
}

/* ------------------------------------------------------ CG4 and CG5 --- */

typedef struct {
  int prec;
  int64_t np;
  void *x, *r, *v, *u, *d;
} vec_args;

static void run_cg4(void *p) {
  vec_args *a = p;
  double rr;
  if (a->prec == CGM_PREC_SINGLE)
    cgm_cpu_cg4_f32(a->np, 1e-6f, a->x, a->r, a->v, a->u, a->d, &rr);
  else
    cgm_cpu_cg4_f64(a->np, 1e-6, a->x, a->r, a->v, a->u, a->d, &rr);
}

static void run_cg5(void *p) {
  vec_args *a = p;
  if (a->prec == CGM_PREC_SINGLE)
    cgm_cpu_cg5_f32(a->np, 0.5f, a->v, a->r, a->d);
  else
    cgm_cpu_cg5_f64(a->np, 0.5, a->v, a->r, a->d);
}

static cgm_status vector_sweep(cpu_run *R, cgm_error *err) {
  mb_range rg = mb_vector_range(false, R->o->quick);
  const int w = R->prec == CGM_PREC_SINGLE ? 4 : 8;
  const int64_t nmax = (int64_t)1 << rg.hi;
  void *buf[5] = {0};
  cgm_status st = CGM_OK;
  for (int i = 0; i < 5; i++) {
    buf[i] = malloc((size_t)nmax * w);
    if (!buf[i]) {
      st = cgm_fail(err, CGM_ERUNTIME, "out of memory for the vector sweep (%lld entries)",
                    (long long)nmax);
      goto out;
    }
  }
  for (int64_t i = 0; i < nmax; i++)
    for (int b = 0; b < 5; b++) {
      double v = mb_value(i * 5 + b);
      if (w == 4)
        ((float *)buf[b])[i] = (float)v;
      else
        ((double *)buf[b])[i] = v;
    }
  for (int e = rg.lo; e <= rg.hi && !st; e += rg.step) {
    vec_args a = {R->prec, (int64_t)1 << e, buf[0], buf[1], buf[2], buf[3], buf[4]};
    int reps = R->o->quick ? 8 : 20;
    double min_s = R->o->quick ? 0.01 : 0.05;
    cgm_sample s;
    mb_sample(&s, "cg4", "", R->prec, 0, (double)CGM_CG4_PASSES * a.np * w, w,
              time_kernel(run_cg4, &a, reps, min_s), "");
    if ((st = emit(R, &s, "cg4", err))) break;
    mb_sample(&s, "cg5", "", R->prec, 0, (double)CGM_CG5_PASSES * a.np * w, w,
              time_kernel(run_cg5, &a, reps, min_s), "");
    st = emit(R, &s, "cg5", err);
  }
out:
  for (int i = 0; i < 5; i++) free(buf[i]);
  return st;
}

/* --------------------------------------------------------------- SpMV --- */

typedef struct {
  const cgm_bcsr *B;
  int prec;
  const void *val, *x;
  void *y;
} spmv_args;

static void run_spmv(void *p) {
  spmv_args *a = p;
  if (a->prec == CGM_PREC_SINGLE)
    cgm_cpu_spmv_f32(a->B, a->val, a->x, a->y, a->x);
  else
    cgm_cpu_spmv_f64(a->B, a->val, a->x, a->y, a->x);
}

/* One matrix at block size n, every precision asked for: the blocking
 * (most of a large sample's cost) is done once. */
static cgm_status spmv_one(void *ctx, const cgm_csr *A, int n, const char *variant,
                           const char *source, cgm_error *err) {
  cpu_run *R = ctx;
  cgm_status st = CGM_OK;
  if (!A) { /* skipped: progress only, once per precision as for a sample */
    for (int p = 0; p < 2 && !st; p++)
      if (R->o->precisions & (1u << p)) st = emit(R, NULL, "spmv", err);
    return st;
  }
  cgm_bcsr B;
  st = cgm_bcsr_build(A, 0, (A->nrows + n - 1) / n, cgm_plan_layout_params(A, n, 1), &B, err);
  if (st) return st;
  int64_t rows = (int64_t)B.nbrows * n, nv = B.nblocks_padded * n * n;
  for (int p = 0; p < 2 && !st; p++) {
    if (!(R->o->precisions & (1u << p))) continue;
    R->prec = p;
    const int w = p == CGM_PREC_SINGLE ? 4 : 8;
    void *x = malloc((size_t)(rows + 1) * w), *y = malloc((size_t)(rows + 1) * w);
    void *val = p == CGM_PREC_SINGLE ? malloc((size_t)(nv + 1) * sizeof(float)) : B.val;
    if (!x || !y || !val) {
      st = cgm_fail(err, CGM_ERUNTIME, "out of memory for the SpMV sweep");
    } else {
      for (int64_t i = 0; i < rows; i++) {
        if (w == 4)
          ((float *)x)[i] = (float)mb_value(i);
        else
          ((double *)x)[i] = mb_value(i);
      }
      if (p == CGM_PREC_SINGLE)
        for (int64_t i = 0; i < nv; i++) ((float *)val)[i] = (float)B.val[i];
      spmv_args a = {&B, p, val, x, y};
      double t = time_kernel(run_spmv, &a, R->o->quick ? 8 : 20, R->o->quick ? 0.01 : 0.05);
      cgm_sample smp;
      mb_sample(
          &smp, "spmv", variant, p, n,
          cgm_spmv_bytes(B.nblocks_padded, (int64_t)B.nslices * B.p.by, B.nslices, n, rows, w), w,
          t, source);
      st = emit(R, &smp, "spmv", err);
    }
    free(x);
    free(y);
    if (val != B.val) free(val);
  }
  cgm_bcsr_free(&B);
  return st;
}

/* ------------------------------------------------------- iterations --- */

/* A solve of the CPU backend in precision p at block size index b, on the
 * calibration's threads: the sweeps that time whole solves. */
static cgm_solve_opts cpu_opts(const cpu_run *R, cgm_precision p, int b) {
  cgm_solve_opts o = cgm_solve_opts_default();
  o.backend = CGM_BACKEND_CPU;
  o.threads = R->o->threads;
  o.precision = p;
  o.layout = cgm_bcsr_default_params(cgm_block_sizes[b]);
  return o;
}

/* The grids whose CPU solves time whole iterations: the 2D floor grid
 * (smaller 3D grids converge to an underflow first, mb_grid), then sizes
 * through the OpenMP teams' steps (a thread a CGM_CPU_TEAM_ROWS rows: 1 to
 * 16 threads over 256 to 4096 rows) and past the caches. */
static int iter_grids(bool quick, mb_grid *k) {
  static const mb_grid g[] = {{MB_FLOOR_GRID_DIM, MB_FLOOR_GRID_N},
                              {3, 8},
                              {2, 32},
                              {3, 10},
                              {3, 12},
                              {3, 16},
                              {3, 20},
                              {3, 24},
                              {3, 32},
                              {3, 48},
                              {3, 64},
                              {3, 96}};
  const int n = (int)(sizeof g / sizeof g[0]) - (quick ? 1 : 0);
  for (int i = 0; i < n; i++) k[i] = g[i];
  return n;
}

/* Whole iterations of the CPU backend, timed through cgm_solve (the median
 * of its 32 iterations): an iteration is more than its kernels timed one by
 * one in a loop (2x at teams of 2-4 threads on a 16-core H200 node), so
 * the refined model takes a CPU's iteration from these between the sizes
 * they span (cgm_device_model.cpu_iter). Kernel "iter", variant "cpu", m
 * the iteration's transactions (cgm_iter_bytes), per block size and
 * precision. */
static cgm_status iter_sweep(cpu_run *R, cgm_error *err) {
  mb_grid k[16];
  const int nk = iter_grids(R->o->quick, k);
  cgm_status st = CGM_OK;
  for (int i = 0; i < nk && !st; i++) {
    cgm_csr A;
    char src[64];
    if ((st = mb_grid_make(k[i], &A, src, sizeof src, err))) break;
    for (int p = 0; p < 2 && !st; p++) {
      if (!(R->o->precisions & (1u << p))) continue;
      for (int b = 0; b < CGM_NBLOCKSIZES && !st; b++) {
        const cgm_solve_opts o = cpu_opts(R, (cgm_precision)p, b);
        const int w = cgm_precision_width(o.precision);
        cgm_plan plan;
        cgm_solve_result res;
        bool steady = false;
        if ((st = cgm_solve_plan(&A, &o, &plan, err))) break;
        /* 32 iterations: single precision's residual on the grids of
         * 512-1728 rows is gone to zero after 40-63 */
        if ((st = mb_solve_steady(&A, &o, 32, &res, &steady, err))) break;
        const cgm_segment_shape sh = cgm_refined_shape(&plan, 0);
        cgm_sample smp;
        const bool got = steady && res.time_per_iter_s > 0;
        if (got)
          mb_sample(&smp, "iter", "cpu", p, cgm_block_sizes[b],
                    cgm_iter_bytes(sh.spmv_bytes, sh.rows, w), w, res.time_per_iter_s, src);
        st = emit(R, got ? &smp : NULL, "iters", err);
      }
    }
    cgm_csr_free(&A);
  }
  return st;
}

/* ------------------------------------------------------------ setup --- */

/* The grids whose solves time the CPU backend's setup (its layout and
 * vectors): the 2D floor grid, then 3D grids to 64^3 (quick) or 96^3 (at
 * 128^3 the layout at N = 8 is 1 GB, more than the sweeps' largest). */
static int setup_grids(bool quick, mb_grid *k) {
  static const int sizes[] = {8, 16, 32, 64, 96};
  int c = 0;
  k[c++] = (mb_grid){MB_FLOOR_GRID_DIM, MB_FLOOR_GRID_N};
  for (int i = 0; i < (quick ? 4 : 5); i++) k[c++] = (mb_grid){3, sizes[i]};
  return c;
}

/* Each grid solved for two iterations at every block size, in the first
 * precision calibrated (the setup model goes by bytes alone): its setup
 * beside the bytes of its layout (kernel "setup"), the tuner's setup
 * model of the CPU (cgm_setup_fit), as a GPU's iteration sweeps give its
 * own. */
static cgm_status setup_sweep(cpu_run *R, cgm_error *err) {
  mb_grid k[8];
  const int nk = setup_grids(R->o->quick, k);
  cgm_status st = CGM_OK;
  for (int i = 0; i < nk && !st; i++) {
    cgm_csr A;
    char src[64];
    if ((st = mb_grid_make(k[i], &A, src, sizeof src, err))) break;
    for (int b = 0; b < CGM_NBLOCKSIZES && !st; b++) {
      const cgm_solve_opts o = cpu_opts(
          R, R->o->precisions & (1u << CGM_PREC_DOUBLE) ? CGM_PREC_DOUBLE : CGM_PREC_SINGLE, b);
      cgm_solve_result res;
      if ((st = mb_solve_timed(&A, &o, 2, &res, err))) break;
      cgm_sample smp;
      const bool got = res.time_setup_s > 0 && res.device_bytes > 0;
      if (got)
        mb_sample(&smp, "setup", "mesh", o.precision, cgm_block_sizes[b], (double)res.device_bytes,
                  8, res.time_setup_s, src);
      st = emit(R, got ? &smp : NULL, "setups", err);
    }
    cgm_csr_free(&A);
  }
  return st;
}

cgm_status cgm_mb_run_cpu(const cgm_mb_opts *o, cgm_mb_sink sink, cgm_mb_progress progress,
                          void *ctx, cgm_error *err) {
  if (o->threads > 0) omp_set_num_threads(o->threads);
  cpu_run R = {o, sink, progress, ctx, 0, 0, 0};
  mb_range vr = mb_vector_range(false, o->quick);
  for (int p = 0; p < 2; p++) {
    if (!(o->precisions & (1u << p))) continue;
    R.total += 2 * ((vr.hi - vr.lo) / vr.step + 1);
    R.total += CGM_NBLOCKSIZES * mb_matrix_count(false, o->quick);
  }
  mb_grid grids[16];
  R.total += CGM_NBLOCKSIZES * setup_grids(o->quick, grids);
  const int precs = (o->precisions & 1u) + ((o->precisions >> 1) & 1u);
  R.total += CGM_NBLOCKSIZES * precs * iter_grids(o->quick, grids);
  if (progress) progress(ctx, "setup", 0);
  for (int p = 0; p < 2; p++) {
    if (!(o->precisions & (1u << p))) continue;
    R.prec = p;
    cgm_status st = vector_sweep(&R, err);
    if (st) return st;
  }
  /* Matrices once for both precisions (each made once for every N). */
  cgm_status st =
      mb_for_each_matrix(cgm_block_sizes, CGM_NBLOCKSIZES, false, o->quick, spmv_one, &R, err);
  if (!st) st = iter_sweep(&R, err);
  return st ? st : setup_sweep(&R, err);
}
