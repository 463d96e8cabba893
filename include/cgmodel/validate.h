/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `cgmodel validate`: the paper's Table 6 on this machine, and the tuner's regret. */
#pragma once

#include <stdbool.h>

#include "cgmodel/pipeline.h"

CGM_BEGIN_DECLS

/* ------------------------------------------ validate (validate.c) --- */

/* Called after each matrix of the list, measured or skipped: matrices done, of total. */
typedef void (*cgm_validate_progress_fn)(void *ctx, int done, int total);

typedef struct cgm_validate_opts {
  char *const *matrices; /* the matrix files (cgm_matrix_paths) */
  int nmatrices;
  const char *source;     /* where the list came from, named when nothing was measured */
  unsigned backends;      /* bit (1 << cgm_backend) of the backends to run */
  unsigned precisions;    /* bit (1 << cgm_precision) */
  int max_gpus;           /* the most GPUs tried for cuda; <= 0: every GPU present (at most as
                             many as the GPU calibration measured) */
  int iters;              /* iterations of one run (tolerance 1e-300: every run does them all) */
  double total_tol;       /* > 0: total-time mode: every run solves to this tolerance, and the
                             predicted and measured times are setup + solve (the tuner's total,
                             its K estimated as for a matrix never solved) */
  int repeat;             /* runs per configuration; the least time counts (1..99) */
  bool include_disturbed; /* count the runs other work held up (pipeline_solve_disturbed) in
                             the errors and the regret; by default they are left out */
  cgm_gpu_opts gpu;       /* the GPU solver's options of every run */
  const cgm_host *host;   /* this machine; NULL: cgm_host_describe */
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
  double measured_s;        /* the least of the runs' times per iteration */
  /* total_tol > 0: the iterations the tuner predicted (K as for a matrix
   * never solved) and those the run took; 0 otherwise */
  double iters_predicted, iters_measured;
  bool disturbed; /* implausible: other work held it up (left out by default) */
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
  /* total_tol > 0: the iteration count's relative error, |predicted -
   * measured| / measured, in double and in mixed precision, and of the
   * mixed/double ratio; NaN where a precision was not measured */
  double k_error[2];
  double ratio_error;
  bool k_probed; /* the double count came from a probe that ran to the tolerance (small matrices:
                    then exact, as --auto's) */
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
  /* total_tol > 0: the iteration counts' errors over the matrices, [0] double and [1] mixed
   * precision (mean, median, worst; NaN when none), and the mixed/double ratio's (mean, worst) */
  double k_mean_error[2], k_median_error[2], k_max_error[2];
  double ratio_mean_error, ratio_max_error;
  int k_counted, k_probed; /* matrices with a double count compared; of them, probed to the tol */
  int disturbed;           /* rows other work held up: left out of the groups and the regret (unless
                              include_disturbed), each said in a note */
} cgm_validate_report;

/* The paper's Table 6 on this machine: for every matrix (symmetric with a positive diagonal; others
 * are skipped with a note) and every configuration of this machine's calibrated devices that the
 * options allow (cpu and cuda at N = 1, 2, 4, 8, cuda on 1..G GPUs, cusparse): the refined and the
 * paper's predictions, and the least of `repeat` runs of `iters` iterations with b = A * ones,
 * each stored in the database with its prediction. Then the errors per group, and on each matrix
 * the tuner's choice among the configurations measured (the same devices, precisions, backends,
 * block sizes and GPU counts) with its regret. CGM_EINPUT when no device of this machine is
 * calibrated, or nothing could be measured. Free the report with cgm_validate_report_free, also
 * after an error. */
CGM_API cgm_status cgm_validate(cgm_db *db, const cgm_validate_opts *o, cgm_validate_report *r,
                                cgm_error *err);
CGM_API void cgm_validate_report_free(cgm_validate_report *r);

CGM_END_DECLS
