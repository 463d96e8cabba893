/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The performance model of Verschoor & Jalba 2012, Sec. 5: the sigmoid
 * throughput curve (Eq. 3) fitted with Levenberg-Marquardt, and the
 * per-iteration time, flops and performance (Eqs. 4-9). Never touches a
 * device. Units: m in elements ("transactions"), throughput in GB/s (as the
 * paper's nu), times in seconds. */
#ifndef CGMODEL_MODEL_H
#define CGMODEL_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgmodel/export.h"
#include "cgmodel/plan.h"
#include "cgmodel/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ Eq. 3 --- */

typedef struct cgm_sigmoid {
  double mu;    /* log2 of the transactions at half the peak */
  double sigma; /* width of the rise, in log2 units */
  double nu;    /* peak throughput, GB/s */
} cgm_sigmoid;

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

/* The bounds of every fit counted converged: finite parameters, sigma from
 * 1e-3 to 10 times the data's span in log2 m (at least 1), mu at most 10
 * doublings outside the data, 0 < nu <= CGM_FIT_NU_BOUND times the fastest
 * sample bmax (GB/s): no plateau further up is sampled. False with the
 * reason in why. */
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

/* Fits Eq. 3 to n samples (m[i] transactions, b[i] GB/s) with GSL's
 * gsl_multifit_nlinear (trust region, Levenberg-Marquardt), from several
 * robust starting points. The max fit fits the per-bin maxima (bins of
 * 0.5 in log2 m) and then lifts nu until no sample is above the curve by
 * more than the noise. Degenerate data (n < 4, fewer than 3 distinct m,
 * non-positive or non-finite values) is CGM_EINPUT. A fit that does not
 * converge returns CGM_OK with out->converged = false and the reason. */
CGM_API cgm_status cgm_fit_sigmoid(const double *m, const double *b, int n, cgm_fit_kind kind,
                                   cgm_fit *out, cgm_error *err);

/* The relative curve of a kernel as the refined model uses it (kind rel,
 * and rel-hi where it has a second piece). When the throughput falls for
 * good past its peak (below 80% of it, with 3 or more samples past the last
 * bin within 80% and 4 before: a CPU's data leaving its caches), the curve
 * splits there. lo, below the split (all without one): Eq. 3 on relative
 * residuals; hi, m >= split: Eq. 3 with 6 or more samples, else their
 * median. Where lo does not converge within its bounds, interp is set (the
 * samples' cgm_curve_points is the curve) and lo.message says why. Samples
 * in any order. CGM_EINPUT for degenerate data (n < 4, non-positive or
 * non-finite). */
typedef struct cgm_curve_fit {
  cgm_fit lo, hi;
  bool have_hi;
  double split; /* first m of hi */
  bool interp;  /* no fit: the samples' interpolation serves */
} cgm_curve_fit;

CGM_API cgm_status cgm_fit_curve(const double *m, const double *b, int n, cgm_curve_fit *out,
                                 cgm_error *err);

/* A curve as points: the medians of its samples' throughput per doubling
 * of m (at the bin's mean log2 m) as times (seconds for elements of
 * `width` bytes), by m ascending, each at least the time before (more data
 * never takes less time); at most CGM_ITER_POINTS (wider bins past 24
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

/* ------------------------------------------- the refined model (default) --- */

/* Bytes our SpMV moves over an MBR layout: the stored blocks (values and
 * block column), the result row of every slot, the slice offsets, the
 * gathered vector once and the result once. The refined model's m is these
 * bytes over the element width (docs/model.md). */
CGM_API double cgm_spmv_bytes(int64_t blocks_padded, int64_t slots, int64_t nslices, int n,
                              int64_t rows, int width);
/* Vector passes of the fused kernels (Table 2 recounted for ours): CG4 reads
 * x, r, v, u, D^-1 and writes x, r; CG5 reads v, r, D^-1 and writes v. */
#define CGM_CG4_PASSES 7
#define CGM_CG5_PASSES 4
/* The single-reduction CG's update kernel (the solver's default on a GPU):
 * reads u, p, w, s, x, D^-1, writes p, s, x, u. */
#define CGM_CGG_PASSES 10
/* Bytes of one whole iteration of ours: the SpMV (+ CG3) of the segment,
 * CG4 and CG5 over its rows. The iteration curve's m is these bytes over
 * the element width. */
CGM_API double cgm_iter_bytes(double spmv_bytes, int64_t rows, int width);
/* The elements one thread walks along the longest block row of max_row
 * blocks (N x N each): the row curve's m. */
CGM_API double cgm_row_elements(int32_t max_row, int n);
/* Bytes of one iteration of the cuSPARSE baseline on CSR with nnz entries
 * and x rows: the matrix (value and 32-bit column), the row offsets, and its
 * 21 vector passes (SpMV 2, dot 2, two axpy 6, dot 1, Jacobi 3, dot 2,
 * scal 2, axpy 3). */
CGM_API double cgm_cusparse_bytes(int64_t nnz, int64_t x, int width);

/* A curve's second regime: past split_m transactions, hi replaces the
 * curve (a CPU's throughput peaks while the data fit in its caches and falls
 * to its memory's past them; Eq. 3 cannot bend down). pts.n > 0: the
 * samples' interpolation is the whole curve instead (CGM_FIT_INTERP). */
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
} cgm_segment_shape;

