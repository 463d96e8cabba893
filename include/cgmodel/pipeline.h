/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The steps that connect the components (docs/architecture.md's pipeline): calibrate
 * (microbench -> fits -> db), the device models a prediction uses (db ->
 * model), this machine's calibrated devices, and what each command does end
 * to end (predict, solve with its autotuning, validate) with the record of
 * every solve beside its prediction. Sequencing only: the logic lives in the
 * components. The pipeline never prints, exits or reads the environment:
 * what the caller decides travels in option structs, what a step has to say
 * while it runs goes through a cgm_note_fn, and its result comes back in a
 * report struct that the command line prints. */
#ifndef CGMODEL_PIPELINE_H
#define CGMODEL_PIPELINE_H

#include <stdbool.h>

#include "cgmodel/cache.h"
#include "cgmodel/db.h"
#include "cgmodel/dist.h"
#include "cgmodel/export.h"
#include "cgmodel/solver.h"
#include "cgmodel/tuner.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Called between measurements: the stage and the fraction of the run done. */
typedef void (*cgm_progress_fn)(void *ctx, const char *stage, double done);

/* What a step has to say while it runs, for the caller to show (the command
 * line prints it on stderr as it comes, so a long step tells early). */
typedef enum {
  CGM_NOTE_INFO = 0,    /* how the step goes: a matrix skipped, the tuner's choice */
  CGM_NOTE_WARNING = 1, /* a result may mislead: a stale calibration, a record not stored */
  CGM_NOTE_ERROR = 2,   /* a failure the step goes on without (a database it could do without) */
} cgm_note_kind;
typedef void (*cgm_note_fn)(void *ctx, cgm_note_kind kind, const char *msg);

typedef struct cgm_calibrate_opts {
  char devices[128]; /* "cpu", "cuda:all", "cuda:0,1", "cpu,cuda:all" */
  bool quick;
  unsigned precisions; /* bit (1 << cgm_precision) */
  int threads;         /* CPU threads (<= 0: default) */
  cgm_progress_fn progress;
  cgm_gpu_opts gpu; /* how the GPU sweeps run our solver (recorded with the calibration) */
  void *progress_ctx;
} cgm_calibrate_opts;

#define CGM_MAX_CALIBRATED 9
/* A GPU calibration names 20 stages on several GPUs (setup, the kernel
 * sweeps, cuSPARSE, whole iterations, the fits and the coefficients'
 * sweeps, store): room to spare, since a stage past it goes unreported. */
#define CGM_MAX_STAGES 32

typedef struct cgm_stage_time {
  char name[16];
  double seconds;
} cgm_stage_time;

typedef struct cgm_calibration_report {
  int count;
  struct {
    int64_t id;
    char device[32]; /* "cpu", "cuda:0" */
    char model[256];
    int gpus;
    int samples, fits, fits_failed;
    double seconds;
    char failed[512]; /* the fits that did not converge */
    double x_coef[2]; /* the locality coefficient per precision (docs/model.md) */
    bool have_x_coef[2];
    /* the row-scatter coefficient per precision and block size (seconds a
     * step; docs/model.md) */
    double scatter_coef[2][4];
    bool have_scatter_coef[2][4];
    double band_scatter_coef[2][4]; /* the same, every lane of the warp scattered */
    bool have_band_scatter_coef[2][4];
    double gather_bw[2]; /* the gather rate per precision, bytes/s (docs/model.md) */
    bool have_gather_bw[2];
    double gather_bw_small[2]; /* the same on the sweep's smaller matrix */
    bool have_gather_small[2];
    double band_load[2][4]; /* the band-load fraction per precision and block size */
    bool have_band_load[2][4];
    /* Where the seconds went, in order: "setup" (the device's start: the
     * CUDA context), each sweep's stage (load, cg4, spmv, iter, ...), "fits"
     * and "store". */
    int nstages;
    cgm_stage_time stage[CGM_MAX_STAGES];
  } cal[CGM_MAX_CALIBRATED];
} cgm_calibration_report;

/* The devices a --devices list names, checked against this machine: "cpu",
 * "cuda:all" (GPU 0, the multi-GPU sweeps over every GPU), "cuda:K" (one
 * GPU), "cuda:0,1,..,K-1" (the first K GPUs), comma-separated. CGM_EINPUT naming the bad item. */
typedef struct cgm_calibrate_plan_t {
  int count;
  char device[CGM_MAX_CALIBRATED][32];
  int gpus[CGM_MAX_CALIBRATED];
} cgm_calibrate_plan_t;
CGM_API cgm_status cgm_calibrate_plan(const char *devices, cgm_calibrate_plan_t *plan,
                                      cgm_error *err);

/* Calibrates every device of the list (cgm_calibrate_plan): runs the
 * sweeps, fits Eq. 3 to every kernel (avg, max, and the model's relative
 * curve, rel and rel-hi: cgm_fit_curve), and stores the samples and every
 * fit, converged or flagged not, in one transaction at the end (an
 * interrupted run stores nothing; disturbed CPU timings are refused:
 * cgm_check_cpu_timings). */
CGM_API cgm_status cgm_calibrate(cgm_db *db, const cgm_calibrate_opts *o,
                                 cgm_calibration_report *rep, cgm_error *err);

/* Fits a stored calibration anew from its samples (after a change to the
 * fits, without measuring again) and replaces its fits in one transaction.
 * rep->cal[0] tells the device, sample and fit counts, failed fits. */
CGM_API cgm_status cgm_refit(cgm_db *db, int64_t cal_id, cgm_calibration_report *rep,
                             cgm_error *err);

/* CPU timings that other processes disturbed: an OpenMP barrier waiting for
 * a preempted thread costs a scheduler time slice (milliseconds) whatever
 * the size, so the smallest CG4 takes about as long as the largest. Such a
 * calibration would mislead every prediction: CGM_ERUNTIME with what was
 * seen (calibrate then stores nothing). CGM_OK with fewer than 8 CG4
 * samples of a precision. */
CGM_API cgm_status cgm_check_cpu_timings(const cgm_sample *v, int count, cgm_error *err);

/* ------------------------------------------ this machine (host.c) --- */

/* The hardware this process runs on, as database device records: the CPU
 * and every CUDA device. */
CGM_API cgm_status cgm_describe_cpu(cgm_db_device *d, int threads, cgm_error *err);
CGM_API cgm_status cgm_describe_cuda(int dev, cgm_db_device *d, cgm_error *err);

/* This machine as the calibrations name it: what a calibrated device must
 * be called to be one of this machine's. */
typedef struct cgm_host {
  char cpu[256]; /* the CPU's model at OpenMP's default thread count (cgm_describe_cpu's
                    model with threads 0: the thread count is part of the name) */
  char gpu[256]; /* GPU 0's model (cgm_describe_cuda); "" without a GPU */
  int gpus;      /* CUDA devices present (0 in a CPU-only build) */
} cgm_host;

/* Describes this machine (its CPU and GPU 0, and the GPU count). */
CGM_API void cgm_host_describe(cgm_host *h);

/* The index in devs of the calibrated CPU (cpu) or GPU of this model; -1
 * when none. */
CGM_API int cgm_find_device(const cgm_tuner_device *devs, int count, bool cpu, const char *model);

/* Which of the calibrated devices are this machine's. */
typedef struct cgm_host_devices {
  int cpu; /* index in devs of this CPU's calibration; -1 when none */
  int gpu; /* index in devs of GPU 0's model's calibration; -1 when none or no GPU */
} cgm_host_devices;
CGM_API cgm_host_devices cgm_host_match(const cgm_host *h, const cgm_tuner_device *devs, int count);

/* --------------------------------------- database -> models (models.c) --- */

/* The newest complete calibration of every device in the database, as the
 * tuner's devices (kind "cpu", "cuda" or NULL for both). *devs is malloc'ed;
 * *count may be 0. */
CGM_API cgm_status cgm_load_devices(cgm_db *db, const char *kind, cgm_tuner_device **devs,
                                    int *count, cgm_error *err);
/* The same with the curves of one fit kind (cgm_fit_kind): CGM_FIT_REL is
 * cgm_load_devices (with its fallbacks to avg and max fits); any other kind
 * takes only that kind's converged fits (the maps draw the maximum fits). */
CGM_API cgm_status cgm_load_devices_kind(cgm_db *db, const char *kind, int fit_kind,
                                         cgm_tuner_device **devs, int *count, cgm_error *err);
/* One calibration (complete or not) as a tuner device, with its fits of
 * kind `fit_kind`. CGM_EINPUT when there is no such calibration. */
CGM_API cgm_status cgm_load_calibration(cgm_db *db, int64_t cal_id, int fit_kind,
                                        cgm_tuner_device *dev, cgm_error *err);
/* The CG whose iterations a GPU calibration timed, from its options JSON:
 * "cgg" or "classic" ("classic" when not recorded: calibrated before the
 * single-reduction CG became the default); "" for a CPU calibration. */
CGM_API void cgm_calibration_cg(const char *options_json, bool is_cpu, char *out, size_t n);
/* True, with a warning in msg, when a GPU device's calibration timed another
 * CG than the one the solver runs with these options: its predictions
 * are then off by that CG's difference (docs/perf.md). */
CGM_API bool cgm_calibration_cg_stale(const cgm_tuner_device *d, const cgm_gpu_opts *gpu, char *msg,
                                      size_t n);

/* ------------------------------------- the database (database.c) --- */

/* Opens the database at `path` for a step; flags as cgm_db_open's
 * (CGM_DB_CREATE: make it, as calibrate does; CGM_DB_READONLY). Without
 * CGM_DB_CREATE a missing file is CGM_EINPUT "no calibration yet: PATH does
 * not exist; run 'cgmodel calibrate' first": reading never creates a
 * database. */
CGM_API cgm_status cgm_open_database(const char *path, unsigned flags, cgm_db **db, cgm_error *err);

/* Which calibration a picture (plot calibration, map) draws. */
typedef enum {
  CGM_PICK_LATEST = 0,    /* the newest complete calibration of any device */
  CGM_PICK_CPU = 1,       /* the newest complete one of a CPU */
  CGM_PICK_CUDA = 2,      /* the newest complete one of a GPU */
  CGM_PICK_GPU_FIRST = 3, /* of a GPU, else of a CPU */
  CGM_PICK_DEVICE = 4,    /* the newest complete one of the device device_id */
} cgm_pick_kind;

typedef struct cgm_calibration_pick {
  int64_t calibration_id; /* > 0: this calibration, complete or not (it must exist) */
  cgm_pick_kind kind;     /* else: which devices' newest complete calibration */
  int64_t device_id;      /* of CGM_PICK_DEVICE (cgmodel db list --json shows the ids) */
} cgm_calibration_pick;

/* The calibration p picks, in *id. CGM_EINPUT naming what was looked for
 * when there is none. */
CGM_API cgm_status cgm_pick_calibration(cgm_db *db, const cgm_calibration_pick *p, int64_t *id,
                                        cgm_error *err);

/* ---------------------------- one configuration, and its record --- */

/* Predicted time per iteration of one configuration (NaN if the calibration
 * lacks a curve). */
CGM_API cgm_status cgm_predict_config(const cgm_csr *A, const cgm_features *f,
                                      const cgm_tuner_device *dev, const cgm_solve_opts *o,
                                      double *seconds, cgm_error *err);

/* Whether reverse Cuthill-McKee pays for configuration o on device dev
 * over K = iterations (<= 0: cgm_iterations_estimate): RCM computed and
 * timed here (the cost), both numberings predicted (cgm_predict_config),
 * the choice by cgm_tuner_reorder. */
CGM_API cgm_status cgm_reorder_decide(const cgm_csr *A, const cgm_features *f,
                                      const cgm_tuner_device *dev, const cgm_solve_opts *o,
                                      double iterations, cgm_reorder_advice *a, cgm_error *err);

/* Stores a solve and its prediction (NaN: none). */
CGM_API cgm_status cgm_record_solve(cgm_db *db, const char *matrix_name, const char *path,
                                    int64_t file_bytes, const cgm_features *f,
                                    const cgm_solve_opts *o, const cgm_solve_result *r,
                                    double predicted, int64_t calibration_id, cgm_error *err);

/* ------------------------------------------ matrices (matrices.c) --- */

/* Reads a matrix file and computes its features (cgm_plan_features), for
 * the steps that need the features alone. mm may be NULL. */
CGM_API cgm_status cgm_matrix_features(const char *path, cgm_features *f, cgm_mm_info *mm,
                                       cgm_error *err);

/* The matrix paths of a directory (its *.mtx files, sorted by name) or of a
 * list file (one path a line; empty lines and '#' lines skipped). *paths
 * (and each path) is malloc'ed: cgm_matrix_paths_free. CGM_EINPUT when
 * there are none ("PATH: no matrices ..."). */
CGM_API cgm_status cgm_matrix_paths(const char *dir_or_list, char ***paths, int *count,
                                    cgm_error *err);
CGM_API void cgm_matrix_paths_free(char **paths, int count);

/* ------------------------------------------- predict (predict.c) --- */

typedef struct cgm_predict_opts {
  const char *matrix;   /* A.mtx */
  const char *kind;     /* the devices: "cpu", "cuda", NULL for every calibrated one */
  cgm_tuner_opts tuner; /* the configurations to time (block, GPUs, precisions, ...) */
  cgm_gpu_opts gpu;     /* the GPU solver's options: a calibration of another CG is warned of */
  double iters_hint;    /* double precision's iteration count K when the user knows it (<= 0:
                           the database's record of this matrix at tuner.tol, else estimated) */
  cgm_cache_opts cache; /* the matrix cache (dir NULL: none) */
  cgm_note_fn note;     /* warnings (stale calibrations); NULL: none */
  void *note_ctx;
  const cgm_csr *csr; /* a matrix in memory (bindings): used instead of reading `matrix`,
                         which then only names it; NULL: read the file */
} cgm_predict_opts;

typedef struct cgm_predict_report {
  cgm_tuner_device *devs; /* the calibrated devices (malloc'ed), the candidates' device index */
  int ndev;
  cgm_features features;
  cgm_mm_info mm;      /* what the reader saw in the file */
  cgm_candidate *cand; /* every configuration, timed (malloc'ed) */
  int ncand;
  int choice;                 /* index in cand of the tuner's choice; -1: nothing to recommend */
  char why[512];              /* the choice and why, or why there is none (cgm_tuner_choose) */
  double iterations;          /* double precision's K the totals use */
  char k_source[16];          /* where K came from: "hint", "database", "probe" or "estimate" */
  bool have_reorder;          /* solve --reorder auto's decision for the choice: */
  cgm_reorder_advice reorder; /* cgm_reorder_decide (not for the cuSPARSE baseline) */
} cgm_predict_report;

/* Every configuration of the calibrated devices for one matrix, timed by
 * the model, and the tuner's choice (cgm_tuner_candidates,
 * cgm_tuner_choose). CGM_EINPUT when the database holds no calibration of
 * the devices asked for; a choice of -1 is a result, not an error. Free
 * the report with cgm_predict_report_free, also after an error. */
CGM_API cgm_status cgm_predict(cgm_db *db, const cgm_predict_opts *o, cgm_predict_report *r,
                               cgm_error *err);
CGM_API void cgm_predict_report_free(cgm_predict_report *r);

/* The device a candidate runs on, as predict names it: "cpu", or the GPU's
 * model (cut at 200 characters). */
CGM_API void cgm_candidate_device(const cgm_candidate *c, const cgm_tuner_device *devs, char *out,
                                  size_t n);

/* ------------------------------------------ autotune (autotune.c) --- */

/* What the user fixed of the configuration the tuner chooses. */
typedef struct cgm_autotune_opts {
  bool backend_given; /* backend fixed: cpu keeps the CPU alone, cuda or cusparse the GPU */
  cgm_backend backend;
  bool precision_given; /* precision fixed; else double, mixed and (at loose tolerances)
                           single are candidates */
  cgm_precision precision;
  double tol;        /* the tolerance the solve must meet (<= 0: 1e-8) */
  double iterations; /* double precision's iteration count when known; <= 0: estimated */
  /* Block-Jacobi of a block fixed apart from the layout (the matrix's point
   * block, or given): the same preconditioner, so the same iterations, at
   * every block size N; cuSPARSE (Jacobi only) is then no candidate. */
  bool block_jacobi;
} cgm_autotune_opts;

typedef struct cgm_autotune_result {
  bool chosen;          /* false: nothing to run, `why` says why (no calibration of this
                           machine's devices, or no configuration with a prediction) */
  cgm_candidate choice; /* the tuner's choice; its device indexes the devs given */
  char why[512];        /* the choice and why (cgm_tuner_choose), or why none */
} cgm_autotune_result;

/* The tuner's choice among this machine's calibrated devices (cgm_host_match
 * over devs: the CPU and GPU 0's model, with at most the GPUs present), over
 * the halo and p2p exchanges, the cuSPARSE baseline and the precisions
 * allowed. When one is chosen, o's backend, precision, layout (the
 * configuration's B_x), GPU count and exchange are set to it; its other
 * fields (tolerance, threads, GPU options) are left as given. Errors are
 * failures of the tuner itself (memory); no choice is r->chosen false. */
CGM_API cgm_status cgm_autotune(const cgm_csr *A, const cgm_features *f,
                                const cgm_tuner_device *devs, int ndev, const cgm_host *host,
                                const cgm_autotune_opts *c, cgm_solve_opts *o,
                                cgm_autotune_result *r, cgm_error *err);

/* ------------------------------------------ solve (run_solve.c) --- */

typedef struct cgm_run_solve_opts {
  const char *matrix;  /* A.mtx */
  const char *rhs;     /* b.mtx; NULL: b = A * ones, so the solution is all ones */
  const char *db_path; /* the database: opened when the file exists (always with autotune),
                          for the prediction and the record; NULL: none */
  bool db_readonly;    /* open it read-only (CGM_DB_READONLY): predictions, no record */
  bool record;         /* store the solve beside its prediction when the database exists */
  bool autotune;       /* the tuner chooses the configuration (cgm_autotune; needs the database) */
  cgm_autotune_opts constraints; /* with autotune: the backend or precision the user fixed */
  cgm_solve_opts solve;          /* the configuration (autotune replaces what it chooses) */
  bool backend_default; /* solve.backend was not chosen: CUDA where a GPU is present, else the
                           CPU, found while the matrix is read (the driver's start takes 0.2 s) */
  double iters_hint;    /* autotune: double precision's K when the user knows it (<= 0:
                           the database's record of this matrix, else estimated) */
  const cgm_host *host; /* this machine; NULL: cgm_host_describe */
  cgm_cache_opts cache; /* the matrix cache (dir NULL: none); b is never cached */
  cgm_note_fn note;     /* the tuner's choice (info), stale calibrations and a record not
                           stored (warnings), a database that would not open (error) */
  void *note_ctx;
  const cgm_csr *csr; /* a matrix in memory (bindings): used instead of reading `matrix`, which
                         then only names it in the report and the record; NULL: read the file */
  const double *b;    /* with csr: the right-hand side (csr->nrows, checked finite by the
                         solver); NULL: b = A * ones */
  /* One process per MPI rank (cgm_solve_mpi over MPI_COMM_WORLD, which the
   * caller has started: cgm_dist_init): rank 0 reads, records and gets
   * the solution; every rank calls cgm_run_solve with the same options. */
  bool mpi;
  cgm_dist_opts dist;
} cgm_run_solve_opts;

typedef struct cgm_solve_report {
  const char *matrix;   /* the path, as given in the options (not copied) */
  int32_t nrows, ncols; /* of A, once read */
  int64_t nnz;
  bool solved;             /* the solver ran: result and x hold its answer */
  cgm_solve_opts opts;     /* the configuration as run: B_x resolved, autotune's choice applied */
  cgm_solve_result result; /* what the solver reports */
  double tol;              /* the tolerance and iteration cap the solver used */
  int maxiter;
  double solution_error;  /* b = A * ones: ||x - 1|| / ||1||; < 0 with a right-hand side given */
  double predicted;       /* the model's time per iteration of the configuration run (NaN:
                             no calibration of its device, or threads given: a
                             calibration is of the default thread count) */
  int64_t calibration_id; /* the calibration of that prediction (0: none) */
  bool autotuned;         /* autotune chose the configuration: why says how */
  bool auto_none;         /* autotune found nothing to run (the call returned CGM_EINPUT) */
  char why[512];          /* autotune's choice, or why nothing */
  double time_read_s;     /* reading A and b (or b = A * ones) */
  cgm_cache_report cache; /* how A was read: from the cache, or parsed (and stored) */
  bool features_cached;   /* the features came with the cache entry (not recomputed) */
  bool check_cached;      /* the matrix's checks were passed by this cache entry before */
  bool analysis_cached;   /* the prediction and --reorder's verdict came with the cache entry,
                             made before with the same options, model and K */
  double time_analyse_s;  /* the features, the database, the prediction and autotune's choice */
  double time_wall_s;   /* cgm_run_solve from entry to return: every phase and what lies between */
  char k_source[16];    /* autotune: where its iteration count came from ("hint",
                           "database", "estimate"); its choice has the predicted setup,
                           iterations and total in `choice` */
  cgm_candidate choice; /* autotune's choice as the tuner timed it */
  double *x;            /* the solution (nrows, malloc'ed); NULL until solved, and on
                           every MPI rank but 0 */
  /* solve.monitor set: every (iteration, relative residual) it was called
   * with, in pairs (2 * nhistory doubles, malloc'ed); NULL otherwise. */
  double *residual_history;
  int nhistory;
  bool have_reorder; /* --reorder auto was decided by the model: reorder says how */
  cgm_reorder_advice reorder;
  int rank;           /* this process's MPI rank (0 without MPI) */
  cgm_dist_info dist; /* the MPI solve's partition and halo (dist.ranks 0: none) */
} cgm_solve_report;

/* What `cgmodel solve` does end to end: reads A and b (or b = A * ones),
 * and, when a database is there to predict or record into (or autotune
 * needs it), the features, the devices' calibrations and the prediction of
 * the configuration run (after autotune's choice); then the solve, and its
 * record. CGM_OK: converged; CGM_ENOCONV: solved without converging (the
 * report is complete, err says why); other codes: nothing solved (r->solved
 * false). Free the report with cgm_solve_report_free, also after an
 * error. */
CGM_API cgm_status cgm_run_solve(const cgm_run_solve_opts *o, cgm_solve_report *r, cgm_error *err);
CGM_API void cgm_solve_report_free(cgm_solve_report *r);

/* ------------------------------------------ validate (validate.c) --- */

/* Called after each matrix of the list, measured or skipped: matrices
 * done, of total. */
typedef void (*cgm_validate_progress_fn)(void *ctx, int done, int total);

typedef struct cgm_validate_opts {
  char *const *matrices; /* the matrix files (cgm_matrix_paths) */
  int nmatrices;
  const char *source;   /* where the list came from, named when nothing was measured */
  unsigned backends;    /* bit (1 << cgm_backend) of the backends to run */
  unsigned precisions;  /* bit (1 << cgm_precision) */
  int max_gpus;         /* the most GPUs tried for cuda; <= 0: every GPU present (at most as
                           many as the GPU calibration measured) */
  int iters;            /* iterations of one run (tolerance 1e-300: every run does them all) */
  double total_tol;     /* > 0: total-time mode: every run solves to this tolerance, and the
                           predicted and measured times are setup + solve (the tuner's total,
                           its K estimated as for a matrix never solved) */
  int repeat;           /* runs per configuration; the median time counts (1..99) */
  cgm_gpu_opts gpu;     /* the GPU solver's options of every run */
  const cgm_host *host; /* this machine; NULL: cgm_host_describe */
  cgm_validate_progress_fn progress; /* NULL: none */
  cgm_note_fn note; /* matrices and configurations skipped (info), a stale calibration
                       (warning); NULL: none */
  void *ctx;        /* of progress and note */
} cgm_validate_opts;

/* One configuration measured on one matrix. */
typedef struct cgm_validate_row {
  char matrix[128]; /* the file name */
  cgm_backend backend;
  cgm_precision precision;
  int block, gpus;          /* gpus 0 for the CPU */
  double predicted_s;       /* refined model (NaN: no curve) */
  double predicted_paper_s; /* the paper's Eqs. 4-9 (NaN for cuSPARSE) */
  double measured_s;        /* median of the runs' times per iteration */
} cgm_validate_row;

/* The rows of one backend, precision, block size and GPU count (Table 6). */
typedef struct cgm_validate_group {
  cgm_backend backend;
  cgm_precision precision;
  int block, gpus;
  int count;                      /* rows with a refined prediction */
  double avg_rel_error;           /* |predicted - measured| / measured: average, */
  double variance;                /* its variance, */
  double median_rel_error;        /* median */
  double p90_rel_error;           /* and 90th percentile (NaN when count is 0) */
  double mean_signed_error;       /* (predicted - measured) / measured, averaged: the bias
                                     (< 0: the model predicts low); NaN when count is 0 */
  int paper_count;                /* rows with a paper prediction */
  double paper_avg_rel_error;     /* NaN when paper_count is 0 */
  double paper_mean_signed_error; /* NaN when paper_count is 0 */
} cgm_validate_group;

/* The tuner on one matrix: its choice among the configurations measured. */
typedef struct cgm_validate_matrix {
  char matrix[128];
  int choice;    /* row of the tuner's choice (cgm_tuner_choose over the measured
                    configurations' candidates); -1 when it chose none */
  int best;      /* row of the best measured time among the configurations the tuner may
                    choose (single precision only where it reaches the tolerance); -1: none */
  double regret; /* measured time of the choice over the best; NaN without a choice */
} cgm_validate_matrix;

typedef struct cgm_validate_report {
  cgm_validate_row *rows; /* every configuration measured, in order (malloc'ed) */
  int nrows;
  cgm_validate_group *groups; /* in order of first appearance (malloc'ed) */
  int ngroups;
  cgm_validate_matrix *matrices; /* every matrix with a row (malloc'ed) */
  int nmatrices;
  int regret_count;   /* matrices with a tuner choice */
  int within_5;       /* of them, with a regret of at most 1.05 */
  int within_10;      /* of them, with a regret of at most 1.10 */
  double mean_regret; /* NaN when regret_count is 0 */
  double max_regret;  /* 0 when regret_count is 0 */
} cgm_validate_report;

/* The paper's Table 6 on this machine: for every matrix (symmetric with a
 * positive diagonal; others are skipped with a note) and every
 * configuration of this machine's calibrated devices that the options
 * allow (cpu and cuda at N = 1, 2, 4, 8, cuda on 1..G GPUs, cusparse): the
 * refined and the paper's predictions, and the median of `repeat` runs of
 * `iters` iterations with b = A * ones, each stored in the database with
 * its prediction. Then the errors per group, and on each matrix the
 * tuner's choice among the configurations measured (the same devices,
 * precisions, backends, block sizes and GPU counts) with its regret.
 * CGM_EINPUT when no device of this machine is calibrated, or nothing
 * could be measured. Free the report with cgm_validate_report_free, also
 * after an error. */
CGM_API cgm_status cgm_validate(cgm_db *db, const cgm_validate_opts *o, cgm_validate_report *r,
                                cgm_error *err);
CGM_API void cgm_validate_report_free(cgm_validate_report *r);

/* ------------------------------------------- devices (devices.c) --- */

/* A device's newest complete calibration in the database. */
typedef struct cgm_devices_calibration {
  bool found;
  int64_t id;
  char created[32];      /* UTC, ISO 8601 */
  char tool_version[32]; /* the cgmodel that made it */
  bool stale;            /* this build would mispredict with it: stale_why says why */
  char stale_why[256];
  char refresh[96]; /* the command that calibrates the device anew */
} cgm_devices_calibration;

typedef struct cgm_devices_report {
  char version[32];
  bool cuda_build;      /* the CUDA backend is compiled in */
  bool nccl;            /* the nccl exchange's library opens (cgm_nccl_available) */
  char nccl_note[512];  /* why it does not: the loader's message, or a CPU-only build */
  bool mpi;             /* the distributed solve over MPI is compiled in (docs/distributed.md) */
  bool metis;           /* its --partition metis is compiled in */
  char cpu_model[256];  /* as /proc/cpuinfo names it */
  char cpu_device[256]; /* as calibrations name it: with OpenMP's default thread count */
  int cores;            /* online processors */
  int threads;          /* OpenMP's default thread count */
  int64_t host_memory;  /* bytes */
  cgm_devices_calibration cpu_cal;
  int gpus_present; /* CUDA devices present; the first CGM_MAX_GPUS are described */
  int gpus;
  struct {
    char name[256];
    int64_t memory_bytes;
    int sms, cc_major, cc_minor;
    cgm_devices_calibration cal; /* of its model */
  } gpu[CGM_MAX_GPUS];
  bool peer[CGM_MAX_GPUS][CGM_MAX_GPUS]; /* GPU a can access GPU b's memory */
  char database[1024];                   /* the database looked in ("" when none given) */
  bool database_present;                 /* it exists and opened */
  char database_error[CGM_ERRMSG_MAX];   /* why it did not open or read */
} cgm_devices_report;

/* This machine's devices and their calibrations in the database at db_path
 * (NULL: none looked up; a missing or unreadable database is reported, not
 * an error: the hardware is still described), opened with db_mode
 * (cgm_db_open's flags: CGM_DB_READONLY or 0). gpu: the options the solver
 * runs with (a GPU calibration of another CG is stale). */
CGM_API cgm_status cgm_devices(const char *db_path, unsigned db_mode, const cgm_gpu_opts *gpu,
                               cgm_devices_report *r, cgm_error *err);

/* ------------------------------------------ bindings (bindings.c) --- */

/* The steps for a language binding (python/cgmodel, docs/python.md): the
 * matrix and vectors by pointer, the options as a JSON object's text (NULL
 * or "": all defaults, as the command line's; an unknown key or a bad value
 * is CGM_EINPUT naming it), the result in *out as the JSON text the command
 * line prints with --json, plus "notes" (the step's notes: kind and
 * message) for predict and solve. *out is for cgm_json_free; NULL after an
 * error. A is checked first (cgm_csr_check). */
CGM_API void cgm_json_free(char *text);
/* info --json of A (square); `name` is its "matrix". */
CGM_API cgm_status cgm_json_info(const cgm_csr *A, const char *name, char **out, cgm_error *err);
/* predict --json. Options: db (required), name, gpus, block (0: all), precision (a list of
 * single, double, mixed, or both), model (refined, paper), exchange (halo, p2p, host, nccl,
 * all), devices (cpu, cuda, all), cusparse (boolean), tol, iters_hint. */
CGM_API cgm_status cgm_json_predict(const cgm_csr *A, const char *options, char **out,
                                    cgm_error *err);
/* solve --json; x (A->nrows) gets the solution when the solver ran (CGM_OK or CGM_ENOCONV,
 * with *out set). b: NULL for b = A * ones. Options: db (the prediction and record, as
 * cgm_run_solve's db_path), name, record, auto, backend, precision, block, bx, gpus, exchange,
 * tol, maxiter, check_every, threads, iters_hint. */
CGM_API cgm_status cgm_json_solve(const cgm_csr *A, const double *b, double *x, const char *options,
                                  char **out, cgm_error *err);
/* solve --json of a matrix in GPU memory (cgm_solve_device): A, b and x (A->nrows doubles,
 * the initial guess in, the solution out) in A->device's memory, b required. Nothing is
 * predicted or recorded (the features of A are not computed). Options: name, backend (cuda),
 * precision, block (1), bx, gpus (1), tol, maxiter, check_every, precond (jacobi). */
CGM_API cgm_status cgm_json_solve_device(const cgm_csr_device *A, const double *b, double *x,
                                         const char *options, char **out, cgm_error *err);
/* calibrate --json. Options: db (required, created), devices, quick, precision, threads. */
CGM_API cgm_status cgm_json_calibrate(const char *options, char **out, cgm_error *err);
/* devices --json (cgm_devices with the default GPU options); db_path may be NULL. */
CGM_API cgm_status cgm_json_devices(const char *db_path, char **out, cgm_error *err);

#ifdef __cplusplus
}
#endif
#endif
