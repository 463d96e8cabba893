/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the sweeps measure, shared by the CPU and CUDA sweeps: vector sizes
 * and the matrices of the SpMV sweeps. */
#pragma once

#include <stdbool.h>

#include "microbench/microbench.h"
#include "cgmodel/sparse.h"

CGM_BEGIN_DECLS

/* log2 of the vector sizes (CG kernels, loads): lo..hi by step. */
typedef struct {
  int lo, hi, step;
} mb_range;
mb_range mb_vector_range(bool cuda, bool quick);

/* Called for every matrix of the SpMV sweep and every block size n in ns: `variant` is "dense"
 * (every block full: Kronecker products, Sec. 5.3) or "real" (Poisson, elasticity, random SPD; made
 * once for all n). Matrices whose layout at n would store more than 4 x 2^hi elements (padding) are
 * skipped at that n: fn gets A = NULL (for the progress), as the dense ones past 2^dense_hi
 * elements are (a busy CPU's quick calibration). A failure stops the walk. */
typedef cgm_status (*mb_matrix_fn)(void *ctx, const cgm_csr *A, int n, const char *variant,
                                   const char *source, cgm_error *err);
cgm_status mb_for_each_matrix(const int *ns, int nn, bool cuda, bool quick, int dense_hi,
                              mb_matrix_fn fn, void *ctx, cgm_error *err);
/* Number of matrices mb_for_each_matrix generates (for progress; the skipped ones included). */
int mb_matrix_count(bool cuda, bool quick);

/* A Poisson grid of the whole-iteration sweeps (2D or 3D; source "poisson<dim>d:<n>"). Both the
 * iteration sweep and the whole solves on several GPUs start at the 2D floor grid: 16^2 = 256 rows,
 * the floor of the smallest matrices (docs/model.md); a 3D grid under 8^3 converges to an underflow
 * before its iterations are done. */
typedef struct {
  int dim, n;
} mb_grid;
enum { MB_FLOOR_GRID_DIM = 2, MB_FLOOR_GRID_N = 16 };
/* Generates grid g and writes its sample source to src. */
cgm_status mb_grid_make(mb_grid g, cgm_csr *A, char *src, size_t len, cgm_error *err);

/* Repeated timings, settled (settle.c): fn(ctx, i) times measurement i once (seconds; < 0: a
 * failure). A warm-up each, then rounds over them: up to `batch` timings of each while under
 * batch_s, until its low quantile settles (min_rounds rounds, min_n timings, the last round 2% or
 * less under it) or the call has run budget_s. */
typedef struct mb_settle_opts {
  int batch;
  double batch_s;
  int min_rounds, min_n;
  double budget_s;
} mb_settle_opts;
typedef struct mb_timing {
  double q;      /* seconds: the tenth percentile of the timings (under 10: their minimum) */
  double spread; /* the median over q, less 1 */
  int n;         /* timings */
  bool settled;
} mb_timing;
/* q, spread and n of t[0..n) (n > 0; sorts t); settled is left as it was. */
void mb_timing_of(double *t, int n, mb_timing *out);
typedef double (*mb_time_fn)(void *ctx, int i);
/* -1 when fn failed or memory ran out (out holds what was timed), else 0. */
int mb_settle(mb_time_fn fn, void *ctx, int count, const mb_settle_opts *o, mb_timing *out);

/* The iterations of a sweep's next timed solve: `iters`, or where its iterations so far took `wall`
 * seconds, over twice the `quiet` their low quantiles say, as many as twice that buys at the rate
 * seen (other work slows the solves, not their low quantile), at least `least`. */
int mb_iters_within(int iters, int least, double wall, double quiet);

/* The CPU's OpenMP team pinned one thread a CPU while its sweeps run, where
 * it is two threads on the process's two CPUs (docs/calibration.md, "One
 * thread a CPU"); any other team is the scheduler's. */
typedef struct mb_pinned {
  unsigned long mask[16]; /* the CPUs before (a cpu_set_t) */
  int threads;
  bool on;
} mb_pinned;
/* Pins a team of `threads` (<= 0: OpenMP's default; p->on: it did); mb_unpin lets go. */
void mb_pin(int threads, mb_pinned *p);
void mb_unpin(mb_pinned *p);

/* Fills a sample. */
void mb_sample(cgm_sample *s, const char *kernel, const char *variant, int precision, int block,
               double bytes, int width, double seconds, const char *source);
/* mb_sample of a settled timing: its quantile, spread and settledness. */
void mb_sample_timed(cgm_sample *s, const char *kernel, const char *variant, int precision,
                     int block, double bytes, int width, const mb_timing *t, const char *source);