/* The bytes of x beyond the contiguous estimate (rows x width) that a
 * locality coefficient c adds to the SpMV's: c (x_sector_bytes - rows w),
 * never negative; 0 without sectors. */
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
  /* Whole iterations of our solver per block size (beyond the paper): over
   * the iteration's bytes on 3D meshes ("iter"/"mesh"), and over the
   * longest block row on a matrix with one long row ("iter"/"row") and on
   * one whose every row is that long ("iter"/"band"). Where calibrated
   * they replace the sum of the kernel curves. */
  cgm_sigmoid iter[4], row[4], band[4];
  cgm_regime iter_hi[4], row_hi[4], band_hi[4];
  bool have_iter[4], have_row[4], have_band[4];
  cgm_sigmoid red; /* the plain dot (the paper's Red, and its CG2/CG3) */
  bool have_red;
  /* Multi-GPU: the per-iteration cost of exchanging and synchronising, a
   * sigmoid over the bytes each exchange mode moves, per GPU count. */
  cgm_sigmoid xfer[CGM_NEXCHANGES][CGM_MAX_GPUS + 1]; /* [exchange][gpus] */
  bool have_xfer[CGM_NEXCHANGES][CGM_MAX_GPUS + 1];
  double width;
  /* The locality term (docs/model.md): the SpMV moves
   * c (x_sector_bytes - rows w) bytes more than the contiguous estimate.
   * Fitted by the locality sweep; without it (older calibrations) the
   * model is the contiguous one. */
  double x_coef;
  bool have_x_coef;
  /* The row-scatter term (docs/model.md): per block size, the seconds a
   * step of the longest row's walk takes beyond the in-order arrow's when
   * every step reads x from a line of its own (the scattered arrows of the
   * calibration); the walk grows by row_scatter x coefficient x steps.
   * Absent (older calibrations, a CPU): the in-order walk. */
  double scatter_coef[4];
  bool have_scatter_coef[4];
  /* The same with every lane of the warp walking as long a scattered row
   * (the calibration's randomly numbered bands): a step's extra moves from
   * scatter_coef to band_scatter_coef by the segment's warp_share. Absent:
   * scatter_coef alone. */
  double band_scatter_coef[4];
  bool have_band_scatter_coef[4];
  /* The gather term (docs/model.md): the rate (bytes/s) at which the SpMV
   * fetches the 32-byte sectors of x its slices read (x_sector_bytes), where
   * x is gathered at random from the L2; the iteration takes at least the
   * vectors' time plus the stream's and the gathers' combined in quadrature.
   * Fitted by the gather sweep (uniform random matrices); without it (older
   * calibrations, a CPU) the bytes alone set the time. gather_bw is the
   * rate of the sweep's matrix of CGM_GATHER_ROWS rows; where the sweep
   * also timed one of CGM_GATHER_ROWS_SMALL, gather_bw_small is that one's,
   * and a segment's rate goes between the two in log(rows)
   * (cgm_gather_rate). */
  double gather_bw;
  bool have_gather_bw;
  double gather_bw_small;
  bool have_gather_small;
  /* The band-load term (docs/model.md): per block size, how much slower
   * than the band curve's a step is when CGM_BAND_LOAD_WIDTH times its
   * rows walk as long (more warps walking on each SM), as a fraction of
   * the band curve's time; a segment walking f > 1 bands' worth adds that
   * fraction times log(f) / log(CGM_BAND_LOAD_WIDTH) (at most twice it).
   * Fitted by the band-load sweep; absent (older calibrations, a CPU): the
   * band's pace however many walk. */
  double band_load[4];
  bool have_band_load[4];
  /* A CPU's curves at their foot: a matrix of a few hundred rows runs on a
   * team of one thread (cgm_cpu_team), which pays no fork and join, and
   * the sizes around the smallest timed step between team sizes, where a
   * sigmoid fitted to every size missed the smallest samples by up to 2x.
   * Per curve, the smallest size timed and the median time there (m = 0:
   * none, or a GPU: the curve as fitted). */
  cgm_foot spmv_foot[4], cg4_foot, cg5_foot;
  /* A CPU's iterations timed through its solver, per block size: between
   * the smallest and the largest size timed they are the iteration's time,
   * which the kernels' sum missed by 1.6-2.9x at 500-1100 rows on a 16-core
   * H200 node (teams of 2 to 4 threads); over the largest, the kernels' sum
   * corrected towards them over two octaves. n = 0: the kernels alone. */
  cgm_iter_points cpu_iter[4];
  /* A GPU's whole-iteration curve at its foot: the smallest grid its
   * iteration sweep solved (the 2D floor grid) and the median time there.
   * Under it the iteration takes that time (the launches' latency, which
   * no smaller matrix shortens); over it the fit is corrected towards it
   * over two octaves. The fit through every size missed the floor by
   * 7-10% on an H200 (single precision at N = 1: 11.2 us fitted, 10.2 us
   * measured). m = 0: the fit alone. */
  cgm_foot iter_foot[4];
  /* The row curve's foot: its shortest arrow (m: elements of the longest
   * row) and the median time there, which is mostly the arrows' own
   * iteration (4096 rows), not the walk: a matrix whose own iteration is
   * shorter gets the walk over its own (m = 0: as fitted). */
  cgm_foot row_foot[4];
} cgm_device_model;

