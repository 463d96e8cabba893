/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `cgmodel solve` end to end: the matrix and right-hand side, --auto's
 * choice and the prediction, the solve and its record. */
#pragma once

#include <stdbool.h>

#include "cgmodel/dist.h"
#include "cgmodel/predict.h"

CGM_BEGIN_DECLS

/* ------------------------------------------ solve (run_solve.c) --- */

/* The devices a kept database's last solve loaded (cgm_run_solve_opts.kept_devs), reused while
 * no other connection has written it and the load is of the same kind; the caller frees devs. */
typedef struct cgm_devices_kept {
  cgm_tuner_device *devs;
  int ndev, kind;
  int64_t version; /* cgm_db_data_version at the load */
} cgm_devices_kept;

typedef struct cgm_run_solve_opts {
  const char *matrix;  /* A.mtx */
  const char *rhs;     /* b.mtx; NULL: b = A * ones, so the solution is all ones */
  const char *db_path; /* the database: opened when the file exists (always with autotune),
                          for the prediction and the record; NULL: none */
  bool db_readonly;    /* open it read-only (CGM_DB_READONLY): predictions, no record */
  cgm_db *db;          /* db_path already open (flags as above and CGM_DB_UNCHECKED), used in
                          its place and left open: a binding's, kept between solves */
  cgm_devices_kept *kept_devs; /* with db: its devices as loaded before (NULL: loaded anew) */
  bool record;                 /* store the solve beside its prediction when the database exists */
  bool autotune; /* the tuner chooses the configuration (cgm_autotune; needs the database) */
  cgm_autotune_opts constraints; /* with autotune: the backend or precision the user fixed */
  cgm_solve_opts solve;          /* the configuration (autotune replaces what it chooses) */
  bool backend_default; /* solve.backend was not chosen: CUDA where a GPU is present, else the
                           CPU, found while the matrix is read (the driver's start takes 0.2 s) */
  double iters_hint;    /* autotune: double precision's K when the user knows it (<= 0:
                           the database's record of this matrix, else estimated) */
  const cgm_host *host; /* this machine; NULL: cgm_host_describe */
  cgm_cache_opts cache; /* the matrix cache (dir NULL: none); b is never cached; with csr, the
                           entry of its content (cgm_cache_of_memory) where an analysis runs */
  cgm_note_fn note;     /* the tuner's choice (info), stale calibrations and a record not
                           stored (warnings), a database that would not open (error) */
  void *note_ctx;
  const cgm_csr *csr;  /* a matrix in memory (bindings): used instead of reading `matrix`, which
                          then only names it in the report and the record; NULL: read the file */
  const double *b;     /* with csr: the right-hand side (csr->nrows, checked finite by the
                          solver); NULL: b = A * ones */
  const char *x0_path; /* the initial guess, a Matrix Market vector (nrows entries); NULL: */
  const double *x0;    /* the initial guess in memory (nrows); NULL for both: zeros */
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
  double tol; /* the relative residual the solver had to reach (tol, or atol / ||b|| when larger:
                 cgm_solve_target) and the iteration cap it used */
  int maxiter;
  double solution_error;  /* b = A * ones: ||x - 1|| / ||1||; < 0 with a right-hand side given */
  double predicted;       /* the model's time per iteration of the configuration run (NaN:
                             no calibration of its device at the threads it ran) */
  int64_t calibration_id; /* the calibration of that prediction (0: none) */
  bool autotuned;         /* autotune chose the configuration: why says how */
  bool disturbed;         /* recorded as disturbed: other work held it up (a warning says how) */
  bool auto_none;         /* autotune found nothing to run (the call returned CGM_EINPUT) */
  bool auto_declined;     /* autotune ran the default: choosing would have cost more analysis
                             (auto_analysis_s, estimated) than any choice could save at most
                             (auto_bound_s); why says so */
  double auto_analysis_s, auto_bound_s;
  bool cpu_first; /* autotune ran on the CPU without starting a GPU: its solve (cpu_first_s)
                     predicted below a GPU's start (gpu_start_s, as calibrated) */
  double cpu_first_s, gpu_start_s;
  double time_gpu_start_s; /* a GPU's start measured by this solve (count, describe, context) */
  char why[512];           /* autotune's choice, or why nothing */
  double time_read_s;      /* reading A and b (or b = A * ones) */
  cgm_cache_report cache;  /* how A was read: from the cache, or parsed (and stored) */
  bool features_cached;    /* the features came with the cache entry (not recomputed) */
  bool check_cached;       /* the matrix's checks were passed by this cache entry before */
  bool analysis_cached;    /* the prediction and --reorder's verdict came with the cache entry,
                              made before with the same options, model and K */
  double time_analyse_s;   /* the features, the database, the prediction and autotune's choice */
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

/* What `cgmodel solve` does end to end: reads A and b (or b = A * ones), and, when a database is
 * there to predict or record into (or autotune needs it), the features, the devices' calibrations
 * and the prediction of the configuration run (after autotune's choice); then the solve, and its
 * record. CGM_OK: converged; CGM_ENOCONV: solved without converging (the report is complete, err
 * says why); other codes: nothing solved (r->solved false). Free the report with
 * cgm_solve_report_free, also after an error. */
CGM_API cgm_status cgm_run_solve(const cgm_run_solve_opts *o, cgm_solve_report *r, cgm_error *err);
CGM_API void cgm_solve_report_free(cgm_solve_report *r);

CGM_END_DECLS
