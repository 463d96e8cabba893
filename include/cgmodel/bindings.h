/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The steps for a language binding (python/cgmodel, docs/python.md): every
 * command on a matrix in memory, options and report as JSON text. */
#pragma once

#include "cgmodel/export.h"
#include "cgmodel/solver.h"
#include "cgmodel/status.h"

CGM_BEGIN_DECLS

/* ------------------------------------------ bindings (bindings.c) --- */

/* The steps for a language binding (python/cgmodel, docs/python.md): the matrix and vectors by
 * pointer, the options as a JSON object's text (NULL or "": all defaults, as the command line's; an
 * unknown key or a bad value is CGM_EINPUT naming it), the result in *out as the JSON text the
 * command line prints with --json, plus "notes" (the step's notes: kind and message) for predict
 * and solve. *out is for cgm_json_free; NULL after an error. A is checked first (cgm_csr_check). */
CGM_API void cgm_json_free(char *text);
/* Closes the database cgm_json_solve keeps open between a process's solves (its last commits
 * checkpointed into the file) and frees the GPUs' kept pinned memory (cgm_cuda_release_kept); the
 * next solve opens and pins them again. A binding calls it at exit. */
CGM_API void cgm_json_release(void);
/* info --json of A (square); `name` is its "matrix". */
CGM_API cgm_status cgm_json_info(const cgm_csr *A, const char *name, char **out, cgm_error *err);
/* predict --json. Options: the keys of `cgmodel predict`'s request (docs/cli.md): db
 * (required), name, gpus, block (0 or "auto": all), precision (a list of single, double, mixed,
 * or both), model (refined, paper), exchange (halo, p2p, host, nccl, all), devices (cpu, cuda,
 * all), cusparse (boolean), tol, iters_hint. */
CGM_API cgm_status cgm_json_predict(const cgm_csr *A, const char *options, char **out,
                                    cgm_error *err);
/* What a solve takes beside its options that JSON cannot carry (NULL: none of it): the
 * initial guess in memory (A->nrows doubles on the host, before the option x0's file;
 * cgm_json_solve_device's x holds it already) and the solver's monitor (cgm_solve_opts's
 * monitor, monitor_ctx, monitor_every and monitor_x; monitor NULL: the option monitor's). */
typedef struct cgm_json_extras {
  const double *x0;
  void (*monitor)(void *ctx, int iteration, double relative_residual);
  void *monitor_ctx;
  int monitor_every;
  double *monitor_x;
} cgm_json_extras;
/* solve --json; x (A->nrows) gets the solution when the solver ran (CGM_OK or CGM_ENOCONV,
 * with *out set). b: NULL for b = A * ones. Options: the keys of `cgmodel solve`'s request
 * (docs/cli.md) but rhs, mpi and partition: db (the prediction and record, as cgm_run_solve's
 * db_path), name, record, auto, backend, precision, block, bx, gpus, exchange, tol, atol,
 * maxiter, check_every, threads, precond, precond_block, reorder, iters_hint, x0 (a Matrix
 * Market file), monitor (the report's residual_history), cache_dir, no_cache, cache_max. */
CGM_API cgm_status cgm_json_solve(const cgm_csr *A, const double *b, double *x, const char *options,
                                  const cgm_json_extras *extras, char **out, cgm_error *err);
/* solve --json of a matrix in GPU memory (cgm_solve_device): A, b and x (A->nrows doubles,
 * the initial guess in, the solution out) in A->device's memory, b required. Nothing is
 * predicted or recorded (the features of A are not computed). Options: solve's, of which it
 * uses name, backend (cuda), precision, block (1), bx, gpus (1), tol, atol, maxiter,
 * check_every, precond (jacobi), precond_block. */
CGM_API cgm_status cgm_json_solve_device(const cgm_csr_device *A, const double *b, double *x,
                                         const char *options, const cgm_json_extras *extras,
                                         char **out, cgm_error *err);
/* calibrate --json. Options: db (required, created), devices, quick, precision, threads. */
CGM_API cgm_status cgm_json_calibrate(const char *options, char **out, cgm_error *err);
/* devices --json (cgm_devices with the default GPU options); db_path may be NULL. */
CGM_API cgm_status cgm_json_devices(const char *db_path, char **out, cgm_error *err);

CGM_END_DECLS
