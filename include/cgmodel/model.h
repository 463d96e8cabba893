/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The performance model of Verschoor & Jalba 2012, Sec. 5: the sigmoid throughput curve (Eq. 3)
 * fitted with Levenberg-Marquardt, and the per-iteration time, flops and performance (Eqs. 4-9).
 * Never touches a device. Units: m in elements ("transactions"), throughput in GB/s (as the paper's
 * nu), times in seconds. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgmodel/export.h"
#include "cgmodel/plan.h"
#include "cgmodel/status.h"

CGM_BEGIN_DECLS

/* ------------------------------------------------------------ Eq. 3 --- */

typedef struct cgm_sigmoid {
  double mu;    /* log2 of the transactions at half the peak */
  double sigma; /* width of the rise, in log2 units */
  double nu;    /* peak throughput, GB/s */
} cgm_sigmoid;

/* 1 / (1 + exp(-z)) without overflowing exp() for large |z|: the sigmoid's and its fits'. */
CGM_API double cgm_logistic(double z);
/* B(m) = nu / (1 + exp(-(log2 m - mu) / sigma))   [GB/s], Eq. 3 */
CGM_API double cgm_sigmoid_eval(const cgm_sigmoid *s, double m);
/* Eq. 5 with the element width: T(m) = width * m / B(m)   [s]
 * (the paper's 4m/B is width = 4, single precision). */
CGM_API double cgm_sigmoid_time(const cgm_sigmoid *s, double m, double width);

/* Times at sizes: a CPU's whole iterations as its solver ran them
 * (calibration samples "iter"/"cpu": the median time at each size timed),
 * and a curve's samples interpolated (cgm_curve_points). By m ascending. */
#define CGM_ITER_POINTS 24
typedef struct cgm_iter_points {
  int n;                     /* sizes (0: none) */
  double m[CGM_ITER_POINTS]; /* transactions (an iteration's: cgm_iter_bytes / width) */
  double t[CGM_ITER_POINTS]; /* seconds */
  double r[CGM_ITER_POINTS]; /* a CPU's: the rows of the grid timed (0: unknown) */
} cgm_iter_points;

/* ------------------------------------------------------------ fitting --- */

typedef enum {
  CGM_FIT_AVG = 0,    /* least squares through all samples (Table 3 "avg") */
  CGM_FIT_MAX = 1,    /* the envelope of the samples (Table 3 "max") */
  CGM_FIT_REL = 2,    /* least squares of the relative residuals (B - b) / b: every size
                         weighs the same, as a prediction of time needs (the refined model) */
  CGM_FIT_REL_HI = 3, /* the same past the throughput peak, where a curve falls again (a
                         CPU's data leaving its caches): see cgm_regime */
  CGM_FIT_INTERP = 4, /* no fit: where the rel fit did not converge or left its bounds, the
                         samples' monotone interpolation serves instead (cgm_curve_points) */
} cgm_fit_kind;

/* The bounds of every fit counted converged: finite parameters, sigma from 1e-3 to 10 times the
 * data's span in log2 m (at least 1), mu at most 10 doublings outside the data, 0 < nu <=
 * CGM_FIT_NU_BOUND times the fastest sample bmax (GB/s): no plateau further up is sampled. False
 * with the reason in why. */
#define CGM_FIT_NU_BOUND 4.0
CGM_API bool cgm_fit_bounded(const cgm_sigmoid *p, double m_lo, double m_hi, double bmax, char *why,
                             size_t n);

typedef struct cgm_fit {
  cgm_sigmoid p;
  double se_mu, se_sigma, se_nu; /* standard errors from the covariance */
  double r2;                     /* coefficient of determination on the fitted points */
  double rms;                    /* root mean square residual, GB/s */
  int n;                         /* samples used */
  double m_lo, m_hi;             /* transactions of the samples fitted */
  int iterations;
  bool converged;
  char message[160]; /* why it did not converge, or "" */
} cgm_fit;

/* Fits Eq. 3 to n samples (m[i] transactions, b[i] GB/s) with GSL's gsl_multifit_nlinear (trust
 * region, Levenberg-Marquardt), from several robust starting points. The max fit fits the per-bin
 * maxima (bins of 0.5 in log2 m) and then lifts nu until no sample is above the curve by more than
 * the noise. Degenerate data (n < 4, fewer than 3 distinct m, non-positive or non-finite values) is
 * CGM_EINPUT. A fit that does not converge returns CGM_OK with out->converged = false and the
 * reason. */
CGM_API cgm_status cgm_fit_sigmoid(const double *m, const double *b, int n, cgm_fit_kind kind,
                                   cgm_fit *out, cgm_error *err);

