/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the commands' steps share (docs/architecture.md's pipeline): how a step speaks while it
 * runs, this machine's devices, the database and the device models a prediction uses, one
 * configuration's prediction and its record, and the matrices a command reads. Each command has a
 * header of its own: calibrate.h, predict.h, run_solve.h, validate.h, devices.h, and bindings.h for
 * the language bindings. The pipeline never prints, exits or reads the environment: what the caller
 * decides travels in option structs, what a step has to say while it runs goes through a
 * cgm_note_fn, and its result comes back in a report struct that the command line prints. */
#pragma once

#include <stdbool.h>

#include "cgmodel/cache.h"
#include "cgmodel/db.h"
#include "cgmodel/dist.h"
#include "cgmodel/export.h"
#include "cgmodel/solver.h"
#include "cgmodel/tuner.h"

CGM_BEGIN_DECLS

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

/* ------------------------------------------ this machine (host.c) --- */

/* The hardware this process runs on, as database device records: the CPU and every CUDA device. */
CGM_API cgm_status cgm_describe_cpu(cgm_db_device *d, int threads, cgm_error *err);
CGM_API cgm_status cgm_describe_cuda(int dev, cgm_db_device *d, cgm_error *err);

/* This machine as the calibrations name it: what a calibrated device must
 * be called to be one of this machine's. */
typedef struct cgm_host {
  char cpu[256]; /* the CPU's model at OpenMP's default thread count (cgm_describe_cpu's
                    model with threads 0: the thread count is part of the name) */
  char gpu[256]; /* GPU 0's model (cgm_describe_cuda); "" without a GPU */
  int gpus;      /* CUDA devices present (0 in a CPU-only build) */
  int threads;   /* OpenMP's default thread count: what a solve without --threads runs */
} cgm_host;

/* Describes this machine (its CPU and GPU 0, and the GPU count); _cpu: its CPU alone, no GPU
 * asked (gpus 0); _gpus: GPU 0 and the count alone (asked once a process), returning the count. */
CGM_API void cgm_host_describe(cgm_host *h);
CGM_API void cgm_host_describe_cpu(cgm_host *h);
CGM_API int cgm_host_describe_gpus(cgm_host *h);

/* Whether two calibrated CPUs' names are one CPU model (at any threads). */
CGM_API bool cgm_same_cpu(const char *a, const char *b);

/* Which of the calibrated devices are this machine's: the CPU calibrated at `threads` (the solve's
 * --threads), or where threads <= 0 (not fixed) at OpenMP's default, else its newest calibration at
 * another count, whose devs[].threads a solve must then run (solve --auto and validate do). */
typedef struct cgm_host_devices {
  int cpu; /* index in devs of this CPU's calibration; -1 when none */
  int gpu; /* index in devs of GPU 0's model's calibration; -1 when none or no GPU */
} cgm_host_devices;
CGM_API cgm_host_devices cgm_host_match(const cgm_host *h, const cgm_tuner_device *devs, int count,
                                        int threads);

/* --------------------------------------- database -> models (models.c) --- */

/* The newest complete calibration of every device in the database, as the tuner's devices (kind
 * "cpu", "cuda" or NULL for both). *devs is malloc'ed; *count may be 0. */
CGM_API cgm_status cgm_load_devices(cgm_db *db, const char *kind, cgm_tuner_device **devs,
                                    int *count, cgm_error *err);
/* The same with the curves of one fit kind (cgm_fit_kind): CGM_FIT_REL is
 * cgm_load_devices (with its fallbacks to avg and max fits); any other kind
 * takes only that kind's converged fits (the maps draw the maximum fits); | CGM_NO_HISTORY: the
 * recorded solves unread (setup models and mixed's ratio the defaults); | CGM_NO_SAMPLES: the
 * samples unread too (no interpolations, no feet): not whole models, but whole fingerprints. */
#define CGM_NO_HISTORY 0x100
#define CGM_NO_SAMPLES 0x200
CGM_API cgm_status cgm_load_devices_kind(cgm_db *db, const char *kind, int fit_kind,
                                         cgm_tuner_device **devs, int *count, cgm_error *err);