/* A CPU's iteration of block size index bi whose SpMV moves spmv bytes
 * over rows rows, by its timed iterations (cgm_device_model.cpu_iter;
 * none: its kernels' curves). */
CGM_API double cgm_iter_points_time(const cgm_device_model *m, int bi, double spmv, int64_t rows);

/* A segment of a plan as the refined model sees it, at the plan's
 * precision: its rows, the bytes of its SpMV layouts (cgm_spmv_bytes,
 * summed over the interior and boundary layouts), and the walk of its
 * threads: the longest (the interior's plus the boundary's: two launches)
 * and the mean over its block rows, in blocks over B_x. */
CGM_API cgm_segment_shape cgm_refined_shape(const cgm_plan *p, int g);
/* One segment's iteration (no exchange): the iteration curve over its
 * bytes where calibrated, else SpMV + CG4 + CG5 (each Eq. 5 with its own
 * bytes); never less than the walk of its longest row: the row curve (one
 * long row) moved toward the band curve (every row long) by the share
 * rows * mean_row / (CGM_BAND_ROWS * max_row), at most 1. NaN when a
 * needed curve is missing. */
CGM_API double cgm_refined_segment_time(const cgm_device_model *m, int n,
                                        const cgm_segment_shape *s);
/* Refined Eq. 4/9 for a plan: the slowest segment's iteration plus, on
 * several GPUs, the fitted cost of the exchange mode for the bytes it
 * moves. NaN when a needed curve is missing. */
CGM_API double cgm_refined_time(const cgm_device_model *m, const cgm_plan *p);
/* The paper's Eqs. 4-9 with this device's curves: Table 2/3 transaction
 * counts (m = 2e for the SpMV, e the unpadded stored elements), CG2, CG3 and
 * Red timed by the dot's curve (the CG5 curve where no dot was measured),
 * T_idc the host-staged (or, direct, the peer) exchange curve with T_sync
 * folded in. NaN when a curve is missing. */
CGM_API double cgm_paper_device_time(const cgm_device_model *m, int n, double x, double e, int gpus,
                                     bool direct);