/* The relative curve of a kernel as the refined model uses it (kind rel, and rel-hi where it has a
 * second piece). When the throughput falls for good past its peak (below 80% of it, with 3 or more
 * samples past the last bin within 80% and 4 before: a CPU's data leaving its caches), the curve
 * splits there. lo, below the split (all without one): Eq. 3 on relative residuals; hi, m >= split:
 * Eq. 3 with 6 or more samples, else their median. Where lo does not converge within its bounds,
 * interp is set (the samples' cgm_curve_points is the curve) and lo.message says why. Samples in
 * any order. CGM_EINPUT for degenerate data (n < 4, non-positive or non-finite). */
typedef struct cgm_curve_fit {
  cgm_fit lo, hi;
  bool have_hi;
  double split; /* first m of hi */
  bool interp;  /* no fit: the samples' interpolation serves */
} cgm_curve_fit;

CGM_API cgm_status cgm_fit_curve(const double *m, const double *b, int n, cgm_curve_fit *out,
                                 cgm_error *err);

/* A curve as points: the medians of its samples' throughput per doubling of m (at the bin's mean
 * log2 m) as times (seconds for elements of `width` bytes), by m ascending, each at least the
 * time before (more data never takes less time); at most CGM_ITER_POINTS (wider bins past 24
 * doublings). */
CGM_API void cgm_curve_points(const double *m, const double *b, int n, double width,
                              cgm_iter_points *P);
/* Its time at m: a straight line in log-log between the points, the
 * nearest point's throughput beyond them. */
CGM_API double cgm_points_time(const cgm_iter_points *P, double m);

/* "avg", "max", "rel", "rel-hi", "interp"; "?" for another value. */
CGM_API const char *cgm_fit_kind_name(int kind);

/* ------------------------------------------------- the paper's Eqs. 4-9 --- */

/* The fitted curves the paper's model uses for one device and precision,
 * with the transaction counts of Tables 2 and 3. */
typedef struct cgm_paper_params {
  cgm_sigmoid spmv[4]; /* N = 1, 2, 4, 8 (Table 3), m = 2e */
  cgm_sigmoid cg2;     /* m = 2x (Table 2) */
  cgm_sigmoid cg3;     /* m = 3x */
  cgm_sigmoid cg4;     /* m = 9x */
  cgm_sigmoid cg5;     /* m = 6x */
  cgm_sigmoid red;     /* m = x */
  cgm_sigmoid idc;     /* inter-device communication, Sec. 5.5 */
  double t_sync;       /* average synchronisation time, s (Eq. 9) */
  double width;        /* element width in bytes: 4 single, 8 double */
} cgm_paper_params;

/* Eq. 4: T(x, e) = T_spmv(e) + T_CG2(x) + T_CG3(x) + T_CG4(x) + T_CG5(x) + 3 T_red(x),
 * each term Eq. 5 with its Table 2/3 transaction count. */
CGM_API double cgm_paper_time(const cgm_paper_params *p, int n, double x, double e);
/* Eq. 6: F(x, e) = 2e + 15x */
CGM_API double cgm_paper_flops(double x, double e);
/* Eq. 8: F(x, e, d_N) = 2 e d_N + 15x */
CGM_API double cgm_paper_flops_real(double x, double e, double d);
/* Eq. 7: P = F / T in GFLOPS (raw with Eq. 6). */
CGM_API double cgm_paper_gflops(const cgm_paper_params *p, int n, double x, double e);
/* Eq. 9: T_p = max_i T_i(x/n, e/n) + T_idc(x n) + 4 T_sync, the host-staged
 * exchange of x n elements; with direct (peer) copies T_idc(x). */
CGM_API double cgm_paper_time_parallel(const cgm_paper_params *p, int n, double x, double e,
                                       int gpus, bool direct);

/* The built-in interconnect profile (docs/model.md, "What-if"), for GPUs no calibration measured
 * together: the paper's host-staged exchange (Eq. 9), every exchange mode's bytes copied through
 * pinned host memory at CGM_PCIE_HOST_GBPS after 4 synchronisations of CGM_PCIE_HOST_SYNC_S (both
 * measured on a node with 4 H200s, 2026-11-21). Its Eq. 3 curve over elements of `width` bytes
 * (sigma = 1 / ln 2: a latency plus a copy). */
#define CGM_PCIE_HOST "pcie-host"
#define CGM_PCIE_HOST_GBPS 55.0
#define CGM_PCIE_HOST_SYNC_S 8e-6
CGM_API cgm_sigmoid cgm_pcie_host_curve(double width);

