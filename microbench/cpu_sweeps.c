/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The sweeps of the `cpu` device: the CPU backend's own CG4, CG5 and SpMV (solver/cpu) timed with
 * the monotonic clock (settle.c), and its whole iterations through cgm_solve. */
#include <limits.h>
#include <omp.h>
#include <stdlib.h>

#include "cgmodel/model.h"
#include "cgmodel/plan.h"
#include "cgmodel/solver.h"
#include "common/timer.h"
#include "microbench/sweep_plan.h"
#include "solver/cpu/cg_cpu.h"

typedef struct {
  mb_run m;
  const cgm_mb_opts *o;
  int prec;
} cpu_run;

/* How the CPU's kernels are timed (settle.c): batches of up to 8 runs
 * while they take under 2 ms, so that one run held up a quantum ends its
 * batch. A quick calibration settles on fewer timings and a smaller budget. */
static mb_settle_opts cpu_settle(const cpu_run *R, double budget_s) {
  return (mb_settle_opts){8, 2e-3, 3, R->o->quick ? 12 : 24, (R->o->quick ? 1.0 : 3.0) * budget_s};
}

/* v[0..n) = mb_value(i), in floats (w = 4) or doubles. */
static void fill(void *v, int64_t n, int w) {
  for (int64_t i = 0; i < n; i++)
    if (w == 4)
      ((float *)v)[i] = (float)mb_value(i);
    else
      ((double *)v)[i] = mb_value(i);
}

typedef struct {
  int prec;
  int64_t np;
  void *x, *r, *v, *u, *d;
} vec_args;

/* Timing i of the vector sweep: CG4 (even i) or CG5 at size index i / 2. */
static double time_vec(void *p, int i) {
  const vec_args *a = p;
  const int64_t np = a->np << (i / 2);
  const double t0 = cgm_now();
  if (i % 2 == 0 && a->prec == CGM_PREC_SINGLE)
    cgm_cpu_cg4_f32(np, 1e-6f, a->x, a->r, a->v, a->u, a->d, &(double){0});
  else if (i % 2 == 0)
    cgm_cpu_cg4_f64(np, 1e-6, a->x, a->r, a->v, a->u, a->d, &(double){0});
  else if (a->prec == CGM_PREC_SINGLE)
    cgm_cpu_cg5_f32(np, 0.5f, a->v, a->r, a->d);
  else
    cgm_cpu_cg5_f64(np, 0.5, a->v, a->r, a->d);
  return cgm_now() - t0;
}

/* CG4 and CG5 at every size, their timings interleaved (settle.c). */
static cgm_status vector_sweep(cpu_run *R, cgm_error *err) {
  mb_range rg = mb_vector_range(false, R->o->quick);
  const int w = R->prec == CGM_PREC_SINGLE ? 4 : 8, nsz = rg.hi - rg.lo + 1;
  const int64_t nmax = (int64_t)1 << rg.hi;
  char *buf = malloc((size_t)nmax * w * 5); /* x, r, v, u, d */
  mb_timing tm[64];
  cgm_status st = CGM_OK;
  if (!buf)
    return cgm_fail(err, CGM_ERUNTIME, "out of memory for the vector sweep (%lld entries)",
                    (long long)nmax);
  fill(buf, 5 * nmax, w);
  const size_t l = (size_t)nmax * w;
  vec_args a = {R->prec, (int64_t)1 << rg.lo, buf, buf + l, buf + 2 * l, buf + 3 * l, buf + 4 * l};
  const mb_settle_opts so = cpu_settle(R, 2.0);
  if (mb_settle(time_vec, &a, 2 * nsz, &so, tm))
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory timing the vector sweep");
  for (int i = 0; i < 2 * nsz && !st; i++) {
    const int64_t np = a.np << (i / 2);
    const bool cg4 = i % 2 == 0;
    cgm_sample s;
    mb_sample_timed(&s, cg4 ? "cg4" : "cg5", "", R->prec, 0,
                    (double)(cg4 ? CGM_CG4_PASSES : CGM_CG5_PASSES) * np * w, w, &tm[i], "");
    st = mb_emit(&R->m, &s, cg4 ? "cg4" : "cg5", err);
  }
  free(buf);
  return st;
}