/* Fits the locality coefficient c to measured iterations: count segments
 * (one GPU or the CPU each) of the same device model, at block sizes
 * blocks[i], with their measured seconds. With groups (group[i]: the mesh
 * of sample i, the same bytes under several numberings) each time is taken
 * relative to its group's most local sample (fewest x sectors), measured
 * and predicted, so the model's own error on a mesh, the same under every
 * numbering, does not move c; without (NULL) the times themselves. c
 * minimises the squared relative error of cgm_refined_segment_time with
 * x_coef = c (a grid over [0, 16], then a golden section). CGM_EINPUT with
 * fewer than 3 samples, a time not positive, a sample the model cannot
 * time, or when no shape reads x in more sectors than its contiguous
 * estimate. *rms: the relative rms error at c. */
CGM_API cgm_status cgm_fit_x_coef(const cgm_device_model *m, const int *blocks, const int *group,
                                  const cgm_segment_shape *shapes, const double *seconds, int count,
                                  double *coef, double *rms, cgm_error *err);

/* Fits a row-scatter coefficient of block size n to count iterations
 * (shapes, measured seconds): the c >= 0 that minimises the squared
 * relative error of m's model with it: scatter_coef (band false: scattered
 * arrows, m without the term: the in-order walk, as the row curve was
 * fitted), or band_scatter_coef (band true: scattered bands, m's
 * scatter_coef kept). CGM_EINPUT with no samples, a time not positive, no
 * row curve at n, or a sample the model cannot time. */
CGM_API cgm_status cgm_fit_scatter_coef(const cgm_device_model *m, int n, bool band,
                                        const cgm_segment_shape *shapes, const double *seconds,
                                        int count, double *coef, cgm_error *err);

/* The gather sweep's two matrices (docs/model.md, "Gathers of x"): uniform
 * random rows, 8 nonzeros a row, of this many rows. A smaller matrix
 * gathers x's sectors slower (fewer gathers in flight on each SM). */
#define CGM_GATHER_ROWS 1000000
#define CGM_GATHER_ROWS_SMALL 131072
/* The gather rate of a segment of `rows` rows (bytes/s): gather_bw at
 * CGM_GATHER_ROWS rows and above, gather_bw_small at CGM_GATHER_ROWS_SMALL
 * and below (where fitted), a straight line in log-log between; 0 without
 * a rate. */
CGM_API double cgm_gather_rate(const cgm_device_model *m, int64_t rows);

/* The gather rate of the refined model (cgm_device_model.gather_bw) from
 * iterations timed on matrices whose columns scatter at random: per
 * sample (at N = 1) the rate at which the model meets the time (a bisection; none
 * where the model without the term already does), their median.
 * CGM_EINPUT when no sample gives one. */
CGM_API cgm_status cgm_fit_gather_bw(const cgm_device_model *m, const cgm_segment_shape *shapes,
                                     const double *seconds, int count, double *bw, cgm_error *err);

/* The band-load fraction of block size n (cgm_device_model.band_load)
 * from iterations of wide bands: per sample the fraction at which the
 * model meets the time (a bisection over [0, 4]; 0 where the model without
 * it already does), their median. CGM_EINPUT without samples or without
 * the band curve. */
CGM_API cgm_status cgm_fit_band_load(const cgm_device_model *m, int n,
                                     const cgm_segment_shape *shapes, const double *seconds,
                                     int count, double *frac, cgm_error *err);

/* The cuSPARSE baseline: one curve over its iteration bytes. */
CGM_API double cgm_refined_cusparse_time(const cgm_device_model *m, int64_t nnz, int64_t x);

/* ----------------------------------------- time to a solution --- */

/* Setup time of a configuration: building its layout on the host and
 * uploading it, modelled as fixed_s + s_per_byte * bytes of the layout
 * (cgm_plan.device_bytes). samples: the setups it was fitted on, the
 * calibration's own solves and the recorded ones (0: the defaults). */
typedef struct cgm_setup_model {
  double fixed_s, s_per_byte;
  int samples;
} cgm_setup_model;

CGM_API cgm_setup_model cgm_setup_model_default(bool gpu);
CGM_API double cgm_setup_time(const cgm_setup_model *m, double bytes);
/* Least squares of the relative error over measured (bytes, seconds),
 * samples more than 2x off the line left out; the default when the
 * samples cannot determine a line (fewer than 3, sizes within 2x). */
CGM_API cgm_setup_model cgm_setup_fit(const double *bytes, const double *seconds, int n, bool gpu);
/* A rough iteration count of Jacobi CG to tol for x unknowns, when neither
 * the user nor the database knows it. */
CGM_API double cgm_iterations_estimate(int64_t x, double tol);

#ifdef __cplusplus
}
#endif
#endif