/* ------------------------------------------- the refined model (default) --- */

/* Bytes our SpMV moves over an MBR layout (blocks, slots, slice offsets, the vector and the result
 * once); the refined model's m is these over the element width (docs/model.md). */
CGM_API double cgm_spmv_bytes(int64_t blocks_padded, int64_t slots, int64_t nslices, int n,
                              int64_t rows, int width);
/* Vector passes of the fused kernels (Table 2 recounted for ours): CG4 reads
 * x, r, v, u, D^-1 and writes x, r; CG5 reads v, r, D^-1 and writes v. */
#define CGM_CG4_PASSES 7
#define CGM_CG5_PASSES 4
/* The single-reduction CG's update kernel (the solver's default on a GPU):
 * reads u, p, w, s, x, D^-1, writes p, s, x, u. */
#define CGM_CGG_PASSES 10
/* Bytes of one whole iteration of ours (SpMV + CG3, CG4, CG5): the
 * iteration curve's m times the element width. */
CGM_API double cgm_iter_bytes(double spmv_bytes, int64_t rows, int width);
/* The elements one thread walks along the longest block row of max_row
 * blocks (N x N each): the row curve's m. */
CGM_API double cgm_row_elements(int32_t max_row, int n);
/* Bytes of one iteration of the cuSPARSE baseline on CSR with nnz entries
 * and x rows: the matrix, the row offsets and 21 vector passes. */
CGM_API double cgm_cusparse_bytes(int64_t nnz, int64_t x, int width);

/* A curve's second regime: past split_m transactions, hi replaces the curve (a CPU's throughput
 * peaks while the data fit in its caches and falls to its memory's past them; Eq. 3 cannot bend
 * down). pts.n > 0: the samples' interpolation is the whole curve instead (CGM_FIT_INTERP). */
typedef struct cgm_regime {
  cgm_sigmoid hi;
  double split_m;
  bool have;
  cgm_iter_points pts;
} cgm_regime;

/* The rows of the calibration's band matrices (every row as long): the
 * walking load the band curve was timed under. */
#define CGM_BAND_ROWS 8192
/* The wide bands of the band-load sweep: this many times CGM_BAND_ROWS
 * rows, every one as long (a share of 4 bands' walking). */
#define CGM_BAND_LOAD_WIDTH 4

/* What one GPU (or the CPU) holds of a configuration. */
typedef struct cgm_segment_shape {
  int64_t rows;      /* own rows (padded to the block size) */
  double spmv_bytes; /* cgm_spmv_bytes of its layout(s) */
  int32_t max_row;   /* blocks one thread walks along its longest block row (0: unknown) */
  double mean_row;   /* blocks one thread walks on average (0: unknown) */
  /* Bytes of x its SpMV's slices read as 32-byte sectors (the plan's
   * x_sectors times 32 at its width; 0: unknown): the locality term. */
  double x_sector_bytes;
  /* How scattered its longest block row's reads of x are (cgm_row_scatter
   * at its width: 0 in order or unknown, 1 a line a step). */
  double row_scatter;
  /* How many lanes of that row's warp walk with it (the plan's warp_share
   * at its width: 0 alone, 1 every lane as long). */
  double warp_share;
  /* Bytes of x the long rows' kernel gathers as 32-byte sectors (the plan's
   * long_x_sectors times 32 at its width; 0: none or unknown). */
  double long_sector_bytes;
  int32_t bx;          /* its SpMV's lanes a block row, B_x (0: unknown, as 1) */
  int64_t spmv_blocks; /* its MBR SpMV's slice groups, a block each (0: unknown) */
  bool long_rows;      /* a layout of long rows beside them (cgm_plan_long_part) */
  bool f32;            /* its values stored in f32 (cgm_plan_opts.values) */
} cgm_segment_shape;

/* The bytes of x beyond the contiguous estimate (rows x width) that a locality coefficient c adds
 * to the SpMV's: c (x_sector_bytes - rows w), never negative; 0 without sectors. */
CGM_API double cgm_x_extra_bytes(double coef, const cgm_segment_shape *s, int width);

/* The calibrated curves of one device and precision. */
/* The smallest size a curve's samples timed, and their median time there. */
typedef struct cgm_foot {
  double m; /* transactions (0: none) */
  double t; /* seconds */
} cgm_foot;