typedef struct {
  const cgm_bcsr *B;
  int prec;
  const void *val, *x;
  void *y;
} spmv_args;

static double time_spmv(void *p, int i) {
  spmv_args *a = p;
  const double t0 = cgm_now();
  if (a->prec == CGM_PREC_SINGLE)
    cgm_cpu_spmv_f32(a->B, a->val, a->x, a->y, a->x);
  else
    cgm_cpu_spmv_f64(a->B, a->val, a->x, a->y, a->x);
  return cgm_now() - t0;
}

/* One matrix at block size n, every precision asked for: the blocking
 * (most of a large sample's cost) is done once. */
static cgm_status spmv_one(void *ctx, const cgm_csr *A, int n, const char *variant,
                           const char *source, cgm_error *err) {
  cpu_run *R = ctx;
  cgm_status st = CGM_OK;
  if (!A) { /* skipped: progress only, once per precision as for a sample */
    for (int p = 0; p < 2 && !st; p++)
      if (R->o->precisions & (1u << p)) st = mb_emit(&R->m, NULL, "spmv", err);
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
      fill(x, rows, w);
      if (p == CGM_PREC_SINGLE)
        for (int64_t i = 0; i < nv; i++) ((float *)val)[i] = (float)B.val[i];
      spmv_args a = {&B, p, val, x, y};
      const mb_settle_opts so = cpu_settle(R, 0.1);
      mb_timing t;
      if (mb_settle(time_spmv, &a, 1, &so, &t)) st = cgm_fail(err, CGM_ERUNTIME, "out of memory");
      cgm_sample smp;
      mb_sample_timed(
          &smp, "spmv", variant, p, n,
          cgm_spmv_bytes(B.nblocks_padded, (int64_t)B.nslices * B.p.by, B.nslices, n, rows, w), w,
          &t, source);
      if (!st) st = mb_emit(&R->m, &smp, "spmv", err);
    }
    free(x);
    free(y);
    if (val != B.val) free(val);
  }
  cgm_bcsr_free(&B);
  return st;
}

/* The grids whose CPU solves time whole iterations: 4^2 and 8^2 (the solver's fixed steps), the 2D
 * floor grid (smaller 3D grids underflow first), then sizes through the OpenMP teams' steps (a
 * thread a CGM_CPU_TEAM_ROWS rows: 1 to 16 threads over 256 to 4096 rows) and past the caches. */
static int iter_grids(const cgm_mb_opts *o, mb_grid *k) {
  const bool quick = o->quick;
  static const int g3[] = {8, 10, 12, 16, 20, 24, 32, 48, 64, 96}; /* after the floor grid, 32^2 */
  int c = 0;
  k[c++] = (mb_grid){2, 4};
  k[c++] = (mb_grid){2, 8};
  k[c++] = (mb_grid){MB_FLOOR_GRID_DIM, MB_FLOOR_GRID_N};
  for (int i = 0; i < (quick ? 9 : 10); i++) {
    k[c++] = (mb_grid){3, g3[i]};
    if (i == 0) k[c++] = (mb_grid){2, 32};
  }
  return c - (o->busy ? 1 : 0); /* busy: not the largest */
}

/* Whole iterations of the CPU backend, timed through cgm_solve (the tenth percentile of its
 * iterations): an iteration is more than its kernels timed one by one in a loop (2x at teams of 2-4
 * threads on a 16-core H200 node), so the refined model takes a CPU's iteration from these between
 * the sizes they span (cgm_device_model.cpu_iter). Kernel "iter", variant "cpu", m the iteration's
 * transactions (cgm_iter_bytes), per block size and precision. The first precision's solves also
 * give their setup (the layout and vectors) beside its bytes (kernel "setup"): the tuner's setup
 * model of the CPU (cgm_setup_fit), as a GPU's iteration sweeps give its own. */
