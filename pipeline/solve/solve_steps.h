/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The steps of `cgmodel solve` (cgm_run_solve) and what they share:
 *   rhs.c           the right-hand side, and the error of b = A * ones
 *   warm_up.c       the CUDA context made on a thread while the matrix is read
 *   analyse.c       the database, --auto's choice, the prediction, --reorder's verdict (kept beside
 *                   the cache entry)
 *   run_solve.c     the steps in order: read, right-hand side, analyse, solve, record
 *   run_solve_mpi.c the same under MPI: rank 0 reads and records */
#pragma once

#include <pthread.h>
#include <stdbool.h>

#include "cgmodel/run_solve.h"
#include "pipeline/steps.h"

/* A note of the solve (o its options), printf-style. */
#define solve_note(o, ...) pipeline_note((o)->note, (o)->note_ctx, __VA_ARGS__)

/* ---------------------------------------------------------- rhs.c --- */

/* b from o->rhs (or o->b), or b = A * ones (*generated set) so that x = ones. */
cgm_status pipeline_right_hand_side(const cgm_run_solve_opts *o, const cgm_csr *A, double **b,
                                    bool *generated, cgm_error *err);
/* x = the initial guess o gives (o->x0, else the file o->x0_path; n
 * entries); x is left as it is (zeros) without one. */
cgm_status pipeline_initial_guess(const cgm_run_solve_opts *o, int32_t n, double *x,
                                  cgm_error *err);
/* ||x - 1|| / ||1||: the error of a solve of b = A * ones. */
double pipeline_solution_error(const double *x, int32_t n);

/* ------------------------------------------------------ warm_up.c --- */

/* The CUDA context made on a thread of its own while the matrix is read and analysed (a solve's
 * first CUDA call would make it: 0.1-0.3 s a device). The thread first counts the GPUs, which
 * starts the driver (0.2 s on an H200 node): a solve whose backend was not chosen learns from it
 * whether there is a GPU without waiting for that before the read. */
typedef struct {
  pthread_t thread;
  int gpus;
  bool started;
  bool cpu_only;  /* not started yet (--auto weighs the CPU first): this machine without its GPUs */
  double start_s; /* the thread's time: the driver's start, GPU 0's description, the contexts */
} warm_up;

void warm_up_start(const cgm_run_solve_opts *o, warm_up *w);
/* This machine as cgm_host_describe says (its CPU alone before the GPUs' start). */
void warm_up_host(warm_up *w, cgm_host *h);
void warm_up_end(warm_up *w);

/* CUDA where a GPU is present, else the CPU. */
cgm_backend solve_default_backend(int gpus_present);

/* ------------------------------------------------------ analyse.c --- */

/* What a solve's analysis decided (--auto's choice, the prediction and --reorder's verdict), kept
 * beside the cache entry: at 49M entries the plan and the reordering bound took 0.1-0.2 s of a 1.2
 * s warm solve, --auto's plans 0.3-0.8 s. Its key is compared whole on a read: a recalibration,
 * another machine or a better known K is a miss. */
typedef struct {
  struct {
    bool autotune;
    cgm_autotune_opts constraints;
    cgm_backend backend;
    cgm_precision precision;
    cgm_bcsr_params layout;
    int gpus;
    cgm_exchange exchange;
    double tol, atol;
    int threads;
    cgm_reorder reorder;
    cgm_precond precond;
    int precond_block;
    cgm_storage storage;
    bool balance;
    double k_known;     /* K weighed: the hint, the database's or the probe's */
    double mixed_ratio; /* --auto: mixed's K over double's for this matrix (0: the devices') */
    int mixed_source;   /* pipeline_ratio.source */
    /* the device that runs (--auto: this machine's GPU and CPU): its
     * calibration and the fingerprint of its fits as loaded */
    int64_t calibration[2];
    uint64_t fingerprint[2];
  } key;
  double predicted;
  int64_t calibration_id;
  bool have_reorder;
  cgm_reorder_advice reorder;
  cgm_reorder resolved;
  /* --auto */
  cgm_solve_opts chosen;
  cgm_candidate choice;
  bool autotuned, declined;
  double analysis_s, bound_s;
  char why[512], k_source[16];
} analysis_blob;

/* The database and its devices, loaded once for the CPU first and the analysis (caller frees). */
typedef struct {
  cgm_db *db;
  cgm_tuner_device *devs;
  int ndev;
  bool loaded;
  bool light; /* without samples (CGM_NO_SAMPLES): enough for a verdict's key */
} solve_models;

/* --auto's CPU first (pipeline_cpu_first): decided by the database, before any GPU's start, on the
 * iterations recorded or kept beside the cache entry, else as many as A's rows (CG's bound). */
bool solve_cpu_first(const cgm_run_solve_opts *o, const cgm_csr *A, cgm_solve_report *r,
                     solve_models *m);
/* The database, the calibrations and this machine's devices: --auto's choice (applied to r->opts)
 * and the prediction of the configuration that will run, features of the block sizes it needs
 * counted into f (*f_new: some were), from m (loaded here if not yet); *store: keep is a new
 * verdict to keep beside the cache entry (solve_keep_analysis); plans: --auto's, to keep
 * (pipeline_plans_keep) once the entry is written. */
cgm_status solve_analyse(const cgm_run_solve_opts *o, const cgm_csr *A, cgm_features *f,
                         bool *f_new, cgm_solve_report *r, solve_models *m, analysis_blob *keep,
                         bool *store, pipeline_plan_set *plans, cgm_error *err);
void solve_keep_analysis(cgm_solve_report *r, const analysis_blob *a);

/* ------------------------------------------------ run_solve_mpi.c --- */

/* cgm_run_solve with o->mpi: every rank calls it (r set up by the caller). */
cgm_status pipeline_run_solve_mpi(const cgm_run_solve_opts *o, cgm_solve_report *r, cgm_error *err);