typedef struct cgm_device_model {
  cgm_sigmoid spmv[4];
  bool have_spmv[4];
  cgm_sigmoid cg4, cg5;
  bool have_vec;
  cgm_sigmoid cusparse;
  bool have_cusparse;
  cgm_regime spmv_hi[4], cg4_hi, cg5_hi; /* second regimes, where calibrated */
  /* Whole iterations of our solver per block size: over the iteration's bytes on 3D meshes, and
   * over the longest block row with one long row (row) and with every row that long (band); where
   * calibrated they replace the sum of the kernel curves. */
  cgm_sigmoid iter[4], row[4], band[4];
  cgm_regime iter_hi[4], row_hi[4], band_hi[4];
  bool have_iter[4], have_row[4], have_band[4];
  /* The mesh iteration with f32 values (N > 1), over their bytes: widening
   * them costs more than the bytes it saves (dict goes by its bytes). */
  cgm_sigmoid iterc[4];
  cgm_regime iterc_hi[4];
  bool have_iterc[4];
  cgm_foot iterc_foot[4];
  cgm_sigmoid red; /* the plain dot (the paper's Red, and its CG2/CG3) */
  bool have_red;
  /* Multi-GPU: an iteration's exchange and synchronisation, over the bytes
   * each exchange mode moves, per GPU count. */
  cgm_sigmoid xfer[CGM_NEXCHANGES][CGM_MAX_GPUS + 1]; /* [exchange][gpus] */
  bool have_xfer[CGM_NEXCHANGES][CGM_MAX_GPUS + 1];
  double width;
  int sms; /* a GPU's multiprocessors, where its SpMV's waves are priced (0: a CPU, unknown) */
  /* The terms of docs/model.md, each absent in older calibrations (and on a CPU). Locality: the
   * SpMV moves c (x_sector_bytes - rows w) bytes more than the contiguous estimate. */
  double x_coef;
  bool have_x_coef;
  /* Row scatter, per block size: the seconds a step of the longest row's
   * walk takes beyond the in-order arrow's when every step reads x from a
   * line of its own; the walk grows by row_scatter x coefficient x steps. */
  double scatter_coef[4];
  bool have_scatter_coef[4];
  /* The same with every lane of the warp walking as long a scattered row:
   * a step's extra moves towards it by the segment's warp_share. */
  double band_scatter_coef[4];
  bool have_band_scatter_coef[4];
  /* Gathers: the rate (bytes/s) at which the SpMV fetches the sectors of x (x_sector_bytes)
   * gathered at random; the stream's and the gathers' times combine in quadrature. At
   * CGM_GATHER_ROWS rows, and at CGM_GATHER_ROWS_SMALL where timed (cgm_gather_rate). */
  double gather_bw;
  bool have_gather_bw;
  double gather_bw_small;
  bool have_gather_small;
  /* A CPU's: its gathers add to its stream, and cost by the share of x out of its caches between
   * the two sizes, none where x stays in them (cgm_gather_rate). */
  bool gather_cached;
  /* Band load, per block size: how much slower than the band curve's a step is when
   * CGM_BAND_LOAD_WIDTH times its rows walk as long, as a fraction; f > 1 bands' worth adds it
   * times log(f) / log(WIDTH) (at most twice it). */
  double band_load[4];
  bool have_band_load[4];
  /* A CPU's curves at their foot, where the thread team shrinks and a
   * sigmoid missed the smallest samples by up to 2x (m = 0: as fitted). */
  cgm_foot spmv_foot[4], cg4_foot, cg5_foot;
  /* A CPU's iterations timed through its solver, per block size: within
   * their sizes they are the time (the kernels' sum missed by up to 2.9x),
   * above them the kernels' sum is corrected towards them (n = 0: none). */
  cgm_iter_points cpu_iter[4];
  /* A GPU's iteration curve at its foot, the smallest grid timed: under it
   * the iteration takes that time (the launches' latency), over it the fit
   * is corrected towards it over two octaves (m = 0: the fit alone). */
  cgm_foot iter_foot[4];
  /* The row curve's foot, its shortest arrow, mostly the arrow's own
   * iteration: a shorter iteration gets the walk over its own. */
  cgm_foot row_foot[4];
} cgm_device_model;

/* A CPU's iteration of block size index bi whose SpMV moves spmv bytes over rows rows, by its timed
 * iterations (cgm_device_model.cpu_iter; none: its kernels' curves). */
CGM_API double cgm_iter_points_time(const cgm_device_model *m, int bi, double spmv, int64_t rows,
                                    int bx);

/* A segment of a plan as the refined model sees it: its rows, the bytes of its SpMV layouts, and
 * its threads' walk, longest (the interior's plus the boundary's) and mean, in blocks over B_x. */
CGM_API cgm_segment_shape cgm_refined_shape(const cgm_plan *p, int g);
/* One segment's iteration (no exchange): the iteration curve where calibrated, else SpMV + CG4 +
 * CG5; never less than the walk of its longest row (the row curve moved toward the band curve by
 * the share rows * mean_row / (CGM_BAND_ROWS * max_row)). NaN when a curve is missing. */