static cgm_status iter_sweep(cpu_run *R, cgm_error *err) {
  mb_grid k[16];
  const int nk = iter_grids(R->o, k);
  double wall = 0, quiet = 0; /* the sweep's iterations so far, and their low quantile's cost */
  cgm_status st = CGM_OK;
  for (int i = 0; i < nk && !st; i++) {
    cgm_csr A;
    char src[64];
    if ((st = mb_grid_make(k[i], &A, src, sizeof src, err))) break;
    for (int p = 0; p < 2 && !st; p++) {
      if (!(R->o->precisions & (1u << p))) continue;
      for (int b = 0; b < CGM_NBLOCKSIZES && !st; b++) {
        /* the CPU backend on the calibration's threads */
        cgm_solve_opts o = cgm_mb_solve_opts();
        o.backend = CGM_BACKEND_CPU;
        o.threads = R->o->threads;
        o.precision = (cgm_precision)p;
        o.layout = cgm_bcsr_default_params(cgm_block_sizes[b]);
        const int w = cgm_precision_width(o.precision);
        cgm_solve_result res;
        mb_timing t;
        bool steady = false;
        /* 32 iterations (single precision's residual on the grids of 512-1728 rows is gone to zero
         * after 40-63), 8 on the 16 rows of 4^2 (solved in 16), 12 of milliseconds each past 32^3;
         * fewer where other work slows them (mb_iters_within) */
        const int want = A.nrows > 32768 ? 12 : A.nrows < 32 ? 8 : 32;
        const int iters = mb_iters_within(want, 8, wall, quiet);
        if ((st = mb_solve_steady(&A, &o, iters, &res, &t, &steady, err))) break;
        wall += res.time_solve_s, quiet += t.q * res.iterations;
        cgm_sample smp;
        /* the setup of the first precision's solve */
        const bool setup =
            res.time_setup_s > 0 && res.device_bytes > 0 && !(R->o->precisions & ((1u << p) - 1));
        if (setup)
          mb_sample(&smp, "setup", "mesh", p, cgm_block_sizes[b], (double)res.device_bytes, 8,
                    res.time_setup_s, src);
        if ((st = mb_emit(&R->m, setup ? &smp : NULL, "iters", err))) break;
        const bool got = steady && t.q > 0;
        if (got)
          mb_sample_timed(&smp, "iter", "cpu", p, cgm_block_sizes[b], res.iter_bytes, w, &t, src);
        st = mb_emit(&R->m, got ? &smp : NULL, "iters", err);
      }
    }
    cgm_csr_free(&A);
  }
  return st;
}

cgm_status cgm_mb_run_cpu(const cgm_mb_opts *o, cgm_mb_sink sink, cgm_mb_progress progress,
                          void *ctx, cgm_error *err) {
  if (o->threads > 0) omp_set_num_threads(o->threads);
  cpu_run R = {{sink, progress, ctx, 0, 0}, o, 0};
  mb_range vr = mb_vector_range(false, o->quick);
  for (int p = 0; p < 2; p++) {
    if (!(o->precisions & (1u << p))) continue;
    R.m.total += 2 * ((vr.hi - vr.lo) / vr.step + 1);
    R.m.total += CGM_NBLOCKSIZES * mb_matrix_count(false, o->quick);
  }
  mb_grid grids[16];
  const int precs = (o->precisions & 1u) + ((o->precisions >> 1) & 1u);
  R.m.total += 2 * CGM_NBLOCKSIZES * precs * iter_grids(o, grids);
  if (progress) progress(ctx, "setup", 0);
  mb_pinned pin;
  mb_pin(o->threads, &pin);
  cgm_status st = CGM_OK;
  for (int p = 0; p < 2 && !st; p++) {
    R.prec = p;
    if (o->precisions & (1u << p)) st = vector_sweep(&R, err);
  }
  /* Matrices once for both precisions (each made once for every N). */
  if (!st)
    st = mb_for_each_matrix(cgm_block_sizes, CGM_NBLOCKSIZES, false, o->quick,
                            o->busy ? 16 : INT_MAX, spmv_one, &R, err);
  if (!st) st = iter_sweep(&R, err);
  mb_unpin(&pin);
  return st;
}