/* Takes one sample of a sweep (NULL: a measurement that gave none, counted
 * for the progress); `run` is the caller's. */
typedef cgm_status (*mb_emit_fn)(void *run, const cgm_sample *s, const char *stage, cgm_error *err);
/* A device's sweeps as they report: each sample to the sink, and after
 * each measurement the stage and the fraction done (progress units). */
typedef struct mb_run {
  cgm_mb_sink sink;
  cgm_mb_progress progress;
  void *ctx;
  double done, total;
} mb_run;
/* Tells the progress (and the calibration's stage clock) that `stage` ran until now. */
void mb_report(mb_run *R, const char *stage);
/* The mb_emit_fn of an mb_run: stops the run (CGM_ERUNTIME) when the sink says so. */
cgm_status mb_emit(void *R, const cgm_sample *s, const char *stage, cgm_error *err);
/* A solve's iterations, each timed through its monitor (the solver reports their median only):
 * mb_iter_tick, the monitor, puts the seconds of each after the first `skip` in t (cap at most). */
typedef struct mb_iter_clock {
  double last, *t;
  int n, cap, skip;
} mb_iter_clock;
void mb_iter_tick(void *ctx, int iteration, double relres);
/* Solves A x = A 1 from x = 0 for exactly maxiter iterations (tolerance
 * 1e-300) with base's backend, precision, layout and GPUs; CGM_ENOCONV is
 * success. With t (NULL: none) on the CPU, each iteration after the first is timed: t their tenth
 * percentile and spread, also res->time_per_iter_s; a GPU's the low decile of its graphs, each from
 * its start; cuSPARSE's the median. */
cgm_status mb_solve_timed(const cgm_csr *A, const cgm_solve_opts *base, int maxiter,
                          cgm_solve_result *res, mb_timing *t, cgm_error *err);
/* mb_solve_timed, and where the solve stopped early (a single-precision
 * residual gone to zero) again over the 32-iteration graphs it ran, when
 * those are two or more. *steady: the last solve ran all it was asked. */
cgm_status mb_solve_steady(const cgm_csr *A, const cgm_solve_opts *base, int maxiter,
                           cgm_solve_result *res, mb_timing *t, bool *steady, cgm_error *err);
/* The samples of a coefficient's sweep (locality, row scatter, band load,
 * gathers), as they come. */
typedef struct mb_shapes {
  cgm_locality_sample *v;
  int n, cap;
} mb_shapes;
/* One GPU (or the CPU) solving A as numbered with base's backend and layout (block size n's default
 * where n > 0) in precision p for maxiter iterations (mb_solve_steady), appended to v with its
 * plan's shape, group and source; nothing where the solve stopped early (no steady state). */
cgm_status mb_shape_push(const cgm_csr *A, const cgm_solve_opts *base, int n, int p, int group,
                         int maxiter, const char *src, mb_shapes *v, cgm_error *err);
/* A sweep's end: v's samples as *out (malloc'ed) and *count, or, st a
 * failure, none (v freed). Returns st. */
cgm_status mb_shapes_end(mb_shapes *v, cgm_status st, cgm_locality_sample **out, int *count);
/* Whole iterations of the solver with base's backend and precision at every block size: kernel
 * "iter", variant "mesh" (3D Poisson grids up to max_grid^3; bytes = cgm_iter_bytes of the layout;
 * "meshc" the same with compact values, in double on the GPU past N = 1), "row" (arrows of 4096
 * rows whose longest block row has 2 .. 128 blocks) and "band" (CGM_BAND_ROWS rows, every block row
 * about 3 .. 127 blocks); for those two, bytes = the longest walk's elements times the width. A
 * solve that stops before its iterations (its residual underflowed) gives no sample. The GPU sweeps
 * use it; the tests run it on the CPU backend with small grids. */
cgm_status mb_iteration_sweeps(const cgm_solve_opts *base, bool quick, int max_grid,
                               mb_emit_fn emit, void *run, cgm_error *err);
/* Number of samples mb_iteration_sweeps emits on be in p, two a solve (for progress). */
int mb_iteration_count(cgm_backend be, cgm_precision p, bool quick, int max_grid);

/* The half-width h of a band (rows i - h .. i + h) whose block rows of n are about L + 1 blocks
 * long, at most CGM_LONG_ROW (a longer block row leaves the MBR layout on a GPU, for threads of its
 * own: no walk of one thread to time). The bands of the sweeps (iteration, row-scatter, band load)
 * are built with it. */
int mb_band_half(int n, int L);

/* Deterministic non-zero fill: 1 + 0.25 frac(i * golden ratio). */
double mb_value(int64_t i);

CGM_END_DECLS