CGM_API double cgm_refined_segment_time(const cgm_device_model *m, int n,
                                        const cgm_segment_shape *s);
/* Refined Eq. 4/9 for a plan: the slowest segment's iteration plus, on several GPUs, the fitted
 * cost of the exchange mode for the bytes it moves. NaN when a needed curve is missing. */
CGM_API double cgm_refined_time(const cgm_device_model *m, const cgm_plan *p);
/* The paper's Eqs. 4-9 with this device's curves (CG2, CG3 and Red by the
 * dot's curve, else CG5's; T_idc the host-staged or, direct, the peer
 * exchange with T_sync folded in). NaN when a curve is missing. */
CGM_API double cgm_paper_device_time(const cgm_device_model *m, int n, double x, double e, int gpus,
                                     bool direct);
/* Fits the locality coefficient c (in [0, 16]) minimising the squared log error of
 * cgm_refined_segment_time over count segments at block sizes blocks[i], with groups (group[i]:
 * the mesh of sample i) less the mean of its group at its block size, so the model's own error on a
 * mesh does not move c; c = 0 unless it passes an F test at 5%. CGM_EINPUT with fewer than 3
 * samples, a bad time, or no shape beyond its contiguous estimate. *rms: the rms log error. */
CGM_API cgm_status cgm_fit_x_coef(const cgm_device_model *m, const int *blocks, const int *group,
                                  const cgm_segment_shape *shapes, const double *seconds, int count,
                                  double *coef, double *rms, cgm_error *err);

/* Fits scatter_coef (band false: scattered arrows) or band_scatter_coef (band true: scattered
 * bands) of block size n: the c >= 0 minimising the squared relative error of m's model over count
 * iterations. CGM_EINPUT with no samples, a bad time or sample, or no row curve at n. */
CGM_API cgm_status cgm_fit_scatter_coef(const cgm_device_model *m, int n, bool band,
                                        const cgm_segment_shape *shapes, const double *seconds,
                                        int count, double *coef, cgm_error *err);

/* The gather sweep's two matrices (docs/model.md, "Gathers of x"), uniform
 * random with 8 nonzeros a row: a smaller one gathers slower. */
#define CGM_GATHER_ROWS 1000000
#define CGM_GATHER_ROWS_SMALL 131072
/* The gather rate (bytes/s) of `rows` rows: log-log between the two
 * sizes' rates (gather_cached: the cost a byte linear in 1 / rows, 0 where
 * it reaches none), constant beyond; 0 without a rate. */
CGM_API double cgm_gather_rate(const cgm_device_model *m, int64_t rows);

/* gather_bw from iterations of random matrices: the median over samples of the rate at which the
 * model meets the time (a bisection). CGM_EINPUT when no sample gives one. */
CGM_API cgm_status cgm_fit_gather_bw(const cgm_device_model *m, const cgm_segment_shape *shapes,
                                     const double *seconds, int count, double *bw, cgm_error *err);

/* band_load of block size n from iterations of wide bands: the median of the fractions (in [0, 4])
 * at which the model meets the times. CGM_EINPUT without samples or without the band curve. */
CGM_API cgm_status cgm_fit_band_load(const cgm_device_model *m, int n,
                                     const cgm_segment_shape *shapes, const double *seconds,
                                     int count, double *frac, cgm_error *err);

/* The cuSPARSE baseline: one curve over its iteration bytes. */
CGM_API double cgm_refined_cusparse_time(const cgm_device_model *m, int64_t nnz, int64_t x);

/* ----------------------------------------- time to a solution --- */

/* Setup time of a configuration (layout and upload): fixed_s + s_per_byte * cgm_plan.device_bytes;
 * samples: the setups it was fitted on (0: the defaults). */
typedef struct cgm_setup_model {
  double fixed_s, s_per_byte;
  int samples;
} cgm_setup_model;

CGM_API cgm_setup_model cgm_setup_model_default(bool gpu);
CGM_API double cgm_setup_time(const cgm_setup_model *m, double bytes);
/* Least squares of the relative error over (bytes, seconds), samples 2x
 * off the line left out; the default when they cannot fix a line. */
CGM_API cgm_setup_model cgm_setup_fit(const double *bytes, const double *seconds, int n, bool gpu);
/* A rough iteration count of Jacobi CG to tol for x unknowns, when neither
 * the user nor the database knows it. */
CGM_API double cgm_iterations_estimate(int64_t x, double tol);

CGM_END_DECLS