/* One calibration (complete or not) as a tuner device, with its fits of
 * kind `fit_kind`. CGM_EINPUT when there is no such calibration. */
CGM_API cgm_status cgm_load_calibration(cgm_db *db, int64_t cal_id, int fit_kind,
                                        cgm_tuner_device *dev, cgm_error *err);
/* What-if (docs/model.md): the calibrated GPUs of devs priced on up to `gpus` GPUs, present or not
 * (h: this machine), by cgm_tuner_what_if: the exchange by the profile `interconnect` names
 * (CGM_PCIE_HOST, or the newest complete calibration that measured it); NULL: a device's own
 * calibration's, else the newest this machine's host measured, profiles of several GPUs before one
 * GPU's host-staged ones, else CGM_PCIE_HOST. CGM_EINPUT for a name nothing measured. */
CGM_API cgm_status cgm_what_if(cgm_db *db, const char *interconnect, int gpus, const cgm_host *h,
                               cgm_tuner_device *devs, int ndev, cgm_error *err);
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

/* Opens the database at `path` for a step; flags as cgm_db_open's (CGM_DB_CREATE: make it, as
 * calibrate does; CGM_DB_READONLY). Without CGM_DB_CREATE a missing file is CGM_EINPUT "no
 * calibration yet: PATH does not exist; run 'cgmodel calibrate' first": reading never creates a
 * database. */
CGM_API cgm_status cgm_open_database(const char *path, unsigned flags, cgm_db **db, cgm_error *err);

/* db import: the calibration of a file `cgmodel db export` wrote (its device, found or added, with
 * its samples, fits and coefficients) added in one transaction as calibration *id. CGM_EINPUT for a
 * file that is no export ("PATH:LINE: not JSON", "PATH: not a calibration ..."), a bad entry
 * ("PATH: fits[3]: ..."), or a calibration the database holds already (of the same device, made at
 * the same time): nothing added, and no calibration there is ever touched. */
CGM_API cgm_status cgm_db_import(cgm_db *db, const char *path, int64_t *id, cgm_error *err);

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

/* The calibration p picks, in *id. CGM_EINPUT naming what was looked for when there is none. */
CGM_API cgm_status cgm_pick_calibration(cgm_db *db, const cgm_calibration_pick *p, int64_t *id,
                                        cgm_error *err);

/* ---------------------------- one configuration, and its record --- */

/* Predicted time per iteration of one configuration (NaN if the calibration lacks a curve). */
CGM_API cgm_status cgm_predict_config(const cgm_csr *A, const cgm_features *f,
                                      const cgm_tuner_device *dev, const cgm_solve_opts *o,
                                      double *seconds, cgm_error *err);

/* Whether reverse Cuthill-McKee pays for configuration o on device dev over K = iterations (<= 0:
 * cgm_iterations_estimate): RCM computed and timed here (the cost), both numberings predicted
 * (cgm_predict_config), the choice by cgm_tuner_reorder. plan_none: the plan of A as numbered for
 * o where the caller made it already (a solve's analysis), else NULL. */
CGM_API cgm_status cgm_reorder_decide(const cgm_csr *A, const cgm_features *f,
                                      const cgm_tuner_device *dev, const cgm_solve_opts *o,
                                      double iterations, const cgm_plan *plan_none,
                                      cgm_reorder_advice *a, cgm_error *err);

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

/* The matrix paths of a directory (its *.mtx files that are regular files, sorted by name), of a
 * list file (one path a line; empty lines and '#' lines skipped), or the one path of a matrix file
 * (a Matrix Market banner or gzip's magic). Anything but a directory or a regular file is refused
 * (CGM_EINPUT: a FIFO would block). *paths (and each path) is malloc'ed: cgm_matrix_paths_free.
 * CGM_EINPUT when there are none ("PATH: no matrices ..."). */
CGM_API cgm_status cgm_matrix_paths(const char *dir_or_list, char ***paths, int *count,
                                    cgm_error *err);
CGM_API void cgm_matrix_paths_free(char **paths, int count);

CGM_END_DECLS
