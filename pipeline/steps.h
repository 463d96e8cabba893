/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the pipeline's steps share that is not public: the record of a solve
 * of a matrix file, and the list of this machine's calibrated devices that
 * the tuner searches. */
#ifndef CGM_PIPELINE_STEPS_H
#define CGM_PIPELINE_STEPS_H

#include <stdbool.h>

#include "cgmodel/pipeline.h"

/* cgm_record_solve of the matrix file at path: named by its file name, with
 * its size (0 when it cannot be seen). */
cgm_status pipeline_record_file(cgm_db *db, const char *path, const cgm_features *f,
                                const cgm_solve_opts *o, const cgm_solve_result *r,
                                double predicted, int64_t calibration_id, cgm_error *err);

/* Whether a solve's time per iteration is implausible, other work having
 * held it up (why says how): a CPU's that is a whole number of scheduler
 * quanta (CGM_SCHED_QUANTUM_S, to 10 us: its barriers waited out others'
 * time slices), or over CGM_DISTURBED_RATIO times the prediction of a
 * calibration whose timings settled (not flagged "disturbed"). Recorded
 * (cgm_record_solve); validate and the solves' history leave it out. */
#define CGM_SCHED_QUANTUM_S 4e-3
#define CGM_DISTURBED_RATIO 4.0
bool pipeline_solve_disturbed(cgm_db *db, const cgm_solve_opts *o, const cgm_solve_result *r,
                              double predicted, int64_t calibration_id, char *why, size_t n);

/* A calibration and its device (CGM_EINPUT when there is no such
 * calibration). */
cgm_status pipeline_calibration_get(cgm_db *db, int64_t id, cgm_db_calibration *c, cgm_db_device *d,
                                    cgm_error *err);

/* The file name of a path (what follows the last '/'). */
const char *pipeline_file_name(const char *path);

/* This machine's calibrated devices (m: cgm_host_match) the tuner may
 * choose among: GPU 0's model when `gpu`, with at most `gpus` GPUs, then the
 * CPU when `cpu`. Fills out[] and, for each, its index in devs; returns how
 * many (0, 1 or 2). */
int pipeline_local_devices(const cgm_tuner_device *devs, cgm_host_devices m, bool gpu, int gpus,
                           bool cpu, cgm_tuner_device out[2], int index[2]);

/* Where no calibration of this CPU ran `threads` threads: "; calibration
 * K of this CPU ran T threads: it serves --threads T" (the newest such),
 * else "". */
void pipeline_cpu_advice(const cgm_host *h, const cgm_tuner_device *devs, int count, int threads,
                         char *out, size_t n);

/* history.c: every device's setup model fitted on its recorded solves and
 * the mixed/double iteration ratio (defaults where the records say
 * nothing); the double-precision iteration count of a converged solve of
 * this matrix at tol (0: none recorded). */
void pipeline_learn_history(cgm_db *db, cgm_tuner_device *devs, int ndev);
double pipeline_known_iterations(cgm_db *db, const char *name, int64_t file_bytes,
                                 const cgm_features *f, double tol);
/* Double precision's K to tol from a CPU run of Jacobi CG (b = A * ones)
 * of about budget / nnz steps (50 to 3000: budget 0 for the least) on
 * matrices where that is cheap (0: not probed, or no progress); exact when
 * it converges within them (history.c). */
double pipeline_probe_iterations(const cgm_csr *A, double tol, double budget);
/* The probe's budget where K decides between devices (--auto, validate
 * --total): 1e8 entries read, about 0.05 s on a 16-core host, what the
 * largest matrix probed took before. */
#define PIPELINE_PROBE_BUDGET 1e8

/* cgm_predict_config keeping the plan it predicted from in *plan (when
 * *planned comes back true: a model and not the cuSPARSE baseline); f must
 * be A's own features: the plan takes its sectors of x from them. */
cgm_status pipeline_predict_plan(const cgm_csr *A, const cgm_features *f,
                                 const cgm_tuner_device *dev, const cgm_solve_opts *o,
                                 double *seconds, cgm_plan *plan, bool *planned, cgm_error *err);

/* cgm_reorder_decide given the plan of A as numbered for o when the caller
 * made it already (plan_none; NULL: made here): a solve's analysis
 * predicted that configuration just before. */
cgm_status pipeline_reorder_decide(const cgm_csr *A, const cgm_features *f,
                                   const cgm_tuner_device *dev, const cgm_solve_opts *o,
                                   double iterations, const cgm_plan *plan_none,
                                   cgm_reorder_advice *a, cgm_error *err);

/* The GPU count a calibration measured, from its stored options (1 when
 * not recorded; models.c). */
int pipeline_calibration_gpus(const char *options_json);

#endif
